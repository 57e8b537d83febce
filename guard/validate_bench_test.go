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
