package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
)

// BenchmarkValidate is the guard's whole ValidateToolCall work, sessions
// included, on the ~1 KB calls bench/'s server benchmark sends: a Write
// call in Python syntax with aliases (repaired), and the same call as
// valid JSON (valid).
func BenchmarkValidate(b *testing.B) {
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	g, cleanup, err := New(DefaultConfig(), Options{Sessions: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	body := strings.Repeat(`def handler(event):\n    return {\'status\': 200}\n`, 19)
	valid := strings.Repeat(`def handler(event):\n    return {\"status\": 200}\n`, 19)
	calls := map[string]func(v int) repair.Call{
		"repaired": func(v int) repair.Call {
			return repair.Call{Name: "Write", Form: repair.FormText,
				Text: fmt.Sprintf(`{'file_path': 'src/handler.py', 'text': '# variant %d\n%s',}`, v, body)}
		},
		"valid": func(v int) repair.Call {
			return repair.Call{Name: "write_to_file", Form: repair.FormText,
				Text: fmt.Sprintf(`{"path": "src/handler.py", "content": "# variant %d\n%s"}`, v, valid)}
		},
	}
	ctx := context.Background()
	for _, name := range []string{"valid", "repaired"} {
		b.Run(name, func(b *testing.B) {
			variants := [2]repair.Call{calls[name](0), calls[name](1)}
			v, err := g.Validate(ctx, ValidateRequest{Call: variants[0], SessionID: "bench", ModelID: "deepseek-chat"})
			if err != nil || !v.OK() || (name == "repaired") != (len(v.Repairs) > 0) {
				b.Fatalf("%s: %v %+v", name, err, v)
			}
			b.SetBytes(int64(len(variants[0].Text)))
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				if _, err := g.Validate(ctx, ValidateRequest{Call: variants[i%2], SessionID: "bench", ModelID: "deepseek-chat"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidateUnknownParams is ValidateToolCall's work, the bound on
// the answer included, on a write call with n parameters the tool does not
// declare (11 bytes each): ns/key should stay flat from 10k to 100k keys.
func BenchmarkValidateUnknownParams(b *testing.B) {
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	g, cleanup, err := New(DefaultConfig(), Options{Sessions: store, MaxVerdictBytes: MaxVerdictBytes})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		var text strings.Builder
		text.WriteString(`{"path":"a.txt","content":"x"`)
		for i := range n {
			fmt.Fprintf(&text, `,"k%d":1`, i)
		}
		text.WriteString("}")
		call := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: text.String()}
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.SetBytes(int64(text.Len()))
			b.ReportAllocs()
			for b.Loop() {
				v, err := g.Validate(ctx, ValidateRequest{Call: call, SessionID: "bench"})
				if err != nil || v.OK() || len(v.Args) != 2 {
					b.Fatalf("%v: ok=%v with %d parameters echoed", err, v.OK(), len(v.Args))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
