package repair

import (
	"strings"
	"testing"
)

// TestStructureFirstUnderLooseSchemas: where the schema lists no keys (an
// array without an item schema, {type: object}), the text's own structure
// decides where a string ends, as it does with no schema at all; the
// schema's keys weigh only at the depths where it lists them. The TodoWrite
// payload of the user's seed 4, Python dicts as models write them.
func TestStructureFirstUnderLooseSchemas(t *testing.T) {
	reg := mustRegistry(t)
	var tools []*Tool
	for _, def := range []ToolDef{
		{Name: "todo_loose", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"todos": map[string]any{"type": "array"}}}},
		{Name: "todo_untyped_items", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"todos": map[string]any{"type": "array", "items": map[string]any{}}}}},
		{Name: "configure", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"cfg": map[string]any{"type": "object"}}}},
		{Name: "todo_typed", Parameters: map[string]any{"type": "object", "properties": map[string]any{
			"todos": map[string]any{"type": "array", "items": map[string]any{"type": "object", "properties": map[string]any{
				"content": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"},
				"status": map[string]any{"type": "string"}}}}}}},
	} {
		tool, err := reg.Compile(def)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	seed4 := `{"todos": [{'content': '创建项目结构和主程序文件', 'id': '1', 'status': 'in_progress'}, {'content': '编写单元测试', 'id': '2', 'status': 'pending'}]}`
	wantSeed4 := `{"todos":[{"content":"创建项目结构和主程序文件","id":"1","status":"in_progress"},{"content":"编写单元测试","id":"2","status":"pending"}]}`
	tests := []struct {
		name, tool, text, args string
	}{
		{"qwen todo list, array without an item schema", "todo_loose", seed4, wantSeed4},
		{"qwen todo list, items of any type", "todo_untyped_items", seed4, wantSeed4},
		{"qwen todo list, typed items", "todo_typed", seed4, wantSeed4},
		{"python dict in an object parameter", "configure", `{"cfg": {'a': 'x', 'b': 'y'}}`, `{"cfg":{"a":"x","b":"y"}}`},
		{"python dict nested in an object parameter", "configure", `{'cfg': {'a': {'b': 'x', 'c': 'y'}, 'd': 'z'}}`, `{"cfg":{"a":{"b":"x","c":"y"},"d":"z"}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: tc.text}, Options{Tools: tools})
			if !res.OK() {
				t.Fatalf("not usable: %v", res.Violations)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
		})
	}
}

// TestAmbiguousQuoteFeedback: a value whose end the text leaves open is
// refused with what to do, under any schema.
func TestAmbiguousQuoteFeedback(t *testing.T) {
	reg := mustRegistry(t)
	tool, err := reg.Compile(ToolDef{Name: "write_file", Parameters: map[string]any{"type": "object", "properties": map[string]any{
		"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}}})
	if err != nil {
		t.Fatal(err)
	}
	res := reg.Validate(Call{Name: "write_file", Form: FormText, Text: `{"path": "a.txt", "content": "she said \"yes\" and "no" twice}`}, Options{Tools: []*Tool{tool}})
	if res.OK() {
		t.Fatalf("usable: %v", res.Args)
	}
	if len(res.Violations) != 1 || res.Violations[0].Code != CodeUnparseable ||
		!strings.Contains(res.Violations[0].Message, `Escape every quote inside a string value as \"`) {
		t.Fatalf("violations = %+v", res.Violations)
	}
}

// TestExtraKeyUnderTypedItems: a member the item schema does not list,
// written as cleanly as its neighbours, is a member to report, never text
// read into the string before it (qwen TodoWrite with a priority field).
func TestExtraKeyUnderTypedItems(t *testing.T) {
	reg := mustRegistry(t)
	tool, err := reg.Compile(ToolDef{Name: "todo_write", Parameters: map[string]any{"type": "object", "properties": map[string]any{
		"todos": map[string]any{"type": "array", "items": map[string]any{"type": "object", "additionalProperties": false,
			"properties": map[string]any{"content": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"},
				"status": map[string]any{"type": "string"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		`{"todos": [{'content': 'a', 'id': '1', 'priority': 'high', 'status': 'pending'}]}`,
		`{"todos": [{'content': 'a', 'id': '1', 'status': 'pending', 'priority': 'high'}, {'content': 'b', 'id': '2', 'status': 'pending'}]}`,
		`{"todos": [{"content": "a", "id": "1", "status": "pending", "priority": "high"}]}`,
	} {
		res := reg.Validate(Call{Name: "todo_write", Form: FormText, Text: text}, Options{Tools: []*Tool{tool}})
		if res.OK() || len(res.Violations) != 1 || res.Violations[0].Code != CodeUnexpectedParam || res.Violations[0].Param != "todos/0/priority" {
			t.Errorf("%s: ok=%v args=%v violations=%+v, want UNEXPECTED_PARAM at todos/0/priority", text, res.OK(), res.Args, res.Violations)
		}
	}
}
