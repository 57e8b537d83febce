package repair

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pydanticSearch is the parameters schema Pydantic v2 writes for
//
//	class Filter(BaseModel):
//	    owner: Optional[str] = None
//	    min_score: Optional[float] = None
//	class Circle(BaseModel):
//	    kind: Literal["circle"]; radius: float
//	class Square(BaseModel):
//	    kind: Literal["square"]; side: int
//	class SearchArgs(BaseModel):
//	    query: str
//	    limit: Optional[int] = None
//	    include_archived: Optional[bool] = None
//	    tags: Optional[List[str]] = None
//	    filter: Optional[Filter] = None
//	    filters: List[Filter] = []
//	    shape: Union[Circle, Square] = Field(None, discriminator="kind")
//	    label: Union[str, int, None] = None
//	    metadata: Union[str, Dict[str, Any], None] = None
//
// with titles, defaults and $defs exactly as model_json_schema() emits them.
const pydanticSearch = `{
  "$defs": {
    "Circle": {"properties": {"kind": {"const": "circle", "title": "Kind", "type": "string"},
      "radius": {"title": "Radius", "type": "number"}}, "required": ["kind", "radius"], "title": "Circle", "type": "object"},
    "Filter": {"properties": {
      "owner": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": "Owner"},
      "min_score": {"anyOf": [{"type": "number"}, {"type": "null"}], "default": null, "title": "Min Score"}},
      "title": "Filter", "type": "object"},
    "Square": {"properties": {"kind": {"const": "square", "title": "Kind", "type": "string"},
      "side": {"title": "Side", "type": "integer"}}, "required": ["kind", "side"], "title": "Square", "type": "object"}
  },
  "properties": {
    "query": {"title": "Query", "type": "string"},
    "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Limit"},
    "include_archived": {"anyOf": [{"type": "boolean"}, {"type": "null"}], "default": null, "title": "Include Archived"},
    "tags": {"anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}], "default": null, "title": "Tags"},
    "filter": {"anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "null"}], "default": null},
    "filters": {"default": [], "items": {"$ref": "#/$defs/Filter"}, "title": "Filters", "type": "array"},
    "shape": {"default": null, "discriminator": {"mapping": {"circle": "#/$defs/Circle", "square": "#/$defs/Square"}, "propertyName": "kind"},
      "oneOf": [{"$ref": "#/$defs/Circle"}, {"$ref": "#/$defs/Square"}], "title": "Shape"},
    "label": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "default": null, "title": "Label"},
    "metadata": {"anyOf": [{"type": "string"}, {"additionalProperties": true, "type": "object"}, {"type": "null"}], "default": null, "title": "Metadata"}
  },
  "required": ["query"],
  "title": "SearchArgs",
  "type": "object"
}`

func pydanticTool(t testing.TB, reg *Registry, name, schema string) *Tool {
	t.Helper()
	var params map[string]any
	if err := json.Unmarshal([]byte(schema), &params); err != nil {
		t.Fatal(err)
	}
	tool, err := reg.Compile(ToolDef{Name: name, Parameters: params})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

// TestCoerceThroughAlternatives: values are coerced through anyOf/oneOf
// and $ref into $defs, to the first alternative they can become, and
// never when an alternative already accepts them.
func TestCoerceThroughAlternatives(t *testing.T) {
	reg := mustRegistry(t)
	tools := []*Tool{pydanticTool(t, reg, "search", pydanticSearch)}
	tests := []struct {
		name    string
		call    Call
		args    string
		repairs []string // code:param detail
	}{
		{
			name:    "pydantic v2 optional int given as a string",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "uptime", "limit": "5"}`},
			args:    `{"limit":5,"query":"uptime"}`,
			repairs: []string{`TYPE_COERCED:limit string "5" to number (anyOf alternative 1: an integer)`},
		},
		{
			name:    "pydantic v2 optional bool given as a string",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "include_archived": "true"}`},
			args:    `{"include_archived":true,"query":"q"}`,
			repairs: []string{`TYPE_COERCED:include_archived string "true" to boolean (anyOf alternative 1: a boolean)`},
		},
		{
			name:    "pydantic v2 optional list given stringified (qwen)",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "tags": "[\"infra\", \"db\"]"}`},
			args:    `{"query":"q","tags":["infra","db"]}`,
			repairs: []string{`TYPE_COERCED:tags stringified array to array (anyOf alternative 1: an array)`},
		},
		{
			name: "pydantic v2 optional model given stringified, $ref into $defs, nested optional float",
			call: Call{Name: "search", Form: FormText, Text: `{"query": "q", "filter": "{\"owner\": \"ana\", \"min_score\": \"0.5\"}"}`},
			args: `{"filter":{"min_score":0.5,"owner":"ana"},"query":"q"}`,
			repairs: []string{
				`TYPE_COERCED:filter stringified object to object (anyOf alternative 1: an object)`,
				`TYPE_COERCED:filter/min_score string "0.5" to number (anyOf alternative 1: a number)`,
			},
		},
		{
			name:    "array of $ref items whose optional fields are strings",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "filters": [{"min_score": "1"}, {"owner": null}]}`},
			args:    `{"filters":[{"min_score":1},{"owner":null}],"query":"q"}`,
			repairs: []string{`TYPE_COERCED:filters/0/min_score string "1" to number (anyOf alternative 1: a number)`},
		},
		{
			name:    "string null becomes null where only integer or null is allowed",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "limit": "None"}`},
			args:    `{"limit":null,"query":"q"}`,
			repairs: []string{`TYPE_COERCED:limit string to null (anyOf alternative 2: null)`},
		},
		{
			name:    "a string the string alternative accepts stays a string",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "label": "5"}`},
			args:    `{"label":"5","query":"q"}`,
			repairs: []string{},
		},
		{
			name:    "string null stays a string where a string is allowed",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "label": "null"}`},
			args:    `{"label":"null","query":"q"}`,
			repairs: []string{},
		},
		{
			name:    "an object is never encoded where a string or an object is allowed",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "metadata": {"source": "cli", "n": 2}}`},
			args:    `{"metadata":{"n":2,"source":"cli"},"query":"q"}`,
			repairs: []string{},
		},
		{
			name:    "a stringified object stays a string where a string is allowed",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "metadata": "{\"source\": \"cli\"}"}`},
			args:    `{"metadata":"{\"source\": \"cli\"}","query":"q"}`,
			repairs: []string{},
		},
		{
			name:    "discriminated union picks the alternative the value fits, not the first",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "shape": {"kind": "square", "side": "3"}}`},
			args:    `{"query":"q","shape":{"kind":"square","side":3}}`,
			repairs: []string{`TYPE_COERCED:shape/side string "3" to number`},
		},
		{
			name:    "discriminated union given stringified",
			call:    Call{Name: "search", Form: FormText, Text: `{"query": "q", "shape": "{\"kind\": \"circle\", \"radius\": 2.5}"}`},
			args:    `{"query":"q","shape":{"kind":"circle","radius":2.5}}`,
			repairs: []string{`TYPE_COERCED:shape stringified object to object (oneOf alternative 1: an object)`},
		},
		{
			name: "discriminated union given stringified, second alternative",
			call: Call{Name: "search", Form: FormText, Text: `{"query": "q", "shape": "{\"kind\": \"square\", \"side\": \"3\"}"}`},
			args: `{"query":"q","shape":{"kind":"square","side":3}}`,
			repairs: []string{
				`TYPE_COERCED:shape stringified object to object (oneOf alternative 2: an object)`,
				`TYPE_COERCED:shape/side string "3" to number`,
			},
		},
		{
			name:    "params form: XML-style strings through anyOf report their coercions",
			call:    Call{Name: "search", Form: FormParams, Params: map[string]string{"query": "q", "limit": "20", "include_archived": "False"}},
			args:    `{"include_archived":false,"limit":20,"query":"q"}`,
			repairs: []string{`TYPE_COERCED:include_archived string "false" to boolean (anyOf alternative 1: a boolean)`, `TYPE_COERCED:limit string "20" to number (anyOf alternative 1: an integer)`},
		},
		{
			name:    "xml form reports its coercions",
			call:    Call{Form: FormXML, Text: "<search>\n<query>q</query>\n<limit>7</limit>\n</search>"},
			args:    `{"limit":7,"query":"q"}`,
			repairs: []string{`TYPE_COERCED:limit string "7" to number (anyOf alternative 1: an integer)`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{Tools: tools})
			if !res.OK() {
				t.Fatalf("not usable: %v", res.Violations)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
			got := []string{}
			for _, r := range res.Repairs {
				got = append(got, r.Code+":"+r.Param+" "+r.Detail)
			}
			slices.Sort(got)
			slices.Sort(tc.repairs)
			if !reflect.DeepEqual(got, tc.repairs) {
				t.Errorf("repairs =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.repairs, "\n  "))
			}
		})
	}
}

// TestCoerceThroughAlternativesRefuses: a value no alternative can take is
// left as it was, and the violation says what the alternatives want (not
// the validator's "'anyOf' failed"), from the alternative it comes closest to.
func TestCoerceThroughAlternativesRefuses(t *testing.T) {
	reg := mustRegistry(t)
	tools := []*Tool{pydanticTool(t, reg, "search", pydanticSearch)}
	for _, tc := range []struct {
		name, text string
		violations []string // code:param message
	}{
		{"word for an optional int", `{"query": "q", "limit": "five"}`,
			[]string{`WRONG_TYPE:limit Parameter "limit" must be an integer or null, not a string.`}},
		{"fraction for an optional int", `{"query": "q", "limit": "2.5"}`,
			[]string{`WRONG_TYPE:limit Parameter "limit" must be an integer or null, not a string.`}},
		{"object for an optional int", `{"query": "q", "limit": {"n": 5}}`,
			[]string{`WRONG_TYPE:limit Parameter "limit" must be an integer or null, not an object.`}},
		{"misspelt field of an optional model", `{"query": "q", "filter": {"ownr": "ana"}}`,
			[]string{`UNEXPECTED_PARAM:filter/ownr Unexpected parameter "ownr": "filter" accepts only min_score, owner.`}},
		{"union member closest to one alternative", `{"query": "q", "shape": {"kind": "circle", "radius": "big"}}`,
			[]string{`WRONG_TYPE:shape/radius Parameter "shape/radius" must be a number, not a string.`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: "search", Form: FormText, Text: tc.text}, Options{Tools: tools})
			got := []string{}
			for _, v := range res.Violations {
				got = append(got, v.Code+":"+v.Param+" "+v.Message)
			}
			if !reflect.DeepEqual(got, tc.violations) {
				t.Errorf("violations =\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.violations, "\n  "))
			}
			if slices.ContainsFunc(res.Repairs, func(r Repair) bool { return r.Code == CodeTypeCoerced }) {
				t.Errorf("coerced a value no alternative takes: %v", res.Repairs)
			}
		})
	}
}

// FuzzValidateAlternatives drives coercion through anyOf/oneOf/$ref with
// the properties of FuzzValidateText: idempotent normalisation, and
// arguments that already fit passed through untouched.
func FuzzValidateAlternatives(f *testing.F) {
	reg := mustRegistry(f)
	tools := []*Tool{pydanticTool(f, reg, "search", pydanticSearch)}
	for _, s := range []string{
		`{"query": "q", "limit": "5", "include_archived": "true", "tags": "[\"a\"]"}`,
		`{"query": "q", "filter": "{\"owner\": \"ana\", \"min_score\": \"0.5\"}"}`,
		`{"query": "q", "filters": [{"min_score": "1"}, {"owner": null}]}`,
		`{"query": "q", "limit": "None", "label": "null", "metadata": {"a": 1}}`,
		`{"query": "q", "shape": {"kind": "square", "side": "3"}}`,
		`{"query": "q", "shape": "{\"kind\": \"circle\", \"radius\": 2.5}"}`,
		`{"query": "q", "metadata": "{\"source\": \"cli\"}", "label": 7}`,
		`query": "q", "limit": "5"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkValidateText(t, reg, Options{Tools: tools}, "search", text)
	})
}

// TestExampleThroughAlternatives: the usage example shown in feedback for
// a Pydantic tool whose required parameters are unions is itself valid.
func TestExampleThroughAlternatives(t *testing.T) {
	reg := mustRegistry(t)
	schema := strings.Replace(pydanticSearch, `"required": ["query"],`, `"required": ["query", "shape", "label"],`, 1)
	schema = strings.Replace(schema, `"shape": {"default": null, `, `"shape": {`, 1)
	schema = strings.Replace(schema, `"label": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "default": null, `,
		`"label": {"anyOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}], `, 1)
	tool := pydanticTool(t, reg, "search", schema)
	ex := tool.Example()
	raw, err := EncodeArgs(ex)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := argsJSON(t, map[string]any{"shape": ex["shape"], "label": ex["label"]}), `{"label":1,"shape":{"kind":"circle","radius":1}}`; got != want {
		t.Errorf("example = %s, want %s", got, want)
	}
	// Optional fields show their default (null), which Pydantic allows but
	// the discriminated union would not: only the required ones are checked.
	res := reg.Validate(Call{Name: "search", Form: FormText, Text: argsJSON(t, map[string]any{"query": ex["query"], "shape": ex["shape"], "label": ex["label"]})},
		Options{Tools: []*Tool{tool}})
	if !res.OK() {
		t.Errorf("example %s is not valid: %v", raw, res.Violations)
	}
}

// pydanticTree is Pydantic v2's schema of a recursive model:
//
//	class Node(BaseModel):
//	    value: Optional[int] = None
//	    children: Optional[List["Node"]] = None
const pydanticTree = `{
  "$defs": {"Node": {"properties": {
    "value": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Value"},
    "children": {"anyOf": [{"items": {"$ref": "#/$defs/Node"}, "type": "array"}, {"type": "null"}], "default": null, "title": "Children"}},
    "title": "Node", "type": "object"}},
  "properties": {"root": {"$ref": "#/$defs/Node"}},
  "required": ["root"], "title": "TreeArgs", "type": "object"
}`

// TestCoerceThroughRecursiveAlternatives: a value deep in a recursive
// schema is coerced, however deep.
func TestCoerceThroughRecursiveAlternatives(t *testing.T) {
	reg := mustRegistry(t)
	tools := []*Tool{pydanticTool(t, reg, "tree", pydanticTree)}
	for _, depth := range []int{1, 20, 60} {
		t.Run(strconv.Itoa(depth), func(t *testing.T) {
			text := `{"root": ` + strings.Repeat(`{"value": 1, "children": [`, depth) + `{"value": "5"}` + strings.Repeat(`]}`, depth) + `}`
			want := `{"root":` + strings.Repeat(`{"children":[`, depth) + `{"value":5}` + strings.Repeat(`],"value":1}`, depth) + `}`
			res := reg.Validate(Call{Name: "tree", Form: FormText, Text: text}, Options{Tools: tools})
			if !res.OK() {
				t.Fatalf("violations %v", res.Violations)
			}
			if got := argsJSON(t, res.Args); got != want {
				t.Errorf("args = %s", got)
			}
			if len(res.Repairs) != 1 || res.Repairs[0].Code != CodeTypeCoerced ||
				res.Repairs[0].Param != "root/"+strings.Repeat("children/0/", depth)+"value" {
				t.Errorf("repairs = %v", res.Repairs)
			}
		})
	}
}

// TestCoerceThroughLoneAllOf: Pydantic v1 wraps a $ref with a description
// in allOf of one schema, with its models under "definitions".
func TestCoerceThroughLoneAllOf(t *testing.T) {
	reg := mustRegistry(t)
	tool := pydanticTool(t, reg, "deploy", `{
	  "title": "DeployArgs", "type": "object",
	  "properties": {"opts": {"title": "Opts", "description": "Deployment options", "allOf": [{"$ref": "#/definitions/Opts"}]}},
	  "required": ["opts"],
	  "definitions": {"Opts": {"title": "Opts", "type": "object", "properties": {"retries": {"title": "Retries", "type": "integer"}}}}
	}`)
	res := reg.Validate(Call{Name: "deploy", Form: FormText, Text: `{"opts": {"retries": "3"}}`}, Options{Tools: []*Tool{tool}})
	if !res.OK() || argsJSON(t, res.Args) != `{"opts":{"retries":3}}` {
		t.Fatalf("ok=%v args=%s violations=%v", res.OK(), argsJSON(t, res.Args), res.Violations)
	}
	if got := codes(res.Repairs); !reflect.DeepEqual(got, []string{"TYPE_COERCED:opts/retries"}) {
		t.Errorf("repairs = %v", got)
	}
}
