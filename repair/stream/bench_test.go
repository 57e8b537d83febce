package stream

import (
	"encoding/json"
	"strings"
	"testing"
)

// benchArgs is about size bytes of write_to_file arguments whose content
// looks like source code: quotes, backslashes, braces, tags, non-ASCII.
func benchArgs(size int) string {
	var b strings.Builder
	for b.Len() < size {
		b.WriteString("func f() { s := \"</content> é \\\\ {}\" } // line\n")
	}
	raw, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": b.String()})
	return string(raw)
}

// BenchmarkParserDeltas measures the parser alone on 1 MB of OpenAI
// arguments in 16-byte deltas, and on the same text in one piece.
func BenchmarkParserDeltas(b *testing.B) {
	args := benchArgs(1 << 20)
	for _, n := range []int{16, len(args)} {
		name := "16B"
		if n == len(args) {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(args)))
			events := 0
			for b.Loop() {
				p, _ := New(OpenAI, Options{}, func(Event) { events++ })
				_ = p.ToolDelta(ToolDelta{Index: 0, ID: "call_1", Name: "write_to_file"})
				for i := 0; i < len(args); i += n {
					_ = p.ToolDelta(ToolDelta{Index: 0, Arguments: args[i:min(i+n, len(args))]})
				}
				_ = p.End(false)
			}
		})
	}
}
