package guard

import (
	"context"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestEditFileWorkOnce: an edit resolves, walks to, reads and hashes each
// file it changes once, from the check of the expected hash to the commit;
// a batch of several files does so for each.
func TestEditFileWorkOnce(t *testing.T) {
	for _, tt := range []struct {
		name, tool string
		args       map[string]any
		expected   bool // send the file's hash as read
		files      int64
	}{
		{"edit", "edit", map[string]any{"path": "a.txt", "old_text": "two", "new_text": "TWO"}, true, 1},
		{"replace_in_file", "replace_in_file", map[string]any{"path": "a.txt", "diff": "------- SEARCH\ntwo\n=======\nTWO\n+++++++ REPLACE\n"}, false, 1},
		{"multi_edit over two files", "multi_edit", map[string]any{"edits": []any{
			map[string]any{"path": "a.txt", "old_text": "one", "new_text": "ONE"},
			map[string]any{"path": "src/b.txt", "old_text": "bee", "new_text": "BEE"},
			map[string]any{"path": "a.txt", "old_text": "three", "new_text": "THREE"},
		}}, false, 2},
		{"apply_patch over two files", "apply_patch", map[string]any{"patch": "*** Begin Patch\n" +
			"*** Update File: a.txt\n@@\n-two\n+TWO\n" +
			"*** Update File: src/b.txt\n@@\n-bee\n+BEE\n" +
			"*** End Patch\n"}, false, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, map[string]string{"a.txt": "one\ntwo\nthree\n", "src/b.txt": "bee\n"})
			ws := g.workspaces[g.defaultWorkspace]
			req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name()}}
			if tt.expected {
				_, info, err := ws.ReadFile("a.txt")
				if err != nil {
					t.Fatal(err)
				}
				req.ExpectedSHA256 = info.SHA256
			}
			text, _ := repair.EncodeJSON(tt.args)
			req.Call = repair.Call{Name: tt.tool, Form: repair.FormText, Text: string(text)}
			before := ws.IOCounts()
			ex, err := g.ExecuteEdit(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !ex.OK() || !ex.Applied {
				t.Fatalf("ok %v, applied %v, violations %v", ex.OK(), ex.Applied, ex.Violations)
			}
			got := ws.IOCounts().Sub(before)
			want := workspace.IOCounts{Resolves: tt.files, Walks: tt.files, Reads: tt.files, Hashes: tt.files}
			if got != want {
				t.Errorf("file work %+v, want %+v (once per file)", got, want)
			}
		})
	}
}
