package guard

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

func applyPatchCall(patch string) repair.Call {
	text, _ := repair.EncodeJSON(map[string]any{"patch": patch})
	return repair.Call{Name: "apply_patch", Form: repair.FormText, Text: string(text)}
}

// udiffFiles is the workspace the unified diff tests start from.
var udiffFiles = map[string]string{
	"src/calc.go": "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\n\nfunc Sub(a, b int) int {\n\treturn a + b\n}\n",
	"old.txt":     "bye\nfor now\n",
	"doc/a.md":    "# Doc\nold\n",
	"win.txt":     "one\r\ntwo\r\nthree\r\n",
	"tail.txt":    "a\nb",
	"app.py":      "import os\n\ndef main():\n    print(\"hi\")\n",
}

// TestExecuteUnifiedDiff: apply_patch takes unified diffs, as git and
// Aider write them; the files end byte for byte as the diff says, and a
// batch with a hunk that does not verify writes nothing unless partial.
func TestExecuteUnifiedDiff(t *testing.T) {
	gitDiff := "diff --git a/src/calc.go b/src/calc.go\nindex 3b18e51..a1b2c3d 100644\n--- a/src/calc.go\n+++ b/src/calc.go\n" +
		"@@ -9,3 +9,3 @@ func Add(a, b int) int {\n func Sub(a, b int) int {\n-\treturn a + b\n+\treturn a - b\n }\n" +
		"diff --git a/NEWS.md b/NEWS.md\nnew file mode 100644\nindex 0000000..3b18e51\n--- /dev/null\n+++ b/NEWS.md\n@@ -0,0 +1,2 @@\n+# News\n+Sub subtracts.\n" +
		"diff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex 3b18e51..0000000\n--- a/old.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-bye\n-for now\n" +
		"diff --git a/doc/a.md b/doc/b.md\nsimilarity index 80%\nrename from doc/a.md\nrename to doc/b.md\n--- a/doc/a.md\n+++ b/doc/b.md\n@@ -1,2 +1,2 @@\n # Doc\n-old\n+new\n" +
		"diff --git a/win.txt b/win.txt\n--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n" +
		"diff --git a/tail.txt b/tail.txt\n--- a/tail.txt\n+++ b/tail.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n"
	afterGit := map[string]string{
		"NEWS.md":  "# News\nSub subtracts.\n",
		"doc/b.md": "# Doc\nnew\n",
		"win.txt":  "one\r\n2\r\nthree\r\n",
		"tail.txt": "a\nB",
		"app.py":   udiffFiles["app.py"],
	}
	// Sub's "return a + b" is the second: the hunk header's line chose it.
	afterGit["src/calc.go"] = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n"
	aider := "```diff\n--- app.py\n+++ app.py\n@@ ... @@\n def main():\n-    print(\"hi\")\n+    print(\"hello\")\n--- tail.txt\n+++ tail.txt\n@@ ... @@\n-a\n+A\n```"
	with := func(over map[string]string) map[string]string {
		m := maps.Clone(udiffFiles)
		for k, v := range over {
			if v == "" {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		return m
	}
	tests := []struct {
		name    string
		diff    string
		partial bool
		want    map[string]string
		codes   []string
		msg     string // in the first violation
		applied bool
	}{
		{name: "git diff: modify, create, delete, rename, CRLF, no newline at end", diff: gitDiff, want: afterGit, applied: true},
		{name: "Aider udiff, fenced, two files",
			diff:    aider,
			want:    with(map[string]string{"app.py": "import os\n\ndef main():\n    print(\"hello\")\n", "tail.txt": "A\nb"}),
			applied: true},
		{name: "a hunk that does not verify: nothing written",
			diff: "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-import os\n+import sys\n" +
				"--- a/doc/a.md\n+++ b/doc/a.md\n@@ -1,2 +1,2 @@\n # Guide\n-older text that is not there\n+new\n",
			want: udiffFiles, codes: []string{CodeEditNotFound}, msg: "Edit 1: the old text was not found in doc/a.md.\nNothing similar to the old text was found in the file (best similarity 0.14): the old text may come from another file or an older version of this one. The file has 2 lines:\n   1 | # Doc"},
		{name: "a hunk that does not verify, partial: the rest written", partial: true,
			diff: "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-import os\n+import sys\n" +
				"--- a/doc/a.md\n+++ b/doc/a.md\n@@ -1,2 +1,2 @@\n # Guide\n-older text that is not there\n+new\n",
			want:  with(map[string]string{"app.py": "import sys\n\ndef main():\n    print(\"hi\")\n"}),
			codes: []string{CodeEditNotFound}, applied: true},
		{name: "a deletion whose lines are not the file's",
			diff:  "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want:  udiffFiles,
			codes: []string{CodeEditNotFound}, msg: "The diff deletes old.txt (\"+++ /dev/null\"), but its removed lines are not the whole file: 1 lines would be lost unseen, such as \"for now\"."},
		{name: "a file created over an existing one",
			diff:  "--- /dev/null\n+++ b/app.py\n@@ -0,0 +1 @@\n+x\n",
			want:  udiffFiles,
			codes: []string{CodeFileExists}, msg: "app.py already exists; a diff from \"--- /dev/null\" creates a file: diff against its content to change it."},
		{name: "a file updated that does not exist",
			diff:  "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n",
			want:  udiffFiles,
			codes: []string{CodeFileNotFound}, msg: "nope.txt does not exist; to create it, diff from \"--- /dev/null\"."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, udiffFiles)
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{
				ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: applyPatchCall(tt.diff)}, Partial: tt.partial})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(ex.Verdict); !slices.Equal(got, tt.codes) {
				t.Fatalf("violations %v, want %v: %+v", got, tt.codes, ex.Violations)
			}
			if tt.msg != "" && !strings.HasPrefix(ex.Violations[0].Message, tt.msg) {
				t.Errorf("message\n%s\nwant it to start with\n%s", ex.Violations[0].Message, tt.msg)
			}
			if ex.Applied != tt.applied {
				t.Errorf("applied = %v, want %v", ex.Applied, tt.applied)
			}
			if got := workspaceFiles(t, dir); !maps.Equal(got, tt.want) {
				t.Errorf("workspace\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

// TestUnifiedDiffRoundTrip: the diff an edit's answer carries applies, as
// a unified diff, to the files as they were, and gives the same files.
func TestUnifiedDiffRoundTrip(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** Delete File: old.txt\n" +
		"*** Update File: src/calc.go\n@@ func Sub(a, b int) int {\n-\treturn a + b\n+\treturn a - b\n" +
		"*** Update File: doc/a.md\n*** Move to: doc/b.md\n@@\n-old\n+new\n*** End Patch\n"
	g, dir := newWorkspaceGuard(t)
	workspacetest.WriteFiles(t, dir, udiffFiles)
	ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: applyPatchCall(patch)}})
	if err != nil || !ex.Applied {
		t.Fatalf("patch: %v %+v", err, ex.Violations)
	}
	want := workspaceFiles(t, dir)

	g2, dir2 := newWorkspaceGuard(t)
	workspacetest.WriteFiles(t, dir2, udiffFiles)
	ex2, err := g2.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: applyPatchCall(ex.Diff)}})
	if err != nil || !ex2.Applied || !ex2.OK() {
		t.Fatalf("diff:\n%s\n%v %+v", ex.Diff, err, ex2.Violations)
	}
	if got := workspaceFiles(t, dir2); !maps.Equal(got, want) {
		t.Errorf("workspace\n%q\nwant\n%q", got, want)
	}
	if ex2.Diff != ex.Diff {
		t.Errorf("the diff's answer differs:\n%s\nwant\n%s", ex2.Diff, ex.Diff)
	}
}

// TestUnifiedDiffValidation: a malformed unified diff is refused when the
// call is validated, with the message execution gives.
func TestUnifiedDiffValidation(t *testing.T) {
	for _, tt := range []struct {
		name, diff, code, msg string
	}{
		{"counts that do not match", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n@@ -9 +9 @@\n-z\n+Z\n", repair.CodeInvalidValue,
			"The unified diff cannot be read: line 3: hunk 1 of x (line 3): its header \"@@ -1,3 +1,3 @@\" counts 3 old and 3 new lines, but the hunk has 2 old (' ' and '-') and 2 new (' ' and '+') lines; correct the counts, or write \"@@ ... @@\" without numbers. " +
				"Each file is \"--- a/PATH\" and \"+++ b/PATH\" (/dev/null for a file created or deleted), then its hunks: \"@@ -START,COUNT +START,COUNT @@\" (or \"@@ ... @@\" without numbers) and lines starting with ' ' (unchanged), '-' (removed) or '+' (added)."},
		{"cut off mid-hunk", "--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n", repair.CodeTruncated,
			"The diff is incomplete: line 6: the diff ends inside hunk 1 of x (line 3): its header \"@@ -1,4 +1,4 @@\" counts 4 old and 4 new lines, and only 2 and 2 arrived, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)."},
		{"no context on an existing file", "--- a/x\n+++ b/x\n@@ -3,0 +4 @@\n+c\n", repair.CodeInvalidValue,
			"The unified diff cannot be read: line 3: hunk 1 of x (line 3) only adds lines, with no context or removed line to show where they go in the existing file; line numbers are not enough: add two or three unchanged lines (' ') from around the place, or, to create the file, use \"--- /dev/null\". Each file is"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, map[string]string{"x": "a\nb\nc\nd\n"})
			call := applyPatchCall(tt.diff)
			v, err := g.Validate(context.Background(), ValidateRequest{SessionID: t.Name() + "/v", Call: call})
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(v); !slices.Equal(got, []string{tt.code}) || !strings.HasPrefix(v.Violations[0].Message, tt.msg) {
				t.Fatalf("validate: %+v, want [%s] %q", v.Violations, tt.code, tt.msg)
			}
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: call}})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Applied || ex.Violations[0].Message != v.Violations[0].Message {
				t.Errorf("execute: applied %v, %+v", ex.Applied, ex.Violations)
			}
			if got := workspaceFiles(t, dir); got["x"] != "a\nb\nc\nd\n" {
				t.Errorf("x changed: %q", got["x"])
			}
		})
	}
}

// TestUnifiedDiffPathEscapes: the paths of a unified diff's headers go
// through the workspace's confinement like any other: nothing outside it,
// and no denied path, is read, written or deleted, on either side of a
// rename, and git's "a/" prefix is no way around it.
func TestUnifiedDiffPathEscapes(t *testing.T) {
	outside := t.TempDir()
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(canary, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g, dir := newWorkspaceGuard(t)
	workspacetest.WriteFiles(t, dir, map[string]string{"in.txt": "keep\n", ".git/config": "keep\n"})
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(canary, filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	up := "../" + filepath.Base(outside) + "/canary"
	update := func(from, to string) string {
		return "--- " + from + "\n+++ " + to + "\n@@ -1 +1 @@\n-keep\n+pwned\n"
	}
	for _, tc := range []struct{ name, diff, code string }{
		{"climbing out", update("a/"+up, "b/"+up), workspace.CodeOutsideWorkspace},
		{"climbing out past the a/ prefix", update("a/../"+up, "b/../"+up), workspace.CodeOutsideWorkspace},
		{"absolute", update(canary, canary), workspace.CodeOutsideWorkspace},
		{"created outside", "--- /dev/null\n+++ b/" + up + "2\n@@ -0,0 +1 @@\n+pwned\n", workspace.CodeOutsideWorkspace},
		{"deleted outside", "--- a/" + up + "\n+++ /dev/null\n@@ -1 +0,0 @@\n-keep\n", workspace.CodeOutsideWorkspace},
		{"renamed out", update("a/in.txt", "b/"+up), workspace.CodeOutsideWorkspace},
		{"through a symlink", update("a/link/canary", "b/link/canary"), workspace.CodeDeniedPath},
		{"a hard link", update("a/hard.txt", "b/hard.txt"), workspace.CodeDeniedPath},
		{"into .git", update("a/.git/config", "b/.git/config"), workspace.CodeDeniedPath},
		{"into .GIT", update("a/.GIT/config", "b/.GIT/config"), workspace.CodeDeniedPath},
		{"renamed into .git", update("a/in.txt", "b/.git/hooks/pre-commit"), workspace.CodeDeniedPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(), Call: applyPatchCall(tc.diff)}})
			if err != nil {
				t.Fatalf("a refused path must be a verdict, not %v", err)
			}
			if ex.OK() || ex.Applied {
				t.Fatalf("ok %v, applied %v", ex.OK(), ex.Applied)
			}
			if got := violationCodes(ex.Verdict); !slices.Contains(got, tc.code) {
				t.Errorf("violations %v, want %s: %+v", got, tc.code, ex.Violations)
			}
			if b, _ := os.ReadFile(canary); string(b) != "keep\n" {
				t.Fatal("the file outside the workspace changed")
			}
			for _, name := range []string{"in.txt", ".git/config", "hard.txt"} {
				if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != "keep\n" {
					t.Fatalf("%s changed: %q", name, b)
				}
			}
			if _, err := os.Stat(filepath.Join(outside, "canary2")); err == nil {
				t.Fatal("a file was created outside the workspace")
			}
		})
	}
}

// TestUnifiedDiffAliases: a model that names the tool for the format
// (apply_unified_diff, udiff) and its parameter diff is understood.
func TestUnifiedDiffAliases(t *testing.T) {
	for _, name := range []string{"apply_unified_diff", "udiff"} {
		t.Run(name, func(t *testing.T) {
			g, dir := newWorkspaceGuard(t)
			workspacetest.WriteFiles(t, dir, map[string]string{"a.txt": "one\ntwo\n"})
			text, _ := repair.EncodeJSON(map[string]any{"diff": "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"})
			ex, err := g.ExecuteEdit(context.Background(), ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: t.Name(),
				Call: repair.Call{Name: name, Form: repair.FormText, Text: string(text)}}})
			if err != nil {
				t.Fatal(err)
			}
			if !ex.OK() || !ex.Applied {
				t.Fatalf("ok %v, applied %v: %+v", ex.OK(), ex.Applied, ex.Violations)
			}
			if got := workspaceFiles(t, dir)["a.txt"]; got != "one\nTWO\n" {
				t.Errorf("a.txt = %q", got)
			}
		})
	}
}
