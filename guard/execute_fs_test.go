package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestFileOperations walks one session through the change tools: each
// step's violations, what it applied and the files after it.
func TestFileOperations(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	put := func(rel, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("a.txt", "zero\n")
	put("b.txt", "bee\n")
	put("x.txt", "x x x\n")
	put("crlf.txt", "one\r\ntwo\r\n")
	put("folder/inner.txt", "in\n")
	put(".git/config", "[core]\n")
	put(".env", "SECRET=1\n")
	const gone = "\x00gone"
	steps := []struct {
		name    string
		tool    string
		args    map[string]any
		dry     bool
		codes   []string
		applied bool
		files   map[string]string // gone: must not exist
		kind    ChangeKind
	}{
		{"mkdir", "create_directory", map[string]any{"path": "src/utils"}, false, nil, true, nil, ChangeDirectoryCreated},
		{"mkdir again", "mkdir", map[string]any{"path": "src/utils/"}, false, nil, false, nil, ChangeUnchanged},
		{"mkdir over a file", "create_directory", map[string]any{"path": "a.txt"}, false, []string{CodeFileExists}, false, nil, 0},
		{"mkdir denied", "create_directory", map[string]any{"path": ".GIT/hooks"}, false, []string{repair.CodeDeniedPath}, false, nil, 0},
		{"write", "write_to_file", map[string]any{"path": "a.txt", "content": "one\n"}, false, nil, true, map[string]string{"a.txt": "one\n"}, ChangeModified},
		{"undo the write", "undo_edit", map[string]any{"path": "a.txt"}, false, nil, true, map[string]string{"a.txt": "zero\n"}, ChangeModified},
		{"undo again: nothing held", "undo_edit", map[string]any{"path": "a.txt"}, false, []string{CodeNoHistory}, false, map[string]string{"a.txt": "zero\n"}, 0},
		{"count mismatch", "edit", map[string]any{"path": "x.txt", "old_text": "x", "new_text": "y", "expected_replacements": 2}, false,
			[]string{CodeEditCount}, false, map[string]string{"x.txt": "x x x\n"}, 0},
		{"count matches", "replace", map[string]any{"file_path": "x.txt", "old_string": "x", "new_string": "y", "expected_replacements": 3}, false,
			nil, true, map[string]string{"x.txt": "y y y\n"}, ChangeModified},
		{"expected sha256 as a parameter", "edit", map[string]any{"path": "b.txt", "old_text": "bee", "new_text": "bea",
			"expected_sha256": "4a3b2e3c02ffd4fb1b4a4bb42bb2bfbe4ab1a6d33bfa89b6e2c66f5c2b93e30d"}, false, nil, false, map[string]string{"b.txt": "bee\n"}, -1},
		{"insert crlf", "insert_text", map[string]any{"path": "crlf.txt", "insert_line": 1, "new_text": "  mid"}, false, nil, true,
			map[string]string{"crlf.txt": "one\r\n  mid\r\ntwo\r\n"}, ChangeModified},
		{"insert as Anthropic's", "insert", map[string]any{"path": "crlf.txt", "insert_line": 0, "new_str": "top"}, false, nil, true,
			map[string]string{"crlf.txt": "top\r\none\r\n  mid\r\ntwo\r\n"}, ChangeModified},
		{"insert as Roo's", "insert_content", map[string]any{"path": "crlf.txt", "line": 9, "content": "end"}, false,
			[]string{repair.CodeInvalidValue}, false, nil, 0},
		{"undo the insert", "undo_edit", map[string]any{"path": "crlf.txt"}, false, nil, true, map[string]string{"crlf.txt": "one\r\n  mid\r\ntwo\r\n"}, ChangeModified},
		{"move dry run", "move_file", map[string]any{"source": "b.txt", "destination": "c.txt"}, true, nil, false,
			map[string]string{"b.txt": "bee\n", "c.txt": gone}, ChangeMoved},
		{"move", "move_file", map[string]any{"source": "b.txt", "destination": "sub/c.txt"}, false, nil, true,
			map[string]string{"b.txt": gone, "sub/c.txt": "bee\n"}, ChangeMoved},
		{"move onto existing", "move_file", map[string]any{"from": "a.txt", "to": "sub/c.txt"}, false, []string{CodeFileExists}, false,
			map[string]string{"a.txt": "zero\n", "sub/c.txt": "bee\n"}, 0},
		{"undo the move", "undo_edit", map[string]any{"path": "sub/c.txt"}, false, nil, true, map[string]string{"b.txt": "bee\n", "sub/c.txt": gone}, ChangeMoved},
		{"move denied", "move_file", map[string]any{"source": ".Git/config", "destination": "config"}, false, []string{repair.CodeDeniedPath}, false,
			map[string]string{".git/config": "[core]\n", "config": gone}, 0},
		{"move outside", "move_file", map[string]any{"source": "a.txt", "destination": "../a.txt"}, false, []string{repair.CodeOutsideWorkspace}, false, nil, 0},
		{"delete folder without recursive", "delete_file", map[string]any{"path": "folder"}, false, []string{CodeIsDirectory}, false,
			map[string]string{"folder/inner.txt": "in\n"}, 0},
		{"delete folder", "delete_file", map[string]any{"path": "folder", "recursive": true}, false, nil, true, map[string]string{"folder/inner.txt": gone}, ChangeDeleted},
		{"delete denied", "delete_file", map[string]any{"path": ".git", "recursive": true}, false, []string{repair.CodeDeniedPath}, false,
			map[string]string{".git/config": "[core]\n"}, 0},
		{"delete a file", "delete_file", map[string]any{"path": "a.txt"}, false, nil, true, map[string]string{"a.txt": gone}, ChangeDeleted},
		{"undo the delete", "undo_edit", map[string]any{"path": "a.txt"}, false, nil, true, map[string]string{"a.txt": "zero\n"}, ChangeCreated},
		{"edit for a changed file", "edit", map[string]any{"path": "a.txt", "old_text": "zero", "new_text": "nil"}, false, nil, true, map[string]string{"a.txt": "nil\n"}, ChangeModified},
	}
	ctx := context.Background()
	for _, s := range steps {
		text, _ := repair.EncodeJSON(s.args)
		ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "fs", Call: repair.Call{Name: s.tool, Form: repair.FormText, Text: string(text)}}, DryRun: s.dry})
		if s.tool == "write_to_file" {
			ex, err = g.ExecuteWrite(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "fs", Call: repair.Call{Name: s.tool, Form: repair.FormText, Text: string(text)}}})
		}
		var changed *FileChangedError
		switch {
		case s.kind == -1 && errors.As(err, &changed):
		case s.kind == -1:
			t.Fatalf("%s: %v, want a FileChangedError", s.name, err)
		case err != nil:
			t.Fatalf("%s: %v", s.name, err)
		default:
			if got := violationCodes(ex.Verdict); !slices.Equal(got, s.codes) {
				t.Fatalf("%s: violations %v (%s), want %v", s.name, got, ex.Feedback, s.codes)
			}
			if ex.Applied != s.applied {
				t.Fatalf("%s: applied %v, want %v", s.name, ex.Applied, s.applied)
			}
			if s.kind > 0 && (len(ex.Changes) == 0 || ex.Changes[0].Kind != s.kind) {
				t.Fatalf("%s: changes %+v, want kind %d", s.name, ex.Changes, s.kind)
			}
		}
		for rel, want := range s.files {
			b, err := os.ReadFile(filepath.Join(dir, rel))
			if want == gone {
				if !os.IsNotExist(err) {
					t.Fatalf("%s: %s exists", s.name, rel)
				}
				continue
			}
			if string(b) != want {
				t.Fatalf("%s: %s = %q, want %q", s.name, rel, b, want)
			}
		}
	}
	// The file changed behind the session: its change cannot be undone.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text, _ := repair.EncodeJSON(map[string]any{"path": "a.txt"})
	ex, err := g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "fs", Call: repair.Call{Name: "undo_edit", Form: repair.FormText, Text: string(text)}}})
	if err != nil || !slices.Equal(violationCodes(ex.Verdict), []string{CodeFileChanged}) || !strings.Contains(ex.Feedback, "changed since") {
		t.Fatalf("undo of a changed file: %v, %+v", err, ex)
	}
}
