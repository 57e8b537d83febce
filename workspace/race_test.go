//go:build unix

package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Races: what another process may change between toolguard's checks and
// its use of a path.

func TestParentSwappedBetweenCalls(t *testing.T) {
	for _, abs := range []bool{false, true} {
		t.Run(map[bool]string{false: "relative", true: "absolute"}[abs], func(t *testing.T) {
			e := newEnv(t)
			w := e.open(t, Options{})
			if _, err := w.WriteFile("d/canary.txt", []byte("first\n"), WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			outBefore := treeHash(t, e.out)
			if err := os.RemoveAll(e.in("d")); err != nil {
				t.Fatal(err)
			}
			target := "../outside"
			if abs {
				target = e.out
			}
			symlink(t, target, e.in("d"))
			for _, p := range []string{"d/canary.txt", "d/new.txt", "d/x/y.txt"} {
				_, err := w.WriteFile(p, []byte("pwned\n"), WriteOptions{})
				wantCode(t, "write "+p, err, CodeSymlink)
				_, _, err = w.ReadFile(p)
				wantCode(t, "read "+p, err, CodeSymlink)
			}
			wantCode(t, "remove", w.Remove("d/canary.txt"), CodeSymlink)
			wantCode(t, "rename", w.Rename("d/canary.txt", "c.txt"), CodeSymlink)
			if !maps(treeHash(t, e.out), outBefore) {
				t.Fatal("outside changed")
			}
		})
	}
}

// TestSwapDuringOperation swaps things between the checks and the I/O
// with a hook, the window a racing process would need.
func TestSwapDuringOperation(t *testing.T) {
	swapDirToLink := func(target func(e *env) string) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			if err := os.RemoveAll(e.in("d")); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(target(e), e.in("d")); err != nil {
				t.Error(err)
			}
		}
	}
	renameDirToLink := func(t *testing.T, e *env) {
		if err := os.Rename(e.in("d"), e.in("d.old")); err != nil {
			t.Error(err)
		}
		if err := os.Symlink("../outside", e.in("d")); err != nil {
			t.Error(err)
		}
	}
	swapFile := func(make func(t *testing.T, p string, e *env)) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			if err := os.Remove(e.in("d/f.txt")); err != nil {
				t.Error(err)
			}
			make(t, e.in("d/f.txt"), e)
		}
	}
	for _, c := range []struct {
		name        string
		swap        func(t *testing.T, e *env)
		read, write string // codes; "any" = some error
	}{
		// The directory is held open from the checks on, so the operation
		// stays in the directory that was removed.
		{"dir to relative link out", swapDirToLink(func(*env) string { return "../outside" }), CodeNotFound, CodeConflict},
		{"dir to absolute link out", swapDirToLink(func(e *env) string { return e.out }), CodeNotFound, CodeConflict},
		{"dir to absolute link in", swapDirToLink(func(e *env) string { return e.in("other") }), CodeNotFound, CodeConflict},
		// The held directory moved: the operation follows it, inside the
		// workspace.
		{"dir renamed, link put in its place", renameDirToLink, "", ""},
		// A file swapped for a link: the read refuses it (os.Root does not
		// let a link leave the directory the file is opened in), the write
		// replaces the link with the file.
		{"file to link out", swapFile(func(t *testing.T, p string, e *env) { os.Symlink("../../outside/canary.txt", p) }), CodeSymlink, ""},
		{"file to link in", swapFile(func(t *testing.T, p string, e *env) { os.Symlink("../other/f.txt", p) }), CodeSymlink, ""},
		{"file to link in the same dir", func(t *testing.T, e *env) {
			// g.txt exists before f.txt goes, so it cannot reuse f.txt's inode.
			writeFile(t, e.in("d/g.txt"), "g\n", 0o644)
			os.Remove(e.in("d/f.txt"))
			os.Symlink("g.txt", e.in("d/f.txt"))
		}, CodeConflict, ""},
		{"file to fifo", swapFile(func(t *testing.T, p string, e *env) { syscall.Mkfifo(p, 0o644) }), CodeNotRegular, ""},
		{"file to hard link", swapFile(func(t *testing.T, p string, e *env) { os.Link(filepath.Join(e.out, "canary.txt"), p) }), CodeConflict, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, op := range []string{"read", "write"} {
				e := newEnv(t)
				writeFile(t, e.in("d/f.txt"), "old\n", 0o644)
				writeFile(t, e.in("other/f.txt"), "other\n", 0o644)
				w := e.open(t, Options{})
				outBefore := treeHash(t, e.out)
				w.hooks.afterCheck = func(string) { c.swap(t, e) }
				var err error
				want := c.read
				if op == "read" {
					_, _, err = w.ReadFile("d/f.txt")
				} else {
					want = c.write
					_, err = w.WriteFile("d/f.txt", []byte("new\n"), WriteOptions{})
				}
				wantCode(t, op, err, want)
				if !maps(treeHash(t, e.out), outBefore) {
					t.Fatalf("%s: outside changed", op)
				}
				if readString(t, e.in("other/f.txt")) != "other\n" {
					t.Fatalf("%s: other/f.txt changed", op)
				}
				if tmp := tempFiles(t, e.base); len(tmp) > 0 {
					t.Fatalf("%s: temporary files left: %v", op, tmp)
				}
			}
		})
	}
}

// TestLinkReplacedBeforeReadlink replaces a link by a regular file between
// its lstat and its readlink: the refusal of any other race (CONFLICT), not
// a bare I/O error.
func TestLinkReplacedBeforeReadlink(t *testing.T) {
	for _, op := range []string{"read", "write"} {
		t.Run(op, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("f.txt"), "target\n", 0o644)
			symlink(t, "f.txt", e.in("l"))
			w := e.open(t, Options{})
			w.hooks.beforeReadlink = func(string) {
				if err := os.Remove(e.in("l")); err != nil {
					t.Error(err)
				}
				writeFile(t, e.in("l"), "now a file\n", 0o644)
			}
			var err error
			if op == "read" {
				_, _, err = w.ReadFile("l")
			} else {
				_, err = w.WriteFile("l", []byte("new\n"), WriteOptions{})
			}
			wantCode(t, op, err, CodeConflict)
			if readString(t, e.in("f.txt")) != "target\n" || readString(t, e.in("l")) != "now a file\n" {
				t.Errorf("%s changed a file", op)
			}
		})
	}
}

// TestLinkFileSwapRace reads and writes a name that another goroutine keeps
// switching between a link and a regular file (each put in place by an
// atomic rename): every failure must be a refusal, never a bare I/O error.
func TestLinkFileSwapRace(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("f.txt"), "target\n", 0o644)
	symlink(t, "f.txt", e.in("l"))
	w := e.open(t, Options{})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := e.in(fmt.Sprintf("swap%d", i))
			var err error
			if i%2 == 0 {
				err = os.Symlink("f.txt", tmp)
			} else {
				err = os.WriteFile(tmp, []byte("file\n"), 0o644)
			}
			if err == nil {
				err = os.Rename(tmp, e.in("l"))
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	refusals := map[string]int{}
	for i := range 2000 {
		var err error
		if i%2 == 0 {
			_, _, err = w.ReadFile("l")
		} else {
			_, err = w.WriteFile("l", []byte("written\n"), WriteOptions{})
		}
		if err != nil {
			if CodeOf(err) == "" {
				close(stop)
				<-done
				t.Fatalf("call %d: a bare error under a swap race: %v", i, err)
			}
			refusals[CodeOf(err)]++
		}
	}
	close(stop)
	<-done
	t.Logf("refusals: %v", refusals)
}
