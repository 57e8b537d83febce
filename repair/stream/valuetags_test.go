package stream

import (
	"github.com/toolguard/toolguard/repair"
)

// lostOpening ends the refusal of a closing tag that closes no parameter.
const lostOpening = ": an opening tag is missing or malformed, so where a value starts is unknown and the call was not read. Write each parameter with its opening and its closing tag, and send the whole call again."

// valueTagCases: a value's own tags written twice or left out, as
// qwen3-coder, MiniMax-M2, Claude's XML and GLM-4.5 write them. Written
// twice with nothing between, the tag is taken out (XML_REPAIRED) and the
// previews never show it; with layout between, or where the value closes
// the tag it repeats, the call is refused. A closing tag that closes no
// parameter refuses the call: the value before it is not dropped.
func valueTagCases() []streamCase {
	qwen := func(params string) string {
		return "<tool_call>\n<function=write_to_file>\n" + params + "</function>\n</tool_call>"
	}
	claude := func(tool, params string) string {
		return "<function_calls>\n<invoke name=\"" + tool + "\">\n" + params + "</invoke>\n</function_calls>"
	}
	xmlRepaired := func(param, detail string) []repair.Repair {
		return []repair.Repair{{Code: repair.CodeXMLRepaired, Param: param, Detail: detail}}
	}
	return []streamCase{
		{
			name:   "qwen3-coder parameter opening tag twice",
			format: QwenXML,
			pieces: []piece{text(qwen("<parameter=path><parameter=path>\na.py\n</parameter>\n<parameter=content>\nx = 1\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "x = 1"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py", "content": "x = 1"},
					Repairs: xmlRepaired("path", "the opening tag <parameter=path> was written twice; the second was taken out")}},
			},
		},
		{
			name:   "qwen3-coder parameter closing tag twice",
			format: QwenXML,
			pieces: []piece{text(qwen("<parameter=content>\nx = 1\n</parameter></parameter>\n<parameter=path>\na.py\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "x = 1"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py", "content": "x = 1"},
					Repairs: xmlRepaired("content", "the closing tag </parameter> was written twice; the second was taken out")}},
			},
		},
		{
			name:   "qwen3-coder parameter opening tag twice, a line between",
			format: QwenXML,
			pieces: []piece{text(qwen("<parameter=path>\n<parameter=path>\na.py\n</parameter>\n<parameter=content>\nx = 1\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "<parameter=path>\na.py", "content": "x = 1"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "<parameter=path>\na.py", "content": "x = 1"},
					Unparseable: `The value of "path" starts with a second opening tag <parameter=path> that is never closed: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, close it inside the value too.`}},
			},
		},
		{
			name:   "qwen3-coder content closing tag twice, a line between",
			format: QwenXML,
			pieces: []piece{text(qwen("<parameter=content>\nx = 1\n</parameter>\n</parameter>\n<parameter=path>\na.py\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "x = 1\n</parameter>"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py", "content": "x = 1\n</parameter>"},
					Unparseable: `The value of "content" ends with a second closing tag </parameter> that nothing in it opens: the tag was written twice, or the value holds it, so the call was not read. Write the tag once; if the value holds the tag, open it inside the value too.`}},
			},
		},
		{
			// Every value's closing tag is the same: the path's runs on.
			name:   "qwen3-coder parameter opening tag lost",
			format: QwenXML,
			pieces: []piece{text(qwen("<parameter=path>\na.py\n</parameter>\nx = 1\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py\n</parameter>\nx = 1"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py\n</parameter>\nx = 1"},
					Unparseable: `The value of "path" holds a closing tag </parameter> that nothing in it opens: a parameter's opening tag was lost, or the value holds the tag, so the call was not read. Write each parameter with its opening and closing tag and send the whole call again.`}},
			},
		},
		{
			name:   "qwen3-coder first parameter opening tag lost",
			format: QwenXML,
			pieces: []piece{text(qwen("\nx = 1\n</parameter>\n<parameter=path>\na.py\n</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py"},
					Unparseable: `The text "x = 1" before the closing tag </parameter> belongs to no parameter` + lostOpening}},
			},
		},
		{
			name:   "MiniMax-M2 parameter opening tag lost between parameters",
			format: MiniMax,
			pieces: []piece{text("<minimax:tool_call>\n<invoke name=\"list_files\">\n<parameter name=\"path\">src</parameter>\n<parameter name=\"recursive\">true</parameter>\nsrc/lib</parameter>\n</invoke>\n</minimax:tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src", "recursive": "true</parameter>\nsrc/lib"}},
				Calls: []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src", "recursive": "true</parameter>\nsrc/lib"},
					Unparseable: `The value of "recursive" holds a closing tag </parameter> that nothing in it opens: a parameter's opening tag was lost, or the value holds the tag, so the call was not read. Write each parameter with its opening and closing tag and send the whole call again.`}},
			},
		},
		{
			name:   "MiniMax-M2 parameter opening tag twice",
			format: MiniMax,
			pieces: []piece{text("<minimax:tool_call>\n<invoke name=\"write_to_file\">\n<parameter name=\"content\"><parameter name=\"content\">x = 1</parameter>\n<parameter name=\"path\">a.py</parameter>\n</invoke>\n</minimax:tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "x = 1"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.py", "content": "x = 1"},
					Repairs: xmlRepaired("content", `the opening tag <parameter name="content"> was written twice; the second was taken out`)}},
			},
		},
		{
			name:   "Claude XML content that opens and closes its own tag keeps it",
			format: ClaudeXML,
			pieces: []piece{text(claude("write_to_file", "<parameter name=\"content\"><parameter name=\"k\">v</parameter></parameter>\n<parameter name=\"path\">prompt.xml</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "prompt.xml", "content": "<parameter name=\"k\">v</parameter>"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "prompt.xml", "content": "<parameter name=\"k\">v</parameter>"}}},
			},
		},
		{
			name:   "Claude XML content that starts with its own tag twice and closes it",
			format: ClaudeXML,
			pieces: []piece{text(claude("write_to_file", "<parameter name=\"content\"><parameter name=\"content\">v</parameter></parameter>\n<parameter name=\"path\">a.xml</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.xml", "content": "v</parameter>"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams, Params: map[string]string{"path": "a.xml", "content": "v</parameter>"},
					Unparseable: `The value of "content" starts with its opening tag <parameter name="content"> a second time, and its tags do not balance without it: the tag was written twice, or the value holds it, so the call was not read. Write the tag once.`}},
			},
		},
		{
			name:   "Claude XML a closing tag inside a value that is no file text",
			format: ClaudeXML,
			pieces: []piece{text(claude("add_semantic_memory", "<parameter name=\"memory_text\">likes tea</parameter>\n[\"food\"]</parameter>\n"))},
			want: outcome{
				Starts: map[int]string{0: "add_semantic_memory"},
				Shown:  map[int]map[string]string{0: {"memory_text": "likes tea</parameter>\n[\"food\"]"}},
				Calls: []closed{{Index: 0, Name: "add_semantic_memory", Form: repair.FormParams, Params: map[string]string{"memory_text": "likes tea</parameter>\n[\"food\"]"},
					Unparseable: `The value of "memory_text" holds a closing tag </parameter> that nothing in it opens: a parameter's opening tag was lost, or the value holds the tag, so the call was not read. Write each parameter with its opening and closing tag and send the whole call again.`}},
			},
		},
		{
			name:   "GLM-4.5 value opening tag twice",
			format: GLM45,
			pieces: []piece{text("<tool_call>list_files\n<arg_key>path</arg_key>\n<arg_value><arg_value>src</arg_value>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src"}},
				Calls: []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src"},
					Repairs: xmlRepaired("path", "the opening tag <arg_value> was written twice; the second was taken out")}},
			},
		},
		{
			name:   "GLM-4.5 key closing tag twice",
			format: GLM45,
			pieces: []piece{text("<tool_call>list_files\n<arg_key>path</arg_key></arg_key>\n<arg_value>src</arg_value>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src"}},
				Calls: []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src"},
					Repairs: xmlRepaired("path", "the closing tag </arg_key> was written twice; the second was taken out")}},
			},
		},
		{
			name:   "GLM-4.5 key closing tag lost",
			format: GLM45,
			pieces: []piece{text("<tool_call>list_files\n<arg_key>path</arg_key>\n<arg_value>src</arg_value>\n<arg_key>recursive\n<arg_value>true</arg_value>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src"}},
				Calls: []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src"},
					Unparseable: `The text "<arg_key>recursive\n<arg_value>true" before the closing tag </arg_value> belongs to no parameter` + lostOpening}},
			},
		},
	}
}
