package service_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// TestExecuteEditChangeTools runs each change tool through ExecuteEdit over
// a loopback server, one session, in order: what each reports in changes,
// whether it applied, its refusals, and the files after it.
func TestExecuteEditChangeTools(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	ctx := context.Background()
	if err := os.WriteFile(filepath.Join(ws, "a.py"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const gone = "\x00gone"
	steps := []struct {
		name    string
		tool    string
		args    map[string]any
		dry     bool
		kind    toolguardv1.FileChangeKind
		applied bool
		codes   []string
		files   map[string]string
	}{
		{"create_directory", "create_directory", map[string]any{"path": "pkg/sub"}, false, toolguardv1.FileChangeKind_FILE_CHANGE_KIND_DIRECTORY_CREATED, true, nil, nil},
		{"insert_text", "insert_text", map[string]any{"path": "a.py", "insert_line": 1, "new_text": "mid"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED, true, nil, map[string]string{"a.py": "one\nmid\ntwo\n"}},
		{"undo_edit of the insert", "undo_edit", map[string]any{"path": "a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED, true, nil, map[string]string{"a.py": "one\ntwo\n"}},
		{"move_file dry run", "move_file", map[string]any{"source": "a.py", "destination": "pkg/sub/a.py"}, true,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MOVED, false, nil, map[string]string{"a.py": "one\ntwo\n", "pkg/sub/a.py": gone}},
		{"move_file", "move_file", map[string]any{"source": "a.py", "destination": "pkg/sub/a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MOVED, true, nil, map[string]string{"a.py": gone, "pkg/sub/a.py": "one\ntwo\n"}},
		{"undo_edit of the move", "undo_edit", map[string]any{"path": "pkg/sub/a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MOVED, true, nil, map[string]string{"a.py": "one\ntwo\n", "pkg/sub/a.py": gone}},
		{"delete_file", "delete_file", map[string]any{"path": "a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_DELETED, true, nil, map[string]string{"a.py": gone}},
		{"undo_edit of the delete", "undo_edit", map[string]any{"path": "a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED, true, nil, map[string]string{"a.py": "one\ntwo\n"}},
		{"delete_file of a folder", "delete_file", map[string]any{"path": "pkg", "recursive": true}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_DELETED, true, nil, map[string]string{"pkg": gone}},
		{"undo_edit of the folder says why not", "undo_edit", map[string]any{"path": "pkg"}, false, 0, false, []string{"NO_HISTORY:path"}, nil},
		{"move_file out of the workspace", "move_file", map[string]any{"source": "a.py", "destination": "../a.py"}, false, 0, false,
			[]string{"OUTSIDE_WORKSPACE:destination"}, map[string]string{"a.py": "one\ntwo\n"}},
		{"delete_file denied", "delete_file", map[string]any{"path": ".git/config"}, false, 0, false, []string{"DENIED_PATH:path"}, nil},
		{"text editor insert", "str_replace_based_edit_tool", map[string]any{"command": "insert", "path": "a.py", "insert_line": 0, "new_str": "top"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED, true, nil, map[string]string{"a.py": "top\none\ntwo\n"}},
		{"text editor undo_edit", "str_replace_based_edit_tool", map[string]any{"command": "undo_edit", "path": "a.py"}, false,
			toolguardv1.FileChangeKind_FILE_CHANGE_KIND_MODIFIED, true, nil, map[string]string{"a.py": "one\ntwo\n"}},
	}
	for _, s := range steps {
		resp, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "change"},
			Call: jsonCall(t, s.tool, s.args), DryRun: s.dry})
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := violationCodes(resp.GetVerdict()); !slices.Equal(got, s.codes) {
			t.Fatalf("%s: violations %v, want %v\n%s", s.name, got, s.codes, resp.GetVerdict().GetFeedback())
		}
		if resp.GetApplied() != s.applied {
			t.Fatalf("%s: applied %v, want %v", s.name, resp.GetApplied(), s.applied)
		}
		if s.kind != 0 && (len(resp.GetChanges()) == 0 || resp.GetChanges()[0].GetKind() != s.kind) {
			t.Fatalf("%s: changes %v, want %v", s.name, resp.GetChanges(), s.kind)
		}
		for rel, want := range s.files {
			b, err := os.ReadFile(filepath.Join(ws, rel))
			switch {
			case want == gone && !os.IsNotExist(err):
				t.Fatalf("%s: %s still there", s.name, rel)
			case want != gone && string(b) != want:
				t.Fatalf("%s: %s = %q, want %q", s.name, rel, b, want)
			}
		}
	}
}

// TestExecuteEditTextEditorMessages: str_replace through the text editor
// tool is refused over gRPC with Anthropic's sentence.
func TestExecuteEditTextEditorMessages(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	if err := os.WriteFile(filepath.Join(ws, "a.py"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "te"},
		Call: jsonCall(t, "str_replace_based_edit_tool", map[string]any{"command": "str_replace", "path": "a.py", "old_str": "y", "new_str": "z"})})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.GetVerdict().GetFeedback(), "No replacement was performed, old_str `y` did not appear verbatim in a.py.") {
		t.Fatalf("feedback: %s", resp.GetVerdict().GetFeedback())
	}
	// view is a read: ExecuteEdit refuses it as the caller's routing.
	_, err = c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "te"},
		Call: jsonCall(t, "str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.py"})})
	if !strings.Contains(fmt.Sprint(err), "read_file") || status.Code(err) == codes.OK || status.Code(err) == codes.Internal {
		t.Fatalf("view on ExecuteEdit: %v", err)
	}
	// Validated, it is a usable read_file call.
	v, err := c.ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "tv"},
		Call: jsonCall(t, "str_replace_based_edit_tool", map[string]any{"command": "view", "path": "a.py", "view_range": []int{1, -1}})})
	if err != nil || !v.GetVerdict().GetOk() || v.GetVerdict().GetToolName() != "read_file" || v.GetVerdict().GetArgumentsJson() != `{"offset":1,"path":"a.py"}` {
		t.Fatalf("validate view: %v %v", err, v)
	}
}
