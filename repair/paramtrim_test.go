package repair

import "testing"

// TestParamsTrimmed: a parameter given as text (XML tags, split params)
// that is no file content or edit text is trimmed, as Cline and Roo read
// it, so <path>  a.py  </path> writes a.py (seed 2); content keeps every
// space but the layout newlines.
func TestParamsTrimmed(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct {
		name string
		call Call
		args string
	}{
		{"cline write_to_file, spaces around the path", Call{Name: "write_to_file", Form: FormXML,
			Text: "<write_to_file>\n<path>  a.py  </path>\n<content>\n  x = 1  \n</content>\n</write_to_file>"},
			`{"content":"  x = 1  ","path":"a.py"}`},
		{"qwen3-coder params, a path on its own lines", Call{Name: "write_to_file", Form: FormParams,
			Params: map[string]string{"path": "\n src/b.go \n", "content": " y "}},
			`{"content":" y ","path":"src/b.go"}`},
		{"roo edit text keeps its spaces", Call{Name: "edit", Form: FormParams,
			Params: map[string]string{"path": " c.txt", "old_text": "  a ", "new_text": " b  "}},
			`{"new_text":" b  ","old_text":"  a ","path":"c.txt"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(tc.call, Options{})
			if !res.OK() {
				t.Fatalf("not usable: %v", res.Violations)
			}
			if got := argsJSON(t, res.Args); got != tc.args {
				t.Errorf("args = %s, want %s", got, tc.args)
			}
		})
	}
}
