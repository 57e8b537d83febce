package workspacetest

import (
	"fmt"
	"os"
	"syscall"
	"testing"
)

// requireRoot skips the test unless it runs as root.
func requireRoot(t testing.TB, what string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skipf("not running as root: mounting %s needs root, so this test cannot run here", what)
	}
}

// SmallTmpfs mounts a tmpfs of size bytes (rounded up to whole pages) on a
// new temporary directory and returns the directory. It is unmounted when the
// test ends.
func SmallTmpfs(t testing.TB, size int) string {
	t.Helper()
	requireRoot(t, "a tmpfs")
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", size)); err != nil {
		t.Fatalf("workspacetest: mount a tmpfs on %s: %v", dir, err)
	}
	unmountAtEnd(t, dir)
	return dir
}

// ReadOnly bind-mounts dir read-only on a new temporary directory and
// returns that directory: the same files, which no one can change through
// it. It is unmounted when the test ends.
func ReadOnly(t testing.TB, dir string) string {
	t.Helper()
	requireRoot(t, "a read-only bind mount")
	ro := t.TempDir()
	if err := syscall.Mount(dir, ro, "", syscall.MS_BIND, ""); err != nil {
		t.Fatalf("workspacetest: bind-mount %s on %s: %v", dir, ro, err)
	}
	unmountAtEnd(t, ro)
	// A bind mount takes its flags from a remount.
	if err := syscall.Mount("", ro, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Fatalf("workspacetest: remount %s read-only: %v", ro, err)
	}
	return ro
}

// unmountAtEnd unmounts dir when the test ends, before t.TempDir removes
// it (cleanups run last registered first). The detach lets it go even
// while a handle in it is still open.
func unmountAtEnd(t testing.TB, dir string) {
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("workspacetest: unmount %s: %v", dir, err)
		}
	})
}
