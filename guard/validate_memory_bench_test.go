package guard

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// pythonDictWrite is about size bytes of a write call in Python syntax:
// single quotes, escaped quotes and newlines, a trailing comma, as a model
// writes a large file's content.
func pythonDictWrite(size int) string {
	var content strings.Builder
	for i := 0; content.Len() < size; i++ {
		fmt.Fprintf(&content, `def f%d(event):\n    return {\'status\': 200, "body": \'é\'}\n`, i)
	}
	return `{'path': 'src/big.py', 'content': '` + content.String() + `',}`
}

// BenchmarkValidateLargePythonDict is ValidateToolCall's work on a 16 MB
// write call in Python syntax, repaired: alloc_vs_input is the bytes it
// allocates over the input's size (goal ≤ 3).
func BenchmarkValidateLargePythonDict(b *testing.B) {
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	cfg := DefaultConfig()
	g, cleanup, err := New(cfg, Options{Sessions: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	text := pythonDictWrite(16 << 20)
	call := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: text}
	ctx := context.Background()
	v, err := g.Validate(ctx, ValidateRequest{Call: call, SessionID: "bench"})
	if err != nil || !v.OK() || len(v.Repairs) == 0 {
		b.Fatalf("%v: ok=%v repairs=%v %v", err, v != nil && v.OK(), v.Repairs, v.Violations)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n := 0
	for b.Loop() {
		n++
		if _, err := g.Validate(ctx, ValidateRequest{Call: call, SessionID: fmt.Sprintf("bench-%d", n)}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n)/float64(len(text)), "alloc_vs_input")
}
