package guard

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestUnmarkedPatchEndToEnd: a Codex patch with neither "*** Begin Patch"
// nor "*** End Patch" applies when its context matches the file and it ends
// with a context line; otherwise it is TRUNCATED and writes nothing.
func TestUnmarkedPatchEndToEnd(t *testing.T) {
	const file = "def main():\n    print(\"hi there\")\n    return 0\n"
	for _, tt := range []struct {
		name, patch, want string
		code              string
	}{
		{"gpt-5-codex: context matches, last line is context",
			"*** Update File: app.py\n@@ def main():\n-    print(\"hi there\")\n+    print(\"hello\")\n     return 0\n",
			"def main():\n    print(\"hello\")\n    return 0\n", ""},
		{"codex-mini: context found only approximately",
			"*** Update File: app.py\n@@ def main():\n-    print(\"hi therr\")\n+    print(\"hello\")\n     return 0\n",
			file, repair.CodeTruncated},
		{"o4-mini: last line an added one",
			"*** Update File: app.py\n@@ def main():\n-    print(\"hi there\")\n+    print(\"hello\")\n",
			file, repair.CodeTruncated},
		{"gpt-4.1: begin marker without end",
			"*** Begin Patch\n*** Update File: app.py\n@@ def main():\n-    print(\"hi there\")\n+    print(\"hello\")\n     return 0\n",
			file, repair.CodeTruncated},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			path := filepath.Join(dir, "app.py")
			if err := os.WriteFile(path, []byte(file), 0o644); err != nil {
				t.Fatal(err)
			}
			text, _ := repair.EncodeJSON(map[string]any{"patch": tt.patch})
			call := repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(text)}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: call}})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(ex.Verdict); tt.code == "" && !ex.OK() || tt.code != "" && !slices.Contains(got, tt.code) {
				t.Fatalf("violations %+v, want %q", ex.Violations, tt.code)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tt.want {
				t.Errorf("file\n%s\nwant\n%s", data, tt.want)
			}
		})
	}
}
