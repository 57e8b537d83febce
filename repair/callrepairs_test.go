package repair

import (
	"reflect"
	"testing"
)

// TestCallRepairsListedFirst: what a stream parser repaired while splitting
// the call out of the text comes first in the result, as given.
func TestCallRepairsListedFirst(t *testing.T) {
	reg := mustRegistry(t)
	xml := Repair{Code: CodeXMLRepaired, Param: "file_path", Detail: `the value of "file_path" had no closing tag </parameter>; it ended where parameter "content" opened on the next line`}
	res := reg.Validate(Call{Name: "Write", Form: FormParams, Params: map[string]string{"file_path": "a.txt", "content": "hi"},
		Repairs: []Repair{xml}}, Options{})
	want := []Repair{xml, {Code: CodeToolAlias, Detail: `tool "Write" is "write_to_file"`},
		{Code: CodeAliasRenamed, Param: "path", Detail: `"file_path" renamed to "path"`}}
	if !res.OK() || !reflect.DeepEqual(res.Repairs, want) {
		t.Errorf("ok=%v repairs\n%+v\nwant\n%+v (violations %+v)", res.OK(), res.Repairs, want, res.Violations)
	}
}
