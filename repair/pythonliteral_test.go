package repair

import (
	"reflect"
	"testing"
)

// TestPythonStringLiterals: Python-literal arguments with triple-quoted,
// raw and prefixed strings keep their text exactly, newlines and lone
// quotes included; a triple-quoted string cut off is TRUNCATED.
func TestPythonStringLiterals(t *testing.T) {
	tests := []struct {
		name      string
		text      string
		want      string // JSON of the value
		python    string // PYTHON_LITERAL detail
		truncated bool
	}{
		{
			name:   "qwen python dict, file content in ''' with quotes and a docstring",
			text:   "{'path': 'app.py', 'content': '''import os\n\ndef main():\n    \"\"\"Print the user's home.\"\"\"\n    print(os.environ['HOME'])\n'''}",
			want:   `{"content":"import os\n\ndef main():\n    \"\"\"Print the user's home.\"\"\"\n    print(os.environ['HOME'])\n","path":"app.py"}`,
			python: "converted single-quoted strings; converted triple-quoted strings",
		},
		{
			name:   `""" string ending in a quote of the other kind`,
			text:   "{'content': \"\"\"line1\nline2 'quoted'\"\"\"}",
			want:   `{"content":"line1\nline2 'quoted'"}`,
			python: "converted single-quoted strings; converted triple-quoted strings",
		},
		{
			name:   "escapes apply as in Python: \\n, \\t, \\\\, \\' and a line continuation",
			text:   "{'content': '''a\\nb\\tc\\\\d \\'e\\' one \\\ntwo'''}",
			want:   `{"content":"a\nb\tc\\d 'e' one two"}`,
			python: "converted single-quoted strings; converted triple-quoted strings",
		},
		{
			name:   "raw strings keep their backslashes",
			text:   `{'pattern': r'\d+\.\d+', 'path': r'''C:\new\tmp'''}`,
			want:   `{"path":"C:\\new\\tmp","pattern":"\\d+\\.\\d+"}`,
			python: "converted single-quoted strings; converted raw strings; converted triple-quoted strings",
		},
		{
			name:   "u prefix",
			text:   `{'title': u'caf\u00e9'}`,
			want:   `{"title":"café"}`,
			python: "converted single-quoted strings",
		},
		{
			name:   "triple-quoted strings in a list, and concatenated",
			text:   `{'lines': ['''a''', """b""" + 'c']}`,
			want:   `{"lines":["a","bc"]}`,
			python: "converted single-quoted strings; converted triple-quoted strings",
		},
		{
			name:      "cut off inside a triple-quoted string",
			text:      "{'path': 'app.py', 'content': '''import os\nprint(",
			want:      `{"content":"import os\nprint(","path":"app.py"}`,
			python:    "converted single-quoted strings; converted triple-quoted strings",
			truncated: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := RepairJSON(tc.text, JSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := EncodeJSON(r.Value)
			if string(raw) != tc.want {
				t.Errorf("got  %s\nwant %s", raw, tc.want)
			}
			if r.Truncated != tc.truncated {
				t.Errorf("truncated = %v", r.Truncated)
			}
			var python string
			for _, rp := range r.Repairs {
				if rp.Code == CodePythonLiteral {
					python = rp.Detail
				}
			}
			if python != tc.python {
				t.Errorf("PYTHON_LITERAL %q, want %q", python, tc.python)
			}
		})
	}
}

// TestPythonStringsNotGuessedInJSON: three quotes in JSON are read as a
// Python string only when what follows fits the structure.
func TestPythonStringsNotGuessedInJSON(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		// A JSON string opening with an unescaped docstring, \n written as escapes.
		{`{"path":"m.py","content":"""Doc."""\nx = 1\n"}`, `{"content":"\"\"Doc.\"\"\"\nx = 1\n","path":"m.py"}`},
		{`{"a": "", "b": ""}`, `{"a":"","b":""}`},
	} {
		r, err := RepairJSON(tc.text, JSONOptions{})
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := EncodeJSON(r.Value)
		if string(raw) != tc.want || r.Truncated {
			t.Errorf("%s: got %s (truncated %v), want %s", tc.text, raw, r.Truncated, tc.want)
		}
	}
}

// TestPythonLiteralThroughValidate: a Python-dict call for write_to_file
// as Qwen emits it comes out with the file text byte for byte.
func TestPythonLiteralThroughValidate(t *testing.T) {
	reg := mustRegistry(t)
	text := "{'path': 'hello.py', 'content': '''def greet(name):\n    return f'Hello, {name}!'\n'''}"
	res := reg.Validate(Call{Name: "write_to_file", Form: FormText, Text: text}, Options{})
	if !res.OK() {
		t.Fatalf("violations %v", res.Violations)
	}
	want := map[string]any{"path": "hello.py", "content": "def greet(name):\n    return f'Hello, {name}!'\n"}
	if !reflect.DeepEqual(res.Args, want) {
		t.Errorf("args = %q", res.Args)
	}
	if got := codes(res.Repairs); !reflect.DeepEqual(got, []string{"PYTHON_LITERAL:"}) {
		t.Errorf("repairs = %v", got)
	}
}
