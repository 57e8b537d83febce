//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func TestWriteResult(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	res, err := w.WriteFile("src/app.py", []byte("print(1)\n"), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := WriteResult{Path: "src/app.py", Bytes: 9, Created: true, SHA256: sha("print(1)\n"), Mode: 0o644}
	if res != want {
		t.Errorf("create: %+v, want %+v", res, want)
	}
	if fi, _ := os.Stat(e.in("src")); fi.Mode().Perm()&0o700 != 0o700 || !fi.IsDir() {
		t.Errorf("directory mode %v", fi.Mode())
	}
	_, err = w.WriteFile(agentRoot+"/src/app.py", []byte("print(2)\n"), WriteOptions{ExpectedSHA256: strings.ToUpper(sha("print(1)\n"))})
	if err == nil {
		t.Fatal("agent path accepted without an agent root")
	}
	w2 := e.open(t, Options{AgentRoot: agentRoot})
	res, err = w2.WriteFile(agentRoot+"/src/app.py", []byte("print(2)\n"), WriteOptions{ExpectedSHA256: strings.ToUpper(sha("print(1)\n"))})
	want = WriteResult{Path: "src/app.py", Bytes: 9, PreviousSHA256: sha("print(1)\n"), SHA256: sha("print(2)\n"), Mode: 0o644}
	if err != nil || res != want {
		t.Errorf("replace: %+v, %v; want %+v", res, err, want)
	}
	data, info, err := w2.ReadFile("src/app.py")
	if err != nil || string(data) != "print(2)\n" || info != (FileInfo{Path: "src/app.py", Exists: true, Size: 9, Mode: 0o644, SHA256: sha("print(2)\n")}) {
		t.Errorf("read back %q %+v %v", data, info, err)
	}
	// Empty content is a file too.
	if res, err := w.WriteFile("empty", nil, WriteOptions{}); err != nil || res.SHA256 != sha("") || readString(t, e.in("empty")) != "" {
		t.Errorf("empty write %+v %v", res, err)
	}
}

func TestWriteKeepsMode(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	e := newEnv(t)
	w := e.open(t, Options{})
	for _, mode := range []fs.FileMode{0o600, 0o755, 0o640, 0o444} {
		name := "f" + strconv.FormatUint(uint64(mode), 8)
		writeFile(t, e.in(name), "old", mode)
		if err := os.Chmod(e.in(name), mode); err != nil {
			t.Fatal(err)
		}
		res, err := w.WriteFile(name, []byte("new"), WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(e.in(name))
		if fi.Mode().Perm() != mode || res.Mode != mode || readString(t, e.in(name)) != "new" {
			t.Errorf("%s: mode %v (result %v), want %v", name, fi.Mode(), res.Mode, mode)
		}
	}
	// New files are 0644 whatever the umask.
	if _, err := w.WriteFile("fresh", []byte("x"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(e.in("fresh")); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}
}

func TestWriteKeepsOwner(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	writeFile(t, e.in("owned"), "old", 0o640)
	// Only root can give a file away; anyone else checks that their own
	// ownership survives the rename.
	uid, gid := uint32(os.Geteuid()), uint32(os.Getegid())
	if uid == 0 {
		uid, gid = 1234, 5678
		if err := os.Chown(e.in("owned"), int(uid), int(gid)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.WriteFile("owned", []byte("new"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(e.in("owned"), &st); err != nil || st.Uid != uid || st.Gid != gid || st.Mode&0o7777 != 0o640 {
		t.Errorf("owner %d:%d mode %o, want %d:%d 640 (%v)", st.Uid, st.Gid, st.Mode&0o7777, uid, gid, err)
	}
}

func TestWriteConflict(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("f.txt"), "v1\n", 0o644)
	w := e.open(t, Options{})
	for _, c := range []struct {
		name, path, expected, code string
	}{
		{"stale hash", "f.txt", sha("v0\n"), CodeConflict},
		{"garbage hash", "f.txt", "not-hex", CodeConflict},
		{"hash for a missing file", "nope.txt", sha("v1\n"), CodeConflict},
		{"current hash", "f.txt", sha("v1\n"), ""},
	} {
		before := treeHash(t, e.ws)
		_, err := w.WriteFile(c.path, []byte("v2\n"), WriteOptions{ExpectedSHA256: c.expected})
		wantCode(t, c.name, err, c.code)
		if c.code != "" && !maps(before, treeHash(t, e.ws)) {
			t.Errorf("%s: the workspace changed", c.name)
		}
	}
	if readString(t, e.in("f.txt")) != "v2\n" {
		t.Error("the matching write did not happen")
	}
	_, err := w.WriteFile("f.txt", []byte("v3\n"), WriteOptions{ExpectedSHA256: sha("v1\n")})
	if err == nil || !strings.Contains(err.Error(), "changed since it was read") {
		t.Errorf("conflict message: %v", err)
	}
}

// TestFailedWriteLeavesOldFile injects failures at each step after the
// temporary file exists.
func TestFailedWriteLeavesOldFile(t *testing.T) {
	boom := errors.New("injected: no space left on device")
	for _, c := range []struct {
		name string
		set  func(w *Workspace)
	}{
		{"write fails", func(w *Workspace) {
			w.hooks.write = func(f *os.File, data []byte) (int, error) { return 0, boom }
		}},
		{"write fails halfway", func(w *Workspace) {
			w.hooks.write = func(f *os.File, data []byte) (int, error) {
				n, _ := f.Write(data[:len(data)/2])
				return n, boom
			}
		}},
		{"before rename", func(w *Workspace) {
			w.hooks.beforeRename = func(tmp, rel string) error { return boom }
		}},
		{"temporary file vanishes", func(w *Workspace) {
			w.hooks.beforeRename = func(tmp, rel string) error { return w.root.Remove(tmp) }
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "old content\n", 0o600)
			w := e.open(t, Options{})
			c.set(w)
			before := treeHash(t, e.ws)
			for _, p := range []string{"d/f.txt", "d/new.txt"} {
				_, err := w.WriteFile(p, []byte("new content that is longer\n"), WriteOptions{})
				if err == nil {
					t.Fatalf("%s: no error", p)
				}
				if CodeOf(err) != "" || (c.name != "temporary file vanishes" && !errors.Is(err, boom)) {
					t.Fatalf("%s: an I/O failure must be a plain error wrapping the cause: %v", p, err)
				}
			}
			if !maps(before, treeHash(t, e.ws)) {
				t.Errorf("the workspace changed:\n%v\n%v", before, treeHash(t, e.ws))
			}
			if tmp := tempFiles(t, e.base); len(tmp) > 0 {
				t.Errorf("temporary files left: %v", tmp)
			}
		})
	}
}

// TestReadOnlyDirectory makes the temporary file impossible to create.
func TestReadOnlyDirectory(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("ro/f.txt"), "old\n", 0o644)
	w := e.open(t, Options{})
	if err := os.Chmod(e.in("ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	_, err := w.WriteFile("ro/f.txt", []byte("new\n"), WriteOptions{})
	if os.Geteuid() == 0 {
		// Root ignores directory permissions: the write goes through,
		// whole, and leaves no temporary file.
		if err != nil || readString(t, e.in("ro/f.txt")) != "new\n" || len(tempFiles(t, e.ws)) > 0 {
			t.Fatalf("as root: err %v, content %q", err, readString(t, e.in("ro/f.txt")))
		}
		return
	}
	if err == nil || CodeOf(err) != "" {
		t.Fatalf("got %v, want a plain error", err)
	}
	if readString(t, e.in("ro/f.txt")) != "old\n" || len(tempFiles(t, e.ws)) > 0 {
		t.Error("old file not whole or temporary file left")
	}
}

// TestConcurrentWriters has many goroutines write whole contents to one
// path, and others increment a counter in a file with read-modify-write,
// all under Lock. Run with -race.
func TestConcurrentWriters(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	const goroutines, rounds = 12, 15
	contents := make([]string, goroutines)
	for i := range contents {
		contents[i] = strings.Repeat(fmt.Sprintf("writer %d\n", i), 100*(i+1))
	}
	if _, err := w.WriteFile("counter", []byte("0"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*goroutines*rounds)
	for i := range goroutines {
		wg.Go(func() {
			for range rounds {
				unlock := mustLock(t, w, "shared.txt")
				if _, err := w.WriteFile("shared.txt", []byte(contents[i]), WriteOptions{}); err != nil {
					errs <- err
				}
				unlock()
			}
		})
		wg.Go(func() {
			for range rounds {
				unlock := mustLock(t, w, "counter", "other")
				data, info, err := w.ReadFile("counter")
				if err == nil {
					n, _ := strconv.Atoi(string(data))
					_, err = w.WriteFile("counter", []byte(strconv.Itoa(n+1)), WriteOptions{ExpectedSHA256: info.SHA256})
				}
				if err != nil {
					errs <- err
				}
				unlock()
				unlock() // harmless
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := readString(t, e.in("shared.txt"))
	if !slicesContains(contents, got) {
		t.Errorf("shared.txt holds no whole content (%d bytes)", len(got))
	}
	if got := readString(t, e.in("counter")); got != strconv.Itoa(goroutines*rounds) {
		t.Errorf("counter = %s, want %d: lost updates", got, goroutines*rounds)
	}
	if n := w.locks.len(); n != 0 {
		t.Errorf("lock table holds %d entries after use", n)
	}
	if tmp := tempFiles(t, e.ws); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// mustLock locks rels, reporting a failure (from any goroutine) as an error.
func mustLock(t *testing.T, w *Workspace, rels ...string) func() {
	unlock, err := w.Lock(rels...)
	if err != nil {
		t.Errorf("Lock(%q): %v", rels, err)
		return func() {}
	}
	return unlock
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// TestLockOrder locks overlapping sets in every order; sorting makes it
// deadlock-free, and the table empties.
func TestLockOrder(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	sets := [][]string{{"a", "b"}, {"b", "a"}, {"b", "c"}, {"c", "a"}, {"c", "b", "a"}, {"a", "a"}, {"./a", "b/"}, {}}
	var mu sync.Mutex
	held := map[string]bool{}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 200 {
				set := sets[(i+j)%len(sets)]
				unlock := mustLock(t, w, set...)
				mine := map[string]bool{}
				for _, p := range set {
					mine[strings.Trim(p, "./")] = true
				}
				mu.Lock()
				for p := range mine {
					if held[p] {
						t.Errorf("%s held twice", p)
					}
					held[p] = true
				}
				mu.Unlock()
				mu.Lock()
				for p := range mine {
					delete(held, p)
				}
				mu.Unlock()
				unlock()
			}
		})
	}
	wg.Wait()
	if n := w.locks.len(); n != 0 {
		t.Errorf("lock table holds %d entries", n)
	}
}
