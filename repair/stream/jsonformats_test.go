package stream

import (
	"strings"

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
			pieces: []piece{text("I'll read both.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"a.go\"}\n```<｜tool▁call▁end｜>\nand then\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>write_to_file\n```json\n{\"path\": \"b.md\", \"content\": \"```json\\n{}\\n```<｜tool▁call▁end｜>\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>Both done.")},
			want: outcome{
				Text:   "I'll read both.\nand then\nBoth done.",
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

func harmonyCases() []streamCase { return nil }

func mistralCases() []streamCase { return nil }

func llamaCases() []streamCase { return nil }

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
