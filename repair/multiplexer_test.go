package repair

import (
	"strings"
	"testing"
)

// TestSuppliedCommand: a multiplexer's command whose tool a front end
// supplies (view: read_file) picks the call's own tool of that name, and is
// unsupported, saying which commands are, when the call brings none.
func TestSuppliedCommand(t *testing.T) {
	reg, err := NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	read, err := reg.Compile(ToolDef{Name: "read_file", Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"path": map[string]any{"type": "string"}},
		"required":             []any{"path"},
		"additionalProperties": false,
	}})
	if err != nil {
		t.Fatal(err)
	}
	call := Call{Name: "str_replace_based_edit_tool", Form: FormText, Text: `{"command":"view","path":"a.py"}`}
	tests := []struct {
		name  string
		tools []*Tool
		tool  string
		code  string
	}{
		{"supplied", []*Tool{read}, "read_file", ""},
		{"not supplied", nil, "", CodeUnsupportedCommand},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(call, Options{Tools: tc.tools})
			switch {
			case tc.code == "" && (!res.OK() || res.Tool == nil || res.Tool.Name() != tc.tool):
				t.Fatalf("got %+v, want a usable %s", res.Violations, tc.tool)
			case tc.code == "" && (res.Args["path"] != "a.py" || res.Args["command"] != nil):
				t.Fatalf("args %v", res.Args)
			case tc.code != "" && (len(res.Violations) != 1 || res.Violations[0].Code != tc.code):
				t.Fatalf("violations %+v, want %s", res.Violations, tc.code)
			case tc.code != "" && strings.Contains(res.Violations[0].Message, `"view"`+","):
				t.Fatalf("view offered without its tool: %s", res.Violations[0].Message)
			}
		})
	}
}
