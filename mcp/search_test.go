package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestSearchTool searches over stdio and HTTP: the lines the model reads,
// the matches as structuredContent, other agents' names and parameters,
// a bad pattern a tool error counted in the session, the tool read-only.
func TestSearchTool(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, ws := newServer(t, guard.Config{}, mcp.Options{})
			workspacetest.WriteFiles(t, ws, map[string]string{"src/a.go": "package a\n\nfunc A() {}\n", "notes.md": "A note\n", ".git/config": "func x"})
			cs := connect(t, s, newClient())
			res, sc := call(t, cs, "search_files", `{"pattern":"^func","context":1}`)
			want := "src/a.go-2- \nsrc/a.go:3: func A() {}\n1 matching line in 1 file matching \"^func\" in the workspace (searched 2 files).\n"
			if res.IsError || text(res) != want {
				t.Fatalf("search: %q", text(res))
			}
			r, _ := sc["result"].(map[string]any)
			if ms, _ := r["matches"].([]any); len(ms) != 1 || ms[0].(map[string]any)["line"] != 3.0 || r["files_searched"] != 2.0 {
				t.Fatalf("structured: %v", sc)
			}
			res, _ = call(t, cs, "search_files", `{"pattern":"a","-i":true,"glob":"*.md","output_mode":"files_with_matches"}`)
			if res.IsError || !strings.HasPrefix(text(res), "notes.md\n1 file matching \"a\"") {
				t.Fatalf("Claude Code parameters: %q", text(res))
			}
			res, sc = call(t, cs, "search_files", `{"regex":"func (","file_pattern":"*.go"}`)
			if !res.IsError || !slices.Equal(codes(sc, "violations"), []string{"INVALID_VALUE"}) || consecutive(sc) != 1 ||
				!strings.Contains(text(res), "missing closing ) at position 6") {
				t.Fatalf("bad pattern: %q %v", text(res), sc)
			}
			lt, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range lt.Tools {
				if tool.Name == "search_files" && (!tool.Annotations.ReadOnlyHint || !strings.Contains(tool.Description, "RE2")) {
					t.Errorf("search_files: %+v", tool)
				}
			}
		})
	}
}
