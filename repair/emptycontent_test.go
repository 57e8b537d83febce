package repair

import "testing"

// TestEmptyFileContent: "" is an empty file wherever a tool writes file
// content, the caller's own tools as the built-in one: a parameter in the
// content group (any spelling) of a tool that also takes a path, or one the
// tool names as content. Elsewhere "" stays missing: a value the model lost.
func TestEmptyFileContent(t *testing.T) {
	reg := mustRegistry(t)
	str := map[string]any{"type": "string"}
	tests := []struct {
		name  string
		def   ToolDef
		text  string
		empty bool // "" accepted
	}{
		{"caller's write_file (Gemini CLI)", ToolDef{Name: "write_file", Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"file_path": str, "content": str}, "required": []any{"file_path", "content"}}},
			`{"file_path": "pkg/__init__.py", "content": ""}`, true},
		{"caller's create (OpenHands file_text)", ToolDef{Name: "create", Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"path": str, "file_text": str}, "required": []any{"path", "file_text"}}},
			`{"path": "a/.gitkeep", "file_text": ""}`, true},
		{"content named by the tool", ToolDef{Name: "save", ContentParams: []string{"body"}, Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"target": str, "body": str}, "required": []any{"target", "body"}}},
			`{"target": "empty.txt", "body": ""}`, true},
		{"a comment's content, no file", ToolDef{Name: "post_comment", Parameters: map[string]any{"type": "object",
			"properties": map[string]any{"content": str}, "required": []any{"content"}}},
			`{"content": ""}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := reg.Compile(tc.def)
			if err != nil {
				t.Fatal(err)
			}
			res := reg.Validate(Call{Name: tc.def.Name, Form: FormText, Text: tc.text}, Options{Tools: []*Tool{tool}})
			if res.OK() != tc.empty {
				t.Errorf("OK = %v, want %v (violations %+v)", res.OK(), tc.empty, res.Violations)
			}
			if !tc.empty && (len(res.Violations) != 1 || res.Violations[0].Code != CodeMissingRequired) {
				t.Errorf("violations = %+v, want one MISSING_REQUIRED", res.Violations)
			}
		})
	}
}
