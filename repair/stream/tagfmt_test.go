package stream

import (
	"slices"
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// tagFormatCases are the streamCases of claude_xml, glm45 and pythonic:
// responses written as the models' chat templates lay them out.
func tagFormatCases() []streamCase {
	return slices.Concat(claudeXMLCases(), glmCases(), pythonicCases())
}

// literalsOnly ends every pythonic refusal.
const literalsOnly = ". Arguments must be Python literals: strings, numbers, True, False, None, and lists, tuples and dicts of them."

func pythonicCases() []streamCase {
	return []streamCase{
		{
			name:   "pythonic two calls as Llama 4 writes them: arguments become a JSON object",
			format: Pythonic,
			pieces: []piece{text(`[get_weather(city="Paris", unit='c'), list_files(path="src", recursive=True)]`)},
			want: outcome{
				Starts: map[int]string{0: "get_weather", 1: "list_files"},
				Shown:  map[int]map[string]string{0: {"city": "Paris", "unit": "c"}, 1: {"path": "src", "recursive": "json:true"}},
				Calls: []closed{
					{Index: 0, Name: "get_weather", Form: repair.FormText, Text: `{"city":"Paris","unit":"c"}`},
					{Index: 1, Name: "list_files", Form: repair.FormText, Text: `{"path":"src","recursive":true}`},
				},
			},
		},
		{
			name:   "pythonic literals: escapes, triple quotes, joined and raw strings, numbers, None, tuples, trailing commas",
			format: Pythonic,
			pieces: []piece{text("[add_semantic_memory(memory_text='it\\'s\\t\"q\" \\u00e9\\x41\\101 ' r'C:\\dir' \"\"\"\n  two\"\"\"" +
				", memory_tags=['a', \"b\",], extra={'k': (1, 2.5, -3, 0x1F, 1_000, None, False, 1e5, .5, (7,), ()), \"\": {}},)]")},
			want: outcome{
				Starts: map[int]string{0: "add_semantic_memory"},
				Shown: map[int]map[string]string{0: {"memory_text": "it's\t\"q\" éAA C:\\dir\n  two", "memory_tags": `json:["a","b"]`,
					"extra": `json:{"k":[1,2.5,-3,31,1000,null,false,100000.0,0.5,[7],[]],"":{}}`}},
				Calls: []closed{{Index: 0, Name: "add_semantic_memory", Form: repair.FormText,
					Text: `{"memory_text":"it's\t\"q\" éAA C:\\dir\n  two","memory_tags":["a","b"],"extra":{"k":[1,2.5,-3,31,1000,null,false,100000.0,0.5,[7],[]],"":{}}}`}},
			},
		},
		{
			name:   "pythonic in <|python_start|> and <|python_end|>, text after the list",
			format: Pythonic,
			pieces: []piece{text("<|python_start|>[write_to_file(path='a.py', content=\"\"\"def f():\n    return 'x'\n\"\"\")]<|python_end|>\n\nWrote a.py.")},
			want: outcome{
				Text:   "\n\nWrote a.py.",
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "def f():\n    return 'x'\n"}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a.py","content":"def f():\n    return 'x'\n"}`}},
			},
		},
		{
			name:   "pythonic a list after prose is text: the list must start the response",
			format: Pythonic,
			pieces: []piece{text(`Sure! [get_weather(city="Paris")]`)},
			want:   outcome{Text: `Sure! [get_weather(city="Paris")]`, Starts: map[int]string{}, Shown: map[int]map[string]string{}},
		},
		{
			name:   "pythonic a name or a call as a value refuses that call only",
			format: Pythonic,
			pieces: []piece{text(`[get_weather(city=paris), get_weather(city=lookup(q=")")), read_file(path="z")]`)},
			want: outcome{
				Starts: map[int]string{0: "get_weather", 1: "get_weather", 2: "read_file"},
				Shown:  map[int]map[string]string{0: {}, 1: {}, 2: {"path": "z"}},
				Calls: []closed{
					{Index: 0, Name: "get_weather", Form: repair.FormText, Text: "get_weather(city=paris)",
						Unparseable: `The call get_weather(...) cannot be read: the value of "city" has the name paris, not a literal; quote it if it is text` + literalsOnly},
					{Index: 1, Name: "get_weather", Form: repair.FormText, Text: `get_weather(city=lookup(q=")"))`,
						Unparseable: `The call get_weather(...) cannot be read: the value of "city" has a call to lookup(...), which is not run; write the value itself` + literalsOnly},
					{Index: 2, Name: "read_file", Form: repair.FormText, Text: `{"path":"z"}`},
				},
			},
		},
		{
			name:   "pythonic a positional argument is refused",
			format: Pythonic,
			pieces: []piece{text(`[read_file("a.txt")]`)},
			want: outcome{
				Starts: map[int]string{0: "read_file"},
				Shown:  map[int]map[string]string{0: {}},
				Calls: []closed{{Index: 0, Name: "read_file", Form: repair.FormText, Text: `read_file("a.txt")`,
					Unparseable: "The call read_file(...) passes an argument without a name; write each argument as name=value" + literalsOnly}},
			},
		},
		{
			name:   "pythonic cut off inside a string is truncated, its value shown so far",
			format: Pythonic,
			pieces: []piece{text(`[write_to_file(path="a.py", content="print(`)},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "a.py", "content": "print("}},
				Calls:  []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a.py","content":"print(`, Truncated: true}},
			},
		},
		{
			name:   "pythonic a string holding the list's own closers, quotes and escapes",
			format: Pythonic,
			pieces: []piece{text(`[write_to_file(path="x.md", content='Call it as [f(a=")")], then \'stop\'.\n')]`)},
			want: outcome{
				Starts: map[int]string{0: "write_to_file"},
				Shown:  map[int]map[string]string{0: {"path": "x.md", "content": "Call it as [f(a=\")\")], then 'stop'.\n"}},
				Calls: []closed{{Index: 0, Name: "write_to_file", Form: repair.FormText,
					Text: `{"path":"x.md","content":"Call it as [f(a=\")\")], then 'stop'.\n"}`}},
			},
		},
		{
			name:   "pythonic a list cut off after a ',' and a name: that call is truncated, not text",
			format: Pythonic,
			pieces: []piece{text(`[read_file(path="a"), read_fi`)},
			want: outcome{
				Starts: map[int]string{0: "read_file", 1: "read_fi"},
				Shown:  map[int]map[string]string{0: {"path": "a"}, 1: {}},
				Calls: []closed{
					{Index: 0, Name: "read_file", Form: repair.FormText, Text: `{"path":"a"}`},
					{Index: 1, Name: "read_fi", Form: repair.FormText, Text: `{`, Truncated: true},
				},
			},
		},
		{
			name:   "pythonic a call without arguments",
			format: Pythonic,
			pieces: []piece{text("\n[list_files()]\n")},
			want: outcome{
				Starts: map[int]string{0: "list_files"},
				Shown:  map[int]map[string]string{0: {}},
				Calls:  []closed{{Index: 0, Name: "list_files", Form: repair.FormText, Text: `{}`}},
			},
		},
	}
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
			"<tool_call>write_to_filepath</arg_key>a.txt</arg_value>\n<arg_key>content</arg_key>\n" + huge + "</arg_value>\n</tool_call>",
			"<tool_call>read_file \n path</arg_key><arg_value>a</arg_value><tool_call>xpath</arg_key></tool_call><tool_call>a\n" + long + "</arg_key>",
		}
	case Pythonic:
		return []string{
			`[a(x='''it's "q" ''' '\\'' "\\u00e9\\ud83d\\U0001F600\\x4\\7\\N{X}", y=[1, (2,), {'k': None}], z=-0.5e-3)]`,
			"[a(x=\"" + huge + "\", " + long + "=1), b(x=[[[[[[[[[[1]]]]]]]]]]), c(x={'a': {'b': {'c': [({},)]}}})]",
			`[a(x=b'1', y=f'{x}', z=1j, w=0x_1F, v=0o17, u=0b2, t=1__0, s=1e999, r=.5., q=...)]`,
			`[a(x={1: 2}), a(x={'a', 'b'}), a(x=(1)), a(1, x=2), a(x=1, x=2), a(x==1), a(*y), a(x=-True), a(x=- 5)]`,
			"[a(x=\"\xe2\x82\xac\xff\xe2\x82\"), b(x='\\\n\\\r\n')] \n tail [c()]",
			"  <|python_start|>  [ a . b ( x = 1 , ) , c ( ) , ] <|python_end|> after",
			"[a(x=r'\\'', y=R\"\\\\\", z=u'\\t', w=rb'x', v=Rf'y')]",
			"[a(x=\"\"), b(x=''), c(x=\"\"\"\"\"\"), d(x='''a''''), e(x=\"unterminated",
			"[a(x=[1, 2" + spaces + "]), b(x=" + long + "(" + long + "))]",
			"[a(x=lambda: 1), b(x=1 + 2), c(x=y.z), d(x='a'[0]), e(x=\"a\" if 1 else \"b\")]",
			"[]", "[ ", "[a", "[a(", "[a(x", "[a(x=", "[a(x='", "[a(x=''", "[a(x=1)", "[a(x=1),", "[a(x=1)]<|python_",
		}
	}
	return nil
}
