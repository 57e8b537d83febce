package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
)

// TestPartialPatchSkipsWhatCannotApply: with partial set, an operation
// that cannot be carried out at all (adding a file that exists, deleting
// one that does not) is left out; it must never write anything in its
// place.
func TestPartialPatchSkipsWhatCannotApply(t *testing.T) {
	tests := []struct {
		name      string
		patch     string
		partial   bool
		wantFiles map[string]string // "" = must not exist
		wantCodes []string
		applied   bool
	}{
		{
			name:      "add over an existing file, partial",
			patch:     "*** Begin Patch\n*** Add File: keep.txt\n+new\n*** Add File: b.txt\n+bee\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "b.txt": "bee\n"},
			wantCodes: []string{CodeFileExists},
			applied:   true,
		},
		{
			name:      "delete a missing file, partial",
			patch:     "*** Begin Patch\n*** Delete File: gone.txt\n*** Add File: c.txt\n+sea\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "c.txt": "sea\n", "gone.txt": ""},
			wantCodes: []string{CodeFileNotFound},
			applied:   true,
		},
		{
			name:      "update a missing file, partial",
			patch:     "*** Begin Patch\n*** Update File: gone.txt\n@@\n-a\n+b\n*** End Patch",
			partial:   true,
			wantFiles: map[string]string{"keep.txt": "keep\n", "gone.txt": ""},
			wantCodes: []string{CodeFileNotFound},
		},
		{
			name:      "all or nothing",
			patch:     "*** Begin Patch\n*** Add File: keep.txt\n+new\n*** Add File: b.txt\n+bee\n*** End Patch",
			wantFiles: map[string]string{"keep.txt": "keep\n", "b.txt": ""},
			wantCodes: []string{CodeFileExists},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args, _ := repair.EncodeJSON(map[string]any{"patch": tt.patch})
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(args)}},
				Partial:         tt.partial,
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(ex.Verdict); !slices.Equal(got, tt.wantCodes) {
				t.Errorf("violations %v, want %v", got, tt.wantCodes)
			}
			if ex.Applied != tt.applied {
				t.Errorf("applied = %v, want %v", ex.Applied, tt.applied)
			}
			for name, want := range tt.wantFiles {
				data, err := os.ReadFile(filepath.Join(dir, name))
				switch {
				case want == "" && err == nil:
					t.Errorf("%s exists with %q", name, data)
				case want != "" && string(data) != want:
					t.Errorf("%s = %q, %v; want %q", name, data, err, want)
				}
			}
		})
	}
}

// failingWriter fails the writes and removals its fail function picks,
// counting each path's calls from 1.
type failingWriter struct {
	calls map[string]int
	fail  func(op, path string, call int) error
}

func (w *failingWriter) WriteFile(p string, data []byte, _ workspace.WriteOptions) (workspace.WriteResult, error) {
	w.calls[p]++
	return workspace.WriteResult{Path: p}, w.fail("write", p, w.calls[p])
}

func (w *failingWriter) Remove(p string) error {
	w.calls[p]++
	return w.fail("remove", p, w.calls[p])
}

// TestCommitRollback: when a batch fails on a full disk after a first file
// was written, the error is the full disk's only if that file was put
// back; otherwise the error must not claim the files are unchanged.
func TestCommitRollback(t *testing.T) {
	full := fmt.Errorf("workspace: write b.txt: %w: %w", workspace.ErrFull, syscall.ENOSPC)
	for _, tt := range []struct {
		name          string
		rollbackFails bool
	}{
		{"rolled back", false},
		{"rollback fails", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := &failingWriter{calls: map[string]int{}, fail: func(op, p string, call int) error {
				switch {
				case p == "b.txt":
					return full
				case p == "a.txt" && call == 2 && tt.rollbackFails:
					return errors.New("input/output error")
				}
				return nil
			}}
			ops := []*fileOp{
				{param: "patch", rel: "a.txt", old: "a\n", updated: "A\n", existed: true},
				{param: "patch", rel: "b.txt", updated: "B\n"},
			}
			ex := &Execution{}
			err := (&Guard{}).commit(w, &repair.Result{}, ops, ex)
			if w.calls["a.txt"] != 2 {
				t.Fatalf("a.txt written %d times, want twice (the change, then back)", w.calls["a.txt"])
			}
			if err == nil || ex.Applied {
				t.Fatalf("commit = %v, applied %v", err, ex.Applied)
			}
			if got := errors.Is(err, workspace.ErrFull); got == tt.rollbackFails {
				t.Errorf("errors.Is(%v, ErrFull) = %v, want %v", err, got, !tt.rollbackFails)
			}
			if tt.rollbackFails && !strings.Contains(err.Error(), "half-applied") {
				t.Errorf("error %q does not say the batch is half-applied", err)
			}
		})
	}
}

// TestTrailingSlashIsRefused: a file path with a trailing slash is the
// model's mistake, whether the file exists or not: a NOT_REGULAR_FILE
// violation that says to drop the slash, and nothing written.
func TestTrailingSlashIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name, tool, args string
		edit             bool
	}{
		{"write an existing file", "write_to_file", `{"path":"normal.txt/","content":"new\n"}`, false},
		{"write a new file", "write_to_file", `{"path":"new.txt/","content":"new\n"}`, false},
		{"edit", "edit", `{"path":"normal.txt/","old_text":"old","new_text":"new"}`, true},
		{"patch", "apply_patch", `{"patch":"*** Begin Patch\n*** Update File: normal.txt/\n@@\n-old\n+new\n*** End Patch"}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			if err := os.WriteFile(filepath.Join(dir, "normal.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: tt.tool, Form: repair.FormText, Text: tt.args}}}
			run := g.ExecuteWrite
			if tt.edit {
				run = g.ExecuteEdit
			}
			ex, err := run(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if ex.OK() || ex.Applied || !slices.Equal(violationCodes(ex.Verdict), []string{CodeNotRegular}) || !strings.Contains(ex.Feedback, "drop the trailing") {
				t.Fatalf("ok %v, applied %v, violations %v, feedback %q", ex.OK(), ex.Applied, violationCodes(ex.Verdict), ex.Feedback)
			}
			entries, _ := os.ReadDir(dir)
			data, _ := os.ReadFile(filepath.Join(dir, "normal.txt"))
			if len(entries) != 1 || string(data) != "old\n" {
				t.Errorf("the workspace changed: %d entries, normal.txt = %q", len(entries), data)
			}
		})
	}
}

// TestMultiEditXML: a multi-edit written in XML, items as repeated child
// elements, edits the files byte for byte; the multi-replace seed's
// literal \n in an old text applies decoded.
func TestMultiEditXML(t *testing.T) {
	tests := []struct {
		name      string
		call      repair.Call
		wantFiles map[string]string
		wantRep   []string // repair codes, in order, ESCAPES_DECODED included
	}{
		{
			name: "cline multi_edit: two edits to one file, layout newlines, markup in the text",
			call: repair.Call{Form: repair.FormXML, Text: "<multi_edit>\n<path>app.html</path>\n<edits>\n<edit>\n<old_text>\n  <h1>Old</h1>\n</old_text>\n<new_text>\n  <h1>New</h1>\n  <p>a </new_text> b</p>\n</new_text>\n</edit>\n<edit>\n<old_text><title>x</title></old_text>\n<new_text><title>y</title></new_text>\n</edit>\n</edits>\n</multi_edit>"},
			wantFiles: map[string]string{
				"app.html":  "<title>y</title>\n<body>\n  <h1>New</h1>\n  <p>a </new_text> b</p>\n</body>\n",
				"notes.txt": "line1\nline2\nline3\n",
			},
			wantRep: []string{repair.CodeTypeCoerced},
		},
		{
			name: "vlinder multi replace in a tool wrapper, across two files, literal escapes",
			call: repair.Call{Form: repair.FormXML, Text: "<tool name=\"multi_replace_string_in_file\">\n  <replacements>\n    <replacement>\n      <filePath>notes.txt</filePath>\n      <oldString>line1\\nline2\\nline3</oldString>\n      <newString>single line</newString>\n    </replacement>\n    <replacement>\n      <filePath>app.html</filePath>\n      <oldString><h1>Old</h1></oldString>\n      <newString></newString>\n    </replacement>\n  </replacements>\n</tool>"},
			wantFiles: map[string]string{
				"app.html":  "<title>x</title>\n<body>\n  \n</body>\n",
				"notes.txt": "single line\n",
			},
			wantRep: []string{repair.CodeToolAlias, repair.CodeAliasRenamed, repair.CodeTypeCoerced,
				repair.CodeAliasRenamed, repair.CodeAliasRenamed, repair.CodeAliasRenamed,
				repair.CodeAliasRenamed, repair.CodeAliasRenamed, repair.CodeAliasRenamed, repair.CodeEscapesDecoded},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			for name, data := range map[string]string{"app.html": "<title>x</title>\n<body>\n  <h1>Old</h1>\n</body>\n", "notes.txt": "line1\nline2\nline3\n"} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: tt.call}})
			if err != nil {
				t.Fatal(err)
			}
			if !ex.OK() || !ex.Applied {
				t.Fatalf("ok %v, applied %v, violations %v, edits %+v", ex.OK(), ex.Applied, ex.Violations, ex.Edits)
			}
			var rep []string
			for _, r := range ex.Repairs {
				rep = append(rep, r.Code)
			}
			if !slices.Equal(rep, tt.wantRep) {
				t.Errorf("repairs %v, want %v", rep, tt.wantRep)
			}
			for name, want := range tt.wantFiles {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil || string(data) != want {
					t.Errorf("%s = %q, %v; want %q", name, data, err, want)
				}
			}
		})
	}
}
