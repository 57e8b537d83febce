package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestJoinDiffs: the diffs of a call go one after the other, or over
// MaxDiffBytes as the size and hash of exactly that, never built.
func TestJoinDiffs(t *testing.T) {
	big := strings.Repeat("line of a big file\n", MaxDiffBytes/19+10)
	tests := []struct {
		name   string
		diffs  []edit.Diff
		elided bool
	}{
		{"none", nil, false},
		{"small ones", []edit.Diff{edit.Unified("a", "a", "x\ny\n", "x\nY\n"), edit.Unified("", "b", "", "new\n")}, false},
		{"one line of a big file", []edit.Diff{edit.Unified("a", "a", big, strings.Replace(big, "line", "LINE", 1))}, false},
		{"a big file created", []edit.Diff{edit.Unified("a", "a", "x\n", "y\n"), edit.Unified("", "b", "", big)}, true},
		{"every line of a big file", []edit.Diff{edit.Unified("a", "a", big, strings.ReplaceAll(big, "line", "LINE")), edit.Unified("b", "b", "x\n", "y\n")}, true},
		{"two halves over the limit", []edit.Diff{
			edit.Unified("a", "a", big[:len(big)/2], strings.ReplaceAll(big[:len(big)/2], "big", "BIG")),
			edit.Unified("b", "b", big[:len(big)/2], strings.ReplaceAll(big[:len(big)/2], "file", "FILE"))}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var whole strings.Builder
			for _, d := range tt.diffs {
				whole.WriteString(d.String())
			}
			got, el := joinDiffs(tt.diffs...)
			switch {
			case (el != nil) != tt.elided:
				t.Fatalf("elided %v, want %v (%d bytes)", el, tt.elided, whole.Len())
			case el == nil && got != whole.String():
				t.Errorf("diff %q, want %q", got, whole.String())
			case el != nil && (got != "" || el.Field != "diff" || el.Size != whole.Len() || el.SHA256 != hexSum(whole.String())):
				t.Errorf("elided %+v with %q, want %d bytes sha256:%s", el, got, whole.Len(), hexSum(whole.String()))
			}
		})
	}
}

// TestEditDiffOfBigFiles: an edit of one line of a big file answers with
// its diff of a few lines; replacing every line of two files answers with
// the size and hash of their whole diff, which the edit did not fail for.
func TestEditDiffOfBigFiles(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < MaxDiffBytes; i++ {
		fmt.Fprintf(&b, "value %d = compute(%d)\n", i, i)
	}
	big := b.String()
	tests := []struct {
		name, patch string
		elided      bool
	}{
		{"one line", "*** Begin Patch\n*** Update File: a.txt\n@@\n value 500 = compute(500)\n-value 501 = compute(501)\n+value 501 = compute(1)\n*** End Patch\n", false},
		{"every line of two files", "*** Begin Patch\n*** Delete File: a.txt\n*** Add File: c.txt\n+x\n*** Update File: b.txt\n@@\n-value 0 = compute(0)\n+value 0 = compute(-)\n*** End Patch\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, map[string]string{"a.txt": big, "b.txt": big})
			text, _ := repair.EncodeJSON(map[string]any{"patch": tt.patch})
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(text)}}})
			if err != nil {
				t.Fatal(err)
			}
			if !ex.OK() || !ex.Applied {
				t.Fatalf("ok %v, applied %v, violations %v", ex.OK(), ex.Applied, ex.Violations)
			}
			files := workspaceFiles(t, dir)
			var want strings.Builder
			for _, c := range ex.Changes {
				after := files[c.Path]
				if c.Kind == ChangeDeleted {
					after = ""
				}
				from, to := c.Path, c.Path
				switch c.Kind {
				case ChangeCreated:
					from = ""
				case ChangeDeleted:
					to = ""
				}
				before := big
				if c.Kind == ChangeCreated {
					before = ""
				}
				want.WriteString(edit.UnifiedDiff(from, to, before, after))
			}
			if tt.elided {
				if ex.Diff != "" || ex.DiffElided == nil || ex.DiffElided.Size != want.Len() || ex.DiffElided.SHA256 != hexSum(want.String()) {
					t.Errorf("diff %d bytes, elided %+v; want %d bytes sha256:%s", len(ex.Diff), ex.DiffElided, want.Len(), hexSum(want.String()))
				}
			} else if ex.DiffElided != nil || ex.Diff != want.String() || len(ex.Diff) > 1000 {
				t.Errorf("diff %q elided %+v, want %q", ex.Diff, ex.DiffElided, want.String())
			}
		})
	}
}

// TestDeleteAndUndoDiffOfBigFile: deleting a file whose diff is over
// MaxDiffBytes, and undoing that, answer with the size and hash of the
// whole diff, as a write's and an edit's do; a small file's diff is whole.
func TestDeleteAndUndoDiffOfBigFile(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < MaxDiffBytes; i++ {
		fmt.Fprintf(&b, "value %d = compute(%d)\n", i, i)
	}
	for _, content := range []string{"small\n", b.String()} {
		t.Run(fmt.Sprint(len(content)), func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, map[string]string{"a.txt": content})
			ctx := context.Background()
			for _, step := range []struct {
				tool string
				want edit.Diff
			}{
				{"delete_file", edit.Unified("a.txt", "", content, "")},
				{"undo_edit", edit.Unified("", "a.txt", "", content)},
			} {
				ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: callOf(t.Name(), step.tool, map[string]any{"path": "a.txt"})})
				if err != nil || !ex.Applied {
					t.Fatalf("%s: applied %v, %v (%s)", step.tool, ex != nil && ex.Applied, err, ex.Feedback)
				}
				want := step.want.String()
				if len(want) > MaxDiffBytes {
					if ex.Diff != "" || ex.DiffElided == nil || ex.DiffElided.Size != len(want) || ex.DiffElided.SHA256 != hexSum(want) {
						t.Errorf("%s: diff %d bytes, elided %+v; want %d bytes sha256:%s", step.tool, len(ex.Diff), ex.DiffElided, len(want), hexSum(want))
					}
				} else if ex.DiffElided != nil || ex.Diff != want {
					t.Errorf("%s: diff %q elided %+v, want %q", step.tool, ex.Diff, ex.DiffElided, want)
				}
			}
		})
	}
}
