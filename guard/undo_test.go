package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestUndoNotUndoable: a folder deleted with its names and a file an
// apply_patch moved cannot be undone, and undo_edit says so and why, not
// that the session changed nothing.
func TestUndoNotUndoable(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	workspacetest.WriteFiles(t, dir, map[string]string{"folder/inner.txt": "in\n", "p.txt": "one\n"})
	ctx := context.Background()
	call := func(tool string, args map[string]any) *Execution {
		t.Helper()
		text, _ := repair.EncodeJSON(args)
		ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "u",
			Call: repair.Call{Name: tool, Form: repair.FormText, Text: string(text)}}})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return ex
	}
	if ex := call("delete_file", map[string]any{"path": "folder", "recursive": true}); !ex.Applied {
		t.Fatalf("delete: %s", ex.Feedback)
	}
	patch := "*** Begin Patch\n*** Update File: p.txt\n*** Move to: q.txt\n@@\n-one\n+two\n*** End Patch\n"
	if ex := call("apply_patch", map[string]any{"patch": patch}); !ex.Applied {
		t.Fatalf("apply_patch: %s", ex.Feedback)
	}
	for _, c := range []struct{ path, want string }{
		{"folder", "cannot be undone: it was a folder deleted with everything in it, and a folder deleted is not kept, so it is not undoable"},
		{"q.txt", "cannot be undone: an apply_patch moved p.txt to q.txt, and a move made by a patch is not undoable"},
		{"p.txt", "cannot be undone: an apply_patch moved p.txt to q.txt"},
	} {
		ex := call("undo_edit", map[string]any{"path": c.path})
		if ex.Applied || !slices.Equal(violationCodes(ex.Verdict), []string{CodeNoHistory}) || !strings.Contains(ex.Feedback, c.want) {
			t.Errorf("undo %s: applied %v, %v\n%s\nwant %q", c.path, ex.Applied, violationCodes(ex.Verdict), ex.Feedback, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "q.txt")); err != nil {
		t.Fatalf("q.txt: %v", err)
	}
}
