//go:build unix

package workspace

import (
	"path/filepath"
	"testing"
)

// BenchmarkLock compares locking one path in the process only with locking
// it across processes too (an open, a flock and a close more), and a whole
// read-modify-write of a small file either way: the lock's cost beside the
// write's fsyncs.
func BenchmarkLock(b *testing.B) {
	for _, tc := range []struct {
		name    string
		lockDir bool
	}{{"process", false}, {"lockdir", true}} {
		dir := b.TempDir()
		opts := Options{}
		if tc.lockDir {
			opts.LockDir = filepath.Join(b.TempDir(), "locks")
		}
		w, err := Open(dir, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("lock/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				unlock, err := w.Lock("src/main.go")
				if err != nil {
					b.Fatal(err)
				}
				unlock()
			}
		})
		b.Run("rmw/"+tc.name, func(b *testing.B) {
			for b.Loop() {
				f, err := w.OpenFile("counter.txt")
				if err != nil {
					b.Fatal(err)
				}
				if err := f.Write([]byte("0123456789\n")); err != nil {
					b.Fatal(err)
				}
				f.Close()
			}
		})
		w.Close()
	}
}
