package stream

import (
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// tagFormatCases are the streamCases of claude_xml, glm45 and pythonic:
// responses written as the models' chat templates lay them out.
func tagFormatCases() []streamCase {
	return append(claudeXMLCases(), glmCases()...)
}

func claudeXMLCases() []streamCase {
	return []streamCase{
		{
			name:   "claude_xml two invokes in one block, prose around",
			format: ClaudeXML,
			pieces: []piece{text("I'll read the file and list the folder.\n\n<function_calls>\n<invoke name=\"read_file\">\n<parameter name=\"path\">src/main.go</parameter>\n</invoke>\n<invoke name=\"list_files\">\n<parameter name=\"path\">src</parameter>\n<parameter name=\"recursive\">true</parameter>\n</invoke>\n</function_calls>\n\nBoth are on their way.")},
			want: outcome{
				Text:   "I'll read the file and list the folder.\n\n\n\nBoth are on their way.",
				Starts: map[int]string{0: "read_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src/main.go"}, 1: {"path": "src", "recursive": "true"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "src/main.go"}},
					{Index: 1, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src", "recursive": "true"}},
				},
			},
		},
		{
			name:   "claude_xml a value holding </parameter> and </invoke> keeps them: only a tag after it closes the value",
			format: ClaudeXML,
			pieces: []piece{text("<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">docs/tags.md</parameter>\n<parameter name=\"content\">Close a value with </parameter> and a call with </invoke>.\n</parameter>\n</invoke>\n</function_calls>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "docs/tags.md", "content": "Close a value with </parameter> and a call with </invoke>."}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "docs/tags.md", "content": "Close a value with </parameter> and a call with </invoke>."}}},
			},
		},
		{
			name:   "claude_xml a JSON value stays text for the pipeline to type by the schema",
			format: ClaudeXML,
			pieces: []piece{text("<function_calls><invoke name=\"add_semantic_memory\"><parameter name=\"memory_text\">uses tabs</parameter><parameter name=\"memory_tags\">[\"style\", \"go\"]</parameter></invoke></function_calls>")},
			want: outcome{
				Starts: map[int]string{0: "add_semantic_memory"},
				Shown:  map[int]map[string]string{0: {"memory_text": "uses tabs", "memory_tags": `["style", "go"]`}},
				Calls: []closed{{Index: 0, Name: "add_semantic_memory", Form: repair.FormParams,
					Params: map[string]string{"memory_text": "uses tabs", "memory_tags": `["style", "go"]`}}},
			},
		},
		{
			name:   "claude_xml cut off inside a value is truncated",
			format: ClaudeXML,
			pieces: []piece{text("Writing it now.\n<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"path\">a.py</parameter>\n<parameter name=\"content\">print('hi')\n</param")},
			want: outcome{
				Text:   "Writing it now.\n",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "print('hi')\n</param"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "a.py", "content": "print('hi')\n</param"}, Truncated: true}},
			},
		},
		{
			name:   "claude_xml prose without a block passes on whole",
			format: ClaudeXML,
			pieces: []piece{text("An <invoke> needs a name; <parameter name=\"x\"> alone is text.\n")},
			want: outcome{
				Text:   "An <invoke> needs a name; <parameter name=\"x\"> alone is text.\n",
				Starts: map[int]string{}, Shown: map[int]map[string]string{},
			},
		},
	}
}

func glmCases() []streamCase {
	return []streamCase{
		{
			name:   "glm45 two calls as GLM-4.5 lays them out, prose before",
			format: GLM45,
			pieces: []piece{text("I'll look at the source first.\n<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>src/main.go</arg_value>\n</tool_call>\n<tool_call>list_files\n<arg_key>path</arg_key>\n<arg_value>src</arg_value>\n<arg_key>recursive</arg_key>\n<arg_value>true</arg_value>\n</tool_call>")},
			want: outcome{
				Text:   "I'll look at the source first.\n",
				Starts: map[int]string{0: "read_file", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "src/main.go"}, 1: {"path": "src", "recursive": "true"}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormParams, Params: map[string]string{"path": "src/main.go"}},
					{Index: 1, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "src", "recursive": "true"}},
				},
			},
		},
		{
			name:   "glm45 GLM-4.7 writes no newlines; a JSON value stays text for the schema",
			format: GLM45,
			pieces: []piece{text("<tool_call>add_semantic_memory<arg_key>memory_text</arg_key><arg_value>prefers tabs</arg_value><arg_key>memory_tags</arg_key><arg_value>[\"style\", \"go\"]</arg_value></tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "add_semantic_memory"},
				Shown:  map[int]map[string]string{0: {"memory_text": "prefers tabs", "memory_tags": `["style", "go"]`}},
				Calls: []closed{{Index: 0, Name: "add_semantic_memory", Form: repair.FormParams,
					Params: map[string]string{"memory_text": "prefers tabs", "memory_tags": `["style", "go"]`}}},
			},
		},
		{
			name:   "glm45 a value holding </arg_value> and </tool_call> keeps them: only a tag after it closes the value",
			format: GLM45,
			pieces: []piece{text("<tool_call>write_to_file\n<arg_key>path</arg_key>\n<arg_value>notes.md</arg_value>\n<arg_key>content</arg_key>\n<arg_value>End a value with </arg_value>, a call with </tool_call>.\n</arg_value>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "notes.md", "content": "End a value with </arg_value>, a call with </tool_call>."}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "notes.md", "content": "End a value with </arg_value>, a call with </tool_call>."}}},
			},
		},
		{
			name:   "glm45 a name followed by a space, spaces and a literal \\n between key and value",
			format: GLM45,
			pieces: []piece{text("Searching. <tool_call>list_files <arg_key>path</arg_key> \\n<arg_value>backend</arg_value> </tool_call>")},
			want: outcome{
				Text:   "Searching. ",
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {"path": "backend"}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormParams, Params: map[string]string{"path": "backend"}}},
			},
		},
		{
			name:   "glm45 a left-out </arg_value> ends at the next key on a new line",
			format: GLM45,
			pieces: []piece{text("<tool_call>write_to_file\n<arg_key>path</arg_key>\n<arg_value>a.txt\n<arg_key>content</arg_key>\n<arg_value>hi</arg_value>\n</tool_call>")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.txt", "content": "hi"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "a.txt", "content": "hi"},
					Repairs: []repair.Repair{{Code: repair.CodeXMLRepaired, Param: "path",
						Detail: `the value of "path" had no closing tag </arg_value>; it ended where parameter "content" opened on the next line`}}}},
			},
		},
		{
			name:   "glm45 prose that mentions the tag is prose",
			format: GLM45,
			pieces: []piece{text("GLM wraps each call in <tool_call> tags, with <arg_key> pairs.")},
			want: outcome{
				Text:   "GLM wraps each call in <tool_call> tags, with <arg_key> pairs.",
				Starts: map[int]string{}, Shown: map[int]map[string]string{},
			},
		},
		{
			name:   "glm45 cut off inside a value is truncated",
			format: GLM45,
			pieces: []piece{text("<tool_call>write_to_file\n<arg_key>path</arg_key>\n<arg_value>a.py</arg_value>\n<arg_key>content</arg_key>\n<arg_value>import os\n</arg_va")},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "import os\n</arg_va"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormParams,
					Params: map[string]string{"path": "a.py", "content": "import os\n</arg_va"}, Truncated: true}},
			},
		},
	}
}

// tagFormatSeeds are fuzz seeds beyond the streamCases: split characters,
// huge names and values, closing tokens inside values, unclosed blocks.
func tagFormatSeeds(format Format) []string {
	long := strings.Repeat("a", 300)
	huge := strings.Repeat("é", 700)
	spaces := strings.Repeat(" ", 1000)
	switch format {
	case ClaudeXML:
		return []string{
			"<function_calls><function_calls><invoke name=\"a\"><parameter name=\"x\">1</parameter></invoke></function_calls></function_calls>",
			"<function_calls>\n<invoke name=\"" + long + "\"></invoke>\n</function_calls>",
			"<function_calls><invoke name='a'><parameter name='x'>é</parameter ><parameter name=\"y\">" + huge + "</parameter></invoke>",
			"<function_calls><invoke name=\"a\"><parameter name=\"x\">1</parameter>" + spaces + "</invoke></function_calls> tail <",
			"<function_calls><invoke name=\"a\"><parameter name=\"x\">1\n<parameter name=\"y\">2\n<parameter name=\"x\">3</parameter></invoke></function_calls>",
			"<function_calls><invoke name=\"a\"><parameter name=\"x\">v </parameter> w </invoke> </function_calls>",
			"\n<function_calls>\n<invoke name=\"a\"></invoke>\n</function_calls>\n \n<function_calls>\n<invoke name=\"b\"></invoke>\n</function_calls>\n",
			"<function_calls>\xe2\x82<invoke name=\"\xff\"><parameter name=\"x\">\xe2\x82\xac</par",
		}
	case GLM45:
		return []string{
			"<tool_call>a\n<arg_key>" + long + "</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
			"<tool_call>" + long + "\n</tool_call><tool_call>a b\n</tool_call><tool_call>\n</tool_call>",
			"<tool_call>a<arg_key>x</arg_key>" + spaces + "<arg_value>1</arg_value></tool_call>",
			"<tool_call>a<arg_key>x</arg_key>\\n\\n\\<arg_value>1</arg_value><arg_key>x\n</arg_key><arg_value>2</arg_value></tool_call>",
			"<tool_call>a<arg_key>x</arg_key><arg_value>é" + huge + "</arg_value>" + spaces + "</tool_call> tail <tool_call>",
			"<tool_call>a<arg_key>x</arg_key><arg_value>1\n<arg_key>y</arg_key><arg_value>2\n<arg_key>x</arg_key><arg_value>3</arg_value></tool_call>",
			"<tool_call>a<arg_key>x</arg_key><arg_value>v </arg_value> w </tool_call> </arg_value></tool_call>",
			"\n<tool_call>a\n</tool_call>\n \n<tool_call>b\n</tool_call>\n",
			"<tool_call>\xff\xe2\x82\n<arg_key>\xe2\x82\xac</arg_key><arg_value>\xe2\x82\xac</arg_va",
		}
	}
	return nil
}
