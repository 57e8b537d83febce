package repair

import (
	"reflect"
	"slices"
	"testing"
)

// TestQuotedValues: a string value that is wholly one JSON string literal
// loses its quotes only on evidence (the schema's enum wants the unquoted
// value, or the value is a path), and says so; any other value keeps them.
func TestQuotedValues(t *testing.T) {
	reg := mustRegistry(t)
	mode, err := reg.Compile(ToolDef{Name: "open_file", Parameters: map[string]any{"type": "object", "properties": map[string]any{
		"file_path": map[string]any{"type": "string"},
		"mode":      map[string]any{"type": "string", "enum": []any{"edit", "view"}},
		"note":      map[string]any{"type": "string"},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	tools := []*Tool{mode}
	tests := []struct {
		name, tool, text, args string
		repaired               []string // params reported DOUBLE_ENCODED
	}{
		{"gemini path written as a JSON string", "write_to_file", `{"path": "\"src/a.txt\"", "content": "x"}`,
			`{"content":"x","path":"src/a.txt"}`, []string{"path"}},
		{"enum member written as a JSON string", "open_file", `{"file_path": "\"a.go\"", "mode": "\"edit\""}`,
			`{"file_path":"a.go","mode":"edit"}`, []string{"file_path", "mode"}},
		{"content keeps its quotes", "write_to_file", `{"path": "a.txt", "content": "\"hello\""}`,
			`{"content":"\"hello\"","path":"a.txt"}`, nil},
		{"a free string keeps its quotes", "open_file", `{"file_path": "a.go", "note": "\"as is\""}`,
			`{"file_path":"a.go","note":"\"as is\""}`, nil},
		{"a path that is not one literal keeps its quotes", "write_to_file", `{"path": "\"a\" and \"b\"", "content": "x"}`,
			`{"content":"x","path":"\"a\" and \"b\""}`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: tc.text}, Options{Tools: tools})
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
			var repaired []string
			for _, r := range res.Repairs {
				if r.Code == CodeDoubleEncoded {
					repaired = append(repaired, r.Param)
				}
			}
			slices.Sort(repaired) // the members are normalised in no fixed order
			if !reflect.DeepEqual(repaired, tc.repaired) {
				t.Errorf("DOUBLE_ENCODED on %v, want %v", repaired, tc.repaired)
			}
		})
	}
}
