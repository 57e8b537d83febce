package repair

import (
	"encoding/json"
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

// TestPlainRootAgreesWithLibrary: a plain root accepts exactly what the
// schema library accepts, and any other schema is left to the library.
func TestPlainRootAgreesWithLibrary(t *testing.T) {
	str := map[string]any{"type": "string", "description": "d", "examples": []any{1}}
	props := map[string]any{"path": str, "content": str}
	req := []any{"path", "content"}
	schemas := []struct {
		name   string
		params map[string]any
		plain  bool
	}{
		{"write schema", map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}, true},
		{"silent about others (closed when compiled)", map[string]any{"type": "object", "properties": props, "required": req}, true},
		{"others allowed", map[string]any{"type": "object", "properties": props, "additionalProperties": true}, true},
		{"no properties", map[string]any{"type": "object", "required": []any{"a"}}, true},
		{"no type", map[string]any{"properties": props, "required": []any{"path"}}, true},
		{"requires an undeclared name", map[string]any{"properties": props, "required": []any{"zz"}, "additionalProperties": true}, true},
		{"draft-04", map[string]any{"$schema": "http://json-schema.org/draft-04/schema#", "type": "object", "properties": props, "required": req}, true},
		{"an integer", map[string]any{"properties": map[string]any{"path": str, "n": map[string]any{"type": "integer"}}}, true},
		{"a nullable string", map[string]any{"properties": map[string]any{"p": map[string]any{"type": []any{"string", "null"}}}}, true},
		{"a number, a boolean, an array, an object", map[string]any{"properties": map[string]any{"path": map[string]any{"type": "number"},
			"content": map[string]any{"type": []any{"boolean", "array", "object"}}}}, true},
		{"any value", map[string]any{"properties": map[string]any{"path": map[string]any{"title": "t"}}, "required": []any{"path"}}, true},
		{"a type for others", map[string]any{"properties": props, "additionalProperties": str}, true},
		{"types for others, none declared", map[string]any{"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "integer"}}}, true},
		{"any value for others", map[string]any{"additionalProperties": map[string]any{}}, true},
		{"a pattern", map[string]any{"properties": map[string]any{"p": map[string]any{"type": "string", "pattern": "^a"}}}, false},
		{"a bound for others", map[string]any{"additionalProperties": map[string]any{"type": "integer", "minimum": 0}}, false},
		{"a nested object's properties", map[string]any{"additionalProperties": map[string]any{"type": "object", "properties": props}}, false},
		{"types as a list", map[string]any{"type": []any{"object"}, "properties": props}, false},
		{"a length bound", map[string]any{"properties": props, "minProperties": 1}, false},
	}
	args := []map[string]any{
		{},
		{"path": "a", "content": "b"},
		{"path": "a", "content": ""},
		{"path": "a"},
		{"content": "b"},
		{"path": "a", "content": "b", "mode": "w"},
		{"path": json.Number("1"), "content": "b"},
		{"path": nil, "content": "b"},
		{"path": "a", "content": true},
		{"path": "a", "content": map[string]any{"x": "y"}},
		{"path": "a", "content": []any{"b"}},
		{"a": "x"},
		{"zz": "x", "path": "p"},
		{"p": "x", "n": json.Number("2")},
		{"p": nil, "n": json.Number("-3"), "path": json.Number("2.5")},
		{"path": "a", "n": json.Number("2.5"), "x": json.Number("7")},
		{"path": false, "content": []any{}, "q": map[string]any{}},
		{"x": "s", "y": json.Number("12"), "z": true},
	}
	// Integers the check leaves to the library (not an int64), and values
	// of types it does not know: it must never accept what the library
	// refuses, and may leave them.
	deferred := []map[string]any{
		{"p": "x", "n": json.Number("2.0"), "y": json.Number("1e2")},
		{"n": json.Number("123456789012345678901234567890"), "path": "a", "content": "b"},
		{"path": 2.5, "content": int64(3), "x": float64(1)},
	}
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			plain := plainRootOf(s.params)
			if (plain != nil) != s.plain {
				t.Fatalf("plain root = %v, want plain %v", plain, s.plain)
			}
			compiled, err := compileSchema(s.params)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range args {
				valid := compiled.Validate(map[string]any(maps.Clone(a))) == nil
				if got := plain.accepts(a); got && !valid || plain != nil && got != valid {
					t.Errorf("%v: plain root accepts %v, the library %v", a, got, valid)
				}
			}
			for _, a := range deferred {
				valid := compiled.Validate(map[string]any(maps.Clone(a))) == nil
				if plain.accepts(a) && !valid {
					t.Errorf("%v: plain root accepts what the library refuses", a)
				}
			}
		})
	}
	// Types the library refuses to compile are never read as plain.
	for _, types := range []any{[]any{"string", "string"}, []any{[]any{"string"}}, []any{}, "text", 3} {
		if plainRootOf(map[string]any{"properties": map[string]any{"p": map[string]any{"type": types}}}) != nil {
			t.Errorf("type %v: read as plain", types)
		}
	}
	for _, name := range []string{"write_to_file", "replace_in_file", "apply_patch"} {
		if mustRegistry(t).Tool(name).plain == nil {
			t.Errorf("%s: its schema is not recognised as plain", name)
		}
	}
}

// TestPlainRootSameVerdict: a call to a tool with a plain root gets the
// verdict it gets through the schema library.
func TestPlainRootSameVerdict(t *testing.T) {
	reg := mustRegistry(t)
	str := map[string]any{"type": "string"}
	schema := func(extra map[string]any) map[string]any {
		s := map[string]any{"type": "object", "required": []any{"path", "content"},
			"properties": map[string]any{"path": str, "content": str}}
		maps.Copy(s, extra)
		return s
	}
	plain, err := reg.Compile(ToolDef{Name: "t", Parameters: schema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	// minProperties asserts nothing here but keeps the library's path.
	library, err := reg.Compile(ToolDef{Name: "t", Parameters: schema(map[string]any{"minProperties": 0})})
	if err != nil {
		t.Fatal(err)
	}
	if plain.plain == nil || library.plain != nil {
		t.Fatal("the plain root is not recognised as such")
	}
	for _, args := range []string{
		`{"path": "a", "content": "b"}`,
		`{"path": "a", "content": ""}`,
		`{"path": "a"}`,
		`{"path": "a", "content": "b", "mode": "w"}`,
		`{"path": 1, "content": null}`,
		`{"path": ["a"], "content": {"b": 1}}`,
		`{'path': 'a', 'content': 'b',}`,
		`{}`,
	} {
		var got [2]string
		for i, tool := range []*Tool{plain, library} {
			res := reg.Validate(Call{Name: "t", Form: FormText, Text: args}, Options{Tools: []*Tool{tool}})
			got[i] = fmt.Sprintf("%v omitted %d repairs %v args %v", res.Violations, res.ViolationsOmitted, res.Repairs, res.Args)
		}
		if got[0] != got[1] {
			t.Errorf("%s:\nplain root %s\nlibrary    %s", args, got[0], got[1])
		}
	}
}

// FuzzPlainRoot: whatever the schema and the arguments, the check never
// accepts arguments the schema library refuses, and when it reads a
// schema as plain, it refuses none the library accepts but integers it
// leaves to the library.
func FuzzPlainRoot(f *testing.F) {
	f.Add(`{"type":"object","additionalProperties":{"type":["string","integer"]}}`, `{"a":"x","b":3,"c":2.5}`)
	f.Add(`{"properties":{"p":{"type":"number"},"q":{"type":["null","boolean"]}},"required":["p"]}`, `{"p":1e3,"q":null}`)
	f.Add(`{"properties":{"p":{"type":"string"}},"additionalProperties":{}}`, `{"p":"a","z":[1,{"y":2}]}`)
	f.Add(`{"additionalProperties":{"type":"integer","title":"t"}}`, `{"a":2.0,"b":-0,"c":12345678901234567890}`)
	f.Fuzz(func(t *testing.T, schemaDoc, argsDoc string) {
		var params map[string]any
		if json.Unmarshal([]byte(schemaDoc), &params) != nil || params == nil {
			return
		}
		plain := plainRootOf(params)
		if plain == nil {
			return
		}
		compiled, err := compileSchema(params)
		if err != nil {
			return
		}
		d := json.NewDecoder(strings.NewReader(argsDoc))
		d.UseNumber()
		var args map[string]any
		if d.Decode(&args) != nil || args == nil {
			return
		}
		valid := compiled.Validate(map[string]any(maps.Clone(args))) == nil
		got := plain.accepts(args)
		if got && !valid {
			t.Fatalf("schema %s: plain root accepts %s, which the library refuses", schemaDoc, argsDoc)
		}
		if !got && valid && !leavesInteger(args) {
			t.Fatalf("schema %s: plain root refuses %s, which the library accepts", schemaDoc, argsDoc)
		}
	})
}

// leavesInteger says whether args hold a number admits does not read as an
// int64 (2.0, 1e2, a long integer): the check leaves those to the library.
func leavesInteger(args map[string]any) bool {
	for _, v := range args {
		if n, ok := v.(json.Number); ok && !isIntegral(n) {
			return true
		}
	}
	return false
}
