package repair

import (
	"strings"
	"testing"
)

// A SEARCH/REPLACE diff is parsed when the call is validated, not only when
// it is executed: Roo Code's apply_diff dialect is read as Roo reads it,
// and a marker left where it would be written into the file is refused.
func TestValidateSearchReplaceDiff(t *testing.T) {
	reg := mustRegistry(t)
	// Roo's own apply_diff declaration, sent by the caller.
	rooTool, err := reg.Compile(ToolDef{Name: "roo_apply_diff", Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path": map[string]any{"type": "string"},
			"diff": map[string]any{"type": "string"},
		},
		"required": []any{"path", "diff"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	// A caller's tool whose parameter has another name.
	changeTool, err := reg.Compile(ToolDef{Name: "change_file", Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"file":    map[string]any{"type": "string"},
			"changes": map[string]any{"type": "string"},
		},
	}})
	if err != nil {
		t.Fatal(err)
	}
	tools := []*Tool{rooTool, changeTool}
	tests := []struct {
		name string
		call Call
		code string   // the violation, "" for a usable call
		msg  []string // in the violation's message
	}{
		{"claude-sonnet roo apply_diff, start line and header", Call{Name: "apply_diff", Form: FormXML,
			Text: "<apply_diff>\n<path>src/calc.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:1\n-------\ndef calculate_total(items):\n=======\ndef calculate_sum(items):\n>>>>>>> REPLACE\n</diff>\n</apply_diff>"},
			"", nil},
		{"gpt-4o roo apply_diff, header repeated in REPLACE", Call{Name: "apply_diff", Form: FormXML,
			Text: "<apply_diff>\n<path>src/calc.py</path>\n<diff>\n<<<<<<< SEARCH\n:start_line:12\n-------\n    return total\n=======\n:start_line:12\n-------\n    return sum(items)\n>>>>>>> REPLACE\n</diff>\n</apply_diff>"},
			CodeInvalidValue, []string{"line 6:", ":start_line: line in the REPLACE section", "remove it"}},
		{"gemini roo apply_diff JSON, dash line at the top of REPLACE", Call{Name: "apply_diff", Form: FormText,
			Text: `{"path":"app.ts","diff":"<<<<<<< SEARCH\n:start_line:3\n-------\nconst a = 1;\n=======\n-------\nconst a = 2;\n>>>>>>> REPLACE"}`},
			CodeInvalidValue, []string{"line 6:", "starts with a ------- line"}},
		{"grok roo apply_diff, two separators", Call{Name: "apply_diff", Form: FormText,
			Text: `{"path":"app.ts","diff":"<<<<<<< SEARCH\nconst a = 1;\n=======\n=======\nconst a = 2;\n>>>>>>> REPLACE"}`},
			CodeInvalidValue, []string{"line 4:", "second separator"}},
		{"deepseek roo apply_diff cut off", Call{Name: "apply_diff", Form: FormText,
			Text: `{"path":"app.ts","diff":"<<<<<<< SEARCH\n:start_line:3\n-------\nconst a = 1;\n=======\nconst a = 2;\n"}`},
			CodeTruncated, []string{"missing +++++++ REPLACE"}},
		{"cline replace_in_file, Markdown underlines stay content", Call{Name: "replace_in_file", Form: FormText,
			Text: `{"path":"README.md","diff":"------- SEARCH\nTitle\n=====\n=======\nNew title\n=========\n+++++++ REPLACE"}`},
			"", nil},
		{"caller's roo apply_diff schema, stray REPLACE marker", Call{Name: "roo_apply_diff", Form: FormText,
			Text: `{"path":"a.go","diff":"<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\nc\n>>>>>>> REPLACE\n"}`},
			CodeInvalidValue, []string{"line 7:", "outside any block"}},
		{"caller's roo apply_diff schema, a unified diff is not judged", Call{Name: "roo_apply_diff", Form: FormText,
			Text: `{"path":"a.go","diff":"--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-a\n+b\n"}`},
			"", nil},
		{"caller's tool, blocks in a parameter of another name", Call{Name: "change_file", Form: FormText,
			Text: `{"file":"a.go","changes":"<<<<<<< SEARCH\n:start_line:2\n-------\na\n=======\n:end_line:2\nb\n>>>>>>> REPLACE\n"}`},
			CodeInvalidValue, []string{"changes", ":end_line: line in the REPLACE section"}},
		{"write_to_file content quoting a broken diff is a file", Call{Name: "write_to_file", Form: FormText,
			Text: `{"path":"docs/diff.md","content":"<<<<<<< SEARCH\na\n=======\n=======\nb\n>>>>>>> REPLACE\n"}`},
			"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{Tools: tools})
			if tc.code == "" {
				if !res.OK() {
					t.Fatalf("not usable: %v", res.Violations)
				}
				return
			}
			if res.OK() {
				t.Fatalf("usable: %v", res.Args)
			}
			var found bool
			for _, v := range res.Violations {
				if v.Code != tc.code {
					continue
				}
				found = true
				for _, m := range tc.msg {
					if !strings.Contains(v.Param+" "+v.Message, m) {
						t.Errorf("%s %q lacks %q", v.Param, v.Message, m)
					}
				}
			}
			if !found {
				t.Fatalf("violations %v, want %s", res.Violations, tc.code)
			}
			if fb := Feedback(res, Mistakes{}); !strings.Contains(fb, tc.msg[0]) {
				t.Errorf("feedback does not say %q:\n%s", tc.msg[0], fb)
			}
		})
	}
}
