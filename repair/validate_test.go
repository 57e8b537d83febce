package repair

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func mustRegistry(t testing.TB, files ...ToolsFile) *Registry {
	t.Helper()
	r, err := NewRegistry(files...)
	if err != nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	return r
}

// memoryTools is the custom tool of seed 001: parameter names no built-in
// list knows, one of them holding XML.
const memoryTools = `
tools:
  - name: add_semantic_memory
    description: Store a memory.
    aliases: [remember]
    content_params: [xml_memory]
    parameters:
      type: object
      properties:
        xml_memory: {type: string, description: The memory as XML.}
        user_message: {type: string, description: The message that prompted it.}
      required: [xml_memory, user_message]
`

func mustMemoryRegistry(t testing.TB) *Registry {
	t.Helper()
	f, err := ParseToolsFile([]byte(memoryTools))
	if err != nil {
		t.Fatal(err)
	}
	return mustRegistry(t, f)
}

func codes[T Repair | Violation](xs []T) []string {
	out := []string{}
	for _, x := range xs {
		switch v := any(x).(type) {
		case Repair:
			out = append(out, v.Code+":"+v.Param)
		case Violation:
			out = append(out, v.Code+":"+v.Param)
		}
	}
	return out
}

func argsJSON(t *testing.T, args map[string]any) string {
	t.Helper()
	if args == nil {
		return "null"
	}
	raw, err := EncodeArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestValidate(t *testing.T) {
	reg := mustMemoryRegistry(t)
	tests := []struct {
		name       string
		call       Call
		model      string
		tool       string
		args       string // expected normalised arguments as JSON
		repairs    []string
		violations []string
	}{
		{
			name:    "valid JSON is untouched",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","content":"x = '\\n'\n"}`},
			tool:    "write_to_file",
			args:    `{"content":"x = '\\n'\n","path":"a.py"}`,
			repairs: []string{},
		},
		{
			name:    "Write with file_path and text",
			call:    Call{Name: "Write", Form: FormText, Text: `{"file_path":"a.py","text":"print(1)"}`},
			tool:    "write_to_file",
			args:    `{"content":"print(1)","path":"a.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "ALIAS_RENAMED:content"},
		},
		{
			name:    "folded tool name and parameter name",
			call:    Call{Name: "WRITE-TO-FILE", Form: FormText, Text: `{"Path":"a.py","content":"x"}`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path"},
		},
		{
			name:       "missing content",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py"}`},
			tool:       "write_to_file",
			args:       `{"path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:content"},
		},
		{
			name:    "empty content is an empty file",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"path":"pkg/__init__.py","content":""}`},
			tool:    "write_to_file",
			args:    `{"content":"","path":"pkg/__init__.py"}`,
			repairs: []string{},
		},
		{
			name:    "empty content in an XML block is an empty file",
			call:    Call{Form: FormXML, Text: "<write_to_file>\n<path>pkg/__init__.py</path>\n<content></content>\n</write_to_file>"},
			tool:    "write_to_file",
			args:    `{"content":"","path":"pkg/__init__.py"}`,
			repairs: []string{},
		},
		{
			name:    "empty content through an alias is an empty file",
			call:    Call{Name: "str_replace_based_edit_tool", Form: FormText, Text: `{"command":"create","path":"a/__init__.py","file_text":""}`},
			tool:    "write_to_file",
			args:    `{"content":"","path":"a/__init__.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:content"},
		},
		{
			name:       "empty path is missing",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path":"","content":""}`},
			tool:       "write_to_file",
			args:       `{"content":"","path":""}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:path"},
		},
		{
			name:       "empty old_text is missing",
			call:       Call{Name: "edit", Form: FormText, Text: `{"path":"a.py","old_text":"","new_text":"x"}`},
			tool:       "edit",
			args:       `{"new_text":"x","old_text":"","path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:old_text"},
		},
		{
			name:       "an empty todo's content is missing: allow_empty is write_to_file's own",
			call:       Call{Name: "todo_write", Form: FormText, Text: `{"todos":[{"id":"1","content":"","status":"pending"}]}`},
			tool:       "todo_write",
			args:       `{"todos":[{"content":"","id":"1","status":"pending"}]}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:todos/0/content"},
		},
		{
			name:    "empty new_text is legal",
			call:    Call{Name: "Edit", Form: FormText, Text: `{"file_path":"a.py","old_string":"x","new_string":""}`},
			tool:    "edit",
			args:    `{"new_text":"","old_text":"x","path":"a.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "ALIAS_RENAMED:new_text", "ALIAS_RENAMED:old_text"},
		},
		{
			name:       "empty arguments text is an empty object",
			call:       Call{Name: "edit", Form: FormText, Text: "  "},
			tool:       "edit",
			args:       `{}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:new_text", "MISSING_REQUIRED:old_text", "MISSING_REQUIRED:path"},
		},
		{
			name:    "raw_arguments wrapper",
			call:    Call{Name: "Write", Form: FormText, Text: `{"raw_arguments":"{\"file_path\":\"a.py\",\"content\":\"x\"}"}`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"RAW_ARGUMENTS_UNWRAPPED:", "TOOL_ALIAS:", "ALIAS_RENAMED:path"},
		},
		{
			name:       "raw_arguments cut off is unwrapped and marked truncated",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"raw_arguments":"{\"path\": \"a.py\", \"content\": \"print("}`},
			tool:       "write_to_file",
			args:       `{"content":"print(","path":"a.py"}`,
			repairs:    []string{"JSON_REPAIRED:", "RAW_ARGUMENTS_UNWRAPPED:"},
			violations: []string{"TRUNCATED:"},
		},
		{
			name:       "raw_arguments that is not JSON stays and is unexpected",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"raw_arguments":"I will write a.py now"}`},
			tool:       "write_to_file",
			args:       `{"raw_arguments":"I will write a.py now"}`,
			repairs:    []string{},
			violations: []string{"MISSING_REQUIRED:content", "MISSING_REQUIRED:path", "UNEXPECTED_PARAM:raw_arguments"},
		},
		{
			name:    "JSON in a string",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `"{\"path\":\"a.py\",\"content\":\"x\"}"`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"DOUBLE_ENCODED:"},
		},
		{
			name:    "sole arguments wrapper",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"arguments":{"path":"a.py","content":"x"}}`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"RAW_ARGUMENTS_UNWRAPPED:"},
		},
		{
			name:    "input is apply_patch's own parameter, not a wrapper",
			call:    Call{Name: "apply_patch", Form: FormText, Text: `{"input":"*** Begin Patch\n*** End Patch"}`},
			tool:    "apply_patch",
			args:    `{"patch":"*** Begin Patch\n*** End Patch"}`,
			repairs: []string{"ALIAS_RENAMED:patch"},
		},
		{
			name:       "unexpected parameter makes the call unusable",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","content":"x","append":true}`},
			tool:       "write_to_file",
			args:       `{"append":true,"content":"x","path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"UNEXPECTED_PARAM:append"},
		},
		{
			name:       "conflicting aliases",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","file_path":"b.py","content":"x"}`},
			tool:       "write_to_file",
			args:       `{"content":"x","path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"CONFLICTING_PARAMS:path"},
		},
		{
			name:    "identical alias dropped",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","file_path":"a.py","content":"x"}`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"DUPLICATE_DROPPED:path"},
		},
		{
			name:    "coercions in JSON are repairs",
			call:    Call{Name: "edit", Form: FormText, Text: `{"path":"a","old_text":"x","new_text":"y","replace_all":"true"}`},
			tool:    "edit",
			args:    `{"new_text":"y","old_text":"x","path":"a","replace_all":true}`,
			repairs: []string{"TYPE_COERCED:replace_all"},
		},
		{
			name:    "stringified array and numeric ids",
			call:    Call{Name: "TodoWrite", Form: FormText, Text: `{"todos":"[{\"id\":1,\"content\":\"a\",\"status\":\"pending\"}]"}`},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"a","id":"1","status":"pending"}]}`,
			repairs: []string{"TOOL_ALIAS:", "TYPE_COERCED:todos", "TYPE_COERCED:todos/0/id"},
		},
		{
			name:       "enum violation",
			call:       Call{Name: "todo_write", Form: FormText, Text: `{"todos":[{"id":"1","content":"a","status":"done"}]}`},
			tool:       "todo_write",
			args:       `{"todos":[{"content":"a","id":"1","status":"done"}]}`,
			repairs:    []string{},
			violations: []string{"INVALID_VALUE:todos/0/status"},
		},
		{
			name:       "wrong type that cannot be coerced",
			call:       Call{Name: "edit", Form: FormText, Text: `{"path":"a","old_text":"x","new_text":"y","replace_all":"maybe"}`},
			tool:       "edit",
			args:       `{"new_text":"y","old_text":"x","path":"a","replace_all":"maybe"}`,
			repairs:    []string{},
			violations: []string{"WRONG_TYPE:replace_all"},
		},
		{
			name:    "nested aliases in multi_edit and a single edit object",
			call:    Call{Name: "MultiEdit", Form: FormText, Text: `{"file_path":"a","edits":{"old_string":"x","new_string":"y"}}`},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"y","old_text":"x"}],"path":"a"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "TYPE_COERCED:edits", "ALIAS_RENAMED:edits/0/new_text", "ALIAS_RENAMED:edits/0/old_text"},
		},
		{
			name:    "seed 002 multi replace",
			call:    Call{Name: "multi_replace_string_in_file", Form: FormText, Text: `{"replacements":[{"filePath":"t.txt","oldString":"a","newString":"b"}]}`},
			tool:    "multi_edit",
			args:    `{"edits":[{"new_text":"b","old_text":"a","path":"t.txt"}]}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:edits", "ALIAS_RENAMED:edits/0/path", "ALIAS_RENAMED:edits/0/new_text", "ALIAS_RENAMED:edits/0/old_text"},
		},
		{
			name:    "str_replace_based_edit_tool create",
			call:    Call{Name: "str_replace_based_edit_tool", Form: FormText, Text: `{"command":"create","path":"a.py","file_text":"x"}`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:content"},
		},
		{
			name:       "str_replace_based_edit_tool view is unsupported",
			call:       Call{Name: "str_replace_based_edit_tool", Form: FormText, Text: `{"command":"view","path":"a.py"}`},
			tool:       "str_replace_based_edit_tool",
			args:       `{"command":"view","path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"UNSUPPORTED_COMMAND:command"},
		},
		{
			name:       "unknown tool keeps its arguments",
			call:       Call{Name: "launch_rocket", Form: FormText, Text: `{"when":"now"}`},
			tool:       "launch_rocket",
			args:       `{"when":"now"}`,
			repairs:    []string{},
			violations: []string{"UNKNOWN_TOOL:"},
		},
		{
			name:    "seed 003: TodoWrite with Python-dict items",
			call:    Call{Name: "TodoWrite", Form: FormText, Text: `{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}]}`},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"创建项目结构和主程序文件","id":"1","status":"in_progress"}]}`,
			repairs: []string{"PYTHON_LITERAL:", "TOOL_ALIAS:"},
		},
		{
			name:    "schema-aware string end: quotes inside content",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"content": "print("hi", "there")", "path": "a.py"}`},
			tool:    "write_to_file",
			args:    `{"content":"print(\"hi\", \"there\")","path":"a.py"}`,
			repairs: []string{"JSON_REPAIRED:"},
		},
		{
			name:    "Python literals, trailing comma and a fence around the JSON",
			call:    Call{Name: "edit", Form: FormText, Text: "```json\n{'path': 'a.py', 'old_text': 'x', 'new_text': 'y', 'replace_all': True,}\n```"},
			tool:    "edit",
			args:    `{"new_text":"y","old_text":"x","path":"a.py","replace_all":true}`,
			repairs: []string{"JSON_REPAIRED:", "PYTHON_LITERAL:"},
		},
		{
			// An unknown parameter after the content must reach validation,
			// not end up inside the content (found by the Python client).
			name:       "Python dict with a parameter the tool does not have",
			call:       Call{Name: "Write", Form: FormText, Text: `{'path': 'a.py', 'content': 'x', 'append': True}`},
			tool:       "write_to_file",
			args:       `{"append":true,"content":"x","path":"a.py"}`,
			repairs:    []string{"PYTHON_LITERAL:", "TOOL_ALIAS:"},
			violations: []string{"UNEXPECTED_PARAM:append"},
		},
		{
			name:    "content holding a dict with unknown keys stays whole",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{'path': 'a.py', 'content': 'm = {'k': 'v', 'q': 1} or {}\nprint(m)'}`},
			tool:    "write_to_file",
			args:    `{"content":"m = {'k': 'v', 'q': 1} or {}\nprint(m)","path":"a.py"}`,
			repairs: []string{"JSON_REPAIRED:", "PYTHON_LITERAL:"},
		},
		{
			name:       "arguments cut off inside the content",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a.py", "content": "def main():\n    print(`},
			tool:       "write_to_file",
			args:       `{"content":"def main():\n    print(","path":"a.py"}`,
			repairs:    []string{"JSON_REPAIRED:"},
			violations: []string{"TRUNCATED:"},
		},
		{
			name:    "only closing brackets missing is usable",
			call:    Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a.py", "content": "x"`},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"JSON_REPAIRED:"},
		},
		{
			name:       "prose instead of arguments",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `I will write the file now.`},
			tool:       "write_to_file",
			args:       `null`,
			repairs:    []string{},
			violations: []string{"UNPARSEABLE:"},
		},
		{
			name:       "a stream parser's refusal is UNPARSEABLE, whatever the text holds",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","content":"x"}`, Unparseable: "The call write_to_file(...) cannot be read."},
			tool:       "write_to_file",
			args:       `null`,
			repairs:    []string{},
			violations: []string{"UNPARSEABLE:"},
		},
		{
			name:       "arguments that are not an object",
			call:       Call{Name: "write_to_file", Form: FormText, Text: `["a.py", "x"]`},
			tool:       "write_to_file",
			args:       `null`,
			repairs:    []string{},
			violations: []string{"UNPARSEABLE:"},
		},
		{
			name:    "params form reports its coercion as the JSON form does",
			call:    Call{Name: "edit", Form: FormParams, Params: map[string]string{"path": "a", "old_text": "x", "new_text": "", "replace_all": "true"}},
			tool:    "edit",
			args:    `{"new_text":"","old_text":"x","path":"a","replace_all":true}`,
			repairs: []string{"TYPE_COERCED:replace_all"},
		},
		{
			name:    "params form with aliases",
			call:    Call{Name: "write_to_file", Form: FormParams, Params: map[string]string{"absolutePath": "/w/a.py", "content": "x"}},
			model:   "claude-sonnet-4-5",
			tool:    "write_to_file",
			args:    `{"content":"x","path":"/w/a.py"}`,
			repairs: []string{"ALIAS_RENAMED:path"},
		},
		{
			name:    "XML block with its own closing tag in the content",
			call:    Call{Form: FormXML, Text: "Let me write it.\n<write_to_file>\n<path>a.html</path>\n<content>\n<p>see </content></p>\n</content>\n</write_to_file>\nDone."},
			tool:    "write_to_file",
			args:    `{"content":"<p>see </content></p>","path":"a.html"}`,
			repairs: []string{},
		},
		{
			name:       "XML block cut off",
			call:       Call{Form: FormXML, Text: "<write_to_file>\n<path>a.py</path>\n<content>\nprint("},
			tool:       "write_to_file",
			args:       `{"content":"print(","path":"a.py"}`,
			repairs:    []string{},
			violations: []string{"TRUNCATED:content", "TRUNCATED:"},
		},
		{
			name:    "XML block of an aliased tool with aliased params",
			call:    Call{Form: FormXML, Text: "<Write><file_path>a.py</file_path><text>x</text></Write>"},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "ALIAS_RENAMED:content"},
		},
		{
			name:    "XML block after a thinking block that mentions another tool",
			call:    Call{Form: FormXML, Text: "<thinking>I could use <edit> but a write is simpler.</thinking>\n<write_to_file><path>a.py</path><content>x</content></write_to_file>"},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{},
		},
		{
			name:    "XML parameters without a wrapper",
			call:    Call{Name: "write_to_file", Form: FormXML, Text: "<path>a.py</path>\n<content>\nx\n</content>"},
			tool:    "write_to_file",
			args:    `{"content":"x","path":"a.py"}`,
			repairs: []string{},
		},
		{
			name:    "custom tool, JSON",
			call:    Call{Name: "add_semantic_memory", Form: FormText, Text: `{"xml_memory":"<memory><fact>likes tea</fact></memory>","user_message":"I like tea"}`},
			tool:    "add_semantic_memory",
			args:    `{"user_message":"I like tea","xml_memory":"<memory><fact>likes tea</fact></memory>"}`,
			repairs: []string{},
		},
		{
			name:    "custom tool, params",
			call:    Call{Name: "add_semantic_memory", Form: FormParams, Params: map[string]string{"xml_memory": "<memory><fact>likes tea</fact></memory>", "user_message": "I like tea"}},
			tool:    "add_semantic_memory",
			args:    `{"user_message":"I like tea","xml_memory":"<memory><fact>likes tea</fact></memory>"}`,
			repairs: []string{},
		},
		{
			name:    "params are typed by the schema: a JSON-looking value of a non-string parameter is decoded and reported, as in JSON",
			call:    Call{Name: "TodoWrite", Form: FormParams, Params: map[string]string{"todos": `[{"id": "1", "content": "a", "status": "pending"}]`}},
			tool:    "todo_write",
			args:    `{"todos":[{"content":"a","id":"1","status":"pending"}]}`,
			repairs: []string{"TOOL_ALIAS:", "TYPE_COERCED:todos"},
		},
		{
			name:    "custom tool, XML",
			call:    Call{Form: FormXML, Text: "<add_semantic_memory>\n<xml_memory>\n<memory><fact>likes tea</fact></memory>\n</xml_memory>\n<user_message>I like tea</user_message>\n</add_semantic_memory>"},
			tool:    "add_semantic_memory",
			args:    `{"user_message":"I like tea","xml_memory":"<memory><fact>likes tea</fact></memory>"}`,
			repairs: []string{},
		},
		{
			name:    "custom tool by alias",
			call:    Call{Name: "remember", Form: FormText, Text: `{"xml_memory":"<m/>","user_message":"hi"}`},
			tool:    "add_semantic_memory",
			args:    `{"user_message":"hi","xml_memory":"<m/>"}`,
			repairs: []string{"TOOL_ALIAS:"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{ModelID: tc.model})
			if res.ToolName != tc.tool {
				t.Errorf("tool = %q, want %q", res.ToolName, tc.tool)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s\nwant   %s", got, tc.args)
			}
			if got := codes(res.Repairs); !reflect.DeepEqual(got, tc.repairs) {
				t.Errorf("repairs = %q, want %q", got, tc.repairs)
			}
			wantV := tc.violations
			if wantV == nil {
				wantV = []string{}
			}
			if got := codes(res.Violations); !reflect.DeepEqual(got, wantV) {
				t.Errorf("violations = %q, want %q\n%+v", got, wantV, res.Violations)
			}
			if res.OK() != (len(wantV) == 0) {
				t.Errorf("OK() = %v with violations %v", res.OK(), res.Violations)
			}
		})
	}
}

// TestValidateIdempotent: validating the normalised arguments of a usable
// call again changes nothing.
func TestValidateIdempotent(t *testing.T) {
	reg := mustRegistry(t)
	for _, text := range []string{
		`{"file_path":"a.py","text":"x"}`,
		`{"raw_arguments":"{\"path\":\"a\",\"content\":\"b\"}"}`,
		`"{\"path\":\"a\",\"content\":\"b\"}"`,
	} {
		first := reg.Validate(Call{Name: "Write", Form: FormText, Text: text}, Options{})
		if !first.OK() {
			t.Fatalf("%s: not ok: %v", text, first.Violations)
		}
		raw, _ := json.Marshal(first.Args)
		second := reg.Validate(Call{Name: first.ToolName, Form: FormText, Text: string(raw)}, Options{})
		if len(second.Repairs) != 0 || !second.OK() {
			t.Errorf("%s: second pass repairs=%v violations=%v", text, second.Repairs, second.Violations)
		}
		if !reflect.DeepEqual(first.Args, second.Args) {
			t.Errorf("%s: args changed: %v → %v", text, first.Args, second.Args)
		}
	}
}

func TestValidateRequestTools(t *testing.T) {
	reg := mustRegistry(t)
	tool, err := reg.Compile(ToolDef{
		Name: "lookup",
		Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}},
			"required":   []any{"query"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	res := reg.Validate(Call{Name: "lookup", Form: FormText, Text: `{"query":"x","limit":"5"}`}, Options{Tools: []*Tool{tool}})
	if !res.OK() || argsJSON(t, res.Args) != `{"limit":5,"query":"x"}` {
		t.Fatalf("got ok=%v args=%s violations=%v", res.OK(), argsJSON(t, res.Args), res.Violations)
	}
	// Without additionalProperties the schema is strict all the same.
	res = reg.Validate(Call{Name: "lookup", Form: FormText, Text: `{"query":"x","extra":1}`}, Options{Tools: []*Tool{tool}})
	if got := codes(res.Violations); !reflect.DeepEqual(got, []string{"UNEXPECTED_PARAM:extra"}) {
		t.Fatalf("violations = %v", got)
	}
}

func TestCompileRejectsBadDefinitions(t *testing.T) {
	reg := mustRegistry(t)
	for name, def := range map[string]ToolDef{
		"no name":             {Parameters: map[string]any{"type": "object"}},
		"not an object":       {Name: "x", Parameters: map[string]any{"type": "string"}},
		"bad schema keyword":  {Name: "x", Parameters: map[string]any{"type": "object", "properties": "nope"}},
		"undeclared content":  {Name: "x", Parameters: map[string]any{"type": "object"}, ContentParams: []string{"body"}},
		"undeclared aliases":  {Name: "x", Parameters: map[string]any{"type": "object"}, ParamAliases: []ParamAliases{{Param: "q", Aliases: []string{"query"}}}},
		"bad type name":       {Name: "x", Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strin"}}}},
		"unresolvable $ref":   {Name: "x", Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/missing"}}}},
		"variant renames odd": {Name: "x", Parameters: map[string]any{"type": "object"}, Variants: []Variant{{Families: []string{FamilyGeneric}, Rename: map[string]string{"p": "q"}}}},
	} {
		if _, err := reg.Compile(def); err == nil {
			t.Errorf("%s: Compile succeeded", name)
		}
	}
}

func TestParseToolsFileRejectsUnknownFields(t *testing.T) {
	if _, err := ParseToolsFile([]byte("tools:\n  - name: x\n    paramters: {}\n")); err == nil {
		t.Fatal("a misspelt field was accepted")
	}
}

func TestResolve(t *testing.T) {
	reg := mustRegistry(t)
	for name, want := range map[string]string{
		"write_to_file": "write_to_file", "Write": "write_to_file", "write_file": "write_to_file", "create_file": "write_to_file",
		"str_replace": "edit", "edit_file": "edit", "Edit": "edit", "MultiEdit": "multi_edit", "apply_diff": "replace_in_file",
		"TodoWrite": "todo_write", "todo-write": "todo_write", "ApplyPatch": "apply_patch", "nope": "",
	} {
		got := ""
		if tool, _ := reg.Resolve(name, nil); tool != nil {
			got = tool.Name()
		}
		if got != want {
			t.Errorf("Resolve(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestFeedback(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct {
		name     string
		call     Call
		model    string
		mistakes Mistakes
		want     []string
		not      []string
	}{
		{
			name:     "JSON call gets a JSON example",
			call:     Call{Name: "write_to_file", Form: FormText, Text: `{"path":"","content":"x"}`},
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{`Parameter "path" is empty`, `Received: {"path":"","content":"x"}`, `"path": "src/hello.py"`, "Fix the problem above"},
			not:      []string{"<write_to_file>", "limit"},
		},
		{
			name:     "XML call gets an XML example",
			call:     Call{Form: FormXML, Text: "<write_to_file><path>a.py</path></write_to_file>"},
			mistakes: Mistakes{Consecutive: 2, Limit: 3},
			want:     []string{`Missing required parameter "content"`, "Received:\n<write_to_file>\n<path>a.py</path>\n</write_to_file>\n", "<write_to_file>\n<path>src/hello.py</path>\n<content>\n", "second failed tool call"},
			not:      []string{"<missing>"},
		},
		{
			name:     "third mistake escalates and reports the limit",
			call:     Call{Name: "write_to_file", Form: FormParams, Params: map[string]string{"path": "a.py"}},
			mistakes: Mistakes{Consecutive: 3, Limit: 3},
			want:     []string{"Stop retrying the same way", "smaller piece", "re-read the tool definition", "limit of 3 consecutive mistakes has been reached"},
		},
		{
			name:     "variant names in the example",
			call:     Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py"}`},
			model:    "claude-opus-4-1",
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{`"absolutePath": "/home/user/project/src/hello.py"`, `Received: {"absolutePath":"a.py"}`},
		},
		{
			name:     "a small XML call cut inside a value says what was cut, not to write in pieces",
			call:     Call{Form: FormXML, Text: "<write_to_file><path>a.py</path><content>\nabc"},
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{`Your call to write_to_file was cut off inside the value of "content" after 3 bytes; its end tag </content> never came`, "resend the whole call"},
			not:      []string{"smaller pieces"},
		},
		{
			name:     "a small JSON call cut off says what was cut",
			call:     Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a.py", "content": "print(1)`},
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{"Your call to write_to_file was cut off", "resend the whole call"},
			not:      []string{"smaller pieces"},
		},
		{
			name:     "a large call cut off is written in smaller pieces",
			call:     Call{Form: FormXML, Text: "<write_to_file><path>a.py</path><content>\n" + strings.Repeat("print(1)\n", 400)},
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{"cut off after", "smaller pieces"},
			not:      []string{"resend the whole call"},
		},
		{
			name:     "long values are previewed",
			call:     Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a.py","content":"` + strings.Repeat("x", 500) + `","mode":"w"}`},
			mistakes: Mistakes{Consecutive: 1, Limit: 3},
			want:     []string{`"content":"` + strings.Repeat("x", 60) + `"… (500 characters),"mode":"w"}`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{ModelID: tc.model})
			fb := Feedback(res, tc.mistakes)
			for _, w := range tc.want {
				if !strings.Contains(fb, w) {
					t.Errorf("feedback lacks %q:\n%s", w, fb)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(fb, n) {
					t.Errorf("feedback has %q:\n%s", n, fb)
				}
			}
		})
	}
	ok := reg.Validate(Call{Name: "write_to_file", Form: FormText, Text: `{"path":"a","content":"b"}`}, Options{})
	if fb := Feedback(ok, Mistakes{Limit: 3}); fb != "" {
		t.Errorf("usable call got feedback %q", fb)
	}
}

// TestFeedbackGolden pins whole feedback texts: "Received:" in the call's
// own format, parameters named as the model's variant names them in the
// problems, the received parameters and the example alike, and parameters
// not sent left out.
func TestFeedbackGolden(t *testing.T) {
	reg := mustRegistry(t)
	const fix = "\nFix the problem above and call the tool again.\n"
	const jsonWrite = "\nCorrect usage (JSON arguments of write_to_file):\n{\n  \"path\": \"src/hello.py\",\n  \"content\": \"def main():\\n    print(\\\"hello\\\")\"\n}\n"
	const xmlEdit = "\nCorrect usage:\n<edit>\n<path>src/hello.py</path>\n<old_text>\nprint(\"hello\")\n</old_text>\n<new_text>\nprint(\"hello, world\")\n</new_text>\n</edit>\n"
	tests := []struct {
		name  string
		call  Call
		model string
		want  string
	}{
		{
			name: "JSON: a compact JSON object, an optional parameter not sent is not shown",
			call: Call{Name: "write_to_file", Form: FormText, Text: `{"path":"","content":"x","mode":"w"}`},
			want: "Error: the write_to_file tool call could not be used.\n" +
				"- Unexpected parameter \"mode\": write_to_file accepts only path, content.\n" +
				"- Parameter \"path\" is empty; it is required and must have a value.\n" +
				`Received: {"path":"","content":"x","mode":"w"}` + "\n" + jsonWrite + fix,
		},
		{
			name: "XML: the tool block as tags, the missing parameter left to the problems",
			call: Call{Form: FormXML, Text: "<edit><path>a.py</path><old_text>x</old_text></edit>"},
			want: "Error: the edit tool call could not be used.\n" +
				"- Missing required parameter \"new_text\".\n" +
				"Received:\n<edit>\n<path>a.py</path>\n<old_text>x</old_text>\n</edit>\n" + xmlEdit + fix,
		},
		{
			name: "params: tags, values as received",
			call: Call{Name: "edit", Form: FormParams, Params: map[string]string{"path": "a.py", "old_text": "x", "new_text": "y", "replace_all": "maybe"}},
			want: "Error: the edit tool call could not be used.\n" +
				"- Parameter \"replace_all\" must be a boolean, not a string.\n" +
				"Received:\n<edit>\n<path>a.py</path>\n<old_text>x</old_text>\n<new_text>y</new_text>\n<replace_all>maybe</replace_all>\n</edit>\n" + xmlEdit + fix,
		},
		{
			name:  "Claude 4: absolutePath in the problems, the received parameters and the example",
			call:  Call{Name: "Write", Form: FormText, Text: `{"file_path":"","content":"x","mode":"w"}`},
			model: "claude-sonnet-4-5",
			want: "Error: the write_to_file tool call could not be used.\n" +
				"- Unexpected parameter \"mode\": write_to_file accepts only absolutePath, content.\n" +
				"- Parameter \"absolutePath\" is empty; it is required and must have a value.\n" +
				`Received: {"absolutePath":"","content":"x","mode":"w"}` + "\n" +
				"\nCorrect usage (JSON arguments of write_to_file):\n{\n  \"absolutePath\": \"/home/user/project/src/hello.py\",\n  \"content\": \"def main():\\n    print(\\\"hello\\\")\"\n}\n" + fix,
		},
		{
			name:  "Claude 4, XML: a missing absolutePath and a wrong type under the shown name",
			call:  Call{Form: FormXML, Text: "<edit><old_text>a</old_text><new_text>b</new_text><replace_all>[1]</replace_all></edit>"},
			model: "claude-opus-4-1",
			want: "Error: the edit tool call could not be used.\n" +
				"- Missing required parameter \"absolutePath\".\n" +
				"- Parameter \"replace_all\" must be a boolean, not a string.\n" +
				"Received:\n<edit>\n<old_text>a</old_text>\n<new_text>b</new_text>\n<replace_all>[1]</replace_all>\n</edit>\n" +
				"\nCorrect usage:\n<edit>\n<absolutePath>/home/user/project/src/hello.py</absolutePath>\n<old_text>\nprint(\"hello\")\n</old_text>\n<new_text>\nprint(\"hello, world\")\n</new_text>\n</edit>\n" + fix,
		},
		{
			name:  "Claude 4: a wrong type under the shown name",
			call:  Call{Name: "write_to_file", Form: FormText, Text: `{"path":["a.py"],"content":"x"}`},
			model: "claude-opus-4-1",
			want: "Error: the write_to_file tool call could not be used.\n" +
				"- Parameter \"absolutePath\" must be a string, not an array.\n" +
				`Received: {"absolutePath":["a.py"],"content":"x"}` + "\n" +
				"\nCorrect usage (JSON arguments of write_to_file):\n{\n  \"absolutePath\": \"/home/user/project/src/hello.py\",\n  \"content\": \"def main():\\n    print(\\\"hello\\\")\"\n}\n" + fix,
		},
		{
			name: "long values are cut, with their length outside the value",
			call: Call{Form: FormXML, Text: "<write_to_file><path>a.py</path><content>" + strings.Repeat("é", 61) + "</content><mode>w</mode></write_to_file>"},
			want: "Error: the write_to_file tool call could not be used.\n" +
				"- Unexpected parameter \"mode\": write_to_file accepts only path, content.\n" +
				"Received:\n<write_to_file>\n<path>a.py</path>\n<content>" + strings.Repeat("é", 60) + "…</content> (61 characters)\n<mode>w</mode>\n</write_to_file>\n" +
				"\nCorrect usage:\n<write_to_file>\n<path>src/hello.py</path>\n<content>\ndef main():\n    print(\"hello\")\n</content>\n</write_to_file>\n" + fix,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{ModelID: tc.model})
			if got := Feedback(res, Mistakes{Consecutive: 1, Limit: 3}); got != tc.want {
				t.Errorf("feedback:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// TestUsageExamplesValidate: every tool's own example, rendered for every
// family in both formats, is a usable call. Feedback hands these to models,
// so a broken example would teach them the wrong thing.
func TestUsageExamplesValidate(t *testing.T) {
	reg := mustMemoryRegistry(t)
	for _, tool := range reg.Tools() {
		for _, family := range []string{FamilyGeneric, FamilyNativeNextGen, FamilyNativeGPT5} {
			v := tool.view(family)
			xml := reg.Validate(Call{Form: FormXML, Text: v.xmlBlock(v.example())}, Options{})
			if !xml.OK() {
				t.Errorf("%s/%s XML example: %v\n%s", tool.Name(), family, xml.Violations, v.xmlBlock(v.example()))
			}
			js := reg.Validate(Call{Name: tool.Name(), Form: FormText, Text: v.jsonBlock(v.example())}, Options{})
			if !js.OK() {
				t.Errorf("%s/%s JSON example: %v", tool.Name(), family, js.Violations)
			}
			if !reflect.DeepEqual(xml.Args, js.Args) {
				t.Errorf("%s/%s: XML and JSON examples differ: %v vs %v", tool.Name(), family, xml.Args, js.Args)
			}
		}
	}
}

func TestRender(t *testing.T) {
	reg := mustRegistry(t)
	w := reg.Tool("write_to_file")
	gen := w.Render(FamilyGeneric)
	next := w.Render(FamilyNativeNextGen)
	props := func(r Rendered) []string {
		p := r.OpenAI["function"].(map[string]any)["parameters"].(map[string]any)["properties"].(map[string]any)
		var out []string
		for k := range p {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	if got := props(gen); !reflect.DeepEqual(got, []string{"content", "path"}) {
		t.Errorf("generic params %v", got)
	}
	if got := props(next); !reflect.DeepEqual(got, []string{"absolutePath", "content"}) {
		t.Errorf("next-gen params %v", got)
	}
	if !strings.Contains(next.Def.Description, "absolutePath first") {
		t.Errorf("next-gen description %q", next.Def.Description)
	}
	if next.Anthropic["input_schema"] == nil || next.Anthropic["name"] != "write_to_file" {
		t.Errorf("anthropic shape %v", next.Anthropic)
	}
	for _, want := range []string{"## write_to_file", "- path: (required)", "- content: (required)", "Usage:\n<write_to_file>\n<path>"} {
		if !strings.Contains(gen.XMLUsage, want) {
			t.Errorf("usage lacks %q:\n%s", want, gen.XMLUsage)
		}
	}
	// The built-in schemas stay strict as declared, and the renamed
	// required list follows the rename.
	req := next.Def.Parameters["required"].([]any)
	if !reflect.DeepEqual(req, []any{"absolutePath", "content"}) {
		t.Errorf("required %v", req)
	}
}

func TestFamilyOf(t *testing.T) {
	for id, want := range map[string]string{
		"":                           FamilyGeneric,
		"deepseek-chat":              FamilyGeneric,
		"claude-3-7-sonnet-20250219": FamilyGeneric,
		"claude-sonnet-4-5-20250929": FamilyNativeNextGen,
		"anthropic/claude-opus-4.1":  FamilyNativeNextGen,
		"claude-4-opus":              FamilyNativeNextGen,
		"gemini-2.5-pro":             FamilyNativeNextGen,
		"gemini-2.0-flash":           FamilyGeneric,
		"gpt-5-codex":                FamilyNativeGPT5,
		"openai/gpt-5.1":             FamilyNativeGPT5,
		"gpt-4o":                     FamilyGeneric,
		"grok-4-fast":                FamilyNativeNextGen,
		"gemini-3-pro-preview":       FamilyNativeNextGen,
		"claude-haiku-4-5":           FamilyNativeNextGen,
		"claude-instant-1.2":         FamilyGeneric,
	} {
		if got := FamilyOf(id); got != want {
			t.Errorf("FamilyOf(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestRegistryWithoutTools: only the tools a request declares resolve, so
// a built-in alias (Write, TodoWrite) or the multiplexer never captures a
// name; the shared parameter aliases still apply to the declared tools.
func TestRegistryWithoutTools(t *testing.T) {
	reg, err := NewRegistryWithoutTools()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(reg.Tools()); n != 0 {
		t.Fatalf("registry holds %d tools, want none", n)
	}
	for _, name := range []string{"Write", "TodoWrite", "write_to_file", "str_replace_based_edit_tool"} {
		if tool, _ := reg.Resolve(name, nil); tool != nil || reg.IsMultiplexer(name) {
			t.Errorf("Resolve(%q) found %v (multiplexer %v), want nothing", name, tool, reg.IsMultiplexer(name))
		}
	}
	save, err := reg.Compile(ToolDef{Name: "Save", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}},
		"required":   []any{"path", "content"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tools := []*Tool{save}
	if tool, aliased := reg.Resolve("save", tools); tool != save || !aliased {
		t.Errorf("Resolve(save) = %v, %v; want the declared Save, aliased", tool, aliased)
	}
	if tool, _ := reg.Resolve("Write", tools); tool != nil {
		t.Errorf("Resolve(Write) = %q, want nothing: the request did not declare it", tool.Name())
	}
	res := reg.Validate(Call{Name: "save", Form: FormText, Text: `{'file_path': 'a.txt', 'text': 'hi'}`}, Options{Tools: tools})
	if !res.OK() || res.ToolName != "Save" || argsJSON(t, res.Args) != `{"content":"hi","path":"a.txt"}` {
		t.Fatalf("got ok=%v tool=%q args=%s violations=%v", res.OK(), res.ToolName, argsJSON(t, res.Args), res.Violations)
	}
}

// TestNumbersOutOfRange: a number no float64 holds is a violation, kept in
// the arguments as its text so every front end can still show them.
func TestNumbersOutOfRange(t *testing.T) {
	reg := mustRegistry(t)
	tool, err := reg.Compile(ToolDef{
		Name: "measure",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"n":    map[string]any{"type": "number"},
				"list": map[string]any{"type": "array", "items": map[string]any{"type": "number"}},
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text, want, args string
	}{
		{`{"n": 1e308}`, "", `{"n":1e308}`},
		{`{"n": 123456789012345678901234567890}`, "", `{"n":123456789012345678901234567890}`},
		{`{"n": 1e999}`, "INVALID_VALUE:n", `{"n":"1e999"}`},
		{`{"list": [1, -1e400]}`, "INVALID_VALUE:list/1", `{"list":[1,"-1e400"]}`},
	}
	for _, tt := range tests {
		res := reg.Validate(Call{Name: "measure", Form: FormText, Text: tt.text}, Options{Tools: []*Tool{tool}})
		if got := strings.Join(codes(res.Violations), ","); got != tt.want || argsJSON(t, res.Args) != tt.args {
			t.Errorf("%s: violations %q args %s, want %q %s", tt.text, got, argsJSON(t, res.Args), tt.want, tt.args)
		}
	}
}

// TestAllowEmpty: a tool's param_aliases entry may only set allow_empty; the
// tool then takes "" for that parameter, others still count it missing, and
// the definition the registry gives back keeps the setting.
func TestAllowEmpty(t *testing.T) {
	f, err := ParseToolsFile([]byte(`
tools:
  - name: note
    param_aliases:
      - param: body
        allow_empty: true
    parameters:
      type: object
      properties:
        title: {type: string}
        body: {type: string}
      required: [title, body]
`))
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, f)
	tests := []struct {
		text       string
		violations []string
	}{
		{`{"title":"t","body":""}`, []string{}},
		{`{"title":"","body":""}`, []string{"MISSING_REQUIRED:title"}},
		{`{"title":"t"}`, []string{"MISSING_REQUIRED:body"}},
	}
	for _, tc := range tests {
		res := reg.Validate(Call{Name: "note", Form: FormText, Text: tc.text}, Options{})
		if got := codes(res.Violations); !reflect.DeepEqual(got, tc.violations) {
			t.Errorf("%s: violations %q, want %q", tc.text, got, tc.violations)
		}
	}
	want := []ParamAliases{{Param: "body", AllowEmpty: true}}
	if got := reg.Tool("note").ParamAliases(); !reflect.DeepEqual(got, want) {
		t.Errorf("ParamAliases() = %+v, want %+v", got, want)
	}
	if !slices.ContainsFunc(reg.Tool("write_to_file").ParamAliases(), func(p ParamAliases) bool { return p.Param == "content" && p.AllowEmpty }) {
		t.Errorf("write_to_file's content does not allow empty: %+v", reg.Tool("write_to_file").ParamAliases())
	}
}
