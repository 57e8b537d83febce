package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair/jsonrepair"
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
		// The call bench/'s server benchmark sends: a Python dict (single
		// quotes, escaped quotes, a trailing comma) with the file_path and
		// text aliases, under a tool alias.
		"python_dict": {Name: "Write", Form: FormText, Text: `{'file_path': 'src/handler.py', 'text': '# variant 0\n` +
			strings.Repeat(`def handler(event):\n    return {\'status\': 200}\n`, 19) + `',}`},
		// The same call as Cline's split XML parameters.
		"params": {Name: "write_to_file", Form: FormParams, Params: map[string]string{"path": "src/handler.py", "content": kbContent}},
		// A multi-edit of 8 items written as XML child elements, and the
		// same edits as JSON inside the tag.
		"xml_items":  {Form: FormXML, Text: "<multi_edit><path>src/handler.py</path><edits>" + strings.Repeat(xmlEditItem, 8) + "</edits></multi_edit>"},
		"json_items": {Form: FormXML, Text: "<multi_edit><path>src/handler.py</path><edits>[" + strings.Repeat(jsonEditItem+",", 7) + jsonEditItem + "]</edits></multi_edit>"},
	}
}

const (
	xmlEditItem  = "\n<edit>\n<old_text>\n    return {\"status\": 200}\n</old_text>\n<new_text>\n    return {\"status\": 201, \"body\": event}\n</new_text>\n</edit>"
	jsonEditItem = `{"old_text": "    return {\"status\": 200}", "new_text": "    return {\"status\": 201, \"body\": event}"}`
)

func mustQuote(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

// BenchmarkValidate measures the pure pipeline on a 1 KB write call.
func BenchmarkValidate(b *testing.B) {
	reg := mustRegistry(b)
	for _, name := range []string{"valid", "repaired", "python_dict", "params", "xml_items", "json_items"} {
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

// unknownParamsText is a write call carrying n parameters the tool does not
// declare, after its two real ones.
func unknownParamsText(n int) string {
	var b strings.Builder
	b.WriteString(`{"path":"a.txt","content":"x"`)
	for i := range n {
		fmt.Fprintf(&b, `,"unknown_%07d":1`, i)
	}
	b.WriteString("}")
	return b.String()
}

// BenchmarkUnknownParams measures validation of calls with many unknown
// parameters against the plain parse of the same text: ns/key should stay
// flat from 1k to 100k keys, and validation within a small multiple of the
// parse.
func BenchmarkUnknownParams(b *testing.B) {
	reg := mustRegistry(b)
	for _, n := range []int{1_000, 10_000, 100_000} {
		text := unknownParamsText(n)
		call := Call{Name: "write_to_file", Form: FormText, Text: text}
		b.Run(fmt.Sprintf("parse/keys=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := jsonrepair.Decode(text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
		b.Run(fmt.Sprintf("validate/keys=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if reg.Validate(call, Options{}).OK() {
					b.Fatal("a call with unknown parameters was usable")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
