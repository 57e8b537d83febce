package edit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// aiderGPT4Turbo is a udiff as Aider's udiff format has GPT-4 Turbo write
// it: a fenced diff, paths without a/ and b/, "@@ ... @@" hunks without
// numbers, whole functions replaced.
const aiderGPT4Turbo = "```diff\n" +
	"--- mathweb/flask/app.py\n" +
	"+++ mathweb/flask/app.py\n" +
	"@@ ... @@\n" +
	"-class MathWeb:\n" +
	"+import sympy\n" +
	"+\n" +
	"+class MathWeb:\n" +
	"@@ ... @@\n" +
	"-def is_prime(x):\n" +
	"-    if x < 2:\n" +
	"-        return False\n" +
	"-    for i in range(2, int(math.sqrt(x)) + 1):\n" +
	"-        if x % i == 0:\n" +
	"-            return False\n" +
	"-    return True\n" +
	"@@ ... @@\n" +
	"-@app.route('/prime/<int:n>')\n" +
	"-def nth_prime(n):\n" +
	"-    count = 0\n" +
	"-    num = 1\n" +
	"-    while count < n:\n" +
	"-        num += 1\n" +
	"-        if is_prime(num):\n" +
	"-            count += 1\n" +
	"-    return str(num)\n" +
	"+@app.route('/prime/<int:n>')\n" +
	"+def nth_prime(n):\n" +
	"+    count = 0\n" +
	"+    num = 1\n" +
	"+    while count < n:\n" +
	"+        num += 1\n" +
	"+        if sympy.isprime(num):\n" +
	"+            count += 1\n" +
	"+    return str(num)\n" +
	"```\n"

const aiderApp = `import math
from flask import Flask

class MathWeb:
    pass

def is_prime(x):
    if x < 2:
        return False
    for i in range(2, int(math.sqrt(x)) + 1):
        if x % i == 0:
            return False
    return True

@app.route('/prime/<int:n>')
def nth_prime(n):
    count = 0
    num = 1
    while count < n:
        num += 1
        if is_prime(num):
            count += 1
    return str(num)
`

// gitDiff is `git diff` output: a modified file with a function heading
// and two hunks, a file created, one deleted, one renamed with a change,
// and an empty file created (no ---/+++ lines at all).
const gitDiff = `diff --git a/src/calc.go b/src/calc.go
index 3b18e51..a1b2c3d 100644
--- a/src/calc.go
+++ b/src/calc.go
@@ -1,6 +1,7 @@
 package calc
 
+// Add adds.
 func Add(a, b int) int {
 	return a + b
 }
 
@@ -9,3 +10,3 @@ func Add(a, b int) int {
 func Sub(a, b int) int {
-	return a + b
+	return a - b
 }
diff --git a/NEWS.md b/NEWS.md
new file mode 100644
index 0000000..3b18e51
--- /dev/null
+++ b/NEWS.md
@@ -0,0 +1,2 @@
+# News
+Sub subtracts.
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 3b18e51..0000000
--- a/old.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-bye
-for now
diff --git a/doc/a.md b/doc/b.md
similarity index 80%
rename from doc/a.md
rename to doc/b.md
index 1111111..2222222 100644
--- a/doc/a.md
+++ b/doc/b.md
@@ -1,2 +1,2 @@
 # Doc
-old
+new
diff --git a/empty.txt b/empty.txt
new file mode 100644
index 0000000..e69de29
`

const gitCalc = "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\n\nfunc Sub(a, b int) int {\n\treturn a + b\n}\n"

func TestParseUnifiedDiff(t *testing.T) {
	cases := []struct {
		name string
		diff string
		want []PatchOp
	}{
		{"git diff: update, add, delete, rename, empty file", gitDiff, []PatchOp{
			{Kind: OpUpdate, Path: "src/calc.go", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"package calc", "", "func Add(a, b int) int {", "\treturn a + b", "}", ""},
					NewLines: []string{"package calc", "", "// Add adds.", "func Add(a, b int) int {", "\treturn a + b", "}", ""},
					Line:     5, Unified: true, StartLine: 1},
				{OldLines: []string{"func Sub(a, b int) int {", "\treturn a + b", "}"},
					NewLines: []string{"func Sub(a, b int) int {", "\treturn a - b", "}"},
					Line:     13, Unified: true, StartLine: 9},
			}},
			{Kind: OpAdd, Path: "NEWS.md", Content: "# News\nSub subtracts.\n", Line: 18},
			{Kind: OpDelete, Path: "old.txt", Line: 26, Chunks: []PatchChunk{
				{OldLines: []string{"bye", "for now"}, Line: 31, Unified: true, StartLine: 1}}},
			{Kind: OpUpdate, Path: "doc/a.md", MoveTo: "doc/b.md", Line: 34, Chunks: []PatchChunk{
				{OldLines: []string{"# Doc", "old"}, NewLines: []string{"# Doc", "new"}, Line: 41, Unified: true, StartLine: 1}}},
			{Kind: OpAdd, Path: "empty.txt", Line: 45},
		}},
		{"Aider: hunks per file header merged, no a/ b/, no numbers",
			"--- f.py\n+++ f.py\n@@ ... @@\n-a = 1\n+a = 2\n--- f.py\n+++ f.py\n@@ ... @@\n b = 1\n-c = 1\n",
			[]PatchOp{{Kind: OpUpdate, Path: "f.py", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"a = 1"}, NewLines: []string{"a = 2"}, Line: 3, Unified: true},
				{OldLines: []string{"b = 1", "c = 1"}, NewLines: []string{"b = 1"}, Line: 8, Unified: true},
			}}}},
		{"no newline at end of file, on both sides and on one",
			"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n one\n-two\n\\ No newline at end of file\n+TWO\n\\ No newline at end of file\n",
			[]PatchOp{{Kind: OpUpdate, Path: "x", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"one", "two"}, NewLines: []string{"one", "TWO"}, Line: 3, Unified: true, StartLine: 1,
					EndOfFile: true, NoNewlineOld: true, NoNewlineNew: true}}}}},
		{"a new file without a final newline",
			"--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file",
			[]PatchOp{{Kind: OpAdd, Path: "n.txt", Content: "hi", Line: 1}}},
		{"CRLF diff, a blank context line counted at the end, diff -u timestamps",
			"--- x.txt\t2024-05-01 10:00:00.000000000 +0200\r\n+++ x.txt\t2024-05-02 10:00:00.000000000 +0200\r\n@@ -1,3 +1,3 @@\r\n a\r\n-b\r\n+B\r\n \r\n",
			[]PatchOp{{Kind: OpUpdate, Path: "x.txt", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"a", "b", ""}, NewLines: []string{"a", "B", ""}, Line: 3, Unified: true, StartLine: 1}}}}},
		{"blank context line with its space stripped, blank separator lines dropped",
			"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+B\n\n\n@@ -9 +9 @@\n-z\n+Z\n",
			[]PatchOp{{Kind: OpUpdate, Path: "x", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"a", "", "b"}, NewLines: []string{"a", "", "B"}, Line: 3, Unified: true, StartLine: 1},
				{OldLines: []string{"z"}, NewLines: []string{"Z"}, Line: 10, Unified: true, StartLine: 9}}}}},
		{"a removed SQL comment is no file header",
			"--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old note\n+++ new note\n SELECT 1;\n",
			[]PatchOp{{Kind: OpUpdate, Path: "q.sql", Line: 1, Chunks: []PatchChunk{
				{OldLines: []string{"-- old note", "SELECT 1;"}, NewLines: []string{"++ new note", "SELECT 1;"}, Line: 3, Unified: true, StartLine: 1}}}}},
		{"quoted path, heredoc around the diff",
			"<<'EOF'\n--- \"a/caf\\303\\251.txt\"\n+++ \"b/caf\\303\\251.txt\"\n@@ -1 +1 @@\n-x\n+y\nEOF\n",
			[]PatchOp{{Kind: OpUpdate, Path: "café.txt", Line: 2, Chunks: []PatchChunk{
				{OldLines: []string{"x"}, NewLines: []string{"y"}, Line: 4, Unified: true, StartLine: 1}}}}},
		{"-0,0 fills an empty file",
			"--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			[]PatchOp{{Kind: OpUpdate, Path: "e.txt", Line: 1, Chunks: []PatchChunk{
				{NewLines: []string{"a", "b"}, Line: 3, Unified: true}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !LooksLikeUnifiedDiff(c.diff) {
				t.Fatal("not recognised as a unified diff")
			}
			p, err := ParsePatch(c.diff)
			if err != nil {
				t.Fatal(err)
			}
			if !p.Unified {
				t.Error("Unified not set")
			}
			if !reflect.DeepEqual(p.Ops, c.want) {
				t.Errorf("got  %+v\nwant %+v", p.Ops, c.want)
			}
		})
	}
}

func TestLooksLikeUnifiedDiff(t *testing.T) {
	for s, want := range map[string]bool{
		"diff --git a/x b/x\n":                true,
		"\n\n```diff\n--- a/x\n+++ b/x\n@@\n": true,
		"--- a/x":                             true, // cut after its first line
		"@@ -1 +1 @@\n-a\n+b\n":               true,
		"--- a/x\nnot a header\n":             false,
		"*** Begin Patch\n*** Update File: x\n@@ -1 +1 @@\n-a\n+b\n*** End Patch": false,
		"*** Update File: x\n--- a/x\n":                                           false,
		"":                                                                        false,
	} {
		if got := LooksLikeUnifiedDiff(s); got != want {
			t.Errorf("LooksLikeUnifiedDiff(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestParseUnifiedDiffRefusals(t *testing.T) {
	cases := []struct {
		name      string
		diff      string
		truncated bool
		want      string
	}{
		{"counts that do not match the lines",
			"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n@@ -9 +9 @@\n-z\n+Z\n", false,
			`line 3: hunk 1 of x (line 3): its header "@@ -1,3 +1,3 @@" counts 3 old and 3 new lines, but the hunk has 2 old (' ' and '-') and 2 new (' ' and '+') lines; correct the counts, or write "@@ ... @@" without numbers`},
		{"cut off mid-hunk",
			"--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n", true,
			`line 6: the diff ends inside hunk 1 of x (line 3): its header "@@ -1,4 +1,4 @@" counts 4 old and 4 new lines, and only 2 and 2 arrived, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)`},
		{"cut off inside a line",
			"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+Bee is a lo", true,
			`line 6: the diff ends inside hunk 1 of x (line 3): its header "@@ -1,3 +1,3 @@" counts 3 old and 3 new lines, and only 2 and 2 arrived and its last line, "+Bee is a lo", has no line end, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)`},
		{"cut off after the file header", "--- a/x\n+++ b/x\n", true,
			`line 2: the diff ends after the file header of x, before its first hunk, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)`},
		{"cut off inside the hunk header", "--- a/x\n+++ b/x\n@@ -1,2 +1", true,
			`line 3: the diff ends inside a hunk header and its last line, "@@ -1,2 +1", has no line end, so it was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)`},
		{"a fence never closed", "```diff\n--- a/x\n+++ b/x\n@@ ... @@\n-a\n+b\n", true,
			"line 1: the code fence opened by \"```diff\" never closes, so the diff was probably cut off (the output may have hit a length limit); nothing was applied: resend the whole diff (a long one as several smaller ones)"},
		{"only added lines on an existing file",
			"--- a/x\n+++ b/x\n@@ -3,0 +4,2 @@\n+c\n+d\n", false,
			`line 3: hunk 1 of x (line 3) only adds lines, with no context or removed line to show where they go in the existing file; line numbers are not enough: add two or three unchanged lines (' ') from around the place, or, to create the file, use "--- /dev/null"`},
		{"context in a new file",
			"--- /dev/null\n+++ b/n\n@@ ... @@\n a\n+b\n", false,
			`line 3: hunk 1 of n (line 3) creates the file ("--- /dev/null"), so every line is added ('+'), but it has context or removed lines`},
		{"added lines in a deleted file",
			"--- a/o\n+++ /dev/null\n@@ ... @@\n-a\n+b\n", false,
			`line 3: hunk 1 of o (line 3) deletes the file ("+++ /dev/null"), so every line is removed ('-'), but it has context or added lines`},
		{"a hunk with no file", "@@ -1 +1 @@\n-a\n+b\n", false,
			`line 1: the hunk names no file: put "--- a/PATH" and "+++ b/PATH" lines before its "@@" line`},
		{"--- without +++", "--- a/x\n@@ -1 +1 @@\n-a\n+b\n", false,
			`line 2: "--- a/x" must be followed by the new file's "+++ b/PATH" line, not "@@ -1 +1 @@"`},
		{"malformed hunk header", "--- a/x\n+++ b/x\n@@ -1,a +1 @@\n-a\n+b\n", false,
			`line 3: the hunk header "@@ -1,a +1 @@" is malformed: write "@@ -OLD_START,OLD_COUNT +NEW_START,NEW_COUNT @@", or "@@ ... @@" without numbers`},
		{"binary", "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n", false,
			"line 3: binary diffs are not supported: only text files are changed by a diff"},
		{"no-newline marker in the middle", "--- a/x\n+++ b/x\n@@ ... @@\n-a\n\\ No newline at end of file\n-b\n+c\n", false,
			`line 5: hunk 1 of x (line 3): "\\ No newline at end of file" must follow the last line of its side of the file, but more lines follow`},
		{"a line after the hunks", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n*** End Patch\n", false,
			`line 3: hunk 1 of x (line 3): its header "@@ -1 +1 @@" counts 1 old and 1 new lines, but the hunk has 2 old (' ' and '-') and 2 new (' ' and '+') lines; correct the counts, or write "@@ ... @@" without numbers`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.diff)
			if err == nil {
				t.Fatalf("accepted: %+v", p.Ops)
			}
			if got := errors.Is(err, ErrTruncated); got != c.truncated {
				t.Errorf("truncated = %v, want %v", got, c.truncated)
			}
			if err.Error() != c.want && !strings.HasSuffix(err.Error(), c.want) {
				t.Errorf("error\n got: %s\nwant: %s", err, c.want)
			}
		})
	}
}

// applyUnified applies a parsed diff to files as the guard does, failing
// the test on a hunk that does not apply.
func applyUnified(t *testing.T, files map[string]string, diff string) map[string]string {
	t.Helper()
	p, err := ParsePatch(diff)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range files {
		out[k] = v
	}
	for _, op := range p.Ops {
		switch op.Kind {
		case OpAdd:
			out[op.Path] = op.Content
		case OpDelete:
			if rs, left := UnifiedDeletes(out[op.Path], op.Chunks, MatchOptions{}); left != "" {
				t.Fatalf("delete %s: %+v, left %q", op.Path, rs, left)
			}
			delete(out, op.Path)
		case OpUpdate:
			got, rs, err := ApplyChunks(out[op.Path], op.Chunks, MatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range rs {
				if r.Status != StatusApplied && r.Status != StatusAlreadyApplied {
					t.Fatalf("%s hunk %d: %s\n%s", op.Path, i+1, r.Status, r.Hint)
				}
			}
			delete(out, op.Path)
			to := op.Path
			if op.MoveTo != "" {
				to = op.MoveTo
			}
			out[to] = got
		}
	}
	return out
}

func TestApplyUnifiedDiff(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		diff  string
		want  map[string]string
	}{
		{"Aider udiff from GPT-4 Turbo", map[string]string{"mathweb/flask/app.py": aiderApp}, aiderGPT4Turbo,
			map[string]string{"mathweb/flask/app.py": strings.NewReplacer(
				"class MathWeb:", "import sympy\n\nclass MathWeb:",
				"def is_prime(x):\n    if x < 2:\n        return False\n    for i in range(2, int(math.sqrt(x)) + 1):\n        if x % i == 0:\n            return False\n    return True\n", "",
				"if is_prime(num)", "if sympy.isprime(num)").Replace(aiderApp)}},
		{"git diff output", map[string]string{"src/calc.go": gitCalc, "old.txt": "bye\nfor now\n", "doc/a.md": "# Doc\nold\n"}, gitDiff,
			map[string]string{
				"src/calc.go": "package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Sub subtracts.\n\nfunc Sub(a, b int) int {\n\treturn a - b\n}\n",
				"NEWS.md":     "# News\nSub subtracts.\n",
				"doc/b.md":    "# Doc\nnew\n",
				"empty.txt":   "",
			}},
		{"line numbers 30 lines off, the text is unique",
			map[string]string{"m.py": strings.Repeat("# pad\n", 30) + "def f():\n    return 1\n"},
			"--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n",
			map[string]string{"m.py": strings.Repeat("# pad\n", 30) + "def f():\n    return 2\n"}},
		{"the same lines twice: the line numbers choose",
			map[string]string{"r.txt": "x = 1\ny\nx = 1\ny\n"},
			"--- a/r.txt\n+++ b/r.txt\n@@ -3,2 +3,2 @@\n-x = 1\n+x = 2\n y\n",
			map[string]string{"r.txt": "x = 1\ny\nx = 2\ny\n"}},
		{"drifted numbers followed across hunks: the second hunk's start moves by the first's added line",
			map[string]string{"r.txt": "head\nx = 1\nx = 1\nx = 1\n"},
			"--- a/r.txt\n+++ b/r.txt\n@@ -1 +1,2 @@\n head\n+added\n@@ -3 +4 @@\n-x = 1\n+x = 2\n",
			map[string]string{"r.txt": "head\nadded\nx = 1\nx = 2\nx = 1\n"}},
		{"CRLF file, LF diff: the file keeps CRLF",
			map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"},
			"--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+2.5\n three\n",
			map[string]string{"w.txt": "one\r\n2\r\n2.5\r\nthree\r\n"}},
		{"CRLF diff of a CRLF file",
			map[string]string{"w.txt": "one\r\ntwo\r\n"},
			"--- a/w.txt\r\n+++ b/w.txt\r\n@@ -1,2 +1,2 @@\r\n one\r\n-two\r\n+TWO\r\n",
			map[string]string{"w.txt": "one\r\nTWO\r\n"}},
		{"no newline at end, kept",
			map[string]string{"n.txt": "a\nb"},
			"--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n\\ No newline at end of file\n",
			map[string]string{"n.txt": "a\nB"}},
		{"no newline at end, added",
			map[string]string{"n.txt": "a\nb"},
			"--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n",
			map[string]string{"n.txt": "a\nB\n"}},
		{"no newline at end, removed",
			map[string]string{"n.txt": "a\nb\n"},
			"--- a/n.txt\n+++ b/n.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n",
			map[string]string{"n.txt": "a\nB"}},
		{"only the final newline changes",
			map[string]string{"n.txt": "a\nb"},
			"--- a/n.txt\n+++ b/n.txt\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n",
			map[string]string{"n.txt": "a\nb\n"}},
		{"a file without a final newline keeps its absence when no marker says otherwise",
			map[string]string{"k.txt": "a\nb\nc"},
			"--- a/k.txt\n+++ b/k.txt\n@@ ... @@\n-a\n+A\n",
			map[string]string{"k.txt": "A\nb\nc"}},
		{"-0,0 fills an empty file",
			map[string]string{"e.txt": ""},
			"--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1,2 @@\n+a\n+b\n",
			map[string]string{"e.txt": "a\nb\n"}},
		{"indentation drifted: the INDENT rung re-indents",
			map[string]string{"i.py": "class A:\n    def f(self):\n        return 1\n"},
			"--- i.py\n+++ i.py\n@@ ... @@\n def f(self):\n-    return 1\n+    return 2\n",
			map[string]string{"i.py": "class A:\n    def f(self):\n        return 2\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := applyUnified(t, c.files, c.diff)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestUnifiedHunkRefused: a hunk that does not verify is refused with the
// closest region, never placed by its line numbers.
func TestUnifiedHunkRefused(t *testing.T) {
	cases := []struct {
		name, content, diff string
		status              Status
		hint                string
	}{
		{"old lines absent: the closest region",
			"def f():\n    return 1\n\ndef g():\n    y = load()\n    return y\n",
			"--- a/m.py\n+++ b/m.py\n@@ -4,2 +4,2 @@\n def g():\n-    return 2\n+    return 4\n",
			StatusNotFound, "closest region: lines 1-2"},
		{"the same lines twice, numbers far from both",
			"x = 1\ny\n" + strings.Repeat("pad\n", 100) + "x = 1\ny\n",
			"--- a/r.txt\n+++ b/r.txt\n@@ -300,2 +300,2 @@\n-x = 1\n+x = 2\n y\n",
			StatusAmbiguous, "The start line 300 given with it matches none of them alone"},
		{"-0,0 on a file that is not empty", "a\n",
			"--- a/e.txt\n+++ b/e.txt\n@@ -0,0 +1 @@\n+b\n",
			StatusNotFound, "says the file is empty, but it has 1 lines"},
		{"only the final newline changes, but the lines do not end the file", "a\nb\nc",
			"--- a/n.txt\n+++ b/n.txt\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n",
			StatusNotFound, "so its lines must end the file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.diff)
			if err != nil {
				t.Fatal(err)
			}
			out, rs, err := ApplyChunks(c.content, p.Ops[0].Chunks, MatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if out != c.content {
				t.Errorf("content changed: %q", out)
			}
			if rs[0].Status != c.status || !strings.Contains(rs[0].Hint, c.hint) {
				t.Errorf("got %s %q, want %s with %q", rs[0].Status, rs[0].Hint, c.status, c.hint)
			}
		})
	}
}

func TestUnifiedDeletes(t *testing.T) {
	p, err := ParsePatch("--- a/o\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-bye\n-now\n")
	if err != nil {
		t.Fatal(err)
	}
	chunks := p.Ops[0].Chunks
	for _, c := range []struct {
		content, left string
		status        Status
	}{
		{"bye\nnow\n", "", StatusApplied},
		{"bye\r\nnow", "", StatusApplied},
		{"bye\nnow\nmore\n", "more", StatusApplied},
		{"hello\nthere\n", "hello\nthere", StatusNotFound},
		{"bye\nnoww\n", "bye\nnoww", StatusNotFound}, // resembles, is not
	} {
		rs, left := UnifiedDeletes(c.content, chunks, MatchOptions{})
		if left != c.left || rs[0].Status != c.status {
			t.Errorf("UnifiedDeletes(%q) = %s, left %q; want %s, left %q", c.content, rs[0].Status, left, c.status, c.left)
		}
	}
}

func FuzzParseUnifiedDiff(f *testing.F) {
	for _, s := range []string{gitDiff, aiderGPT4Turbo,
		"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+B\n",
		"--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n", "```diff\n--- a\n+++ b\n@@ ... @@\n-x\n+y\n```\n",
		"diff --git a/x b/y\nrename from x\nrename to y\n", "@@ -1 +1 @@\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseUnifiedDiff(s)
		if err != nil {
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is no PatchError", err)
			}
			return
		}
		if len(p.Ops) == 0 || !p.Unified {
			t.Fatalf("accepted with no operation: %+v", p)
		}
		for _, op := range p.Ops {
			if op.Path == "" {
				t.Fatalf("operation without a path: %+v", op)
			}
			for _, c := range op.Chunks {
				if len(c.OldLines) == 0 && len(c.NewLines) == 0 {
					t.Fatalf("empty hunk: %+v", op)
				}
				// The hunk applies to its own old text, or says why not.
				old := strings.Join(c.OldLines, "\n")
				if _, rs, err := ApplyChunks(old, []PatchChunk{c}, MatchOptions{}); err != nil || len(rs) != 1 {
					t.Fatalf("ApplyChunks: %v", err)
				}
			}
		}
	})
}
