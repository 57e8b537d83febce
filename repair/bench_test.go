package repair

import (
	"encoding/json"
	"strings"
	"testing"
)

// kbContent is about 1 KB of Python, the size of a typical small write.
var kbContent = strings.Repeat("def handler(event):\n    return {\"status\": 200, \"body\": event}\n", 16)

func benchCalls(b *testing.B) map[string]Call {
	b.Helper()
	content, _ := json.Marshal(kbContent)
	return map[string]Call{
		// A call that is already right: parse, validate, nothing to repair.
		"valid": {Name: "write_to_file", Form: FormText, Text: `{"path":"src/handler.py","content":` + string(content) + `}`},
		// The seed's failure: a tool alias, parameter aliases, all wrapped
		// in raw_arguments as a JSON string.
		"repaired": {Name: "Write", Form: FormText, Text: `{"raw_arguments":` + mustQuote(`{"file_path":"src/handler.py","text":`+string(content)+`}`) + `}`},
		// The same call as Cline's split XML parameters.
		"params": {Name: "write_to_file", Form: FormParams, Params: map[string]string{"path": "src/handler.py", "content": kbContent}},
	}
}

func mustQuote(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// BenchmarkValidate measures the pure pipeline on a 1 KB write call.
func BenchmarkValidate(b *testing.B) {
	reg := mustRegistry(b)
	for _, name := range []string{"valid", "repaired", "params"} {
		call := benchCalls(b)[name]
		b.Run(name, func(b *testing.B) {
			res := reg.Validate(call, Options{})
			if !res.OK() {
				b.Fatalf("%s: not ok: %v", name, res.Violations)
			}
			b.SetBytes(int64(len(call.Text) + len(kbContent)*len(call.Params)/2))
			b.ReportAllocs()
			for b.Loop() {
				reg.Validate(call, Options{})
			}
		})
	}
}
