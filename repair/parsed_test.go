package repair

import (
	"reflect"
	"testing"
)

// TestValidateParsed checks that a call whose arguments come parsed (from
// a stream) gets the result its text gets: unwrapping, aliases, coercion,
// content fixes and the schema check all run on the parsed object.
func TestValidateParsed(t *testing.T) {
	reg := mustRegistry(t)
	for _, tc := range []struct {
		name string
		call Call
	}{
		{"valid write", Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a.go", "content": "package a\n"}`}},
		{"aliases and wrapper", Call{Name: "Write", Form: FormText, Text: `{"arguments": {"file_path": "a.go", "text": "x"}}`}},
		{"coercion", Call{Name: "multi_edit", Form: FormText, Text: `{"path": "a.go", "edits": "[{\"old_text\": \"a\", \"new_text\": \"b\"}]"}`}},
		{"missing parameter", Call{Name: "write_to_file", Form: FormText, Text: `{"path": "a.go"}`}},
		{"unknown tool", Call{Name: "nope", Form: FormText, Text: `{"a": 1}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := reg.Validate(tc.call, Options{})
			r, err := RepairJSON(tc.call.Text, JSONOptions{})
			if err != nil || len(r.Repairs) > 0 {
				t.Fatalf("the table's text is not strict JSON: %v %v", err, r.Repairs)
			}
			parsed := tc.call
			parsed.Parsed = r.Value.(map[string]any)
			got := reg.Validate(parsed, Options{})
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with Parsed:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}
