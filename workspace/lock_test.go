//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Two Workspaces on one directory stand for two processes: their in-process
// tables are apart, and flock(2) locks on separate opens exclude each other
// as they do between processes.

// TestLockDirSerialisesWorkspaces increments a counter with read-modify-write
// through OpenFile from two Workspaces sharing a lock directory: no update
// is lost. With two different lock directories nothing holds them apart,
// which the first case would show as a short count.
func TestLockDirSerialisesWorkspaces(t *testing.T) {
	e := newEnv(t)
	lockDir := filepath.Join(e.base, "locks")
	a := e.open(t, Options{LockDir: lockDir})
	b := e.open(t, Options{LockDir: lockDir})
	if _, err := a.WriteFile("counter", []byte("0"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	const goroutines, rounds = 4, 50
	var wg sync.WaitGroup
	for i := range 2 * goroutines {
		w := a
		if i%2 == 1 {
			w = b
		}
		wg.Go(func() {
			for range rounds {
				if err := increment(w, "counter"); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, want := readString(t, e.in("counter")), strconv.Itoa(2*goroutines*rounds); got != want {
		t.Errorf("counter = %s, want %s: lost updates", got, want)
	}
	if n := a.locks.len() + b.locks.len(); n != 0 {
		t.Errorf("lock tables hold %d entries after use", n)
	}
	if tmp := tempFiles(t, e.ws); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

func increment(w *Workspace, rel string) error {
	f, err := w.OpenFile(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := strconv.Atoi(string(f.Data()))
	if err != nil {
		return err
	}
	return f.Write([]byte(strconv.Itoa(n + 1)))
}

// TestLockTimeout holds a path in one Workspace and times out in another,
// and in the same one: the error names the path and nothing stays held.
func TestLockTimeout(t *testing.T) {
	e := newEnv(t)
	lockDir := filepath.Join(e.base, "locks")
	a := e.open(t, Options{LockDir: lockDir})
	b := e.open(t, Options{LockDir: lockDir, LockTimeout: 30 * time.Millisecond})
	unlock, err := a.Lock("src/main.go", "b.txt")
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range map[string]*Workspace{"other process": b, "same process": a} {
		if name == "same process" {
			a.lockTimeout = 30 * time.Millisecond
		}
		_, err := w.Lock("./src/main.go")
		var te *LockTimeoutError
		if !errors.As(err, &te) {
			t.Fatalf("%s: Lock = %v, want a *LockTimeoutError", name, err)
		}
		if te.Path != "src/main.go" || te.Waited < 30*time.Millisecond {
			t.Errorf("%s: error path %q after %s, want src/main.go after 30ms or more", name, te.Path, te.Waited)
		}
		want := `file "src/main.go" is being changed by another call (waited `
		if !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; nothing was read or written: send the call again") {
			t.Errorf("%s: message %q", name, err)
		}
		if _, err := w.OpenFile("src/main.go"); !errors.As(err, &te) {
			t.Errorf("%s: OpenFile = %v, want a *LockTimeoutError", name, err)
		}
	}
	// A path not held is free meanwhile, in either.
	for _, w := range []*Workspace{a, b} {
		u, err := w.Lock("c.txt")
		if err != nil {
			t.Fatalf("Lock(c.txt) while others are held: %v", err)
		}
		u()
	}
	unlock()
	for _, w := range []*Workspace{a, b} {
		u, err := w.Lock("src/main.go", "b.txt")
		if err != nil {
			t.Fatalf("Lock after unlock: %v", err)
		}
		u()
	}
	if n := a.locks.len() + b.locks.len(); n != 0 {
		t.Errorf("lock tables hold %d entries after timeouts", n)
	}
}

// TestLockDirOrder locks overlapping sets in every order from two
// Workspaces: sorted stripes keep it deadlock-free (a deadlock would end in
// timeouts).
func TestLockDirOrder(t *testing.T) {
	e := newEnv(t)
	lockDir := filepath.Join(e.base, "locks")
	ws := []*Workspace{e.open(t, Options{LockDir: lockDir}), e.open(t, Options{LockDir: lockDir})}
	sets := [][]string{{"a", "b"}, {"b", "a"}, {"b", "c"}, {"c", "a"}, {"c", "b", "a"}, {"a", "a"}, {"d/e", "a"}}
	var wg sync.WaitGroup
	for i := range 6 {
		w := ws[i%2]
		wg.Go(func() {
			for j := range 100 {
				unlock, err := w.Lock(sets[(i+j)%len(sets)]...)
				if err != nil {
					t.Error(err)
					return
				}
				unlock()
			}
		})
	}
	wg.Wait()
}

// TestLockDirRefused: a lock directory inside the workspace is refused
// however it is spelled (through a link, "..", a folder still missing), and
// the refusal creates nothing.
func TestLockDirRefused(t *testing.T) {
	e := newEnv(t)
	mkdir(t, e.in("sub"))
	symlink(t, e.in("sub"), filepath.Join(e.base, "link"))
	for _, dir := range []string{
		e.ws,
		e.in(".toolguard-locks"),
		e.in("a/b"),
		filepath.Join(e.base, "link", "locks"),
		e.out + "/../ws/new/locks", // ".." as written, not cleaned by the test
	} {
		_, err := Open(e.ws, Options{LockDir: dir})
		want := fmt.Sprintf("workspace: lock directory %s is inside the workspace, where calls could remove its files; put it beside the workspace, on the same volume", dir)
		if err == nil || err.Error() != want {
			t.Errorf("Open with lock directory %s: %v, want %q", dir, err, want)
		}
	}
	if got := treeHash(t, e.ws); len(got) != 2 || got["sub"] != "dir" {
		t.Errorf("refused lock directories left %v in the workspace, want only sub/", got)
	}
	writeFile(t, filepath.Join(e.base, "file"), "x", 0o644)
	if _, err := Open(e.ws, Options{LockDir: filepath.Join(e.base, "file", "locks")}); err == nil {
		t.Error("Open with a lock directory under a file succeeded")
	}
}

// TestLockDirDiscard: Discard removes the lock folders (and probe file)
// Open created, and only those.
func TestLockDirDiscard(t *testing.T) {
	e := newEnv(t)
	existing := filepath.Join(e.base, "existing")
	mkdir(t, existing)
	writeFile(t, filepath.Join(existing, "probe.lock"), "", 0o600) // another opener's
	for _, tc := range []struct {
		dir  string
		gone string   // the first folder Open created
		kept []string // there before Open
	}{
		{dir: filepath.Join(e.base, "new", "locks"), gone: filepath.Join(e.base, "new"), kept: []string{e.base}},
		{dir: filepath.Join(existing, "locks"), gone: filepath.Join(existing, "locks"), kept: []string{existing}},
		{dir: existing, kept: []string{existing, filepath.Join(existing, "probe.lock")}},
	} {
		w, err := Open(e.ws, Options{LockDir: tc.dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Discard(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tc.gone); tc.gone != "" && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("lock directory %s: %s still there after Discard (%v)", tc.dir, tc.gone, err)
		}
		for _, p := range tc.kept {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("lock directory %s: %s removed by Discard (%v)", tc.dir, p, err)
			}
		}
	}
}

// TestLockDirInside covers what the guard checks against every workspace.
func TestLockDirInside(t *testing.T) {
	e := newEnv(t)
	other := filepath.Join(e.base, "other")
	mkdir(t, other)
	symlink(t, other, filepath.Join(e.base, "olink"))
	for _, tc := range []struct {
		dir, ws string
		want    bool
	}{
		{filepath.Join(other, "locks"), other, true},
		{filepath.Join(e.base, "olink", "x", "locks"), other, true},
		{filepath.Join(other, "locks"), filepath.Join(e.base, "olink"), true},
		{filepath.Join(e.base, "missing", "locks"), filepath.Join(e.base, "missing"), true},
		{filepath.Join(e.base, "locks"), other, false},
		{filepath.Join(e.base, "otherlocks"), other, false},
		{e.base, other, false},
	} {
		got, err := LockDirInside(tc.dir, tc.ws)
		if err != nil || got != tc.want {
			t.Errorf("LockDirInside(%s, %s) = %v, %v; want %v", tc.dir, tc.ws, got, err, tc.want)
		}
	}
}

func TestLockDirName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"default", "default"},
		{"team-a.prod", "team-a.prod"},
		{"a/b", "a%2Fb"},
		{`a\b`, "a%5Cb"},
		{"50%", "50%25"},
		{"..", "%.."},
		{".", "%."},
		{"", "%"},
	} {
		if got := LockDirName(tc.in); got != tc.want {
			t.Errorf("LockDirName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
