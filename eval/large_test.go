package eval

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// writeCalls writes n lines to a file in dir, cycling through four kinds:
// a valid plain call, a Python-literal one (repaired), one missing a
// required parameter (refused), and a streamed OpenAI exchange whose call
// is valid. Models and paths vary so the keys and texts do.
func writeCalls(t testing.TB, dir string, n int) string {
	t.Helper()
	name := filepath.Join(dir, "calls.jsonl")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		model := fmt.Sprintf("model-%d", i%7)
		switch i % 4 {
		case 0:
			fmt.Fprintf(w, `{"tool":"Write","arguments":"{\"path\":\"f%d.py\",\"content\":\"print(%d)\"}","model":%q}`+"\n", i, i, model)
		case 1:
			fmt.Fprintf(w, `{"tool":"Write","arguments":"{'path': 'f%d.py', 'content': 'x = %d'}","model":%q}`+"\n", i, i, model)
		case 2:
			fmt.Fprintf(w, `{"tool":"Write","arguments":{"path":"f%d.py"},"model":%q}`+"\n", i, model)
		default:
			fmt.Fprintf(w, `{"request":{"model":%q,"tools":[{"type":"function","function":{"name":"Write","parameters":`+
				`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}]},`+
				`"response":"data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"type\":\"function\",`+
				`\"function\":{\"name\":\"Write\",\"arguments\":\"{\\\"path\\\":\\\"g%d.py\\\",\"}}]}}]}\n\n`+
				`data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"content\\\":\\\"y\\\"}\"}}]},\"finish_reason\":null}]}\n\n`+
				`data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n"}`+"\n", model, i)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestLargeInput: 100k lines, every call counted in its class, and the
// summary holds no more than its bounds.
func TestLargeInput(t *testing.T) {
	const n = 100_000
	name := writeCalls(t, t.TempDir(), n)
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var progress int
	e := newEvaluator(t, Options{Examples: 3, Progress: func(int64, int) { progress++ }})
	s := NewSummary()
	if err := e.Run(context.Background(), f, s); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{ClassUsable: n / 2, ClassRepaired: n / 4, ClassRefused: n / 4}
	checkCounts(t, "classes", s.Classes, want)
	if s.Lines != n || s.Calls != n || s.Exchanges != n/4 || s.PlainCalls != 3*n/4 || s.Unreadable != 0 {
		t.Errorf("lines %d, calls %d, exchanges %d, plain %d, unreadable %d", s.Lines, s.Calls, s.Exchanges, s.PlainCalls, s.Unreadable)
	}
	if len(s.Models) != 7 || len(s.Tools) != 1 || len(s.Examples[ClassUsable]) != 3 {
		t.Errorf("models %d, tools %d, usable examples %d", len(s.Models), len(s.Tools), len(s.Examples[ClassUsable]))
	}
	if progress != n/progressEvery+1 {
		t.Errorf("progress called %d times, want %d", progress, n/progressEvery+1)
	}
}

// BenchmarkRun judges files of 10k and 100k lines: the time per line and
// the bytes allocated per line should not grow with the file.
func BenchmarkRun(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		name := writeCalls(b, b.TempDir(), n)
		e := newEvaluator(b, Options{Examples: 3})
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := os.Open(name)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), f, NewSummary()); err != nil {
					b.Fatal(err)
				}
				_ = f.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/line")
		})
	}
}
