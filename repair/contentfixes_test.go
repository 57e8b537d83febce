package repair

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestContentFixesInPipeline checks where each content fix applies in a
// call, and where it must not.
func TestContentFixesInPipeline(t *testing.T) {
	reg := mustRegistry(t)
	js := func(v any) string { raw, _ := json.Marshal(v); return string(raw) }
	tests := []struct {
		name       string
		tool       string
		args       map[string]any
		model      string
		want       map[string]any // expected values of the listed params
		repairs    []string
		violations []string
	}{
		{
			name:    "fence around Python content",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "```python\nprint(1)\n```"},
			want:    map[string]any{"content": "print(1)\n"},
			repairs: []string{"CODE_FENCE_STRIPPED:content"},
		},
		{
			name:    "fence kept in Markdown",
			tool:    "write_to_file",
			args:    map[string]any{"path": "README.md", "content": "```sh\nmake\n```"},
			want:    map[string]any{"content": "```sh\nmake\n```"},
			repairs: []string{},
		},
		{
			name:    "double-escaped content",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": `def f():\n    return "x"\n`},
			want:    map[string]any{"content": "def f():\n    return \"x\"\n"},
			repairs: []string{"ESCAPES_DECODED:content"},
		},
		{
			name:    "escapes kept when the content has real newlines",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "print('a\\nb')\nprint(2)\n"},
			want:    map[string]any{"content": "print('a\\nb')\nprint(2)\n"},
			repairs: []string{},
		},
		{
			name:    "escapes never decoded in edit text",
			tool:    "edit",
			args:    map[string]any{"path": "a.py", "old_text": `a\nb`, "new_text": `c\nd`},
			want:    map[string]any{"old_text": `a\nb`, "new_text": `c\nd`},
			repairs: []string{},
		},
		{
			name:    "HTML entities from a model that emits them",
			tool:    "write_to_file",
			model:   "deepseek-chat",
			args:    map[string]any{"path": "a.py", "content": "if a &lt; b &amp;&amp; c:\n    pass\n"},
			want:    map[string]any{"content": "if a < b && c:\n    pass\n"},
			repairs: []string{"HTML_ENTITIES_DECODED:content"},
		},
		{
			name:    "HTML entities kept for Claude",
			tool:    "write_to_file",
			model:   "claude-sonnet-4-5",
			args:    map[string]any{"path": "a.py", "content": "x = '&lt;'\n"},
			want:    map[string]any{"content": "x = '&lt;'\n"},
			repairs: []string{},
		},
		{
			name:    "HTML entities kept in markup",
			tool:    "edit",
			model:   "deepseek-chat",
			args:    map[string]any{"path": "page.html", "old_text": "&lt;b&gt;", "new_text": "&lt;i&gt;"},
			want:    map[string]any{"old_text": "&lt;b&gt;", "new_text": "&lt;i&gt;"},
			repairs: []string{},
		},
		{
			name:    "line numbers stripped from old and new text",
			tool:    "edit",
			args:    map[string]any{"path": "a.py", "old_text": "  7 | a = 1\n  8 | b = 2", "new_text": "  7 | a = 3\n  8 | b = 2"},
			want:    map[string]any{"old_text": "a = 1\nb = 2", "new_text": "a = 3\nb = 2"},
			repairs: []string{"LINE_NUMBERS_STRIPPED:old_text", "LINE_NUMBERS_STRIPPED:new_text"},
		},
		{
			name:    "a table keeps its numbers",
			tool:    "edit",
			args:    map[string]any{"path": "codes.md", "old_text": "200 | OK\n404 | Not Found", "new_text": "200 | OK"},
			want:    map[string]any{"old_text": "200 | OK\n404 | Not Found", "new_text": "200 | OK"},
			repairs: []string{},
		},
		{
			name:    "line numbers in multi_edit items",
			tool:    "multi_edit",
			args:    map[string]any{"path": "a.py", "edits": []any{map[string]any{"old_text": "  3 | x\n  4 | y", "new_text": "z"}}},
			want:    map[string]any{"edits": []any{map[string]any{"old_text": "x\ny", "new_text": "z"}}},
			repairs: []string{"LINE_NUMBERS_STRIPPED:edits/0/old_text"},
		},
		{
			name:    "U+FFFD removed from written text",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.txt", "content": "caf\ufffd\n"},
			want:    map[string]any{"content": "caf\n"},
			repairs: []string{"REPLACEMENT_CHARS_REMOVED:content"},
		},
		{
			name:       "placeholder content is refused",
			tool:       "write_to_file",
			args:       map[string]any{"path": "a.py", "content": "import os\n\n# ... rest of the code unchanged ...\n"},
			want:       map[string]any{"content": "import os\n\n# ... rest of the code unchanged ...\n"},
			repairs:    []string{},
			violations: []string{"PLACEHOLDER_CONTENT:content"},
		},
		{
			name:    "Python Ellipsis is code",
			tool:    "write_to_file",
			args:    map[string]any{"path": "a.py", "content": "def f():\n    ...\n"},
			want:    map[string]any{"content": "def f():\n    ...\n"},
			repairs: []string{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: js(tc.args)}, Options{ModelID: tc.model})
			for k, want := range tc.want {
				if got := res.Args[k]; !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if got := codes(res.Repairs); !reflect.DeepEqual(got, tc.repairs) {
				t.Errorf("repairs = %v, want %v", got, tc.repairs)
			}
			wantV := tc.violations
			if wantV == nil {
				wantV = []string{}
			}
			if got := codes(res.Violations); !reflect.DeepEqual(got, wantV) {
				t.Errorf("violations = %v, want %v", got, wantV)
			}
			// Idempotent: the repaired call needs no further repair.
			if res.OK() {
				again := reg.Validate(Call{Name: tc.tool, Form: FormText, Text: js(res.Args)}, Options{ModelID: tc.model})
				if len(again.Repairs) != 0 || !reflect.DeepEqual(again.Args, res.Args) {
					t.Errorf("second pass repairs %v", again.Repairs)
				}
			}
		})
	}
}
