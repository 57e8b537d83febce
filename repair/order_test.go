package repair

import (
	"fmt"
	"slices"
	"testing"
)

// orderTools has a tool of many typed, content and optional parameters, so
// that one call makes repairs and violations at several members of an
// object and of a nested one.
const orderTools = `
tools:
  - name: many
    description: A tool of many members.
    content_params: [c1, c2, c3]
    parameters:
      type: object
      properties:
        n1: {type: integer}
        n2: {type: integer}
        n3: {type: number}
        b1: {type: boolean}
        b2: {type: boolean}
        c1: {type: string}
        c2: {type: string}
        c3: {type: string}
        inner:
          type: object
          properties:
            m1: {type: integer}
            m2: {type: integer}
            m3: {type: boolean}
        list: {type: array, items: {type: integer}}
      required: [n1, n2, n3, b1, b2, c1, c2, c3, inner]
`

// TestRepairOrderDeterministic: the same call gets the same repairs and
// violations in the same order every time, whatever order Go's maps give
// their members (a map's order changes from one range to the next).
func TestRepairOrderDeterministic(t *testing.T) {
	f, err := ParseToolsFile([]byte(orderTools))
	if err != nil {
		t.Fatal(err)
	}
	reg := mustRegistry(t, f)
	calls := []string{
		`{"n1": "1", "n2": "2", "n3": "3.5", "b1": "true", "b2": "false", "c1": "a\\nb", "c2": "x\\ny", "c3": "p\\nq", "inner": {"m1": "4", "m2": "5", "m3": "true"}, "list": ["1", "2", "3"]}`,
		`{"n1": "x", "n2": "y", "n3": "z", "b1": "maybe", "b2": "no way", "c1": "` + "```py\\nx\\n```" + `", "inner": {"m1": "a", "m2": "b", "m3": "c"}, "list": ["a", "b"]}`,
		`{"raw_arguments": {"n1": 1, "n2": 2, "n3": 3, "b1": true, "b2": false, "c1": "a", "c2": "b", "c3": "c", "inner": {}}, "n1": 5, "n2": 6, "n3": 7, "b1": false, "b2": true, "c1": "x", "c2": "y", "c3": "z"}`,
		`{'n1': '1', 'n2': '2', 'n3': '3', 'b1': 'True', 'b2': 'False', 'c1': 'a', 'c2': 'b', 'c3': 'c', 'inner': {'m1': '1', 'm2': '2', 'm3': 'False'}}`,
	}
	for i, text := range calls {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var first []string
			for run := range 64 {
				res := reg.Validate(Call{Name: "many", Form: FormText, Text: text}, Options{})
				got := append(codes(res.Repairs), codes(res.Violations)...)
				if run == 0 {
					first = got
					if len(got) < 4 {
						t.Fatalf("the call should make several repairs and violations: %v", got)
					}
					continue
				}
				if !slices.Equal(got, first) {
					t.Fatalf("run %d: %v\nrun 0: %v", run, got, first)
				}
			}
		})
	}
}
