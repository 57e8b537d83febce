package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

const textEditor = "str_replace_based_edit_tool"

func textEditorCall(args string) ValidateRequest {
	return ValidateRequest{SessionID: args, Call: repair.Call{Name: textEditor, Form: repair.FormText, Text: args}}
}

// TestTextEditorView: view reads through read_file, view_range as offset and
// limit, a folder listed two levels deep; the ranges Anthropic's tool refuses are
// refused with its sentences.
func TestTextEditorView(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte("one\ntwo\nthree\nfour\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "b.py"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		want       string
		codes      []string
		message    string
	}{
		{"whole file", `{"command":"view","path":"a.py"}`, "one\ntwo\nthree\nfour\n", nil, ""},
		{"range", `{"command":"view","path":"a.py","view_range":[2,3]}`, "two\nthree\n", nil, ""},
		{"to the end", `{"command":"view","path":"a.py","view_range":[3,-1]}`, "three\nfour\n", nil, ""},
		{"one number", `{"command":"view","path":"a.py","view_range":[3]}`, "", []string{repair.CodeInvalidValue}, "Invalid `view_range`. It should be a list of two integers."},
		{"line 0", `{"command":"view","path":"a.py","view_range":[0,2]}`, "", []string{repair.CodeInvalidValue}, "Its first element `0`"},
		{"backwards", `{"command":"view","path":"a.py","view_range":[3,2]}`, "", []string{repair.CodeInvalidValue},
			"Invalid `view_range`: [3, 2]. Its second element `2` should be larger or equal than its first `3`"},
		{"with offset", `{"command":"view","path":"a.py","view_range":[1,2],"offset":1}`, "", []string{repair.CodeConflictingParams}, "not both"},
		{"past the end", `{"command":"view","path":"a.py","view_range":[9,10]}`, "", []string{repair.CodeInvalidValue}, "past the end"},
		{"folder", `{"command":"view","path":"sub"}`, "Here's the files and directories up to 2 levels deep in sub:\n[FILE] sub/b.py (2 B)\n0 folders, 1 file (2 B).\n", nil, ""},
		{"outside", `{"command":"view","path":"../x"}`, "", []string{repair.CodeOutsideWorkspace}, ""},
		{"denied", `{"command":"view","path":".git/config"}`, "", []string{repair.CodeDeniedPath}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := g.ReadCall(context.Background(), ExecuteRequest{ValidateRequest: textEditorCall(tc.args)})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(r.Verdict); !slices.Equal(got, tc.codes) {
				t.Fatalf("violations %v, want %v\n%s", got, tc.codes, r.Feedback)
			}
			if r.Content != tc.want || r.ToolName != ReadToolName && tc.codes == nil {
				t.Fatalf("content %q (tool %s), want %q", r.Content, r.ToolName, tc.want)
			}
			if !strings.Contains(r.Feedback, tc.message) {
				t.Fatalf("feedback %q, want %q in it", r.Feedback, tc.message)
			}
		})
	}
	// Validated, view is a usable read_file call; sent to be executed as an
	// edit, it is the caller's routing mistake.
	v, err := g.Validate(context.Background(), textEditorCall(`{"command":"view","path":"a.py","view_range":[2,3]}`))
	if err != nil || !v.OK() || v.ToolName != ReadToolName || string(v.ArgumentsJSON) != `{"limit":2,"offset":2,"path":"a.py"}` {
		t.Fatalf("validate view: %v %+v", err, v)
	}
	var wrong *WrongToolError
	if _, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: textEditorCall(`{"command":"view","path":"a.py"}`)}); !errors.As(err, &wrong) || wrong.Tool != ReadToolName {
		t.Fatalf("execute view: %v, want a WrongToolError", err)
	}
}

// TestTextEditorMessages: str_replace through the text editor tool fails
// with Anthropic's sentences, then toolguard's closest region; the edit tool
// under its own name keeps toolguard's.
func TestTextEditorMessages(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "a.py"), []byte("x = 1\ny = 2\nx = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, args string
		code             string
		prefix           string
	}{
		{"not found", textEditor, `{"command":"str_replace","path":"a.py","old_str":"z = 3","new_str":"z = 4"}`, CodeEditNotFound,
			"No replacement was performed, old_str `z = 3` did not appear verbatim in a.py.\n"},
		{"ambiguous", textEditor, `{"command":"str_replace","path":"a.py","old_str":"x = 1","new_str":"x = 2"}`, CodeEditAmbiguous,
			"No replacement was performed. Multiple occurrences of old_str `x = 1` in lines [1, 3]. Please ensure it is unique"},
		{"own tool not found", "edit", `{"path":"a.py","old_text":"z = 3","new_text":"z = 4"}`, CodeEditNotFound, "Edit 1: the old text was not found in a.py."},
		{"own tool ambiguous", "edit", `{"path":"a.py","old_text":"x = 1","new_text":"x = 2"}`, CodeEditAmbiguous, "Edit 1: the old text occurs 2 times in a.py (lines 1, 3)."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: tc.name,
				Call: repair.Call{Name: tc.tool, Form: repair.FormText, Text: tc.args}}})
			if err != nil {
				t.Fatal(err)
			}
			if len(ex.Violations) != 1 || ex.Violations[0].Code != tc.code || !strings.HasPrefix(ex.Violations[0].Message, tc.prefix) {
				t.Fatalf("violations %+v, want %s starting %q", ex.Violations, tc.code, tc.prefix)
			}
			if ex.Applied {
				t.Fatal("applied")
			}
		})
	}
}
