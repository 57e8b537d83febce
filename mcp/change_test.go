package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestChangeTools calls each change tool over each transport in one MCP
// session: the text the model reads, whether it is an error, and the files
// after it; undo_edit takes back the session's own changes.
func TestChangeTools(t *testing.T) {
	const gone = "\x00gone"
	steps := []struct {
		tool, args string
		isError    bool
		says       string
		files      map[string]string
	}{
		{"create_directory", `{"path": "pkg"}`, false, "pkg: folder created", nil},
		{"insert_text", `{"path": "a.py", "insert_line": 1, "new_text": "mid"}`, false, "a.py: modified", map[string]string{"a.py": "one\nmid\ntwo\n"}},
		{"undo_edit", `{"path": "a.py"}`, false, "a.py: modified", map[string]string{"a.py": "one\ntwo\n"}},
		{"move_file", `{"source": "a.py", "destination": "pkg/a.py"}`, false, "a.py: moved to pkg/a.py", map[string]string{"a.py": gone, "pkg/a.py": "one\ntwo\n"}},
		{"undo_edit", `{"path": "pkg/a.py"}`, false, "pkg/a.py: moved to a.py", map[string]string{"a.py": "one\ntwo\n", "pkg/a.py": gone}},
		{"delete_file", `{"path": "a.py"}`, false, "a.py: deleted", map[string]string{"a.py": gone}},
		{"undo_edit", `{"path": "a.py"}`, false, "a.py: created", map[string]string{"a.py": "one\ntwo\n"}},
		{"delete_file", `{"path": "pkg"}`, true, "is a folder; nothing was deleted", nil},
		{"move_file", `{"source": "a.py", "destination": "/etc/a.py"}`, true, "is outside the workspace", map[string]string{"a.py": "one\ntwo\n"}},
		{"undo_edit", `{"path": "never.py"}`, true, "No edit history found for never.py", nil},
	}
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, ws := newServer(t, guard.Config{}, mcp.Options{})
			if err := os.WriteFile(filepath.Join(ws, "a.py"), []byte("one\ntwo\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, s, newClient())
			for i, st := range steps {
				res, _ := call(t, cs, st.tool, st.args)
				if res.IsError != st.isError || !strings.Contains(text(res), st.says) {
					t.Fatalf("step %d %s: isError %v, want %v; text lacks %q:\n%s", i, st.tool, res.IsError, st.isError, st.says, text(res))
				}
				for rel, want := range st.files {
					b, err := os.ReadFile(filepath.Join(ws, rel))
					switch {
					case want == gone && !os.IsNotExist(err):
						t.Fatalf("step %d: %s still there", i, rel)
					case want != gone && string(b) != want:
						t.Fatalf("step %d: %s = %q, want %q", i, rel, b, want)
					}
				}
			}
		})
	}
}
