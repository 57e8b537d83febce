package edit

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// BenchmarkUnifiedDiffMemory diffs files of 1 and 8 MB changed in one
// line, in every line, and by a line inserted at the top and at the
// bottom: udiff, as the diff was made before, side by side with Unified,
// built whole and, over MaxDiffBytes as the answer then elides it, only
// hashed. alloc_vs_file is the bytes allocated per file byte:
//
//	go test -run '^$' -bench UnifiedDiffMemory -benchmem ./edit/
func BenchmarkUnifiedDiffMemory(b *testing.B) {
	for _, size := range []int{1 << 20, 8 << 20} {
		old := goSource(0, size)
		changes := []struct{ name, new string }{
			{"one-line", strings.Replace(old, "total := 0", "total := 1", 1)},
			{"every-line", strings.ReplaceAll(old, "\n", " \n")},
			{"insert-top", "// added\n" + old},
			{"insert-bottom", old + "// added\n"},
		}
		for _, c := range changes {
			for _, side := range []string{"udiff", "unified", "unified-hashed"} {
				b.Run(fmt.Sprintf("%dMB/%s/%s", size>>20, c.name, side), func(b *testing.B) {
					b.ReportAllocs()
					var m0, m1 runtime.MemStats
					runtime.ReadMemStats(&m0)
					for b.Loop() {
						switch side {
						case "udiff":
							_ = udiff.Unified("a/f", "b/f", old, c.new)
						case "unified":
							_ = Unified("f", "f", old, c.new).String()
						default:
							d := Unified("f", "f", old, c.new)
							if d.Len() > 1<<20 {
								h := sha256.New()
								_, _ = d.WriteTo(h)
							} else {
								_ = d.String()
							}
						}
					}
					runtime.ReadMemStats(&m1)
					b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(b.N)/float64(len(old)), "alloc_vs_file")
				})
			}
		}
	}
}
