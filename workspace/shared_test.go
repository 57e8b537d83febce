//go:build unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Two Workspaces on one directory stand for two replicas sharing it.

// TestSharedStart: a replica whose lock directory disagrees with the one the
// workspace names refuses to start, and a refused start leaves the lock
// directory and the workspace as it found them.
func TestSharedStart(t *testing.T) {
	for _, tc := range []struct {
		name         string
		first, other string // lock directories, under the test's base; "" for none
		refused      bool
	}{
		{"same lock directory", "locks", "locks", false},
		{"different lock directories", "locks", "other", true},
		{"none beside one", "locks", "", true},
		{"one beside none", "", "locks", false}, // no marker yet: it writes one
		{"none beside none", "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			dir := func(s string) string {
				if s == "" {
					return ""
				}
				return filepath.Join(e.base, s)
			}
			e.open(t, Options{LockDir: dir(tc.first)})
			w, err := Open(e.ws, Options{LockDir: dir(tc.other)})
			if !tc.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				_ = w.Close()
				return
			}
			if !errors.Is(err, ErrLockDirMismatch) {
				t.Fatalf("Open = %v, want ErrLockDirMismatch", err)
			}
			if tc.other != "" {
				if _, err := os.Stat(dir(tc.other)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("refused start left its lock directory: %v", err)
				}
			}
			id, err := readID(e.in(markerPath))
			if err != nil {
				t.Fatal(err)
			}
			if want, _ := readID(filepath.Join(dir(tc.first), identityName)); id != want {
				t.Errorf("marker names %s, want the first lock directory's %s", id, want)
			}
		})
	}
}

// TestSharedRuntime: a marker that changes under a running replica (another
// started meanwhile with a lock directory, or the marker rewritten to
// another) refuses its changes; a marker removed is written again.
func TestSharedRuntime(t *testing.T) {
	e := newEnv(t)
	plain := e.open(t, Options{})
	locked := e.open(t, Options{LockDir: filepath.Join(e.base, "locks")})
	if _, err := locked.WriteFile("a.txt", []byte("x"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.WriteFile("a.txt", []byte("y"), WriteOptions{}); !errors.Is(err, ErrLockDirMismatch) {
		t.Fatalf("write without the lock directory = %v, want ErrLockDirMismatch", err)
	}
	if got := readString(t, e.in("a.txt")); got != "x" {
		t.Errorf("a.txt = %q after a refused write", got)
	}
	// Another lock directory's marker: the locked replica refuses too.
	other := newEnv(t)
	other.open(t, Options{LockDir: filepath.Join(other.base, "locks")})
	data, err := os.ReadFile(other.in(markerPath))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, e.in(markerPath), string(data), 0o644)
	if _, err := locked.WriteFile("a.txt", []byte("z"), WriteOptions{}); !errors.Is(err, ErrLockDirMismatch) {
		t.Fatalf("write after the marker changed = %v, want ErrLockDirMismatch", err)
	}
	// Removed: written again by the replica with a lock directory.
	if err := os.Remove(e.in(markerPath)); err != nil {
		t.Fatal(err)
	}
	if _, err := locked.WriteFile("a.txt", []byte("z"), WriteOptions{}); err != nil {
		t.Fatalf("write after the marker was removed: %v", err)
	}
	if id, _ := readID(e.in(markerPath)); id != locked.LockDirID() || id == "" {
		t.Errorf("marker rewritten with %q, want %q", id, locked.LockDirID())
	}
}

// TestSharedMarkerDenied: the workspace's own area is denied to calls, in
// any spelling the deny battery knows.
func TestSharedMarkerDenied(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{LockDir: filepath.Join(e.base, "locks")})
	for _, p := range []string{".toolguard", ".toolguard/lock-dir", ".TOOLGUARD/lock-dir", "./.toolguard/../.toolguard/lock-dir", ".toolguard./lock-dir", ".toolguard/x"} {
		if _, err := w.Resolve(p); !IsCode(err, CodeDeniedPath) {
			t.Errorf("Resolve(%q) = %v, want %s", p, err, CodeDeniedPath)
		}
	}
	if _, err := w.Resolve("sub/.toolguard/x"); err != nil {
		t.Errorf("a .toolguard folder below the root is the project's: %v", err)
	}
}

// TestSharedMarkerArea: a .toolguard that is a link (into the workspace,
// where calls could rewrite the marker) or a file refuses the start; the
// marker's folder is hidden from walks like any denied name.
func TestSharedMarkerArea(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(e *env)
	}{
		{"link into the workspace", func(e *env) {
			mkdir(t, e.in("src"))
			if err := os.Symlink("src", e.in(MetaDir)); err != nil {
				t.Fatal(err)
			}
		}},
		{"file", func(e *env) { writeFile(t, e.in(MetaDir), "x", 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			tc.make(e)
			if _, err := Open(e.ws, Options{LockDir: filepath.Join(e.base, "locks")}); err == nil || !strings.Contains(err.Error(), "is not a folder") {
				t.Fatalf("Open = %v, want a refusal of %s", err, MetaDir)
			}
			if _, err := os.Stat(e.in("src/lock-dir")); err == nil {
				t.Error("marker written through the link")
			}
		})
	}
	e := newEnv(t)
	w := e.open(t, Options{LockDir: filepath.Join(e.base, "locks")})
	writeFile(t, e.in("a.txt"), "x", 0o644)
	var seen []string
	if _, err := w.Walk(context.Background(), ".", WalkOptions{}, func(en *Entry) error {
		seen = append(seen, en.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(seen, "a.txt") {
		t.Errorf("walk does not show a.txt: %v", seen)
	}
	for _, p := range seen {
		if strings.HasPrefix(p, MetaDir) {
			t.Errorf("walk shows %s: %v", p, seen)
		}
	}
}

// TestSharedStartRace: replicas with different lock directories starting at
// once on a fresh workspace: exactly one starts, whichever named its lock
// directory first; the others are refused and leave nothing behind.
func TestSharedStartRace(t *testing.T) {
	e := newEnv(t)
	const n = 8
	opened := make([]*Workspace, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			opened[i], errs[i] = Open(e.ws, Options{LockDir: filepath.Join(e.base, fmt.Sprint("locks", i))})
		})
	}
	close(start)
	wg.Wait()
	var winner *Workspace
	for i, w := range opened {
		switch {
		case errs[i] == nil && winner == nil:
			winner = w
			defer w.Close()
		case errs[i] == nil:
			_ = w.Close()
			t.Errorf("a second replica started with another lock directory")
		case !errors.Is(errs[i], ErrLockDirMismatch):
			t.Errorf("replica %d: %v, want ErrLockDirMismatch", i, errs[i])
		default:
			if _, err := os.Stat(filepath.Join(e.base, fmt.Sprint("locks", i))); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("refused replica %d left its lock directory", i)
			}
		}
	}
	if winner == nil {
		t.Fatal("no replica started")
	}
	if id, err := readID(e.in(markerPath)); err != nil || id != winner.LockDirID() {
		t.Errorf("marker names %q (%v), want the started replica's %q", id, err, winner.LockDirID())
	}
}

// FuzzParseID: a marker's text gives its id, trimmed and non-empty, or an
// error.
func FuzzParseID(f *testing.F) {
	f.Add("# comment\nid: 0123abcd\npath: /x\n")
	f.Add("id: \nid:  x ")
	f.Fuzz(func(t *testing.T, text string) {
		id, err := parseID(strings.NewReader(text), "marker")
		if err == nil && (id == "" || id != strings.TrimSpace(id)) {
			t.Fatalf("id %q from %q", id, text)
		}
	})
}
