package guard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/edit"
)

const goGateFile = "package a\n\nfunc compute(alpha, beta int) int {\n" +
	"\talpha = beta*2 + alpha/3 // the first step of the computation\n" +
	"\tbeta = alpha*5 - beta/7 // the second step of the computation\n" +
	"\treturn alpha + beta\n}\n"

// A model's old text with a typo: only FUZZY finds it.
const goGateOld = "\talpha = beta*2 + alpha/3 // the frist step of the computation\n" +
	"\tbeta = alpha*5 - beta/7 // the second step of the computation\n"

// TestSyntaxGate: a guess of the ladder that breaks the file is refused
// in report and refuse modes alike (NOT_FOUND, the reason in the
// violation, nothing written), and applied in off mode; a guess that keeps
// the file parsing is applied; escape decoding is gated as the rungs are.
func TestSyntaxGate(t *testing.T) {
	breaking := "\talpha = beta*2 + alpha/3 // the first step\n\tbeta = compute(alpha, beta\n"
	sound := "\talpha = beta*2 + alpha/3 // the first step\n\tbeta = alpha*6 - beta/7\n"
	patch := func(nw string) map[string]any {
		var b strings.Builder
		b.WriteString("*** Begin Patch\n*** Update File: a.go\n@@\n")
		for _, l := range strings.Split(strings.TrimSuffix(goGateOld, "\n"), "\n") {
			b.WriteString("-" + l + "\n")
		}
		for _, l := range strings.Split(strings.TrimSuffix(nw, "\n"), "\n") {
			b.WriteString("+" + l + "\n")
		}
		b.WriteString("*** End Patch")
		return map[string]any{"patch": b.String()}
	}
	cases := []struct {
		name  string
		tool  string
		args  map[string]any
		gated bool   // refused by the gate unless the check is off
		hint  string // in the violation when gated
	}{
		{"fuzzy edit that breaks the file", "edit", map[string]any{"path": "a.go", "old_text": goGateOld, "new_text": breaking}, true,
			"The closest match (FUZZY, lines 4-5, similarity 0.98) would leave an unclosed `(` at line 5 (the go parser: missing ','"},
		{"fuzzy edit that keeps it parsing", "edit", map[string]any{"path": "a.go", "old_text": goGateOld, "new_text": sound}, false, ""},
		{"fuzzy patch chunk that breaks the file", "apply_patch", patch(breaking), true, "Refused: resend old_text exactly as in the file."},
		{"fuzzy patch chunk that keeps it parsing", "apply_patch", patch(sound), false, ""},
		{"decoded escapes that break the file", "edit", map[string]any{"path": "a.go", "old_text": `	return alpha + beta\n}`, "new_text": `	return (alpha + beta\n}`}, true,
			"only with its \\n read as line breaks, but the edit so decoded would leave an unclosed `(`"},
		{"decoded escapes that keep it parsing", "edit", map[string]any{"path": "a.go", "old_text": `	return alpha + beta\n}`, "new_text": `	return alpha - beta\n}`}, false, ""},
	}
	for _, mode := range []string{SyntaxReport, SyntaxRefuse, SyntaxOff} {
		for _, c := range cases {
			t.Run(mode+"/"+c.name, func(t *testing.T) {
				g, dir := newWorkspaceGuard(t)
				g.syntaxMode = mode
				file := filepath.Join(dir, "a.go")
				if err := os.WriteFile(file, []byte(goGateFile), 0o644); err != nil {
					t.Fatal(err)
				}
				ex := runSyntaxCall(t, g, c.tool, c.args, false)
				data, _ := os.ReadFile(file)
				if !c.gated || mode == SyntaxOff {
					if !ex.Applied || string(data) == goGateFile || len(ex.Edits) != 1 || ex.Edits[0].Status != edit.StatusApplied {
						t.Fatalf("not applied: %+v %+v", ex.Edits, ex.Violations)
					}
					if refusedSyntax := ex.Has(CodeSyntaxError); refusedSyntax != (c.gated && mode == SyntaxRefuse) {
						t.Fatalf("SYNTAX_ERROR %v", refusedSyntax)
					}
					return
				}
				if ex.OK() || ex.Applied || string(data) != goGateFile || !ex.Has(CodeEditNotFound) || ex.Has(CodeSyntaxError) {
					t.Fatalf("not refused: ok %v applied %v violations %+v", ex.OK(), ex.Applied, ex.Violations)
				}
				if len(ex.Edits) != 1 || ex.Edits[0].Status != edit.StatusNotFound || ex.Edits[0].Gated == "" {
					t.Fatalf("edits %+v", ex.Edits)
				}
				if !strings.Contains(ex.Violations[0].Message, c.hint) || !strings.Contains(ex.Violations[0].Message, "was not applied to a.go") {
					t.Fatalf("violation %q, want %q", ex.Violations[0].Message, c.hint)
				}
				if ex.Mistakes.Consecutive != 1 {
					t.Errorf("mistakes %+v", ex.Mistakes)
				}
			})
		}
	}
}
