package stream

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// jsonFormatCases are streamCases for the formats whose calls carry JSON
// after a header of special tokens (DeepSeek, Kimi K2, harmony, Mistral)
// or as bare objects (Llama 3), from output written as their chat
// templates render it.
func jsonFormatCases() []streamCase {
	return append(append(append(deepSeekCases(), kimiCases()...), harmonyCases()...), append(mistralCases(), llamaCases()...)...)
}

func deepSeekCases() []streamCase {
	return []streamCase{
		{
			name:   "deepseek_v31 prose around two calls, the end token inside a string",
			format: DeepSeekV31,
			pieces: []piece{text("Let me write it.\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_to_file<｜tool▁sep｜>{\"path\": \"t.md\", \"content\": \"ends with <｜tool▁call▁end｜> and }\\n\"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"é.txt\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>\nDone.")},
			want: outcome{
				Text:   "Let me write it.\n\n\nDone.",
				Starts: map[int]string{0: "write_to_file", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "t.md", "content": "ends with <｜tool▁call▁end｜> and }\n"}, 1: {"path": "é.txt"}},
				Calls: []closed{
					{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "t.md", "content": "ends with <｜tool▁call▁end｜> and }\n"}`},
					{Index: 1, Name: "read_file", Form: repair.FormText, Text: `{"path": "é.txt"}`},
				},
			},
		},
		{
			name:   "deepseek_v31 only calls: the section is layout; a call without its end token",
			format: DeepSeekV31,
			pieces: []piece{text("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>list_files<｜tool▁sep｜>{}<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"a\", \"limit\": 5}<｜tool▁calls▁end｜>\n")},
			want: outcome{
				Starts: map[int]string{0: "list_files", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {}, 1: {"path": "a", "limit": "json:5"}},
				Calls: []closed{
					{Index: 0, Name: "list_files", Form: repair.FormText, Text: `{}`},
					{Index: 1, Name: "read_file", Form: repair.FormText, Text: `{"path": "a", "limit": 5}`},
				},
			},
		},
		{
			name:   "deepseek_v31 prose mentioning a token stays prose",
			format: DeepSeekV31,
			pieces: []piece{text("Calls start with <｜tool▁call▁begin｜> and a name.\n<｜tool▁sep｜> alone is text")},
			want:   outcome{Text: "Calls start with <｜tool▁call▁begin｜> and a name.\n<｜tool▁sep｜> alone is text", Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		},
		{
			name:   "deepseek_v31 truncated inside a string",
			format: DeepSeekV31,
			pieces: []piece{text("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_to_file<｜tool▁sep｜>{\"path\": \"a\", \"content\": \"ab")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "ab"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "ab`, Truncated: true}},
			},
		},
		{
			name:   "deepseek_v3 fenced arguments, prose before, between and after",
			format: DeepSeekV3,
			pieces: []piece{text("I'll read both.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.go\"}\n```<｜tool▁call▁end｜>\nand then\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>write_to_file\n```json\n{\"path\": \"b.md\", \"content\": \"```json\\n{}\\n```<｜tool▁call▁end｜>\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\nBoth done.")},
			want: outcome{
				Text:   "I'll read both.\nand then\n\nBoth done.",
				Starts: map[int]string{0: "read_file", 1: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}, 1: {"path": "b.md", "content": "```json\n{}\n```<｜tool▁call▁end｜>"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a.go"}`},
					{Index: 1, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "b.md", "content": "` + "```json\\n{}\\n```" + `<｜tool▁call▁end｜>"}`},
				},
			},
		},
		{
			name:   "deepseek_v3 broken arguments go to repair without the fence",
			format: DeepSeekV3,
			pieces: []piece{text("<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a\" ) }\n```<｜tool▁call▁end｜>")},
			want: outcome{
				Starts: map[int]string{0: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "a"}},
				Calls:  []closed{{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a" ) }`}},
			},
		},
		{
			name:   "deepseek_v3 truncated after the fence opened",
			format: DeepSeekV3,
			pieces: []piece{text("ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"src/")},
			want: outcome{
				Text:   "ok",
				Starts: map[int]string{0: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "src/"}},
				Calls:  []closed{{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "src/`, Truncated: true}},
			},
		},
	}
}

func kimiCases() []streamCase {
	return []streamCase{
		{
			name:   "kimi_k2 two calls with ids, prose around",
			format: KimiK2,
			pieces: []piece{text("Reading the files.<|tool_calls_section_begin|>\n<|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a.py\"}<|tool_call_end|>\n<|tool_call_begin|>functions.write_to_file:1<|tool_call_argument_begin|>{\"path\": \"b.txt\", \"content\": \"a <|tool_call_end|> b \\\"q\\\"\"}<|tool_call_end|>\n<|tool_calls_section_end|>\nThat is all.")},
			want: outcome{
				Text:   "Reading the files.\nThat is all.",
				Starts: map[int]string{0: "read_file", 1: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py"}, 1: {"path": "b.txt", "content": `a <|tool_call_end|> b "q"`}},
				Calls: []closed{
					{Index: 0, ID: "functions.read_file:0", Name: "read_file", Form: repair.FormText, Text: `{"path": "a.py"}`},
					{Index: 1, ID: "functions.write_to_file:1", Name: "write_to_file", Form: repair.FormText, Text: `{"path": "b.txt", "content": "a <|tool_call_end|> b \"q\""}`},
				},
			},
		},
		{
			name:   "kimi_k2 id without namespace, singular section tokens",
			format: KimiK2,
			pieces: []piece{text("<|tool_call_section_begin|><|tool_call_begin|>list_files:12<|tool_call_argument_begin|>{\"recursive\": true}<|tool_call_end|><|tool_call_section_end|>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"recursive": "json:true"}},
				Calls:  []closed{{Index: 0, ID: "list_files:12", Name: "list_files", Form: repair.FormText, Text: `{"recursive": true}`}},
			},
		},
		{
			name:   "kimi_k2 a tool's own name and arguments parameters are arguments",
			format: KimiK2,
			pieces: []piece{text("<|tool_call_begin|>functions.create_task:0<|tool_call_argument_begin|>{\"name\": \"build\", \"arguments\": {\"x\": 1}}<|tool_call_end|>")},
			want: outcome{
				Starts: map[int]string{0: "create_task"},
				Shown:  map[int]map[string]string{0: {"name": "build", "arguments": `json:{"x":1}`}},
				Calls:  []closed{{Index: 0, ID: "functions.create_task:0", Name: "create_task", Form: repair.FormText, Text: `{"name": "build", "arguments": {"x": 1}}`}},
			},
		},
		{
			name:   "kimi_k2 truncated",
			format: KimiK2,
			pieces: []piece{text("<|tool_calls_section_begin|><|tool_call_begin|>functions.write_to_file:3<|tool_call_argument_begin|>{\"path\": \"a\", \"content\": \"x")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "x"}},
				Calls:  []closed{{Index: 0, ID: "functions.write_to_file:3", Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "x`, Truncated: true}},
			},
		},
	}
}

func llamaCases() []streamCase {
	return []streamCase{
		{
			name:   "llama3_json python tag, two calls separated by a semicolon",
			format: Llama3JSON,
			pieces: []piece{text("<|python_tag|>{\"name\": \"read_file\", \"parameters\": {\"path\": \"a.go\"}}; {\"name\": \"write_to_file\", \"parameters\": {\"path\": \"b.txt\", \"content\": \"x}; {\\\"name\\\": 1}\"}}")},
			want: outcome{
				Starts: map[int]string{0: "read_file", 1: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}, 1: {"path": "b.txt", "content": `x}; {"name": 1}`}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a.go"}`},
					{Index: 1, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "b.txt", "content": "x}; {\"name\": 1}"}`},
				},
			},
		},
		{
			name:   "llama3_json bare object at the start, type and arguments, prose after",
			format: Llama3JSON,
			pieces: []piece{text("\n{\"type\": \"function\", \"name\": \"list_files\", \"arguments\": {\"recursive\": false}}\nListed.")},
			want: outcome{
				Text:   "\nListed.",
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"recursive": "json:false"}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormText, Text: `{"recursive": false}`}},
			},
		},
		{
			name:   "llama3_json objects in prose, or not shaped as a call, are text",
			format: Llama3JSON,
			pieces: []piece{text(`{"name": "Ada", "age": 36}; then {"name": "read_file", "parameters": {}} inline; and ;`)},
			want: outcome{
				Text:   `{"name": "Ada", "age": 36}; then {"name": "read_file", "parameters": {}} inline; and ;`,
				Starts: map[int]string{}, Shown: map[int]map[string]string{},
			},
		},
		{
			name:   "llama3_json after the python tag, an object of any order; prose ends that",
			format: Llama3JSON,
			pieces: []piece{text("Calling.<|python_tag|>\n{\"parameters\": {\"path\": \"a\"}, \"name\": \"read_file\"};\n{\"arguments\": {}, \"name\": \"list_files\"}\ndone {\"parameters\": {}, \"name\": \"x\"}")},
			want: outcome{
				Text:   "Calling.\ndone {\"parameters\": {}, \"name\": \"x\"}",
				Starts: map[int]string{0: "read_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a"}`},
					{Index: 1, Name: "list_files", Form: repair.FormText, Text: `{}`},
				},
			},
		},
		{
			name:   "llama3_json truncated",
			format: Llama3JSON,
			pieces: []piece{text(`<|python_tag|>{"name": "write_to_file", "parameters": {"path": "a", "content": "ab`)},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "ab"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "ab`, Truncated: true}},
			},
		},
	}
}

func mistralCases() []streamCase {
	return []streamCase{
		{
			name:   "mistral array of calls after prose",
			format: Mistral,
			pieces: []piece{text("Checking.[TOOL_CALLS] [{\"name\": \"read_file\", \"arguments\": {\"path\": \"a]\"}}, {\"arguments\": {\"path\": \"b\", \"content\": \"[TOOL_CALLS]x[ARGS]{}\"}, \"name\": \"write_to_file\"}]\nDone.")},
			want: outcome{
				Text:   "Checking.\nDone.",
				Starts: map[int]string{0: "read_file", 1: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a]"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a]"}`},
					{Index: 1, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "b", "content": "[TOOL_CALLS]x[ARGS]{}"}`},
				},
			},
		},
		{
			name:   "mistral name and ARGS form, several calls, a call id",
			format: Mistral,
			pieces: []piece{text("[TOOL_CALLS]read_file[ARGS]{\"path\": \"a.go\"}[TOOL_CALLS]write_to_file[CALL_ID]a1B2c3D4e[ARGS]{\"path\": \"b\", \"content\": \"}{\"}\nthen prose")},
			want: outcome{
				Text:   "\nthen prose",
				Starts: map[int]string{0: "read_file", 1: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}, 1: {"path": "b", "content": "}{"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a.go"}`},
					{Index: 1, ID: "a1B2c3D4e", Name: "write_to_file", Form: repair.FormText, Text: `{"path": "b", "content": "}{"}`},
				},
			},
		},
		{
			name:   "mistral text breaks the array; brackets in prose are text",
			format: Mistral,
			pieces: []piece{text("[TOOL_CALLS][{\"name\": \"list_files\", \"arguments\": {}}\noops, {\"name\": \"x\"}] and [1, 2] {\"a\": 1}")},
			want: outcome{
				Text:   "\noops, {\"name\": \"x\"}] and [1, 2] {\"a\": 1}",
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormText, Text: `{}`}},
			},
		},
		{
			name:   "mistral truncated",
			format: Mistral,
			pieces: []piece{text("[TOOL_CALLS]write_to_file[ARGS]{\"path\": \"a\", \"content\": \"abc")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "abc"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "abc`, Truncated: true}},
			},
		},
	}
}

func harmonyCases() []streamCase {
	return []streamCase{
		{
			name:   "harmony analysis, a call, then the final answer",
			format: Harmony,
			pieces: []piece{text("<|channel|>analysis<|message|>Need to read a.go first.<|end|><|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"a.go\"}<|call|><|start|>assistant<|channel|>final<|message|>It holds package a.<|return|>")},
			want: outcome{
				Text:   "Need to read a.go first.It holds package a.",
				Starts: map[int]string{0: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.go"}},
				Calls:  []closed{{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path": "a.go"}`}},
			},
		},
		{
			name:   "harmony recipient in the start header, end tokens inside strings, two calls",
			format: Harmony,
			pieces: []piece{text("<|start|>assistant to=functions.write_to_file<|channel|>commentary json<|message|>{\"path\": \"h.md\", \"content\": \"a <|call|> b <|end|>\"}<|call|>\n<|start|>assistant<|channel|>commentary to=functions.list_files<|message|>{}<|call|>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "h.md", "content": "a <|call|> b <|end|>"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "h.md", "content": "a <|call|> b <|end|>"}`},
					{Index: 1, Name: "list_files", Form: repair.FormText, Text: `{}`},
				},
			},
		},
		{
			name:   "harmony a commentary preamble is text, a built-in recipient keeps its name",
			format: Harmony,
			pieces: []piece{text("<|channel|>commentary<|message|>Searching now.<|end|><|start|>assistant<|channel|>analysis to=browser.search code<|message|>{\"query\": \"go 1.24\"}<|call|>")},
			want: outcome{
				Text:   "Searching now.",
				Starts: map[int]string{0: "browser.search"},
				Shown:  map[int]map[string]string{0: {"query": "go 1.24"}},
				Calls:  []closed{{Index: 0, Name: "browser.search", Form: repair.FormText, Text: `{"query": "go 1.24"}`}},
			},
		},
		{
			name:   "harmony truncated",
			format: Harmony,
			pieces: []piece{text("<|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>{\"path\": \"a\", \"content\": \"x")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a", "content": "x"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "a", "content": "x`, Truncated: true}},
			},
		},
	}
}

// jsonFormatSeeds are fuzz seeds for the formats of jsonFormatCases: split
// tokens, tokens in strings, headers too long or cut, nesting, broken JSON.
func jsonFormatSeeds(format Format, long, huge, spaces string) []string {
	switch format {
	case DeepSeekV3, DeepSeekV31:
		head := "<｜tool▁call▁begin｜>a<｜tool▁sep｜>"
		if format == DeepSeekV3 {
			head = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>a\n```json\n"
		}
		return []string{
			head + `{"x": "<｜tool▁call▁end｜>", "y": [1, {"z": "\u00e9\ud83d\ude00"}]}` + "\n```<｜tool▁call▁end｜>" + head + "{}",
			"<｜tool▁calls▁begin｜>" + head + `{"c": "` + huge + `"}<｜tool▁call▁end｜><｜tool▁calls▁end｜> tail <｜tool`,
			"<｜tool▁call▁begin｜>" + long + "<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
			"<｜tool▁call▁begin｜>function<｜tool▁sep｜>" + long + "\n```json\n{}\n```<｜tool▁call▁end｜>",
			head + `{"x": [[[[[[[[[["</｜tool▁call▁end｜>"]]]]]]]]]]}<｜tool▁call▁end｜>after`,
			head + `{'x': True, "y": None} junk <｜tool▁calls▁end｜>`,
			"\xef\xbd" + head + "\xe2\x96{\"x\": \"\xff\"}<｜tool▁call▁end｜>\n\n",
			head + spaces + "<｜tool▁call▁end｜>" + head + "```\n{\"n\": [" + strings.Repeat("1,", 64) + "<｜tool▁call▁end｜>",
		}
	case Harmony:
		head := "<|start|>assistant<|channel|>commentary to=functions.a <|constrain|>json<|message|>"
		return []string{
			"<|channel|>analysis<|message|>\xe2\x82 think <|end|>" + head + `{"x": "<|call|>"}<|call|><|channel|>final<|message|>ok<|return|>`,
			"<|start|>assistant<|channel|>" + long + "<|message|>text<|end|>",
			"<|start|>assistant to=functions." + long + "<|channel|>commentary<|message|>{}<|call|>",
			head + `{"x": [[[[[[[[[[1]]]]]]]]]]} <|end|> after <|call|>`,
			head + `{"c": "` + huge + `"}<|call|>` + head + "{\"n\": [" + strings.Repeat("1,", 64) + "<|call|>",
			"<|channel|>commentary to=<|message|>x<|end|><|channel|> to=functions.b <|message|>",
			"\n assistantcommentary to=functions.write_to_filejson\n" + `{"path": "a", "content": "` + huge + `"}` + spaces + "x",
			"to=functions.read_file code {\"path\": [" + strings.Repeat("1,", 64) + head + "{}<|call|>",
		}
	case Mistral:
		return []string{
			`[TOOL_CALLS][{"name": "a", "arguments": {"x": "[TOOL_CALLS]"}}, {"name": "b", "arguments": {"c": "` + huge + `"}}, ]`,
			"[TOOL_CALLS]" + long + "[ARGS]{}[TOOL_CALLS]a[CALL_ID]" + long + "[ARGS]{\"x\": 1}",
			`[TOOL_CALLS]a[ARGS]{"x": [[[[[[[[[[1]]]]]]]]]]} after [TOOL_CALLS]b[ARGS]x`,
			`[TOOL_CALLS]  {"name": "a", "arguments": {"n": [` + strings.Repeat("1,", 64) + `]}}, {"name": "b"}]`,
			"[TOOL_CALLS]" + spaces + "[" + spaces + "{}]",
			`[TOOL_CALLS][{'name': 'a', 'arguments': {'x': True}} {"name": "c"}] [TOOL_CALLS]a[ARGS]123`,
		}
	case Llama3JSON:
		return []string{
			`{"name": "a", "parameters": {"x": "}; {"}};{"name": "b", "parameters": {"c": "` + huge + `"}} ; <|python_tag|>{"name": "c", "arguments": 1}`,
			`{"name": "` + long + `", "parameters": {}}`,
			`{"type": "function", "name": "a", "parameters": {"x": [[[[[[[[[[1]]]]]]]]]]}}; x {"name": "b", "parameters": {}}`,
			"  \n<|python_tag|>" + spaces + `{"name": "a\"b", "parameters": {}} {"name":"a","parameters":{"n": [` + strings.Repeat("1,", 64) + `]}}`,
			`{"name": "a", "parameters": {'x': None}} <|python_tag|>brave_search.call(query="x")`,
		}
	case KimiK2:
		head := "<|tool_call_begin|>functions.a:0<|tool_call_argument_begin|>"
		return []string{
			"<|tool_calls_section_begin|>" + head + `{"x": "<|tool_call_end|>"}<|tool_call_end|>` + head + `{"c": "` + huge + `"}<|tool_calls_section_end|>`,
			"<|tool_call_begin|>functions." + long + ":1<|tool_call_argument_begin|>{}<|tool_call_end|>",
			"<|tool_call_begin|>functions.:7<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_call_begin|>:<|tool_call_argument_begin|>",
			head + `{"x": [[[[[[[[[[1]]]]]]]]]], "y": "</tool_call_end|>"} <|tool_call_end|> after <|`,
			head + `{"n": [` + strings.Repeat("1,", 64) + `<|tool_call_end|>`,
		}
	}
	return nil
}

// jsonFormatBenchCalls returns, for BenchmarkParserText, a call to
// write_to_file with content in each format of jsonFormatCases.
func jsonFormatBenchCalls(content string) map[Format]string {
	args, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": content})
	body := `{"name": "write_to_file", "arguments": ` + string(args) + "}"
	return map[Format]string{
		Harmony:     "<|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>" + string(args) + "<|call|>",
		DeepSeekV3:  "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_to_file\n```json\n" + string(args) + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		DeepSeekV31: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_to_file<｜tool▁sep｜>" + string(args) + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		KimiK2:      "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_to_file:0<|tool_call_argument_begin|>" + string(args) + "<|tool_call_end|><|tool_calls_section_end|>",
		Mistral:     "[TOOL_CALLS][" + body + "]",
		Llama3JSON:  "<|python_tag|>" + body + ";",
	}
}

// TestJSONFormatLimits checks that a call past a limit is dropped and the
// text and calls after it are read as without limits, also in the formats
// whose calls end with their JSON value.
func TestJSONFormatLimits(t *testing.T) {
	big := strings.Repeat("x", 100)
	deep := strings.Repeat("[", 12) + `"]}"` + strings.Repeat("]", 12)
	tests := []struct {
		name   string
		format Format
		opts   Options
		text   string
		want   outcome
	}{
		{"deepseek_v31 param", DeepSeekV31, Options{MaxParamBytes: 50},
			"<｜tool▁call▁begin｜>w<｜tool▁sep｜>{\"c\": \"" + big + "\"}<｜tool▁call▁end｜>after<｜tool▁call▁begin｜>r<｜tool▁sep｜>{}<｜tool▁call▁end｜>",
			outcome{Text: "after", Errors: []string{CodeParamTooLarge},
				Calls: []closed{{Index: 1, Name: "r", Form: repair.FormText, Text: "{}"}}}},
		{"kimi_k2 call", KimiK2, Options{MaxCallBytes: 80},
			"<|tool_call_begin|>functions.w:0<|tool_call_argument_begin|>{\"c\": \"" + big + "\"}<|tool_call_end|> after",
			outcome{Text: " after", Errors: []string{CodeCallTooLarge}}},
		{"mistral too deep, then text", Mistral, Options{MaxJSONDepth: 4},
			"[TOOL_CALLS]w[ARGS]{\"a\": " + deep + "} after [TOOL_CALLS]r[ARGS]{}",
			outcome{Text: " after ", Errors: []string{CodeJSONTooDeep},
				Calls: []closed{{Index: 1, Name: "r", Form: repair.FormText, Text: "{}"}}}},
		{"llama3_json too deep, then the next call", Llama3JSON, Options{MaxJSONDepth: 4},
			`{"name": "w", "parameters": {"a": ` + deep + `}}; {"name": "r", "parameters": {}}`,
			outcome{Errors: []string{CodeJSONTooDeep},
				Calls: []closed{{Index: 1, Name: "r", Form: repair.FormText, Text: "{}"}}}},
		{"harmony param", Harmony, Options{MaxParamBytes: 50},
			"<|channel|>commentary to=functions.w<|message|>{\"c\": \"" + big + "\"}<|call|><|channel|>final<|message|>ok<|return|>",
			outcome{Text: "ok", Errors: []string{CodeParamTooLarge}}},
	}
	for _, tt := range tests {
		for _, split := range []string{"whole", "bytes"} {
			t.Run(tt.name+"/"+split, func(t *testing.T) {
				pieces := []piece{text(tt.text)}
				if split == "bytes" {
					pieces = resplit(pieces, fuzzCuts(nil))
				}
				got := feed(t, tt.format, tt.opts, pieces, false)
				got.Starts, got.Shown = nil, nil // a dropped call's depend on the split
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("outcome:\n got %#v\nwant %#v", got, tt.want)
				}
			})
		}
	}
}

// TestJSONFormatProseMemory checks that prose full of the bytes that may
// start a tag of these formats is passed on, not kept.
func TestJSONFormatProseMemory(t *testing.T) {
	chunk := strings.Repeat(`prose {"name": "x"}, [1, 2]; <|tool <｜tool▁ [TOOL_ `, 30)
	for _, f := range []Format{Harmony, DeepSeekV3, DeepSeekV31, KimiK2, Mistral, Llama3JSON} {
		got := ""
		p, err := New(f, Options{}, func(e Event) { got += e.Text })
		if err != nil {
			t.Fatal(err)
		}
		for range 1000 {
			if err := p.Text(chunk); err != nil {
				t.Fatal(err)
			}
		}
		if n := cap(p.text.buf); n > 4*len(chunk) {
			t.Errorf("%s: buffer capacity %d after 1000 pieces of prose of %d bytes", f, n, len(chunk))
		}
		if err := p.End(false); err != nil {
			t.Fatal(err)
		}
		if want := strings.Repeat(chunk, 1000); got != want {
			t.Errorf("%s: text of %d bytes, want the prose's %d", f, len(got), len(want))
		}
	}
}
