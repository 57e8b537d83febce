package stream

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// autoInputs are responses in each format family, in mixed formats, and
// prose that mentions the formats' tokens, for the auto format.
var autoInputs = []struct{ name, text string }{
	{"hermes", "I'll read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"},
	{"qwen_xml in its wrapper", "<tool_call>\n<function=write_to_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\nx := \"</parameter>\"\n</parameter>\n</function>\n</tool_call>\nDone."},
	{"glm45", "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.go</arg_value>\n</tool_call><tool_call>list_files<arg_key>path</arg_key><arg_value>src</arg_value></tool_call>"},
	{"minimax", "<minimax:tool_call>\n<invoke name=\"read_file\">\n<parameter name=\"path\">a.go</parameter>\n</invoke>\n</minimax:tool_call>"},
	{"claude_xml", "Reading.\n\n<function_calls>\n<invoke name=\"read_file\">\n<parameter name=\"path\">a.go</parameter>\n</invoke>\n<invoke name=\"list_files\">\n<parameter name=\"path\">src</parameter>\n</invoke>\n</function_calls>"},
	{"harmony", "<|channel|>analysis<|message|>Need the file.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a.go\"}<|call|>"},
	{"deepseek_v3", "Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.go\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
	{"deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"<｜tool▁call▁end｜>\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>list_files<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
	{"kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a.go\"}<|tool_call_end|><|tool_calls_section_end|>"},
	{"mistral", "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}, {\"name\": \"list_files\", \"arguments\": {}}]\nok [TOOL_CALLS]read_file[ARGS]{\"path\": \"b\"}"},
	{"llama3_json", "<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.go\"}}; {\"name\": \"list_files\", \"parameters\": {}}"},
	{"llama3_json bare at the start", "{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.go\"}}"},
	{"xml_tags of a declared tool", "Let me look.\n<read_file>\n<path>a.go</path>\n</read_file>"},
	{"mixed formats in one response", "First <tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>\n<tool_call>\n<function=list_files>\n<parameter=path>src</parameter>\n</function>\n</tool_call>\nthen <function_calls><invoke name=\"read_file\"><parameter name=\"path\">b</parameter></invoke></function_calls>\nand <|tool_call_begin|>functions.read_file:3<|tool_call_argument_begin|>{\"path\": \"c\"}<|tool_call_end|>"},
	{"prose mentioning tokens", "Wrap calls in <tool_call> tags, like <tool_call> and </tool_call>; <function_calls> or <|tool_calls_section_begin|>, [TOOL_CALLS] or <|python_tag|> then {\"a\": 1}. <tool_call>name\nis GLM's; <｜tool▁calls▁begin｜> and <|end|>. End: <tool_call>"},
	{"prose then a bare object is text", "The shape: {\"name\": \"read_file\", \"parameters\": {}}"},
	{"hermes cut off", "<tool_call>{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"a\", \"content\": \"ab"},
}

// autoCases are the streamCases of the auto format: what each response of
// autoInputs gives.
func autoCases() []streamCase {
	json := func(i int, name, args string) closed {
		return closed{Index: i, Name: name, Form: repair.FormText, Text: args}
	}
	params := func(i int, name string, kv ...string) closed {
		m := map[string]string{}
		for k := 0; k < len(kv); k += 2 {
			m[kv[k]] = kv[k+1]
		}
		return closed{Index: i, Name: name, Form: repair.FormParams, Params: m}
	}
	path := func(p string) map[string]string { return map[string]string{"path": p} }
	want := []outcome{
		{Text: "I'll read it.\n", Calls: []closed{json(0, "read_file", `{"path": "a.go"}`)}, Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "\nDone.", Calls: []closed{params(0, "write_to_file", "path", "a.go", "content", `x := "</parameter>"`)}, Starts: map[int]string{0: "write_to_file"},
			Shown: map[int]map[string]string{0: {"path": "a.go", "content": `x := "</parameter>"`}}},
		{Calls: []closed{params(0, "read_file", "path", "a.go"), params(1, "list_files", "path", "src")}, Starts: map[int]string{0: "read_file", 1: "list_files"},
			Shown: map[int]map[string]string{0: path("a.go"), 1: path("src")}},
		{Calls: []closed{params(0, "read_file", "path", "a.go")}, Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "Reading.\n\n", Calls: []closed{params(0, "read_file", "path", "a.go"), params(1, "list_files", "path", "src")}, Starts: map[int]string{0: "read_file", 1: "list_files"},
			Shown: map[int]map[string]string{0: path("a.go"), 1: path("src")}},
		{Text: "Need the file.", Calls: []closed{json(0, "read_file", `{"path": "a.go"}`)}, Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "Sure.", Calls: []closed{json(0, "read_file", `{"path": "a.go"}`)}, Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Calls: []closed{json(0, "read_file", `{"path": "<｜tool▁call▁end｜>"}`), json(1, "list_files", "{}")}, Starts: map[int]string{0: "read_file", 1: "list_files"},
			Shown: map[int]map[string]string{0: path("<｜tool▁call▁end｜>"), 1: {}}},
		{Calls: []closed{{Index: 0, ID: "functions.read_file:0", Name: "read_file", Form: repair.FormText, Text: `{"path": "a.go"}`}}, Starts: map[int]string{0: "read_file"},
			Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "\nok ", Calls: []closed{json(0, "read_file", `{"path": "a.go"}`), json(1, "list_files", "{}"), json(2, "read_file", `{"path": "b"}`)},
			Starts: map[int]string{0: "read_file", 1: "list_files", 2: "read_file"}, Shown: map[int]map[string]string{0: path("a.go"), 1: {}, 2: path("b")}},
		{Calls: []closed{json(0, "read_file", `{"path": "a.go"}`), json(1, "list_files", "{}")}, Starts: map[int]string{0: "read_file", 1: "list_files"},
			Shown: map[int]map[string]string{0: path("a.go"), 1: {}}},
		{Calls: []closed{json(0, "read_file", `{"path": "a.go"}`)}, Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "Let me look.\n", Calls: []closed{{Index: 0, Name: "read_file", Form: repair.FormXML, Text: "<read_file>\n<path>a.go</path>\n</read_file>"}},
			Starts: map[int]string{0: "read_file"}, Shown: map[int]map[string]string{0: path("a.go")}},
		{Text: "First \nthen \nand ", Calls: []closed{json(0, "read_file", `{"path": "a"}`), params(1, "list_files", "path", "src"), params(2, "read_file", "path", "b"),
			{Index: 3, ID: "functions.read_file:3", Name: "read_file", Form: repair.FormText, Text: `{"path": "c"}`}},
			Starts: map[int]string{0: "read_file", 1: "list_files", 2: "read_file", 3: "read_file"},
			Shown:  map[int]map[string]string{0: path("a"), 1: path("src"), 2: path("b"), 3: path("c")}},
		{Text: autoInputs[14].text, Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		{Text: autoInputs[15].text, Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		{Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "ab`, Truncated: true}},
			Starts: map[int]string{0: "write_to_file"}, Shown: map[int]map[string]string{0: {"path": "a", "content": "ab"}}},
	}
	cases := make([]streamCase, len(autoInputs))
	for i, in := range autoInputs {
		cases[i] = streamCase{name: "auto " + in.name, format: Auto, pieces: []piece{text(in.text)}, want: want[i]}
	}
	return cases
}

// TestAutoOffsets checks that a closed call's Offset and End delimit its
// block in the response, whatever the split.
func TestAutoOffsets(t *testing.T) {
	blocks := map[string][]string{
		"qwen_xml in its wrapper": {"<function=write_to_file>\n<parameter=path>\na.go\n</parameter>\n<parameter=content>\nx := \"</parameter>\"\n</parameter>\n</function>"},
		"mixed formats in one response": {
			"<tool_call>{\"name\": \"read_file\", \"arguments\": {\"path\": \"a\"}}</tool_call>",
			"<function=list_files>\n<parameter=path>src</parameter>\n</function>",
			"<invoke name=\"read_file\"><parameter name=\"path\">b</parameter></invoke>",
			"<|tool_call_begin|>functions.read_file:3<|tool_call_argument_begin|>{\"path\": \"c\"}<|tool_call_end|>",
		},
	}
	for _, in := range autoInputs {
		want, ok := blocks[in.name]
		if !ok {
			continue
		}
		for _, step := range []int{1, 3, len(in.text)} {
			var got []string
			p, err := New(Auto, Options{Tools: xmlTools}, func(e Event) {
				if e.Kind == EventCallClosed {
					got = append(got, in.text[e.Offset:e.End])
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(in.text); i += step {
				_ = p.Text(in.text[i:min(i+step, len(in.text))])
			}
			_ = p.End(false)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("%s in pieces of %d: blocks\n%q\nwant\n%q", in.name, step, got, want)
			}
		}
	}
}
