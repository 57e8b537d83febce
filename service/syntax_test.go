package service_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
)

const syntaxGoFile = "package a\n\nfunc f() int {\n\treturn 1\n}\n"

// TestSyntaxCheckOverTheWire: a write, an edit and a streamed edit with
// execute_on_complete, each breaking a Go file, in report mode (written,
// the checks and the feedback say so) and refuse mode (nothing written,
// SYNTAX_ERROR, a mistake).
func TestSyntaxCheckOverTheWire(t *testing.T) {
	breakIt := map[string]any{"path": "a.go", "old_text": "return 1", "new_text": "return (1"}
	for _, mode := range []string{guard.SyntaxReport, guard.SyntaxRefuse} {
		t.Run(mode, func(t *testing.T) {
			c, ws := startWorkspace(t, service.Config{Config: guard.Config{SyntaxCheck: mode}})
			ctx := context.Background()
			file := filepath.Join(ws, "a.go")
			reset := func() {
				t.Helper()
				if err := os.WriteFile(file, []byte(syntaxGoFile), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			check := func(name string, v *toolguardv1.Verdict, checks []*toolguardv1.SyntaxCheck) {
				t.Helper()
				written := readFile(t, file) != syntaxGoFile
				if len(checks) != 1 || checks[0].GetOutcome() != toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_ADDED || checks[0].GetLanguage() != "go" ||
					len(checks[0].GetErrors()) == 0 || checks[0].GetErrors()[0].GetLine() != 4 || !strings.Contains(checks[0].GetErrors()[0].GetLines(), ">    4 | \treturn (1") {
					t.Errorf("%s: checks %v", name, checks)
				}
				if !strings.Contains(v.GetFeedback(), "left an unclosed `(`") || !strings.Contains(v.GetFeedback(), "parsed cleanly before") {
					t.Errorf("%s: feedback %q", name, v.GetFeedback())
				}
				if mode == guard.SyntaxReport && (!v.GetOk() || !written) {
					t.Errorf("%s: ok %v, written %v; want both", name, v.GetOk(), written)
				}
				if mode == guard.SyntaxRefuse && (v.GetOk() || written || len(v.GetViolations()) != 1 || v.GetViolations()[0].GetCode() != guard.CodeSyntaxError) {
					t.Errorf("%s: ok %v, written %v, violations %v; want refused", name, v.GetOk(), written, v.GetViolations())
				}
			}

			reset()
			w, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "w"},
				Call: jsonCall(t, "write_to_file", map[string]any{"path": "a.go", "content": strings.Replace(syntaxGoFile, "return 1", "return (1", 1)})})
			if err != nil {
				t.Fatal(err)
			}
			check("write", w.GetVerdict(), w.GetSyntaxChecks())

			reset()
			e, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "e"}, Call: jsonCall(t, "edit", breakIt)})
			if err != nil {
				t.Fatal(err)
			}
			check("edit", e.GetVerdict(), e.GetSyntaxChecks())
			if len(e.GetEdits()) != 1 || len(e.GetEdits()[0].GetSyntaxErrors()) == 0 {
				t.Errorf("edit result %v, want its syntax error", e.GetEdits())
			}

			reset()
			args, _ := json.Marshal(breakIt)
			frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI,
				&toolguardv1.StreamOptions{ExecuteOnComplete: true})}, argFrames(0, "call_1", "edit", string(args), 16)...), endFrame("tool_calls"))
			events, err := streamRun(t, c, frames)
			if err != nil {
				t.Fatal(err)
			}
			s := summarize(t, events)
			if len(s.complete) != 1 || s.complete[0].GetExecution() == nil {
				t.Fatalf("stream: %d calls completed", len(s.complete))
			}
			done := s.complete[0]
			check("stream", done.GetVerdict(), done.GetExecution().GetSyntaxChecks())
			if mode == guard.SyntaxRefuse && s.done.GetMistakes().GetConsecutive() != 1 {
				t.Errorf("stream: mistakes %v, want 1", s.done.GetMistakes())
			}
		})
	}
}
