package guard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
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

// held is p as held since its read, written through w.
func (w *failingWriter) held(p string) heldFile { return failingFile{w, p} }

type failingFile struct {
	w *failingWriter
	p string
}

func (f failingFile) Write(data []byte) error {
	_, err := f.w.WriteFile(f.p, data, workspace.WriteOptions{})
	return err
}

func (failingFile) Close() {}

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
				{param: "patch", rel: "a.txt", old: "a\n", updated: "A\n", existed: true, file: w.held("a.txt")},
				{param: "patch", rel: "b.txt", updated: "B\n", file: w.held("b.txt")},
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

// workspaceFiles reads every file under dir, by slash path.
func workspaceFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestTruncatedEditIsNotApplied: a patch or SEARCH/REPLACE diff that ends
// before it is whole is TRUNCATED and writes nothing; a malformed heredoc
// is INVALID_VALUE. The message says "length limit" only where a cut-off
// output is the likely cause.
func TestTruncatedEditIsNotApplied(t *testing.T) {
	before := map[string]string{"a.txt": "one\ntwo\n"}
	for _, tt := range []struct {
		name, tool, arg, text string
		code                  string
		msg                   string
		lengthLimit           bool
	}{
		{"patch without End Patch", "apply_patch", "patch",
			"*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n", repair.CodeTruncated,
			"The patch is incomplete: line 6: the patch ends without \"*** End Patch\", so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole patch, ending with \"*** End Patch\" (a long one as several smaller patches).", true},
		{"patch cut inside a + line", "apply_patch", "patch",
			"*** Begin Patch\n*** Add File: new.txt\n+line1\n+li", repair.CodeTruncated,
			"The patch is incomplete: line 4: the patch ends without \"*** End Patch\" and its last line, \"+li\", has no line end, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole patch, ending with \"*** End Patch\" (a long one as several smaller patches).", true},
		{"heredoc closed, End Patch left out", "apply_patch", "patch",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\nEOF\n", repair.CodeTruncated,
			"The patch is incomplete: line 4: the patch has no \"*** End Patch\" line before the heredoc closes with \"EOF\", so it may be incomplete; nothing was applied: resend the whole patch, ending with \"*** End Patch\" (a long one as several smaller patches).", false},
		{"heredoc never closed", "apply_patch", "patch",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n", repair.CodeTruncated,
			"The patch is incomplete: line 1: the heredoc opened by \"apply_patch <<'EOF'\" has no closing \"EOF\" line after \"*** End Patch\": the text was probably cut off; nothing was applied: resend the whole patch and its closing \"EOF\" line (a long one as several smaller patches).", false},
		{"mismatched heredoc quotes", "apply_patch", "patch",
			"apply_patch <<\"EOF'\n*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\nEOF\n", repair.CodeInvalidValue,
			"The patch cannot be read: line 1: the heredoc opener \"apply_patch <<\\\"EOF'\" quotes its delimiter with mismatched marks: write <<'EOF', <<\"EOF\" or <<EOF.", false},
		{"SEARCH/REPLACE without its final REPLACE marker", "replace_in_file", "diff",
			"------- SEARCH\ntwo\n=======\nTWO\n", repair.CodeTruncated,
			"The diff is incomplete: block 1 (line 1): missing +++++++ REPLACE marker before the end of the diff. It was probably cut off (the output may have hit a length limit), so nothing was changed: resend the whole diff, every block ending with \"+++++++ REPLACE\".", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(before["a.txt"]), 0o644); err != nil {
				t.Fatal(err)
			}
			args := map[string]any{tt.arg: tt.text}
			if tt.tool == "replace_in_file" {
				args["path"] = "a.txt"
			}
			text, _ := repair.EncodeJSON(args)
			call := repair.Call{Name: tt.tool, Form: repair.FormText, Text: string(text)}
			// Validation already refuses what execution could not read.
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: t.Name() + "/validate", Call: call})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(v); v.OK() || !slices.Equal(got, []string{tt.code}) || v.Violations[0].Message != tt.msg {
				t.Errorf("validate: ok %v, violations %+v, want [%s] %q", v.OK(), v.Violations, tt.code, tt.msg)
			}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: call}})
			if err != nil {
				t.Fatal(err)
			}
			if ex.OK() || ex.Applied || ex.Diff != "" || len(ex.Changes) != 0 {
				t.Errorf("ok %v, applied %v, diff %q, changes %v", ex.OK(), ex.Applied, ex.Diff, ex.Changes)
			}
			if got := violationCodes(ex.Verdict); !slices.Equal(got, []string{tt.code}) {
				t.Fatalf("violations %v, want [%s]", got, tt.code)
			}
			if got := ex.Violations[0].Message; got != tt.msg {
				t.Errorf("message\n%s\nwant\n%s", got, tt.msg)
			}
			if got := strings.Contains(ex.Feedback, "length limit"); got != tt.lengthLimit {
				t.Errorf("feedback mentions a length limit: %v, want %v\n%s", got, tt.lengthLimit, ex.Feedback)
			}
			if got := workspaceFiles(t, dir); !maps.Equal(got, before) {
				t.Errorf("the workspace changed: %q", got)
			}
		})
	}
}

// TestPatchDiffAndFinalNewline: the diff of a patch names /dev/null for a
// file added or deleted and both paths for a file moved, and a file the
// patch updated ends with a newline; the workspace ends byte for byte so.
func TestPatchDiffAndFinalNewline(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	workspacetest.WriteFiles(t, dir, map[string]string{"old.txt": "bye\n", "a.txt": "one\ntwo", "src/m.go": "package m\n\nvar x = 1\n", "keep.txt": "same\n"})
	patch := "*** Begin Patch\n" +
		"*** Add File: new.txt\n+hello\n+world\n" +
		"*** Delete File: old.txt\n" +
		"*** Update File: a.txt\n@@\n-two\n+TWO\n" +
		"*** Update File: src/m.go\n*** Move to: pkg/m.go\n@@\n-var x = 1\n+var x = 2\n" +
		"*** Update File: keep.txt\n*** Move to: moved.txt\n" +
		"*** End Patch\n"
	text, _ := repair.EncodeJSON(map[string]any{"patch": patch})
	ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
		ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(text)}}})
	if err != nil {
		t.Fatal(err)
	}
	if !ex.OK() || !ex.Applied {
		t.Fatalf("ok %v, applied %v, violations %v", ex.OK(), ex.Applied, ex.Violations)
	}
	wantDiff := "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n" +
		"--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
		"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n" +
		"--- a/src/m.go\n+++ b/pkg/m.go\n@@ -1,3 +1,3 @@\n package m\n \n-var x = 1\n+var x = 2\n" +
		"--- a/keep.txt\n+++ b/moved.txt\n"
	if ex.Diff != wantDiff {
		t.Errorf("diff\n%s\nwant\n%s", ex.Diff, wantDiff)
	}
	want := map[string]string{"new.txt": "hello\nworld\n", "a.txt": "one\nTWO\n", "pkg/m.go": "package m\n\nvar x = 2\n", "moved.txt": "same\n"}
	if got := workspaceFiles(t, dir); !maps.Equal(got, want) {
		t.Errorf("workspace %q, want %q", got, want)
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

// TestUnplacedEditMessage: an old text found with its indentation ignored
// whose new text cannot be placed is refused, and the message does not
// claim the old text was absent.
func TestUnplacedEditMessage(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	before := "def outer():\n    x = 0\n    if x:\n        a()\n        b()\n    return x\n"
	if err := os.WriteFile(filepath.Join(dir, "m.py"), []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	call := repair.Call{Name: "edit", Form: repair.FormText, Text: `{"path":"m.py","old_text":"if x:\na()\n","new_text":"if x:\na()\nc()\n"}`}
	ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "u", Call: call}})
	if err != nil {
		t.Fatal(err)
	}
	if ex.OK() || ex.Applied || len(ex.Violations) != 1 {
		t.Fatalf("ok %v applied %v violations %+v", ex.OK(), ex.Applied, ex.Violations)
	}
	msg := ex.Violations[0].Message
	if !strings.HasPrefix(msg, "Edit 1: the old text was not applied to m.py:\nthe old text matches lines 3-4 (TRIM) once indentation is ignored") {
		t.Errorf("message:\n%s", msg)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "m.py")); string(got) != before {
		t.Errorf("file changed: %q", got)
	}
}
