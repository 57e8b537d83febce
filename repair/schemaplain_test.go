package repair

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestPlainStringParams(t *testing.T) {
	str := map[string]any{"type": "string", "description": "d"}
	tests := []struct {
		name   string
		params map[string]any
		want   map[string]bool
	}{
		{"write schema", map[string]any{"type": "object", "properties": map[string]any{"path": str, "content": str, "n": map[string]any{"type": "integer"}},
			"required": []any{"path"}, "additionalProperties": false}, map[string]bool{"path": true, "content": true}},
		{"a string with a pattern", map[string]any{"type": "object", "properties": map[string]any{"p": map[string]any{"type": "string", "pattern": "^a"}}}, nil},
		{"a string with a length", map[string]any{"properties": map[string]any{"p": map[string]any{"type": "string", "maxLength": 3}}}, nil},
		{"a string among types", map[string]any{"properties": map[string]any{"p": map[string]any{"type": []any{"string", "null"}}}}, nil},
		{"a root that looks at values", map[string]any{"type": "object", "properties": map[string]any{"p": str}, "not": map[string]any{"required": []any{"p"}}}, nil},
		{"a schema for the other properties", map[string]any{"properties": map[string]any{"p": str}, "additionalProperties": map[string]any{"type": "string"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := plainStringParams(tt.params); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("plainStringParams = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestValidateLongContent checks that a long content, checked as "",
// gets the verdict a short one gets.
func TestValidateLongContent(t *testing.T) {
	reg := mustRegistry(t)
	long := strings.Repeat("x := <b>; ", plainStringSize)
	for _, tc := range []struct {
		name string
		args string // %s is the content
		want []Violation
	}{
		{"valid", `{"path": "a.go", "content": "%s"}`, nil},
		{"unknown parameter", `{"path": "a.go", "content": "%s", "mode": "w"}`, []Violation{{Code: CodeUnexpectedParam, Param: "mode"}}},
		{"path not a string", `{"path": {"a": 1}, "content": "%s"}`, []Violation{{Code: CodeWrongType, Param: "path"}}},
		{"content missing", `{"path": "a.go", "text2": "%s"}`, []Violation{{Code: CodeMissingRequired, Param: "content"}, {Code: CodeUnexpectedParam, Param: "text2"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var verdicts [2][]Violation
			for i, content := range []string{"short", long} {
				res := reg.Validate(Call{Name: "write_to_file", Form: FormText, Text: strings.Replace(tc.args, "%s", content, 1)}, Options{})
				for _, v := range res.Violations {
					verdicts[i] = append(verdicts[i], Violation{Code: v.Code, Param: v.Param})
				}
			}
			if !reflect.DeepEqual(verdicts[0], tc.want) || !reflect.DeepEqual(verdicts[1], tc.want) {
				t.Errorf("violations short %+v, long %+v; want %+v", verdicts[0], verdicts[1], tc.want)
			}
		})
	}
}

// TestClosedRootSameVerdict: a closed root schema's undeclared parameters,
// named by the check itself, get the verdict the schema library gives.
func TestClosedRootSameVerdict(t *testing.T) {
	reg := mustRegistry(t)
	schema := func(extra map[string]any) map[string]any {
		s := map[string]any{"type": "object", "required": []any{"path", "content"}, "additionalProperties": false,
			"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"},
				"n": map[string]any{"type": "integer"}}}
		for k, v := range extra {
			s[k] = v
		}
		return s
	}
	closed, err := reg.Compile(ToolDef{Name: "t", Parameters: schema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	// minProperties asserts nothing here but keeps the library's path.
	library, err := reg.Compile(ToolDef{Name: "t", Parameters: schema(map[string]any{"minProperties": 0})})
	if err != nil {
		t.Fatal(err)
	}
	if closed.closedRoot == nil || library.closedRoot != nil || reg.Tool("write_to_file").closedRoot == nil {
		t.Fatal("the closed root is not recognised as such")
	}
	for _, args := range []string{
		`{"path": "a", "content": "b"}`,
		`{"path": "a", "content": "b", "mode": "w"}`,
		`{"content": "b", "mode": "w", "n": "x"}`,
		`{"path": 1, "raw_arguments": "not json", "zz": null}`,
		unknownParamsText(MaxViolations + 5),
	} {
		var got [2]string
		for i, tool := range []*Tool{closed, library} {
			res := reg.Validate(Call{Name: "t", Form: FormText, Text: args}, Options{Tools: []*Tool{tool}})
			echo := slices.Sorted(maps.Keys(res.EchoArgs()))
			got[i] = fmt.Sprintf("%v omitted %d codes %v echo %v", res.Violations, res.ViolationsOmitted, res.ViolationCodes(), echo)
		}
		if got[0] != got[1] {
			t.Errorf("%.80s:\nclosed root %s\nlibrary     %s", args, got[0], got[1])
		}
	}
}
