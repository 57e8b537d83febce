package repair

import (
	"encoding/json"
	"testing"
)

// TestWrappedArgumentsKeys: arguments wrapped in a sole key that unwrap
// takes off are repaired with the tool's keys one depth down, where they
// are: a stray word after an item's value is refused as it is unwrapped,
// never read into a string that swallows the item's end and the next item.
func TestWrappedArgumentsKeys(t *testing.T) {
	reg := mustRegistry(t)
	tool, err := reg.Compile(ToolDef{Name: "todo", Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{"todos": map[string]any{"type": "array", "items": map[string]any{
			"type":       "object",
			"properties": map[string]any{"content": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"}},
		}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	items := `{"todos":[{"content":"x","status":"done" (see above)},{"content":"y","status":"done"}]}`
	tests := []struct{ name, text, want string }{
		{"stray words, unwrapped", items, ""},
		{"stray words, wrapped", `{"arguments": ` + items + `}`, ""},
		{"stray words, wrapped twice", `{"arguments": {"input": ` + items + `}}`, ""},
		{"a repair, wrapped", `{"arguments": {'todos': [{'content': 'x', 'status': 'done'}]}}`, `{"todos":[{"content":"x","status":"done"}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: "todo", Form: FormText, Text: tc.text}, Options{Tools: []*Tool{tool}})
			if tc.want == "" {
				if !res.Has(CodeUnparseable) {
					t.Fatalf("got %v, want %s", res.Args, CodeUnparseable)
				}
				return
			}
			if !res.OK() {
				t.Fatalf("refused: %v", res.Violations)
			}
			if got, _ := json.Marshal(res.Args); string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
