package service

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/session/sessiontest"
)

// TestStoreFailureAfterChangeOverGRPC: however the session store fails
// once a write or an edit changed a file, the RPC answers the change as
// applied and not counted, never with an error status, and says why in
// the log.
func TestStoreFailureAfterChangeOverGRPC(t *testing.T) {
	t.Parallel()
	store := sessiontest.NewFailing()
	cfg := testConfig(t)
	ts := startHookedServer(t, cfg, serverHooks{sessions: store})
	c := toolguardv1.NewToolGuardServiceClient(ts.conn)
	ctx := context.Background()
	for i, f := range sessiontest.Failures() {
		store.Fail(f.Err)
		name := "f" + string(rune('a'+i)) + ".txt"
		w, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
			Call: toolCall("write_to_file", `{"path":"`+name+`","content":"one\ntwo\n"}`)})
		if err != nil || w.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED || !w.GetVerdict().GetOk() || !w.GetVerdict().GetMistakes().GetNotCounted() {
			t.Fatalf("%s: ExecuteWrite = %v, %v; want applied, not counted", f.Name, w, err)
		}
		e, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
			Call: toolCall("edit", `{"path":"`+name+`","old_text":"two","new_text":"TWO"}`)})
		if err != nil || !e.GetApplied() || !e.GetVerdict().GetOk() || !e.GetVerdict().GetMistakes().GetNotCounted() {
			t.Fatalf("%s: ExecuteEdit = %v, %v; want applied, not counted", f.Name, e, err)
		}
		if b, err := os.ReadFile(filepath.Join(cfg.Workspace, name)); err != nil || string(b) != "one\nTWO\n" {
			t.Fatalf("%s: %s = %q, %v", f.Name, name, b, err)
		}
	}
	for _, msg := range []string{"session store unreachable: call not counted", "session store failed after a change was made: call not counted"} {
		if ts.logs.FilterMessage(msg).Len() == 0 {
			t.Errorf("no warning %q", msg)
		}
	}
	store.Fail(nil)
	v, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
		Call: toolCall("write_to_file", `{"path":"a"}`)})
	if m := v.GetVerdict().GetMistakes(); err != nil || m.GetNotCounted() || m.GetConsecutive() != 1 {
		t.Fatalf("after the failures: %v, %v", v, err)
	}
}

func toolCall(name, args string) *toolguardv1.ToolCall {
	return &toolguardv1.ToolCall{Name: name, Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}}
}
