package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestApplyPatchUnifiedDiff: apply_patch takes a unified diff over each
// transport; a diff reaching out of the workspace or cut off writes nothing.
func TestApplyPatchUnifiedDiff(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, ws := newServer(t, guard.Config{}, mcp.Options{})
			cs := connect(t, s, newClient())
			if err := os.WriteFile(filepath.Join(ws, "app.py"), []byte("import os\r\n\r\ndef main():\r\n    print(\"hi\")\r\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := func(diff string) string {
				b, _ := json.Marshal(map[string]string{"patch": diff})
				return string(b)
			}

			diff := "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n@@ -3,2 +3,2 @@ import os\n def main():\n-    print(\"hi\")\n+    print(\"hello\")\n" +
				"--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+# Notes\n"
			res, sc := call(t, cs, "apply_patch", args(diff))
			if res.IsError || sc["ok"] != true {
				t.Fatalf("apply_patch: %s", text(res))
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "app.py")); string(got) != "import os\r\n\r\ndef main():\r\n    print(\"hello\")\r\n" {
				t.Errorf("app.py = %q", got)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(got) != "# Notes\n" {
				t.Errorf("notes.md = %q", got)
			}
			if !strings.Contains(text(res), "+    print(\"hello\")") {
				t.Errorf("text %q", text(res))
			}

			for _, tc := range []struct{ diff, code string }{
				{"--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n", "OUTSIDE_WORKSPACE"},
				{"--- a/app.py\n+++ b/app.py\n@@ -3,2 +3,3 @@\n def main():\n-    print(\"hello\")\n", "TRUNCATED"},
			} {
				res, sc = call(t, cs, "apply_patch", args(tc.diff))
				if !res.IsError || !slices.Contains(codes(sc, "violations"), tc.code) {
					t.Errorf("%q: error %v, violations %v: %s", tc.diff, res.IsError, codes(sc, "violations"), text(res))
				}
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escape.txt")); err == nil {
				t.Fatal("the escape was written")
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "app.py")); !strings.Contains(string(got), "hello") {
				t.Errorf("app.py changed by the cut-off diff: %q", got)
			}
		})
	}
}
