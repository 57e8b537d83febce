//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// wantStorageError checks that err is the file system's fault, marked with
// kind (ErrFull or ErrReadOnly) and still wrapping errno: no refusal.
func wantStorageError(t *testing.T, what string, err, kind error, errno syscall.Errno) {
	t.Helper()
	if err == nil || !errors.Is(err, kind) || !errors.Is(err, errno) || CodeOf(err) != "" {
		t.Fatalf("%s: got %v (code %q), want an error wrapping %q and %v", what, err, CodeOf(err), kind, errno)
	}
}

// TestStorageErrors injects each file system failure into the write of the
// temporary file: a full disk or quota and a read-only file system are
// marked, anything else stays a plain I/O error; the temporary file goes and
// the old file stays whole.
func TestStorageErrors(t *testing.T) {
	for _, c := range []struct {
		errno syscall.Errno
		kind  error // nil: neither
	}{
		{syscall.ENOSPC, ErrFull},
		{syscall.EDQUOT, ErrFull},
		{syscall.EROFS, ErrReadOnly},
		{syscall.EIO, nil},
	} {
		t.Run(c.errno.Error(), func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "old content\n", 0o644)
			w := e.open(t, Options{})
			w.hooks.write = func(f *os.File, data []byte) (int, error) {
				return 0, &fs.PathError{Op: "write", Path: f.Name(), Err: c.errno}
			}
			before := treeHash(t, e.ws)
			for _, p := range []string{"d/f.txt", "d/new.txt"} {
				_, err := w.WriteFile(p, []byte("new content\n"), WriteOptions{})
				if c.kind != nil {
					wantStorageError(t, p, err, c.kind, c.errno)
				} else if err == nil || errors.Is(err, ErrFull) || errors.Is(err, ErrReadOnly) || CodeOf(err) != "" {
					t.Fatalf("%s: got %v, want a plain I/O error", p, err)
				}
			}
			if !maps(before, treeHash(t, e.ws)) || len(tempFiles(t, e.base)) > 0 {
				t.Errorf("the workspace changed or a temporary file was left: %v", treeHash(t, e.ws))
			}
		})
	}
}

// TestDiskFull writes more than a small tmpfs holds.
func TestDiskFull(t *testing.T) {
	dir := workspacetest.SmallTmpfs(t, 64<<10)
	writeFile(t, filepath.Join(dir, "d/f.txt"), "old content\n", 0o644)
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := treeHash(t, dir)
	big := []byte(strings.Repeat("x", 256<<10))
	for _, p := range []string{"d/f.txt", "d/new.txt"} {
		_, err := w.WriteFile(p, big, WriteOptions{})
		wantStorageError(t, p, err, ErrFull, syscall.ENOSPC)
	}
	if !maps(before, treeHash(t, dir)) || len(tempFiles(t, dir)) > 0 {
		t.Errorf("the workspace changed or a temporary file was left: %v", treeHash(t, dir))
	}
	// A write that fits still works.
	if _, err := w.WriteFile("d/f.txt", []byte("small\n"), WriteOptions{}); err != nil || readString(t, filepath.Join(dir, "d/f.txt")) != "small\n" {
		t.Fatalf("a write that fits: %v", err)
	}
}

// TestReadOnlyWorkspace works on a workspace mounted read-only: reads
// work, every change fails as ErrReadOnly and changes nothing.
func TestReadOnlyWorkspace(t *testing.T) {
	src := t.TempDir()
	writeFile(t, filepath.Join(src, "d/f.txt"), "old content\n", 0o644)
	dir := workspacetest.ReadOnly(t, src)
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	before := treeHash(t, src)
	if data, _, err := w.ReadFile("d/f.txt"); err != nil || string(data) != "old content\n" {
		t.Fatalf("read: %q, %v", data, err)
	}
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"replace", func() error { _, err := w.WriteFile("d/f.txt", []byte("new\n"), WriteOptions{}); return err }},
		{"create", func() error { _, err := w.WriteFile("d/new.txt", []byte("new\n"), WriteOptions{}); return err }},
		{"create in a new directory", func() error { _, err := w.WriteFile("n/new.txt", []byte("new\n"), WriteOptions{}); return err }},
		{"remove", func() error { return w.Remove("d/f.txt") }},
		{"rename", func() error { return w.Rename("d/f.txt", "d/g.txt") }},
	} {
		wantStorageError(t, c.name, c.op(), ErrReadOnly, syscall.EROFS)
	}
	if !maps(before, treeHash(t, src)) {
		t.Errorf("the workspace changed: %v", treeHash(t, src))
	}
}
