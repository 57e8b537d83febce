//go:build cgo && linux

package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/tsmem"
	"github.com/toolguard/toolguard/syntax"
)

// memoryFunctions are, per language parsed in Go, the block a generated
// file repeats, as benchFunctions are for tree-sitter's (the same verbs).
var memoryFunctions = map[string]string{
	"go":         "func process%[3]d(items []Item, limit int) int {\n\t%[1]s := 0\n\tfor _, %[2]s := range items[:limit] {\n\t\tif %[2]s.Value > %[3]d {\n\t\t\t%[1]s += %[2]s.Value * 2\n\t\t} else {\n\t\t\t%[1]s--\n\t\t}\n\t}\n\treturn %[1]s\n}\n\n",
	"javascript": "function process%[3]d(items, limit) {\n  let %[1]s = 0;\n  for (const %[2]s of items.slice(0, limit)) {\n    if (%[2]s.value > %[3]d) { %[1]s += %[2]s.value * 2; }\n    else { %[1]s -= 1; }\n  }\n  return %[1]s;\n}\n",
	"jsx":        "function Item%[3]d({ %[1]s, %[2]s }) {\n  return (\n    <li className=\"%[1]s\" data-n={%[3]d}>\n      {%[2]s.map((x) => <b key={x}>{x * 2}</b>)}\n    </li>\n  );\n}\n",
	"typescript": "function process%[3]d(items: Item[], limit: number): number {\n  let %[1]s: number = 0;\n  for (const %[2]s of items.slice(0, limit)) {\n    if (%[2]s.value > %[3]d) { %[1]s += %[2]s.value * 2; }\n    else { %[1]s -= 1; }\n  }\n  return %[1]s;\n}\n",
	"tsx":        "function Item%[3]d({ %[1]s, %[2]s }: { %[1]s: string; %[2]s: number[] }): JSX.Element {\n  return (\n    <li className={%[1]s} data-n={%[3]d}>\n      {%[2]s.map((x: number) => <b key={x}>{x * 2}</b>)}\n    </li>\n  );\n}\n",
	"css":        ".%[1]s-%[3]d > .%[2]s {\n  margin: 0 %[3]dpx;\n  color: #%06[3]x;\n  font: 12px/1.5 sans-serif;\n}\n",
	"json":       "  {\"id\": %[3]d, \"%[1]s\": {\"value\": %[3]d, \"tags\": [\"%[2]s\", \"limit\"]}, \"name\": \"%[2]s\"},\n",
	"yaml":       "%[1]s_%[3]d:\n  value: %[3]d\n  name: %[2]s\n  tags: [%[2]s, limit]\n  nested:\n    enabled: true\n",
	"toml":       "[%[1]s_%[3]d]\nvalue = %[3]d\nname = \"%[2]s\"\ntags = [\"%[2]s\", \"limit\"]\nenabled = true\n\n",
}

// memorySource is a file of lang of at least size bytes, "" for a
// language with no block here or in benchFunctions.
func memorySource(lang string, size int) string {
	block := cmpOr(memoryFunctions[lang], benchFunctions[lang])
	if block == "" {
		return ""
	}
	var b strings.Builder
	switch lang {
	case "php":
		b.WriteString("<?php\n")
	case "go":
		b.WriteString("package bench\n\n")
	case "json":
		b.WriteString("[\n")
	}
	for i := 0; b.Len() < size; i++ {
		acc, elem := fmt.Sprint(benchNames[i%len(benchNames)], i), fmt.Sprint(benchNames[(i/3+7)%len(benchNames)], "_", i)
		fmt.Fprintf(&b, block, acc, elem, i)
	}
	if lang == "json" {
		b.WriteString("  {}\n]\n")
	}
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// checkMemory checks src once and returns the most bytes the check held at
// once: tree-sitter's C heap at its peak, and the Go heap it allocated,
// counted with the collector off, which is what the Go heap grows by when
// no collection runs during the check.
func checkMemory(path string, src []byte) (cBytes, goBytes int64, r syntax.Result) {
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cBytes = tsmem.Peak(func() { r = syntax.Check(context.Background(), path, src, benchLimits) })
	runtime.ReadMemStats(&m1)
	return cBytes, int64(m1.TotalAlloc - m0.TotalAlloc), r
}

// BenchmarkSyntaxMemory measures, per language, the memory one syntax
// check holds at its peak per byte of a large generated file (1 and 4 MiB):
// C-B/B tree-sitter's C heap, Go-B/B the Go heap, B/B their sum.
// docs/limits.md has the table.
//
//	go test -run '^$' -bench SyntaxMemory -benchtime 3x ./bench/
func BenchmarkSyntaxMemory(b *testing.B) {
	sizes := []int{1 << 20, 4 << 20}
	if testing.Short() { // make bench-smoke: that it runs, not its figures
		sizes = []int{256 << 10}
	}
	for _, l := range syntax.Languages() {
		for _, size := range sizes {
			src := memorySource(l.Name, size)
			if src == "" || !l.Checked {
				continue
			}
			path := "bench" + l.Extensions[0]
			b.Run(fmt.Sprintf("%s/%dKiB", l.Name, size>>10), func(b *testing.B) {
				var cMax, goMax int64
				for b.Loop() {
					c, g, r := checkMemory(path, []byte(src))
					if !r.Checked || len(r.Errors) != 0 {
						b.Fatalf("the generated file: %+v", r)
					}
					cMax, goMax = max(cMax, c), max(goMax, g)
				}
				n := float64(len(src))
				b.ReportMetric(float64(cMax)/n, "C-B/B")
				b.ReportMetric(float64(goMax)/n, "Go-B/B")
				b.ReportMetric(float64(cMax+goMax)/n, "B/B")
			})
		}
	}
}

// BenchmarkSyntaxMemoryFiles is BenchmarkSyntaxMemory over real files,
// named by TOOLGUARD_BENCH_SYNTAX_FILES (a list separated by colons), each
// checked whole up to the size bound (benchLimits), errors or not:
//
//	TOOLGUARD_BENCH_SYNTAX_FILES=$(go env GOROOT)/src/cmd/compile/internal/ssa/rewriteAMD64.go \
//	  go test -run '^$' -bench SyntaxMemoryFiles -benchtime 2x ./bench/
func BenchmarkSyntaxMemoryFiles(b *testing.B) {
	files := strings.Split(os.Getenv("TOOLGUARD_BENCH_SYNTAX_FILES"), ":")
	for _, path := range files {
		if path == "" {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(filepath.Base(path), func(b *testing.B) {
			var cMax, goMax int64
			for b.Loop() {
				c, g, r := checkMemory(path, src)
				if !r.Checked {
					b.Fatalf("not checked: %s", r.Reason)
				}
				cMax, goMax = max(cMax, c), max(goMax, g)
			}
			n := float64(len(src))
			b.ReportMetric(n/(1<<20), "MiB")
			b.ReportMetric(float64(cMax)/n, "C-B/B")
			b.ReportMetric(float64(goMax)/n, "Go-B/B")
			b.ReportMetric(float64(cMax+goMax)/n, "B/B")
		})
	}
}

// TestSyntaxMemoryWithinFactors: the memory a check of a generated file
// (256 KiB) holds is within the factor its language registers, so the
// budget reserves at least what a check takes; memory counted, not time.
func TestSyntaxMemoryWithinFactors(t *testing.T) {
	for _, l := range syntax.Languages() {
		src := memorySource(l.Name, 256<<10)
		if !l.Checked {
			continue
		}
		if src == "" {
			t.Errorf("%s: no generated file to measure", l.Name)
			continue
		}
		c, g, r := checkMemory("bench"+l.Extensions[0], []byte(src))
		if !r.Checked || len(r.Errors) != 0 {
			t.Fatalf("%s: the generated file: %+v", l.Name, r)
		}
		if perByte := float64(c+g) / float64(len(src)); perByte > float64(l.MemoryFactor) {
			t.Errorf("%s: a check held %.1f bytes a byte, over its factor %d", l.Name, perByte, l.MemoryFactor)
		}
	}
}
