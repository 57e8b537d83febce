package mcp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestLookTools lists and finds over stdio and HTTP: the text the model
// reads, the listing as structuredContent, refusals as tool errors counted
// in the session, the tools read-only.
func TestLookTools(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, ws := newServer(t, guard.Config{}, mcp.Options{})
			workspacetest.WriteFiles(t, ws, map[string]string{"src/a.go": "package a\n", "notes.md": "n\n", ".git/config": "x"})
			if err := os.Symlink("/etc", filepath.Join(ws, "etc")); err != nil {
				t.Fatal(err)
			}
			cs := connect(t, s, newClient())
			res, sc := call(t, cs, "list_directory", `{"path":".","depth":2}`)
			want := "[LINK] etc -> /etc\n[FILE] notes.md (2 B)\n[DIR] src/\n[FILE] src/a.go (10 B)\n1 folder, 2 files (12 B), 1 link.\n"
			if res.IsError || text(res) != want {
				t.Fatalf("list: %q", text(res))
			}
			r, _ := sc["result"].(map[string]any)
			if es, _ := r["entries"].([]any); len(es) != 4 || es[0].(map[string]any)["type"] != "link" || r["files"] != 2.0 {
				t.Fatalf("structured: %v", sc)
			}
			res, _ = call(t, cs, "list_directory", `{"directory":"src","ignore":["*.md"]}`)
			if res.IsError || !strings.HasPrefix(text(res), "[FILE] src/a.go (10 B)\n0 folders, 1 file (10 B).\nRepaired: \"directory\" renamed to \"path\"") {
				t.Fatalf("alias params: %q", text(res))
			}
			res, _ = call(t, cs, "find_files", `{"pattern":"**/*.go"}`)
			if res.IsError || text(res) != "src/a.go\n1 path matching \"**/*.go\" in the workspace.\n" {
				t.Fatalf("glob: %q", text(res))
			}
			for i, args := range []string{`{"path":"../"}`, `{"path":"etc"}`, `{"path":".git"}`} {
				res, sc = call(t, cs, "list_directory", args)
				if !res.IsError || consecutive(sc) != float64(i+1) || strings.Contains(text(res), "config") {
					t.Fatalf("%s: %q %v", args, text(res), sc)
				}
			}
			res, sc = call(t, cs, "find_files", `{"pattern":"src/[a-"}`)
			if !res.IsError || !slices.Equal(codes(sc, "violations"), []string{"INVALID_VALUE"}) || !strings.Contains(text(res), "not a valid glob pattern") {
				t.Fatalf("bad pattern: %q %v", text(res), sc)
			}
			lt, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range lt.Tools {
				if (tool.Name == "list_directory" || tool.Name == "find_files") && !tool.Annotations.ReadOnlyHint {
					t.Errorf("%s is not read-only", tool.Name)
				}
			}
		})
	}
}
