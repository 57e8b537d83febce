package guard

import (
	"context"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestQwenBlockValidatedAtOnce: a Qwen3-Coder block sent whole as an XML
// block reads as the same text streamed.
func TestQwenBlockValidatedAtOnce(t *testing.T) {
	g, _ := newGuard(t)
	tests := []struct {
		name       string
		text       string
		ok         bool
		args       string
		repairs    []string
		violations []string
	}{
		{"qwen3-coder write in its tool_call wrapper",
			"<tool_call>\n<function=write_to_file>\n<parameter=path>\nsrc/app.py\n</parameter>\n<parameter=content>\nprint(\"</parameter>\")\n</parameter>\n</function>\n</tool_call>",
			true, `{"content":"print(\"</parameter>\")","path":"src/app.py"}`, nil, nil},
		{"qwen3-coder left out a </parameter>",
			"<function=write_to_file>\n<parameter=path>\nsrc/app.py\n<parameter=content>\nx = 1\n</parameter>\n</function>",
			true, `{"content":"x = 1","path":"src/app.py"}`, []string{"XML_REPAIRED"}, nil},
		{"qwen3-coder alias names",
			"<function=Write>\n<parameter=file_path>\na.txt\n</parameter>\n<parameter=content>\nhi\n</parameter>\n</function>",
			true, `{"content":"hi","path":"a.txt"}`, []string{"TOOL_ALIAS", "ALIAS_RENAMED"}, nil},
		{"qwen3-coder cut off inside the content",
			"<function=write_to_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhalf a li",
			false, "", nil, []string{"TRUNCATED"}},
		{"prose mentioning <function= is no call",
			"use <function=name> to call", false, "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: t.Name(), Call: repair.Call{Form: repair.FormXML, Text: tt.text}})
			if err != nil {
				t.Fatal(err)
			}
			if v.OK() != tt.ok || v.Form != repair.FormXML {
				t.Fatalf("ok %v form %v, want %v XML: %+v", v.OK(), v.Form, tt.ok, v.Violations)
			}
			if !tt.ok {
				if tt.violations != nil && !slices.Contains(violationCodes(v), tt.violations[0]) {
					t.Errorf("violations %v, want %v", violationCodes(v), tt.violations)
				}
				return
			}
			if string(v.ArgumentsJSON) != tt.args {
				t.Errorf("args %s, want %s", v.ArgumentsJSON, tt.args)
			}
			var codes []string
			for _, r := range v.Repairs {
				codes = append(codes, r.Code)
			}
			if !slices.Equal(codes, tt.repairs) {
				t.Errorf("repairs %v, want %v", codes, tt.repairs)
			}
		})
	}
}
