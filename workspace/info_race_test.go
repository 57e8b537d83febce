//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestInfoSwapDuringOperation swaps the path between Info's checks and its
// read: the answer is a refusal or a description of what was checked,
// never the content of what was swapped in.
func TestInfoSwapDuringOperation(t *testing.T) {
	swapFile := func(make func(t *testing.T, p string, e *env)) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			if err := os.Remove(e.in("d/f.txt")); err != nil {
				t.Error(err)
			}
			make(t, e.in("d/f.txt"), e)
		}
	}
	for _, c := range []struct {
		name string
		swap func(t *testing.T, e *env)
		code string
	}{
		{"dir to link out", func(t *testing.T, e *env) {
			if err := os.RemoveAll(e.in("d")); err != nil {
				t.Error(err)
			}
			symlink(t, "../outside", e.in("d"))
		}, CodeNotFound},
		{"file to link out", swapFile(func(t *testing.T, p string, e *env) { symlink(t, "../../outside/canary.txt", p) }), CodeSymlink},
		{"file to absolute link out", swapFile(func(t *testing.T, p string, e *env) { symlink(t, filepath.Join(e.out, "canary.txt"), p) }), CodeSymlink},
		{"file to hard link out", swapFile(func(t *testing.T, p string, e *env) { link(t, filepath.Join(e.out, "canary.txt"), p) }), CodeConflict},
		{"file to fifo", swapFile(func(t *testing.T, p string, e *env) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Error(err)
			}
		}), CodeNotRegular},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "old\n", 0o644)
			w := e.open(t, Options{})
			w.hooks.afterCheck = func(string) { c.swap(t, e) }
			info, err := w.Info("d/f.txt", true)
			wantCode(t, "info", err, c.code)
			if info.Data != nil || info.SHA256 != "" {
				t.Fatalf("read what was swapped in: %+v", info)
			}
		})
	}
}
