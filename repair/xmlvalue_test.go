package repair

import (
	"reflect"
	"strings"
	"testing"
)

// followupTools is Cline's ask_followup_question with its options as an
// array of strings, and a tool taking an object, for the XML shapes that
// are not arrays of objects.
const followupTools = `
tools:
  - name: ask_followup_question
    parameters:
      type: object
      properties:
        question: {type: string}
        options: {type: array, items: {type: string}}
      required: [question]
  - name: run_task
    parameters:
      type: object
      properties:
        env:
          type: object
          properties:
            name: {type: string}
            retries: {type: integer}
      required: [env]
`

// The multi-replace seed, as the model wrote it.
const seedMultiReplace = `<tool name="multi_replace_string_in_file">
  <explanation>Replace multi-line text</explanation>
  <replacements>
    <replacement>
      <filePath>test.txt</filePath>
      <oldString>line1\nline2</oldString>
      <newString>single line</newString>
    </replacement>
  </replacements>
</tool>`

// TestValidateXMLStructures: a parameter the schema types as an array or
// an object, written in XML as child elements, is read into that
// structure; tool blocks written as attribute-named wrappers are found.
func TestValidateXMLStructures(t *testing.T) {
	f, err := ParseToolsFile([]byte(followupTools))
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, f)
	tests := []struct {
		name       string
		call       Call
		tool       string
		args       string
		repairs    []string
		violations []string
	}{
		{
			name: "vlinder multi replace seed as written: items read, the commentary dropped, usable",
			call: Call{Form: FormXML, Text: seedMultiReplace},
			tool: "multi_edit",
			args: `{"edits":[{"new_text":"single line","old_text":"line1\\nline2","path":"test.txt"}]}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:edits", "COMMENTARY_DROPPED:explanation", "TYPE_COERCED:edits",
				"ALIAS_RENAMED:edits/0/path", "ALIAS_RENAMED:edits/0/new_text", "ALIAS_RENAMED:edits/0/old_text"},
		},
		{
			name: "vlinder multi replace across two files",
			call: Call{Form: FormXML, Text: "<tool name=\"multi_replace_string_in_file\">\n<replacements>\n<replacement>\n<filePath>a.go</filePath>\n<oldString>\nfunc a() {\n</oldString>\n<newString>\nfunc a() error {\n</newString>\n</replacement>\n<replacement>\n<filePath>b.go</filePath>\n<oldString>x := 1</oldString>\n<newString></newString>\n</replacement>\n</replacements>\n</tool>"},
			tool: "multi_edit",
			args: `{"edits":[{"new_text":"func a() error {","old_text":"func a() {","path":"a.go"},{"new_text":"","old_text":"x := 1","path":"b.go"}]}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:edits", "TYPE_COERCED:edits",
				"ALIAS_RENAMED:edits/0/path", "ALIAS_RENAMED:edits/0/new_text", "ALIAS_RENAMED:edits/0/old_text",
				"ALIAS_RENAMED:edits/1/path", "ALIAS_RENAMED:edits/1/new_text", "ALIAS_RENAMED:edits/1/old_text"},
		},
		{
			name:    "cline multi_edit: edit items, layout newlines, a boolean leaf",
			call:    Call{Form: FormXML, Text: "<multi_edit>\n<path>a.py</path>\n<edits>\n<edit>\n<old_text>\n    x = 1\n\n</old_text>\n<new_text>\n    x = 2\n\n</new_text>\n</edit>\n<edit><old_text>y</old_text><new_text>z</new_text><replace_all>true</replace_all></edit>\n</edits>\n</multi_edit>"},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"    x = 2\n","old_text":"    x = 1\n"},{"new_text":"z","old_text":"y","replace_all":true}],"path":"a.py"}`,
			repairs: []string{"TYPE_COERCED:edits"},
		},
		{
			name:    "cline multi_edit: edit text holding markup and its own closing tags",
			call:    Call{Form: FormXML, Text: "<multi_edit><path>a.html</path><edits><edit><old_text><p>old</p></old_text><new_text><b>x</new_text></b> and </edit></edits></new_text></edit></edits></multi_edit>"},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"<b>x</new_text></b> and </edit></edits>","old_text":"<p>old</p>"}],"path":"a.html"}`,
			repairs: []string{"TYPE_COERCED:edits"},
		},
		{
			name:    "roo-code multi replace: items named item, an edit without a path of its own",
			call:    Call{Name: "MultiEdit", Form: FormXML, Text: "<file_path>src/app.ts</file_path>\n<edits>\n  <item>\n    <old_string>let a = 1;</old_string>\n    <new_string>const a = 1;</new_string>\n  </item>\n</edits>"},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"const a = 1;","old_text":"let a = 1;"}],"path":"src/app.ts"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "TYPE_COERCED:edits", "ALIAS_RENAMED:edits/0/new_text", "ALIAS_RENAMED:edits/0/old_text"},
		},
		{
			name:    "one edit written without an item element",
			call:    Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits><old_text>x</old_text><new_text>y</new_text></edits></multi_edit>"},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"y","old_text":"x"}],"path":"a"}`,
			repairs: []string{"TYPE_COERCED:edits"},
		},
		{
			name:    "JSON inside the tag is read as before, reported as a coercion, as in JSON",
			call:    Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits>[{\"old_text\":\"<x>\",\"new_text\":\"y\"}]</edits></multi_edit>"},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"y","old_text":"<x>"}],"path":"a"}`,
			repairs: []string{"TYPE_COERCED:edits"},
		},
		{
			name:       "items of two names are no array",
			call:       Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits><edit><old_text>x</old_text><new_text>y</new_text></edit><change><old_text>p</old_text><new_text>q</new_text></change></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":"<edit><old_text>x</old_text><new_text>y</new_text></edit><change><old_text>p</old_text><new_text>q</new_text></change>","path":"a"}`,
			repairs:    []string{},
			violations: []string{"WRONG_TYPE:edits"},
		},
		{
			name:       "text between the items is no element sequence",
			call:       Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits>first:<edit><old_text>x</old_text><new_text>y</new_text></edit></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":"first:<edit><old_text>x</old_text><new_text>y</new_text></edit>","path":"a"}`,
			repairs:    []string{},
			violations: []string{"WRONG_TYPE:edits"},
		},
		{
			name:       "a property given twice in one item is not guessed at",
			call:       Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits><edit><old_text>x</old_text><old_text>z</old_text><new_text>y</new_text></edit></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":"<edit><old_text>x</old_text><old_text>z</old_text><new_text>y</new_text></edit>","path":"a"}`,
			repairs:    []string{},
			violations: []string{"WRONG_TYPE:edits"},
		},
		{
			name:       "two spellings of one property with different values conflict",
			call:       Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits><edit><old_text>x</old_text><oldString>z</oldString><new_text>y</new_text></edit></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":[{"new_text":"y","old_text":"x"}],"path":"a"}`,
			repairs:    []string{"TYPE_COERCED:edits"},
			violations: []string{"CONFLICTING_PARAMS:edits/0/old_text"},
		},
		{
			name:       "a leaf that is not its schema's type stays text and is refused",
			call:       Call{Form: FormXML, Text: "<multi_edit><edits><edit><path>a</path><old_text>x</old_text><new_text>y</new_text><replace_all>always</replace_all></edit></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":[{"new_text":"y","old_text":"x","path":"a","replace_all":"always"}]}`,
			repairs:    []string{"TYPE_COERCED:edits"},
			violations: []string{"WRONG_TYPE:edits/0/replace_all"},
		},
		{
			name:       "an undeclared child of an item is refused",
			call:       Call{Form: FormXML, Text: "<multi_edit><path>a</path><edits><edit><old_text>x</old_text><new_text>y</new_text><append>true</append></edit></edits></multi_edit>"},
			tool:       "multi_edit",
			args:       `{"edits":[{"append":"true","new_text":"y","old_text":"x"}],"path":"a"}`,
			repairs:    []string{"TYPE_COERCED:edits"},
			violations: []string{"UNEXPECTED_PARAM:edits/0/append"},
		},
		{
			name:    "claude code TodoWrite through an XML proxy: todo items",
			call:    Call{Form: FormXML, Text: "<TodoWrite>\n<todos>\n<todo><id>1</id><content>Read the seed</content><status>completed</status></todo>\n<todo><id>2</id><content>Write <b>tests</b></content><status>in_progress</status></todo>\n</todos>\n</TodoWrite>"},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"Read the seed","id":"1","status":"completed"},{"content":"Write <b>tests</b>","id":"2","status":"in_progress"}]}`,
			repairs: []string{"TOOL_ALIAS:", "TYPE_COERCED:todos"},
		},
		{
			name:    "todo item given as JSON inside its element",
			call:    Call{Form: FormXML, Text: "<todo_write><todos><todo>{\"id\":\"1\",\"content\":\"a\",\"status\":\"pending\"}</todo></todos></todo_write>"},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"a","id":"1","status":"pending"}]}`,
			repairs: []string{"TYPE_COERCED:todos"},
		},
		{
			name:    "params form holding items",
			call:    Call{Name: "todo_write", Form: FormParams, Params: map[string]string{"todos": "<item><id>1</id><content>a</content><status>pending</status></item>"}},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"a","id":"1","status":"pending"}]}`,
			repairs: []string{"TYPE_COERCED:todos"},
		},
		{
			name:    "JSON arguments with a string of items",
			call:    Call{Name: "multi_edit", Form: FormText, Text: `{"path":"a","edits":"<edit><old_text>x</old_text><new_text>y</new_text></edit>"}`},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"y","old_text":"x"}],"path":"a"}`,
			repairs: []string{"TYPE_COERCED:edits"},
		},
		{
			name:    "cline ask_followup_question: options as repeated elements",
			call:    Call{Form: FormXML, Text: "<ask_followup_question>\n<question>Which one?</question>\n<options>\n<option>Option 1</option>\n<option>Option <2></option>\n</options>\n</ask_followup_question>"},
			tool:    "ask_followup_question",
			args:    `{"options":["Option 1","Option <2>"],"question":"Which one?"}`,
			repairs: []string{"TYPE_COERCED:options"},
		},
		{
			name:    "cline ask_followup_question: options as JSON, as Cline documents",
			call:    Call{Form: FormXML, Text: "<ask_followup_question><question>Which one?</question><options>[\"a\", \"b\"]</options></ask_followup_question>"},
			tool:    "ask_followup_question",
			args:    `{"options":["a","b"],"question":"Which one?"}`,
			repairs: []string{"TYPE_COERCED:options"},
		},
		{
			name:    "an object's properties as child elements, typed",
			call:    Call{Form: FormXML, Text: "<run_task><env><name>ci</name><retries>3</retries></env></run_task>"},
			tool:    "run_task",
			args:    `{"env":{"name":"ci","retries":3}}`,
			repairs: []string{"TYPE_COERCED:env"},
		},
		{
			name:    "anthropic invoke in function_calls, parameter elements, content holding the closing tag",
			call:    Call{Form: FormXML, Text: "I'll write it.\n<function_calls>\n<invoke name=\"write_to_file\">\n<parameter name=\"content\">\n<p></parameter></p>\n</parameter>\n<parameter name=\"path\">a.html</parameter>\n</invoke>\n</function_calls>"},
			tool:    "write_to_file",
			args:    `{"content":"<p></parameter></p>","path":"a.html"}`,
			repairs: []string{},
		},
		{
			name:    "anthropic invoke: the first of two calls is the call",
			call:    Call{Form: FormXML, Text: "<function_calls>\n<invoke name=\"edit\">\n<parameter name=\"path\">a</parameter>\n<parameter name=\"old_text\">x</parameter>\n<parameter name=\"new_text\">y</parameter>\n</invoke>\n<invoke name=\"edit\">\n<parameter name=\"path\">b</parameter>\n<parameter name=\"replace_all\">true</parameter>\n</invoke>\n</function_calls>"},
			tool:    "edit",
			args:    `{"new_text":"y","old_text":"x","path":"a"}`,
			repairs: []string{},
		},
		{
			name:    "invoke with single quotes and todos items in a parameter element",
			call:    Call{Form: FormXML, Text: "<invoke name='todo_write'><parameter name='todos'><todo><id>1</id><content>a</content><status>pending</status></todo></parameter></invoke>"},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"a","id":"1","status":"pending"}]}`,
			repairs: []string{"TYPE_COERCED:todos"},
		},
		{
			name:       "a wrapper naming an unknown tool names it",
			call:       Call{Form: FormXML, Text: "<tool name=\"replace_everything\"><path>a</path></tool>"},
			tool:       "replace_everything",
			args:       `{"path":"a"}`,
			repairs:    []string{},
			violations: []string{"UNKNOWN_TOOL:"},
		},
		{
			name:    "prose quoting a wrapper of no known tool does not hide the call",
			call:    Call{Form: FormXML, Text: "Tools are called as <tool name=\"NAME\">…</tool>. So:\n<tool name=\"edit\"><path>a</path><old_text>x</old_text><new_text>y</new_text></tool>"},
			tool:    "edit",
			args:    `{"new_text":"y","old_text":"x","path":"a"}`,
			repairs: []string{},
		},
		{
			name:       "a wrapper cut off",
			call:       Call{Form: FormXML, Text: "<tool name=\"multi_edit\"><path>a</path><edits><edit><old_text>x</old_text><new_text>y"},
			tool:       "multi_edit",
			args:       `{"edits":"<edit><old_text>x</old_text><new_text>y","path":"a"}`,
			repairs:    []string{},
			violations: []string{"TRUNCATED:edits", "TRUNCATED:", "WRONG_TYPE:edits"},
		},
		{
			name:    "a tag with other attributes is text, not a wrapper",
			call:    Call{Form: FormXML, Text: "<tool id=\"1\" name=\"edit\">\n<write_to_file><path>a</path><content>b</content></write_to_file>"},
			tool:    "write_to_file",
			args:    `{"content":"b","path":"a"}`,
			repairs: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{})
			if res.ToolName != tc.tool {
				t.Errorf("tool = %q, want %q", res.ToolName, tc.tool)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s\nwant   %s", got, tc.args)
			}
			if got := codes(res.Repairs); !reflect.DeepEqual(got, tc.repairs) {
				t.Errorf("repairs = %q, want %q\n%+v", got, tc.repairs, res.Repairs)
			}
			wantV := tc.violations
			if wantV == nil {
				wantV = []string{}
			}
			if got := codes(res.Violations); !reflect.DeepEqual(got, wantV) {
				t.Errorf("violations = %q, want %q\n%+v", got, wantV, res.Violations)
			}
		})
	}
}

// TestXMLStructureMessages: the repair says what was read, and a refused
// value shows the XML shape the schema asks for.
func TestXMLStructureMessages(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct {
		name, text, param, detail string
		violation                 bool
	}{
		{
			name:   "array of objects",
			text:   "<multi_edit><path>a</path><edits><edit><old_text>x</old_text><new_text>y</new_text></edit><edit><old_text>p</old_text><new_text>q</new_text></edit></edits></multi_edit>",
			param:  "edits",
			detail: "read XML child elements as an array of 2 objects",
		},
		{
			name:   "one object without an item element",
			text:   "<multi_edit><edits><path>a</path><old_text>x</old_text><new_text>y</new_text></edits></multi_edit>",
			param:  "edits",
			detail: "read XML child elements as an array of 1 object",
		},
		{
			name:      "refused array of objects",
			text:      "<multi_edit><path>a</path><edits>- x → y</edits></multi_edit>",
			param:     "edits",
			detail:    `Parameter "edits" must be an array, not a string. In XML, write it as child elements, <edits><edit><old_text>…</old_text><new_text>…</new_text></edit>…</edits>, or as JSON.`,
			violation: true,
		},
		{
			name:      "refused todo list",
			text:      "<todo_write><todos>1. read 2. write</todos></todo_write>",
			param:     "todos",
			detail:    `Parameter "todos" must be an array, not a string. In XML, write it as child elements, <todos><todo><id>…</id><content>…</content><status>…</status></todo>…</todos>, or as JSON.`,
			violation: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Form: FormXML, Text: tc.text}, Options{})
			var got []string
			if tc.violation {
				for _, v := range res.Violations {
					if v.Param == tc.param {
						got = append(got, v.Message)
					}
				}
			} else {
				for _, r := range res.Repairs {
					if r.Param == tc.param && r.Code == CodeTypeCoerced {
						got = append(got, r.Detail)
					}
				}
			}
			if want := []string{tc.detail}; !reflect.DeepEqual(got, want) {
				t.Errorf("got %q, want %q\nrepairs %v\nviolations %v", got, want, res.Repairs, res.Violations)
			}
		})
	}
	// A JSON call is told nothing about XML.
	res := reg.Validate(Call{Name: "multi_edit", Form: FormText, Text: `{"edits":"- x → y"}`}, Options{})
	if len(res.Violations) != 1 || res.Violations[0].Message != `Parameter "edits" must be an array, not a string.` {
		t.Errorf("JSON call violations %v", res.Violations)
	}
}

// TestXMLParamsSplit: how a tool block's body splits into parameters,
// attribute-named ones included.
func TestXMLParamsSplit(t *testing.T) {
	content := func(name string) bool { return name == "content" }
	tests := []struct {
		name, body string
		want       map[string]string
		truncated  string
		refusal    string
	}{
		{
			name: "parameter elements, content last",
			body: "\n<parameter name=\"path\">a</parameter>\n<parameter name=\"content\">\nx</parameter>y\n</parameter>\n",
			want: map[string]string{"path": "a", "content": "x</parameter>y"},
		},
		{
			name: "parameter elements, content first, its closing tag before text",
			body: "<parameter name=\"content\">a</parameter> b</parameter><parameter name=\"path\">p</parameter>",
			want: map[string]string{"content": "a</parameter> b", "path": "p"},
		},
		{
			name: "mixed spellings",
			body: "<path>a</path><param name=\"content\">c</param>",
			want: map[string]string{"path": "a", "content": "c"},
		},
		{
			name:      "parameter element cut off",
			body:      "<parameter name=\"content\">abc",
			want:      map[string]string{"content": "abc"},
			truncated: "content",
		},
		{
			// Its closing tag then closes nothing: the value is not lost silently.
			name:    "an unterminated attribute is text",
			body:    "<parameter name=\"content>abc</parameter><path>a</path>",
			want:    map[string]string{},
			refusal: "The text \"<parameter name=\\\"content>abc\" before the closing tag </parameter> belongs to no parameter",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := parseXMLParams(tc.body, content)
			got, truncated := x.params, x.truncated
			if !reflect.DeepEqual(got, tc.want) || truncated != tc.truncated {
				t.Errorf("got %q, %q; want %q, %q", got, truncated, tc.want, tc.truncated)
			}
			if !strings.HasPrefix(x.refusal, tc.refusal) || (tc.refusal == "") != (x.refusal == "") {
				t.Errorf("refusal %q, want one starting %q", x.refusal, tc.refusal)
			}
		})
	}
}
