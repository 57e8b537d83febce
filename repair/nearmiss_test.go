package repair

import (
	"slices"
	"testing"
)

// TestNearMissAndCommentary: the one unknown parameter near the one
// missing required parameter is renamed, saying why; with more of either,
// or nothing near, both are reported. Commentary the schema does not
// declare is dropped and reported; declared, it is a parameter like any.
func TestNearMissAndCommentary(t *testing.T) {
	reg := mustRegistry(t)
	var tools []*Tool
	for _, def := range []ToolDef{
		{Name: "save_file", Parameters: map[string]any{"type": "object", "required": []any{"target_name", "body"},
			"properties": map[string]any{"target_name": map[string]any{"type": "string"}, "body": map[string]any{"type": "string"}}}},
		{Name: "decide", Parameters: map[string]any{"type": "object", "required": []any{"choice"},
			"properties": map[string]any{"choice": map[string]any{"type": "string"}, "reason": map[string]any{"type": "string"}}}},
	} {
		tool, err := reg.Compile(def)
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool)
	}
	tests := []struct {
		name, tool, text, args string
		ok                     bool
		repairs, violations    []string
	}{
		{"plural", "save_file", `{"target_name": "a", "bodys": "x"}`, `{"body":"x","target_name":"a"}`, true,
			[]string{"ALIAS_RENAMED:body"}, nil},
		{"case and separator", "save_file", `{"TargetName": "a", "body": "x"}`, `{"body":"x","target_name":"a"}`, true,
			[]string{"ALIAS_RENAMED:target_name"}, nil},
		{"a letter off", "save_file", `{"target_name": "a", "bodu": "x"}`, `{"body":"x","target_name":"a"}`, true,
			[]string{"ALIAS_RENAMED:body"}, nil},
		{"two unknown: which is a guess", "save_file", `{"target_name": "a", "bodys": "x", "bodies": "y"}`, `{"bodies":"y","bodys":"x","target_name":"a"}`, false,
			nil, []string{"MISSING_REQUIRED:body", "UNEXPECTED_PARAM:bodies", "UNEXPECTED_PARAM:bodys"}},
		{"nothing near", "save_file", `{"target_name": "a", "payload": "x"}`, `{"payload":"x","target_name":"a"}`, false,
			nil, []string{"MISSING_REQUIRED:body", "UNEXPECTED_PARAM:payload"}},
		{"cursor commentary dropped", "save_file", `{"target_name": "a", "body": "x", "explanation": "saving it"}`, `{"body":"x","target_name":"a"}`, true,
			[]string{"COMMENTARY_DROPPED:explanation"}, nil},
		{"declared reason kept", "decide", `{"choice": "b", "reason": "faster"}`, `{"choice":"b","reason":"faster"}`, true, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: tc.text}, Options{Tools: tools})
			if res.OK() != tc.ok {
				t.Fatalf("ok %v, want %v: %v", res.OK(), tc.ok, res.Violations)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
			var repairs, violations []string
			for _, r := range res.Repairs {
				repairs = append(repairs, r.Code+":"+r.Param)
			}
			for _, v := range res.Violations {
				violations = append(violations, v.Code+":"+v.Param)
			}
			slices.Sort(violations)
			if !slices.Equal(repairs, tc.repairs) || !slices.Equal(violations, tc.violations) {
				t.Errorf("repairs %v, violations %v; want %v, %v", repairs, violations, tc.repairs, tc.violations)
			}
		})
	}
}

// TestCommentaryParamsConfigured: a tools file's commentary_params replaces
// the built-in list; [] drops none.
func TestCommentaryParamsConfigured(t *testing.T) {
	save := ToolDef{Name: "save_note", Parameters: map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"text": map[string]any{"type": "string"}}}}
	tests := []struct {
		name string
		list []string
		text string
		ok   bool
	}{
		{"built-in list drops explanation", nil, `{"text": "x", "explanation": "why"}`, true},
		{"own list drops its name", []string{"why_this"}, `{"text": "x", "why_this": "because"}`, true},
		{"own list replaces the built-in one", []string{"why_this"}, `{"text": "x", "explanation": "why"}`, false},
		{"empty list drops none", []string{}, `{"text": "x", "explanation": "why"}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reg, err := NewRegistry(ToolsFile{CommentaryParams: tc.list, Tools: []ToolDef{save}})
			if err != nil {
				t.Fatal(err)
			}
			res := reg.Validate(Call{Name: "save_note", Form: FormText, Text: tc.text}, Options{})
			if res.OK() != tc.ok {
				t.Fatalf("OK = %v, want %v (violations %+v)", res.OK(), tc.ok, res.Violations)
			}
			if tc.ok && (len(res.Repairs) != 1 || res.Repairs[0].Code != CodeCommentaryDropped) {
				t.Errorf("repairs = %+v, want one COMMENTARY_DROPPED", res.Repairs)
			}
		})
	}
}

// TestCommentaryDroppedInListOrder: commentary is dropped in the order of
// the tools file's list (a name listed twice counts at its first place),
// whether the call has fewer members than the list names or more, and a
// name the tool declares is kept.
func TestCommentaryDroppedInListOrder(t *testing.T) {
	save := ToolDef{Name: "save_note", Parameters: map[string]any{"type": "object", "additionalProperties": false,
		"properties": map[string]any{"text": map[string]any{"type": "string"}, "why": map[string]any{"type": "string"}}}}
	list := []string{"zeta", "why", "alpha", "mid", "zeta", "beta", "gamma", "delta"}
	tests := []struct {
		name, text string
		dropped    []string
	}{
		{"fewer members than names", `{"text": "x", "alpha": 1, "zeta": 2}`, []string{"zeta", "alpha"}},
		{"declared name kept", `{"text": "x", "why": "w", "mid": 1}`, []string{"mid"}},
		{"more members than names", `{"text": "x", "delta": 1, "alpha": 2, "zeta": 3, "a1": 0, "a2": 0, "a3": 0, "a4": 0, "a5": 0, "a6": 0, "a7": 0}`, []string{"zeta", "alpha", "delta"}},
		{"none", `{"text": "x"}`, nil},
	}
	reg, err := NewRegistry(ToolsFile{CommentaryParams: list, Tools: []ToolDef{save}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: "save_note", Form: FormText, Text: tc.text}, Options{})
			var dropped []string
			for _, r := range res.Repairs {
				if r.Code == CodeCommentaryDropped {
					dropped = append(dropped, r.Param)
				}
			}
			if !slices.Equal(dropped, tc.dropped) {
				t.Errorf("dropped %v, want %v", dropped, tc.dropped)
			}
			for _, k := range tc.dropped {
				if _, ok := res.Args[k]; ok {
					t.Errorf("%s still in the arguments %v", k, res.Args)
				}
			}
		})
	}
}
