//go:build unix

package workspace

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const crashDirEnv = "TOOLGUARD_CRASH_CHILD_DIR"

// crashFiles are the files the child rewrites in turn.
var crashFiles = []string{"a.txt", "deep/b.txt", "deep/er/c.txt"}

// crashContent is a self-verifying file body: a header with the length
// and SHA-256 of the body that follows.
func crashContent(seq int, r *rand.Rand) []byte {
	body := bytes.Repeat([]byte(fmt.Sprintf("write %d\n", seq)), 1+r.IntN(100_000)) // up to ~1 MiB
	sum := sha256.Sum256(body)
	return append([]byte(fmt.Sprintf("len=%d sha=%s\n", len(body), hex.EncodeToString(sum[:]))), body...)
}

func verifyCrashContent(data []byte) error {
	header, body, ok := bytes.Cut(data, []byte("\n"))
	if !ok {
		return fmt.Errorf("no header in %d bytes", len(data))
	}
	var n int
	var want string
	if _, err := fmt.Sscanf(string(header), "len=%d sha=%s", &n, &want); err != nil {
		return fmt.Errorf("header %q: %v", header, err)
	}
	sum := sha256.Sum256(body)
	if len(body) != n || hex.EncodeToString(sum[:]) != want {
		return fmt.Errorf("torn file: header says %d bytes %s, body has %d bytes %x", n, want[:8], len(body), sum[:4])
	}
	return nil
}

// TestCrashChild is the child side of TestCrashKill: it writes the files in
// a loop, reporting each completed write on stdout, until it is killed.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		return // only meaningful as TestCrashKill's child process
	}
	w, err := Open(dir, Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	for seq := 0; seq < 100_000; seq++ {
		name := crashFiles[seq%len(crashFiles)]
		if _, err := w.WriteFile(name, crashContent(seq, r), WriteOptions{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stdout, seq) // the parent kills us after some of these
	}
	os.Exit(3)
}

// TestCrashKill kills a writing child with SIGKILL at random points, again
// and again, and checks that every file is always whole (old or new, never
// torn) and that Open removes the temporary files left behind. The kill
// points are random: after a random number of completed writes plus a
// random delay of up to 20 ms, and the contents vary in size from a few
// bytes to ~1 MiB, so the signal lands at every step of a write.
func TestCrashKill(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range crashFiles {
		if _, err := w.WriteFile(name, crashContent(-i, r), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	const rounds = 20
	leftovers := 0
	for round := range rounds {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		target := r.IntN(12) // completed writes before the kill; 0 kills in the first
		sc := bufio.NewScanner(out)
		for n := 0; n < target; n++ {
			if !sc.Scan() {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("round %d: child stopped after %d writes: %s", round, n, stderr.String())
			}
		}
		// A random delay of up to 20 ms places the kill anywhere within
		// the next writes (hashing the old file, writing the temporary
		// one, fsync, rename, directory fsync). It is the test's random
		// input, not a wait for anything: no outcome depends on timing.
		time.Sleep(time.Duration(r.IntN(20_000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("round %d: child was not killed (%v): %s", round, err, stderr.String())
		}
		for _, name := range crashFiles {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatalf("round %d: %s: %v", round, name, err)
			}
			if err := verifyCrashContent(data); err != nil {
				t.Fatalf("round %d: %s: %v", round, name, err)
			}
		}
		leftovers += countTemps(t, dir)
	}
	t.Logf("%d rounds, %d temporary files left by kills", rounds, leftovers)
	// The workspace's one owner: every leftover goes, however fresh.
	w, err = Open(dir, Options{CleanupMinAge: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if n := countTemps(t, dir); n != 0 {
		t.Errorf("%d temporary files remain after Open", n)
	}
	for _, name := range crashFiles {
		data, _, err := w.ReadFile(name)
		if err != nil || verifyCrashContent(data) != nil {
			t.Errorf("%s after Open: %v", name, err)
		}
	}
}

func countTemps(t *testing.T, dir string) int {
	n := 0
	for p := range treeHash(t, dir) {
		if strings.HasPrefix(filepath.Base(p), tempPrefix) {
			n++
		}
	}
	return n
}
