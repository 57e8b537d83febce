package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// TestEditBatchReport: the feedback of a batch that failed in part says
// which edits were written, with each edit's status, and "nothing was
// written" whenever that is so.
func TestEditBatchReport(t *testing.T) {
	mixed := []any{
		map[string]any{"path": "a.txt", "old_text": "one", "new_text": "ONE"},
		map[string]any{"path": "a.txt", "old_text": "zzz", "new_text": "x"},
		map[string]any{"path": "b.txt", "old_text": "alpha", "new_text": "ALPHA"},
		map[string]any{"path": "b.txt", "old_text": "gamma", "new_text": "beta"},
		map[string]any{"path": "a.txt", "old_text": "t", "new_text": "T"},
	}
	const a, b = "one\ntwo\nthree\n", "alpha\nbeta\n"
	tests := []struct {
		name           string
		edits          []any
		partial, dry   bool
		wantA, wantB   string
		ok, applied    bool
		report         string // the feedback's beginning, byte for byte; "" for no feedback
		problemsFollow bool
	}{
		{name: "partial", edits: mixed, partial: true, wantA: "ONE\ntwo\nthree\n", wantB: "ALPHA\nbeta\n", applied: true,
			report: "Error: the multi_edit tool call was carried out only in part: applied 3 of 5 edits, and the files a.txt, b.txt were written. " +
				"The failed edits changed nothing: correct them and send only those again.\n" +
				"- edit 1 (a.txt): applied at line 1\n" +
				"- edit 2 (a.txt): NOT FOUND, not applied (see below)\n" +
				"- edit 5 (a.txt): AMBIGUOUS, 2 matches, not applied (see below)\n" +
				"- edit 3 (b.txt): applied at line 1\n" +
				"- edit 4 (b.txt): already applied (line 2), nothing to change\n" +
				"- Edit 2: the old text was not found in a.txt.\n",
			problemsFollow: true},
		{name: "all or nothing", edits: mixed, wantA: a, wantB: b,
			report: "Error: the multi_edit tool call was not carried out, and nothing was written: 2 of 5 edits failed, " +
				"and a batch is applied whole or not at all. The edits that would apply are fine: send the whole batch again with the failed ones corrected.\n" +
				"- edit 1 (a.txt): would apply at line 1\n" +
				"- edit 2 (a.txt): NOT FOUND, not applied (see below)\n" +
				"- edit 5 (a.txt): AMBIGUOUS, 2 matches, not applied (see below)\n" +
				"- edit 3 (b.txt): would apply at line 1\n" +
				"- edit 4 (b.txt): already applied (line 2), nothing to change\n" +
				"- Edit 2: the old text was not found in a.txt.\n"},
		{name: "partial dry run", edits: mixed, partial: true, dry: true, wantA: a, wantB: b,
			report: "Error: the multi_edit tool call (a dry run) would have applied 3 of 5 edits; nothing was written.\n" +
				"- edit 1 (a.txt): would apply at line 1\n"},
		{name: "partial, every edit fails", edits: mixed[1:2], partial: true, wantA: a, wantB: b,
			report: "Error: the multi_edit tool call was not carried out, and nothing was written: its edit failed.\n" +
				"- Edit 1: the old text was not found in a.txt.\n"},
		{name: "partial, the edits that apply change nothing", edits: []any{mixed[1], mixed[3]}, partial: true, wantA: a, wantB: b,
			report: "Error: the multi_edit tool call applied 1 of 2 edits, and nothing was written.\n" +
				"- edit 1 (a.txt): NOT FOUND, not applied (see below)\n- edit 2 (b.txt): already applied (line 2), nothing to change\n"},
		{name: "every edit fails", edits: []any{mixed[1], mixed[4]}, wantA: a, wantB: b,
			report: "Error: the multi_edit tool call was not carried out, and nothing was written: none of its 2 edits applied.\n"},
		{name: "fuzzy match named", partial: true, wantA: "one\n2\nthree\n", wantB: b, applied: true,
			edits: []any{
				map[string]any{"path": "a.txt", "old_text": "one\ntwp\nthree\n", "new_text": "one\n2\nthree\n"},
				map[string]any{"path": "b.txt", "old_text": "zzz", "new_text": "x"},
			},
			report: "Error: the multi_edit tool call was carried out only in part: applied 1 of 2 edits, and a.txt was written. " +
				"The failed edits changed nothing: correct them and send only those again.\n" +
				"- edit 1 (a.txt): applied at line 1 (FUZZY match, similarity 0.91)\n" +
				"- edit 2 (b.txt): NOT FOUND, not applied (see below)\n"},
		{name: "every edit applies", edits: []any{mixed[0], mixed[2]}, wantA: "ONE\ntwo\nthree\n", wantB: "ALPHA\nbeta\n", ok: true, applied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			writeFile(t, dir, "a.txt", a)
			writeFile(t, dir, "b.txt", b)
			text, _ := repair.EncodeJSON(map[string]any{"edits": tt.edits})
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "multi_edit", Form: repair.FormText, Text: string(text)}},
				Partial:         tt.partial, DryRun: tt.dry,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, dir, "a.txt"); got != tt.wantA {
				t.Errorf("a.txt = %q, want %q", got, tt.wantA)
			}
			if got := readFile(t, dir, "b.txt"); got != tt.wantB {
				t.Errorf("b.txt = %q, want %q", got, tt.wantB)
			}
			if ex.OK() != tt.ok || ex.Applied != tt.applied {
				t.Errorf("ok %v applied %v, want %v %v", ex.OK(), ex.Applied, tt.ok, tt.applied)
			}
			if tt.report == "" {
				if ex.Feedback != "" {
					t.Errorf("feedback %q, want none", ex.Feedback)
				}
				return
			}
			if !strings.HasPrefix(ex.Feedback, tt.report) {
				t.Errorf("feedback:\n%s\nwant it to begin:\n%s", ex.Feedback, tt.report)
			}
			if len(ex.Feedback) > repair.MaxFeedbackBytes {
				t.Errorf("feedback is %d bytes", len(ex.Feedback))
			}
		})
	}
}

// TestStreamEditBatchReport: a partial batch executed from a stream reports
// like ExecuteEdit.
func TestStreamEditBatchReport(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	writeFile(t, dir, "a.txt", "one\ntwo\n")
	args, _ := repair.EncodeJSON(map[string]any{"path": "a.txt", "edits": []any{
		map[string]any{"old_text": "one", "new_text": "ONE"},
		map[string]any{"old_text": "zzz", "new_text": "x"},
	}})
	evs, _ := streamed(t, g, StreamRequest{SessionID: t.Name(), Format: stream.OpenAI, ExecuteOnComplete: true, Partial: true}, "", 1,
		[]stream.ToolDelta{{Index: 0, ID: "c1", Name: "multi_edit", Arguments: string(args)}}, "tool_calls")
	c := completed(evs)
	if len(c) != 1 || c[0].Execution == nil {
		t.Fatalf("completed %+v", c)
	}
	const want = "Error: the multi_edit tool call was carried out only in part: applied 1 of 2 edits, and a.txt was written. " +
		"The failed edits changed nothing: correct them and send only those again.\n" +
		"- edit 1 (a.txt): applied at line 1\n- edit 2 (a.txt): NOT FOUND, not applied (see below)\n"
	if got := c[0].Verdict.Feedback; !strings.HasPrefix(got, want) {
		t.Errorf("feedback:\n%s\nwant it to begin:\n%s", got, want)
	}
	if got := readFile(t, dir, "a.txt"); got != "ONE\ntwo\n" {
		t.Errorf("a.txt = %q", got)
	}
}
