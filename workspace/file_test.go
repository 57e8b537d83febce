//go:build unix

package workspace

import (
	"os"
	"testing"
	"time"
)

func TestOpenFileReadModifyWrite(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("f.txt"), "old\n", 0o640)
	symlink(t, "f.txt", e.in("l"))
	w := e.open(t, Options{})

	f, err := w.OpenFile("l")
	if err != nil {
		t.Fatal(err)
	}
	if f.Path() != "l" || f.Info().Path != "f.txt" || string(f.Data()) != "old\n" || f.Info().SHA256 != sha("old\n") || !f.Info().Exists {
		t.Fatalf("read %q: %+v", f.Path(), f.Info())
	}
	if w.locks.len() != 1 {
		t.Fatalf("%d paths locked", w.locks.len())
	}
	if err := f.Write([]byte("new\n")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f.Close()
	if w.locks.len() != 0 {
		t.Fatalf("%d paths locked after Close", w.locks.len())
	}
	if got := readString(t, e.in("f.txt")); got != "new\n" {
		t.Fatalf("f.txt: %q", got)
	}
	if fi, err := os.Lstat(e.in("l")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is gone: %v", err)
	}
	if fi, _ := os.Stat(e.in("f.txt")); fi.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", fi.Mode())
	}
	if err := f.Write([]byte("again\n")); err == nil {
		t.Fatal("wrote through a closed file")
	}
}

func TestOpenFileMissing(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	f, err := w.OpenFile("a/b/new.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Info().Exists || f.Data() != nil || f.Info().Path != "a/b/new.txt" {
		t.Fatalf("%+v", f.Info())
	}
	if err := f.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, e.in("a/b/new.txt")); got != "x\n" {
		t.Fatalf("got %q", got)
	}
	_, err = w.OpenFile("../x")
	wantCode(t, "outside", err, CodeOutsideWorkspace)
	_, err = w.OpenFile(".git/config")
	wantCode(t, "denied", err, CodeDeniedPath)
}

// TestOpenFileChangedBeforeWrite: another process changing the file between
// the read and the write makes the write a CONFLICT and leaves its change.
func TestOpenFileChangedBeforeWrite(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(t *testing.T, p string)
		want   string // the file's content after the refused write
	}{
		{"rewritten in place", func(t *testing.T, p string) {
			// A later modification time even on a coarse clock.
			writeFile(t, p, "theirs, longer\n", 0o644)
			later := time.Now().Add(time.Minute)
			os.Chtimes(p, later, later)
		}, "theirs, longer\n"},
		{"replaced", func(t *testing.T, p string) {
			writeFile(t, p+".tmp", "theirs\n", 0o644)
			if err := os.Rename(p+".tmp", p); err != nil {
				t.Fatal(err)
			}
		}, "theirs\n"},
		{"removed", func(t *testing.T, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "old\n", 0o644)
			w := e.open(t, Options{})
			f, err := w.OpenFile("d/f.txt")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.change(t, e.in("d/f.txt"))
			wantCode(t, "write", f.Write([]byte("mine\n")), CodeConflict)
			got, err := os.ReadFile(e.in("d/f.txt"))
			if c.want == "" {
				if !os.IsNotExist(err) {
					t.Fatalf("the file came back: %q", got)
				}
			} else if string(got) != c.want {
				t.Fatalf("content %q, want %q", got, c.want)
			}
			if tmp := tempFiles(t, e.base); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
		})
	}
}

// TestOpenLockedUnderBatchLock: files of a batch, locked together, are
// opened without taking their locks again; each is resolved, walked, read
// and hashed once from its resolve to its write, and Close leaves the lock
// to the batch.
func TestOpenLockedUnderBatchLock(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("a.txt"), "a\n", 0o644)
	w := e.open(t, Options{})
	before := w.IOCounts()
	ra, err := w.ResolveFile("./a.txt")
	if err != nil {
		t.Fatal(err)
	}
	rb, err := w.ResolveFile("d/b.txt")
	if err != nil {
		t.Fatal(err)
	}
	if ra.Rel() != "a.txt" || rb.Rel() != "d/b.txt" {
		t.Fatalf("resolved %q, %q", ra.Rel(), rb.Rel())
	}
	unlock, err := w.Lock(ra.Rel(), rb.Rel())
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	fa, err := w.OpenLocked(ra)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := w.OpenLocked(rb)
	if err != nil {
		t.Fatal(err)
	}
	if string(fa.Data()) != "a\n" || fb.Info().Exists {
		t.Fatalf("a %q, b %+v", fa.Data(), fb.Info())
	}
	if err := fa.Write([]byte("A\n")); err != nil {
		t.Fatal(err)
	}
	if err := fb.Write([]byte("B\n")); err != nil {
		t.Fatal(err)
	}
	fa.Close()
	fb.Close()
	if w.locks.len() != 2 {
		t.Fatalf("%d paths locked after Close, want the batch's 2", w.locks.len())
	}
	want := IOCounts{Resolves: 2, Walks: 2, Reads: 1, Hashes: 1} // b.txt did not exist
	if got := w.IOCounts().Sub(before); got != want {
		t.Errorf("file work %+v, want %+v", got, want)
	}
	if got := readString(t, e.in("a.txt")) + readString(t, e.in("d/b.txt")); got != "A\nB\n" {
		t.Errorf("files %q", got)
	}
	other := e.open(t, Options{})
	if _, err := other.OpenLocked(ra); err == nil {
		t.Error("opened a path another workspace resolved")
	}
}
