package stream

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// dialectCases are streamCases of what real models and servers make of
// their formats: tokens a server swallowed or stripped, tags a model left
// out. TestParser and TestChunkInvariance run them in every split.
func dialectCases() []streamCase {
	return slices.Concat(harmonyStopCases(), glmDialectCases(), harmonyStrippedCases())
}

// harmonyStopCases: vLLM, Ollama and LM Studio take gpt-oss's <|call|> for
// a stop token and keep it, so a body complete when the response ends is
// the whole call, with or without white space after it; a body cut short
// is truncated.
func harmonyStopCases() []streamCase {
	head := "<|channel|>analysis<|message|>Need to write hello.py.<|end|><|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>"
	args := `{"path": "hello.py", "content": "print(\"hi\")\n"}`
	whole := outcome{
		Text:   "Need to write hello.py.",
		Starts: map[int]string{0: "write_to_file"},
		Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "print(\"hi\")\n"}},
		Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: args}},
	}
	var cases []streamCase
	for _, f := range []Format{Harmony, Auto} {
		for _, end := range []struct{ name, tail string }{
			{"right after the closing brace", ""},
			{"then a newline", "\n"},
			{"then spaces and blank lines", "  \n\n"},
		} {
			cases = append(cases, streamCase{
				name:   f.String() + " gpt-oss <|call|> swallowed as a stop token, the response ending " + end.name,
				format: f, pieces: []piece{text(head + args + end.tail)}, want: whole,
			})
		}
		cases = append(cases, streamCase{
			name:   f.String() + " gpt-oss cut inside its arguments, <|call|> never came",
			format: f, pieces: []piece{text(head + `{"path": "hello.py", "content": "pri`)},
			want: outcome{
				Text:   "Need to write hello.py.",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "pri"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path": "hello.py", "content": "pri`, Truncated: true}},
			},
		})
	}
	return cases
}

// glmDialectCases: GLM-4.5, 4.6 and 4.7 leave out <arg_key> (the name runs
// into the first key, as in vLLM's reports) or <arg_value> (the value
// follows </arg_key>); the closing tags still say where each part ends, so
// the call is read and the repair reported. A run-in name that no declared
// tool and parameter split is refused, its value neither kept nor dropped.
func glmDialectCases() []streamCase {
	repaired := func(param, detail string) repair.Repair {
		return repair.Repair{Code: repair.CodeXMLRepaired, Param: param, Detail: detail}
	}
	ranInto := `the tool name ran into the first parameter's key as "write_to_filepath", with no <arg_key> between them; it was read as tool "write_to_file" and parameter "path", the only split into a declared tool and one of its parameters`
	noValueTag := func(key string) string {
		return fmt.Sprintf("the value of %q had no opening tag <arg_value>; it was read from </arg_key> to its closing tag </arg_value>", key)
	}
	write := func(repairs ...repair.Repair) outcome {
		return outcome{
			Starts: map[int]string{0: "write_to_file"},
			Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "print(\"hi\")"}},
			Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
				Params: map[string]string{"path": "hello.py", "content": "print(\"hi\")"}, Repairs: repairs}},
		}
	}
	tests := []struct {
		name, in string
		want     outcome
	}{
		{"GLM-4.7 the name runs into the first key, <arg_key> left out",
			"<tool_call>write_to_filepath</arg_key><arg_value>hello.py</arg_value><arg_key>content</arg_key><arg_value>print(\"hi\")</arg_value></tool_call>",
			write(repaired("path", ranInto))},
		{"GLM-4.5 the name, a space and the first key, <arg_key> left out",
			"<tool_call>write_to_file path</arg_key>\n<arg_value>hello.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>print(\"hi\")</arg_value>\n</tool_call>",
			write(repaired("path", `"path" after the tool name had no opening tag <arg_key>; it was read as the first parameter's key`))},
		{"GLM-4.5 the first key on the line after the name, <arg_key> left out",
			"<tool_call>write_to_file\npath</arg_key>\n<arg_value>hello.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>print(\"hi\")</arg_value>\n</tool_call>",
			write(repaired("path", `the first parameter "path" had no opening tag <arg_key>; it was read from the line after the tool name`))},
		{"GLM-4.7 <arg_value> left out, the value right after </arg_key>",
			"<tool_call>write_to_file<arg_key>path</arg_key>hello.py</arg_value><arg_key>content</arg_key><arg_value>print(\"hi\")</arg_value></tool_call>",
			write(repaired("path", noValueTag("path")))},
		{"GLM-4.6 both left out, values on their own lines",
			"<tool_call>write_to_filepath</arg_key>hello.py</arg_value>\n<arg_key>content</arg_key>\nprint(\"hi\")\n</arg_value>\n</tool_call>",
			write(repaired("path", ranInto), repaired("path", noValueTag("path")), repaired("content", noValueTag("content")))},
		{"GLM-4.6 a run-in name no declared tool and parameter split is refused",
			"<tool_call>write_to_filecontents</arg_key><arg_value>x</arg_value></tool_call>",
			outcome{
				Starts: map[int]string{0: "write_to_filecontents"},
				Shown:  map[int]map[string]string{0: {}},
				Calls: []closed{{Index: 0, Name: "write_to_filecontents", Form: repair.FormParams, Params: map[string]string{},
					Unparseable: `The tool name and the first parameter's key ran together as "write_to_filecontents", with no <arg_key> between them, and no split of it makes a declared tool and one of its parameters, so the call was not read. Write the tool name, then <arg_key>key</arg_key><arg_value>value</arg_value> for each parameter.`}},
			}},
		{"GLM-4.5 a key with no value at all stays out",
			"<tool_call>list_files<arg_key>recursive</arg_key>\n<arg_key>path</arg_key><arg_value>src</arg_value></tool_call>",
			outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src"}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src"}}},
			}},
	}
	var cases []streamCase
	for _, f := range []Format{GLM45, Auto} {
		for _, tt := range tests {
			cases = append(cases, streamCase{name: f.String() + " " + tt.name, format: f, pieces: []piece{text(tt.in)}, want: tt.want})
		}
	}
	return cases
}

// TestGLMRunInAmbiguous: a run-in name that two declared tools split, each
// with a parameter of its own, is refused, naming both readings.
func TestGLMRunInAmbiguous(t *testing.T) {
	tools := map[string]ToolTags{
		"run":     {Params: map[string]bool{"testname": false}},
		"runtest": {Params: map[string]bool{"name": false}},
	}
	in := "<tool_call>runtestname</arg_key><arg_value>TestParse</arg_value></tool_call>"
	want := `The tool name and the first parameter's key ran together as "runtestname", with no <arg_key> between them, and it splits into more than one declared tool and parameter (run + testname, runtest + name), so the call was not read.`
	for _, f := range []Format{GLM45, Auto} {
		for _, n := range []int{0, 1, 2, 3, 5, 7} {
			pieces := []piece{text(in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, f, Options{Tools: tools}, pieces, false)
			if len(got.Calls) != 1 || !strings.HasPrefix(got.Calls[0].Unparseable, want) || len(got.Calls[0].Params) != 0 {
				t.Errorf("%s, pieces of %d: calls %+v", f, n, got.Calls)
			}
		}
	}
}

// harmonyStrippedCases: servers that drop gpt-oss's special tokens leave a
// call in the content as its header's words and its JSON (llama.cpp,
// LM Studio and Workers AI reports). It is the call where it is the whole
// response and names a declared tool; after prose, followed by anything,
// or to an undeclared tool, it stays text.
func harmonyStrippedCases() []streamCase {
	args := `{"path":"hello.py","content":"print(1)\n"}`
	call := func(in string) outcome {
		return outcome{
			Starts: map[int]string{0: "write_to_file"},
			Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "print(1)\n"}},
			Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: args, Repairs: []repair.Repair{{Code: repair.CodeXMLRepaired,
				Detail: `the call came as text, its harmony tokens (<|channel|>, <|message|>, <|call|>) stripped by the server; the response is only its header, naming the declared tool "write_to_file", and its arguments`}}}},
		}
	}
	asText := func(in string) outcome {
		return outcome{Text: in, Starts: map[int]string{}, Shown: map[int]map[string]string{}}
	}
	quoted := func(in string) outcome {
		return outcome{Text: in, Starts: map[int]string{0: "write_to_file"},
			Shown: map[int]map[string]string{0: {"path": "hello.py", "content": "print(1)\n"}}, Errors: []string{CodeCallQuoted}}
	}
	tests := []struct {
		name, in string
		want     func(string) outcome
	}{
		{"gpt-oss via vLLM, <|constrain|> and <|message|> stripped", "to=functions.write_to_file json" + args, call},
		{"gpt-oss via llama.cpp, the channel and the start header's role glued on", "assistantcommentary to=functions.write_to_file json\n" + args + "\n", call},
		{"gpt-oss a code constraint, white space around", "\n commentary to=functions.write_to_file code " + args + "\n\n", call},
		{"gpt-oss the constraint glued to the name", "commentary to=functions.write_to_filejson" + args, call},
		{"gpt-oss a tool not declared is text", `to=functions.delete_file json{"path":"hello.py"}`, asText},
		{"gpt-oss after its analysis, tokens stripped, is text", "analysisNeed to write.assistantcommentary to=functions.write_to_file json" + args, asText},
		{"gpt-oss prose quoting the header is text", "The log shows to=functions.write_to_file json" + args, asText},
		{"gpt-oss prose after it on its line", "to=functions.write_to_file json" + args + " was sent.", quoted},
		{"gpt-oss prose after it on a later line", "to=functions.write_to_file json" + args + "\n\nassistantfinalDone.", quoted},
	}
	cut := "to=functions.write_to_file json" + args[:33]
	head := "to=functions.write_to_file json" + args
	tests = append(tests, []struct {
		name, in string
		want     func(string) outcome
	}{
		{"gpt-oss stripped, cut inside its arguments", cut, func(string) outcome {
			o := call(cut)
			o.Calls[0].Text, o.Calls[0].Truncated, o.Shown[0] = args[:33], true, map[string]string{"path": "hello.py", "content": "pri"}
			return o
		}},
		{"gpt-oss stripped, then a call with its tokens: the first is text", head + "<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\":\"a.go\"}<|call|>", func(string) outcome {
			return outcome{Text: head, Starts: map[int]string{0: "write_to_file", 1: "read_file"},
				Shown:  map[int]map[string]string{0: {"path": "hello.py", "content": "print(1)\n"}, 1: {"path": "a.go"}},
				Calls:  []closed{{Index: 1, Name: "read_file", Form: repair.FormText, Text: `{"path":"a.go"}`}},
				Errors: []string{CodeCallQuoted}}
		}},
	}...)
	var cases []streamCase
	for _, f := range []Format{Harmony, Auto} {
		for _, tt := range tests {
			cases = append(cases, streamCase{name: f.String() + " " + tt.name, format: f, pieces: []piece{text(tt.in)}, want: tt.want(tt.in)})
		}
	}
	return cases
}
