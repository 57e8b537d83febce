package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

const goClean = "package a\n\nfunc f() int {\n\treturn 1\n}\n"

// syntaxCall is a change of a.go by each tool that writes or edits.
var syntaxCalls = []struct {
	tool  string
	args  map[string]any
	after string // a.go after the change, when written
}{
	{"write_to_file", map[string]any{"path": "a.go", "content": "package a\n\nfunc f() int {\n\treturn (1\n}\n"}, "package a\n\nfunc f() int {\n\treturn (1\n}\n"},
	{"edit", map[string]any{"path": "a.go", "old_text": "return 1", "new_text": "return (1"}, "package a\n\nfunc f() int {\n\treturn (1\n}\n"},
	{"multi_edit", map[string]any{"path": "a.go", "edits": []any{map[string]any{"old_text": "return 1", "new_text": "return (1"}}}, ""},
	{"replace_in_file", map[string]any{"path": "a.go", "diff": "<<<<<<< SEARCH\n\treturn 1\n=======\n\treturn (1\n>>>>>>> REPLACE\n"}, ""},
	{"insert_text", map[string]any{"path": "a.go", "insert_line": 4, "new_text": "\tx := (1"}, ""},
	{"apply_patch", map[string]any{"patch": "*** Begin Patch\n*** Update File: a.go\n@@\n func f() int {\n-\treturn 1\n+\treturn (1\n }\n*** End Patch"}, ""},
	{"apply_patch", map[string]any{"patch": "--- a/a.go\n+++ b/a.go\n@@ -3,3 +3,3 @@\n func f() int {\n-\treturn 1\n+\treturn (1\n }\n"}, ""},
}

func runSyntaxCall(t *testing.T, g *Guard, tool string, args map[string]any, dryRun bool) *Execution {
	t.Helper()
	text, _ := repair.EncodeJSON(args)
	req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}}, DryRun: dryRun}
	var ex *Execution
	var err error
	if tool == "write_to_file" {
		ex, err = g.ExecuteWrite(context.Background(), req)
	} else {
		ex, err = g.ExecuteEdit(context.Background(), req)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// TestSyntaxModes: every tool that changes a file, breaking a Go file that
// parsed, in each mode: report writes it and says so in the feedback and
// the checks; refuse writes nothing and is a SYNTAX_ERROR mistake; off
// checks nothing.
func TestSyntaxModes(t *testing.T) {
	for _, mode := range []string{SyntaxReport, SyntaxRefuse, SyntaxOff} {
		for _, c := range syntaxCalls {
			t.Run(mode+"/"+c.tool, func(t *testing.T) {
				g, dir := newWorkspaceGuard(t)
				g.syntaxMode = mode
				file := filepath.Join(dir, "a.go")
				if err := os.WriteFile(file, []byte(goClean), 0o644); err != nil {
					t.Fatal(err)
				}
				ex := runSyntaxCall(t, g, c.tool, c.args, false)
				data, _ := os.ReadFile(file)
				switch mode {
				case SyntaxOff:
					if !ex.OK() || len(ex.Syntax) != 0 || !ex.Applied {
						t.Fatalf("off: ok %v, checks %+v, applied %v", ex.OK(), ex.Syntax, ex.Applied)
					}
					return
				case SyntaxReport:
					if !ex.OK() || !ex.Applied || string(data) == goClean {
						t.Fatalf("report: ok %v applied %v, violations %+v", ex.OK(), ex.Applied, ex.Violations)
					}
					if !strings.Contains(ex.Feedback, "parsed cleanly before") || !strings.Contains(ex.Feedback, "| ") {
						t.Errorf("report feedback %q", ex.Feedback)
					}
				case SyntaxRefuse:
					if ex.OK() || ex.Applied || string(data) != goClean || !ex.Has(CodeSyntaxError) {
						t.Fatalf("refuse: ok %v applied %v, file %q, violations %+v", ex.OK(), ex.Applied, data, ex.Violations)
					}
					if ex.Mistakes.Consecutive != 1 || !strings.Contains(ex.Feedback, "Nothing was written") {
						t.Errorf("refuse: mistakes %+v, feedback %q", ex.Mistakes, ex.Feedback)
					}
				}
				if len(ex.Syntax) != 1 || ex.Syntax[0].Outcome != SyntaxAdded || ex.Syntax[0].Lang != "go" || len(ex.Syntax[0].Errors) == 0 {
					t.Fatalf("checks %+v", ex.Syntax)
				}
				e := ex.Syntax[0].Errors[0]
				if e.Path != "a.go" || e.Line < 4 || !strings.Contains(e.Lines, ">") {
					t.Errorf("finding %+v", e)
				}
				if c.after != "" && string(data) != c.after && mode == SyntaxReport {
					t.Errorf("written %q", data)
				}
				if c.tool != "write_to_file" && len(ex.Edits) > 0 && len(ex.EditSyntax(ex.Edits[0])) == 0 {
					t.Errorf("the edit's result has no finding: %+v", ex.Syntax)
				}
			})
		}
	}
}

// TestSyntaxOutcomes: the edits that do not add an error, in refuse mode,
// are written: a clean edit, an edit of a file already broken, an edit
// that fixes one (now parses), a kind of file with no check, and a dry
// run that would break the file is refused all the same.
func TestSyntaxOutcomes(t *testing.T) {
	broken := "package a\n\nfunc f() int {\n\treturn (1\n}\n\nfunc g() {}\n"
	tests := []struct {
		name, file, before, tool string
		args                     map[string]any
		outcome                  SyntaxOutcome // "": no check
		ok                       bool
	}{
		{"clean", "a.go", goClean, "edit", map[string]any{"path": "a.go", "old_text": "return 1", "new_text": "return 2"}, SyntaxClean, true},
		{"already broken", "a.go", broken, "edit", map[string]any{"path": "a.go", "old_text": "func g() {}", "new_text": "func g() { _ = 1 }"}, SyntaxStillBroken, true},
		{"fixes it", "a.go", broken, "edit", map[string]any{"path": "a.go", "old_text": "return (1", "new_text": "return (1)"}, SyntaxNowParses, true},
		{"no check for the kind", "a.txt", "(", "edit", map[string]any{"path": "a.txt", "old_text": "(", "new_text": "(("}, "", true},
		{"new broken file", "", "", "write_to_file", map[string]any{"path": "b.json", "content": "{\"a\": 1,}"}, SyntaxAdded, false},
		{"new clean file", "", "", "write_to_file", map[string]any{"path": "b.json", "content": "{\"a\": 1}"}, SyntaxClean, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			g.syntaxMode = SyntaxRefuse
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ex := runSyntaxCall(t, g, tc.tool, tc.args, false)
			if ex.OK() != tc.ok || ex.Applied != tc.ok {
				t.Fatalf("ok %v applied %v, want %v; violations %+v", ex.OK(), ex.Applied, tc.ok, ex.Violations)
			}
			switch {
			case tc.outcome == "" && len(ex.Syntax) != 0:
				t.Errorf("checks %+v, want none", ex.Syntax)
			case tc.outcome != "" && (len(ex.Syntax) != 1 || ex.Syntax[0].Outcome != tc.outcome):
				t.Errorf("checks %+v, want %s", ex.Syntax, tc.outcome)
			}
			if tc.ok && ex.Feedback != "" {
				t.Errorf("feedback %q, want none", ex.Feedback)
			}
			if !tc.ok && !strings.Contains(ex.Feedback, "the file is new") {
				t.Errorf("feedback %q", ex.Feedback)
			}
		})
	}
	t.Run("dry run", func(t *testing.T) {
		g, dir := newWorkspaceGuard(t)
		g.syntaxMode = SyntaxRefuse
		if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(goClean), 0o644); err != nil {
			t.Fatal(err)
		}
		ex := runSyntaxCall(t, g, "edit", map[string]any{"path": "a.go", "old_text": "return 1", "new_text": "return (1"}, true)
		if ex.OK() || !ex.Has(CodeSyntaxError) {
			t.Errorf("dry run: ok %v, violations %+v", ex.OK(), ex.Violations)
		}
	})
}

// TestSyntaxNotChecked: a file over the check's size bound is written,
// not checked, in refuse mode too.
func TestSyntaxNotChecked(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	g.syntaxMode, g.syntaxLimits.MaxBytes = SyntaxRefuse, 10
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(goClean), 0o644); err != nil {
		t.Fatal(err)
	}
	ex := runSyntaxCall(t, g, "edit", map[string]any{"path": "a.go", "old_text": "return 1", "new_text": "return (1"}, false)
	if !ex.OK() || !ex.Applied || len(ex.Syntax) != 1 || ex.Syntax[0].Outcome != SyntaxNotChecked || ex.Syntax[0].Reason == "" {
		t.Errorf("ok %v applied %v checks %+v", ex.OK(), ex.Applied, ex.Syntax)
	}
}

func TestSyntaxProblem(t *testing.T) {
	tests := map[string]string{
		"expected ')', found newline":                     "an unclosed `(`",
		`Expected "}" but found end of file`:              "an unclosed `{`",
		"expected ']', found 'EOF'":                       "an unclosed `[`",
		"mapping values are not allowed":                  "a syntax error",
		"missing ',' before newline in argument list":     "an unclosed `(`",
		"missing ',' before newline in composite literal": "an unclosed `{`",
	}
	for msg, want := range tests {
		if got := syntaxProblem(msg); got != want {
			t.Errorf("syntaxProblem(%q) = %q, want %q", msg, got, want)
		}
	}
}
