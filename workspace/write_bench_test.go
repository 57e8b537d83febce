package workspace

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// bareWrite is the atomic-write recipe with plain os calls and no checks:
// the baseline WriteFile's confinement is measured against.
func bareWrite(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, ".bare-tmp-*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(f.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	d.Close()
	return err
}

var benchData = bytes.Repeat([]byte("0123456789abcdef"), 256) // 4 KiB

// BenchmarkAtomicWrite: a 4 KiB write replacing an existing file, through
// the Root with every check (root) and with the bare recipe (bare), side
// by side.
func BenchmarkAtomicWrite(b *testing.B) {
	b.Run("root", func(b *testing.B) {
		w, err := Open(b.TempDir(), Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		b.SetBytes(int64(len(benchData)))
		for b.Loop() {
			if _, err := w.WriteFile("src/bench.txt", benchData, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bare", func(b *testing.B) {
		dir := filepath.Join(b.TempDir(), "src")
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(benchData)))
		for b.Loop() {
			if err := bareWrite(dir, "bench.txt", benchData); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAtomicWriteRatio interleaves the two in one loop, so both see
// the same disk and cache state, and reports root time ÷ bare time
// (root_vs_bare; the target is ≤ 1.2).
func BenchmarkAtomicWriteRatio(b *testing.B) {
	w, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	dir := filepath.Join(b.TempDir(), "src")
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var root, bare time.Duration
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first, so neither always follows the other.
		first, second := func() {
			t0 := time.Now()
			if _, err := w.WriteFile("src/bench.txt", benchData, WriteOptions{}); err != nil {
				b.Fatal(err)
			}
			root += time.Since(t0)
		}, func() {
			t0 := time.Now()
			if err := bareWrite(dir, "bench.txt", benchData); err != nil {
				b.Fatal(err)
			}
			bare += time.Since(t0)
		}
		if i%2 == 1 {
			first, second = second, first
		}
		first()
		second()
	}
	if bare > 0 {
		b.ReportMetric(float64(root)/float64(bare), "root_vs_bare")
		b.ReportMetric(float64(root.Nanoseconds())/float64(b.N), "root_ns/op")
		b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare_ns/op")
	}
}
