package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// turn is one request of TestOneTurnCountsOnce and what it must leave.
type turn struct {
	op          byte // 'v' Validate, 'w' ExecuteWrite, 'e' ExecuteEdit, 's' stream, 'S' stream executing
	call        repair.Call
	id          string
	ok          bool
	consecutive uint32
	repeats     uint32 // the session's run of identical calls after it
	violations  []string
}

// TestOneTurnCountsOnce follows the README: validate a call, then execute
// it. Each pair is one model turn, for mistakes and REPEATED_CALL alike.
func TestOneTurnCountsOnce(t *testing.T) {
	raw := repair.Call{Name: "Write", Form: repair.FormText, Text: `{"file_path":"a.txt","text":"hi\n"}`}
	// What the README's client sends to ExecuteWrite: the verdict's tool name
	// and arguments.
	normalised := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"hi\n","path":"a.txt"}`}
	other := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"bye\n","path":"b.txt"}`}
	bad := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"path":"a.txt"}`}
	bad2 := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"x"}`}
	// Usable at validation, NOT_FOUND at execution.
	missing := repair.Call{Name: "edit", Form: repair.FormText, Text: `{"path":"f.txt","old_text":"absent","new_text":"x"}`}
	xmlBad := "<write_to_file><path>a.txt</path></write_to_file>"
	missingFile := []string{"MISSING_REQUIRED"}
	tests := []struct {
		name  string
		turns []turn
	}{
		{"validate then execute, three turns", []turn{
			{'v', raw, "", true, 0, 1, nil},
			{'w', normalised, "", true, 0, 1, nil},
			{'v', raw, "", true, 0, 2, nil},
			{'w', normalised, "", true, 0, 2, nil},
			{'v', raw, "", false, 1, 3, []string{"REPEATED_CALL"}},
			{'w', normalised, "", false, 1, 3, []string{"REPEATED_CALL"}},
		}},
		{"a failing call validated then executed is one mistake a turn", []turn{
			{'v', bad, "", false, 1, 1, missingFile},
			{'w', bad, "", false, 1, 1, missingFile},
			{'v', bad, "", false, 2, 2, missingFile},
			{'w', bad, "", false, 2, 2, missingFile},
			{'v', other, "", true, 0, 1, nil},
		}},
		{"an edit usable at validation that fails at execution counts after the earlier mistakes", []turn{
			{'v', bad, "", false, 1, 1, missingFile},
			{'v', bad2, "", false, 2, 1, missingFile},
			{'v', missing, "", true, 0, 1, nil},
			{'e', missing, "", false, 3, 1, []string{CodeEditNotFound}},
		}},
		{"executing without validating: each call is a turn", []turn{
			{'w', normalised, "", true, 0, 1, nil},
			{'w', normalised, "", true, 0, 2, nil},
		}},
		{"the same call id is the same turn, another id another", []turn{
			{'v', raw, "call_1", true, 0, 1, nil},
			{'w', normalised, "call_1", true, 0, 1, nil},
			{'v', raw, "call_2", true, 0, 2, nil},
			{'w', normalised, "call_3", false, 1, 3, []string{"REPEATED_CALL"}},
		}},
		{"a stream that only validates, then ExecuteWrite of its call", []turn{
			{'s', repair.Call{Form: repair.FormXML, Text: xmlBad}, "", false, 1, 1, missingFile},
			{'w', repair.Call{Form: repair.FormXML, Text: xmlBad}, "", false, 1, 1, missingFile},
		}},
		{"a stream that executes is the turn; ExecuteWrite after it is another", []turn{
			{'S', repair.Call{Form: repair.FormXML, Text: xmlBad}, "", false, 1, 1, missingFile},
			{'w', repair.Call{Form: repair.FormXML, Text: xmlBad}, "", false, 2, 2, missingFile},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("present\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for i, tr := range tt.turns {
				v := doTurn(t, g, tr)
				if got := violationCodes(v); !slices.Equal(got, tr.violations) {
					t.Errorf("turn %d %c: violations %v, want %v", i, tr.op, got, tr.violations)
				}
				if v.OK() != tr.ok || v.Mistakes.Consecutive != tr.consecutive || v.Mistakes.NotCounted {
					t.Errorf("turn %d %c: ok=%v mistakes %+v, want ok=%v consecutive %d", i, tr.op, v.OK(), v.Mistakes, tr.ok, tr.consecutive)
				}
				sess, err := g.Session(context.Background(), "turns")
				if err != nil {
					t.Fatal(err)
				}
				if sess.State.Repeats != tr.repeats || sess.Mistakes.Consecutive != tr.consecutive {
					t.Errorf("turn %d %c: session %+v, want repeats %d, consecutive %d", i, tr.op, sess.State, tr.repeats, tr.consecutive)
				}
			}
		})
	}
}

// doTurn sends one request of a turn and returns its verdict.
func doTurn(t *testing.T, g *Guard, tr turn) *Verdict {
	t.Helper()
	ctx := context.Background()
	req := ValidateRequest{SessionID: "turns", Call: tr.call, CallID: tr.id}
	var v *Verdict
	var err error
	switch tr.op {
	case 'v':
		v, err = g.Validate(ctx, req)
	case 'w', 'e':
		run := g.ExecuteWrite
		if tr.op == 'e' {
			run = g.ExecuteEdit
		}
		var ex *Execution
		if ex, err = run(ctx, ExecuteRequest{ValidateRequest: req}); err == nil {
			v = ex.Verdict
		}
	case 's', 'S':
		evs, _ := streamed(t, g, StreamRequest{SessionID: "turns", Format: stream.XMLTags, ExecuteOnComplete: tr.op == 'S'}, tr.call.Text, 7, nil, "stop")
		c := completed(evs)
		if len(c) != 1 {
			t.Fatalf("stream completed %d calls, want 1", len(c))
		}
		v = c[0].Verdict
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRepeatThatChangesAFileIsUsable: a call repeated past the limit whose
// execution still changed the file (another writer changed it in between)
// was not useless; a change that was made is never reported as failed.
func TestRepeatThatChangesAFileIsUsable(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	ctx := context.Background()
	call := repair.Call{Name: "write_to_file", Form: repair.FormText, Text: `{"content":"hi\n","path":"a.txt"}`}
	req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "turns", Call: call}}
	for i := range 2 {
		if ex, err := g.ExecuteWrite(ctx, req); err != nil || !ex.OK() {
			t.Fatalf("write %d: %v %+v", i, err, ex)
		}
	}
	// Unchanged file: the third identical write is a useless repeat.
	ex, err := g.ExecuteWrite(ctx, req)
	if err != nil || ex.OK() || ex.Applied || !ex.Has(repair.CodeRepeatedCall) {
		t.Fatalf("third write: %v ok=%v applied=%v %v", err, ex.OK(), ex.Applied, violationCodes(ex.Verdict))
	}
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("changed by someone else\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ex, err = g.ExecuteWrite(ctx, req)
	if err != nil || !ex.Applied || !ex.OK() || ex.Has(repair.CodeRepeatedCall) {
		t.Fatalf("write after a change: %v ok=%v applied=%v %v", err, ex.OK(), ex.Applied, violationCodes(ex.Verdict))
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != "hi\n" {
		t.Fatalf("file = %q", got)
	}
}
