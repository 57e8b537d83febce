package repair

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
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

// TestValidateParsedLarge: calls of many parameters, whose strict text the
// validation scans to spare walks over the parsed object (plainParsed, and
// the range check of numbers the plain check read), get the result their
// text gets, whether that text holds entities, separators, escapes, a
// wrapper, or numbers out of range, on top or inside.
func TestValidateParsedLarge(t *testing.T) {
	reg := mustRegistry(t)
	var tools []*Tool
	for _, types := range [][]any{{"string", "integer"}, {"string", "integer", "object", "array"}, {"string", "number", "object"}, {"string"}} {
		tool, err := reg.Compile(ToolDef{Name: fmt.Sprintf("open%d", len(tools)), Parameters: map[string]any{
			"type": "object", "additionalProperties": map[string]any{"type": types},
		}})
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	params := func(n int, last string) string {
		var b strings.Builder
		b.WriteByte('{')
		for i := range n {
			if i%3 == 0 {
				fmt.Fprintf(&b, `"p%d":%d,`, i, i)
			} else {
				fmt.Fprintf(&b, `"p%d":"v%d",`, i, i)
			}
		}
		b.WriteString(last)
		b.WriteByte('}')
		return b.String()
	}
	n := manyMembers
	for _, tc := range []struct {
		name, text string
		changed    bool // the result has a repair or a violation
	}{
		{"plain", params(n, `"z":"x=y"`), false},
		{"entity", params(n, `"z":"a &amp;&amp; b"`), true},
		{"separator", params(n, `"z":"<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"`), false},
		{"escaped entity", params(n, `"z":"a \u0026amp;\u0026amp; b"`), true},
		{"wrapper", `{"arguments":` + strconv.Quote(params(n, `"z":"a &amp;&amp; b"`)) + `}`, true},
		{"number out of range", params(n, `"z":1e999`), true},
		{"number out of range inside", params(n, `"z":{"y":[1,1e999]}`), true},
		{"a real number", params(n, `"z":2.5`), true},
		{"few members", params(10, `"z":"a &amp;&amp; b"`), true},
		{"integers for strings", params(n, `"z":"x"`), false},
	} {
		for _, tool := range tools {
			t.Run(tc.name+"/"+tool.Name(), func(t *testing.T) {
				call := Call{Name: tool.Name(), Form: FormText, Text: tc.text}
				opts := Options{Tools: tools}
				want := reg.Validate(call, opts)
				r, err := RepairJSON(call.Text, JSONOptions{})
				if err != nil || len(r.Repairs) > 0 {
					t.Fatalf("the table's text is not strict JSON: %v %v", err, r.Repairs)
				}
				call.Parsed = r.Value.(map[string]any)
				call.ParsedIntegers = shortIntegers(call.Parsed) // as a stream parser says
				got := reg.Validate(call, opts)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("with Parsed:\n got %+v %+v\nwant %+v %+v", got.Repairs, got.Violations, want.Repairs, want.Violations)
				}
				if changed := len(got.Repairs)+len(got.Violations) > 0; tc.changed && tool == tools[1] && !changed {
					t.Errorf("no repair and no violation: %+v", got.Args["z"])
				}
			})
		}
	}
	// A text parameter of a flat, plain call is still found by its role.
	t.Run("placeholder content", func(t *testing.T) {
		call := Call{Name: "write_to_file", Form: FormText, Text: params(n, `"path":"a.go","content":"// ... rest of the code remains the same ..."`)}
		want := reg.Validate(call, Options{})
		r, err := RepairJSON(call.Text, JSONOptions{})
		if err != nil {
			t.Fatal(err)
		}
		call.Parsed = r.Value.(map[string]any)
		got := reg.Validate(call, Options{})
		// (Result.unexpected lists the undeclared keys in the map's order.)
		if !reflect.DeepEqual(got.Violations, want.Violations) || !reflect.DeepEqual(got.Repairs, want.Repairs) ||
			got.ViolationsOmitted != want.ViolationsOmitted || !reflect.DeepEqual(got.Args, want.Args) {
			t.Errorf("with Parsed:\n got %+v\nwant %+v", got.Violations[:min(2, len(got.Violations))], want.Violations[:min(2, len(want.Violations))])
		}
		if !got.Has(CodePlaceholderContent) {
			t.Errorf("no %s: %+v", CodePlaceholderContent, got.Violations)
		}
	})
}

// shortIntegers reports whether every number in v is an integer of at
// most 18 digits.
func shortIntegers(v any) bool {
	switch x := v.(type) {
	case json.Number:
		s := strings.TrimPrefix(string(x), "-")
		return len(s) <= 18 && strings.Trim(s, "0123456789") == ""
	case map[string]any:
		for _, e := range x {
			if !shortIntegers(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !shortIntegers(e) {
				return false
			}
		}
	}
	return true
}
