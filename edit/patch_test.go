package edit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParsePatch(t *testing.T) {
	cases := []struct {
		name  string
		patch string
		want  []PatchOp
	}{
		{"add, delete, update with move",
			"*** Begin Patch\n*** Add File: path/add.py\n+abc\n+\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n*** End Patch\n",
			[]PatchOp{
				{Kind: OpAdd, Path: "path/add.py", Content: "abc\n\ndef\n", Line: 2},
				{Kind: OpDelete, Path: "path/delete.py", Line: 6},
				{Kind: OpUpdate, Path: "path/update.py", MoveTo: "path/update2.py", Line: 7, Chunks: []PatchChunk{
					{Anchors: []string{"def f():"}, OldLines: []string{"    pass"}, NewLines: []string{"    return 123"}, Line: 9}}},
			}},
		{"several chunks, context, end of file",
			"*** Begin Patch\n*** Update File: a.go\n@@ func a() {\n \tx := 1\n-\ty := 2\n+\ty := 3\n@@\n z()\n+w()\n*** End of File\n*** End Patch",
			[]PatchOp{{Kind: OpUpdate, Path: "a.go", Line: 2, Chunks: []PatchChunk{
				{Anchors: []string{"func a() {"}, OldLines: []string{"\tx := 1", "\ty := 2"}, NewLines: []string{"\tx := 1", "\ty := 3"}, Line: 3},
				{OldLines: []string{"z()"}, NewLines: []string{"z()", "w()"}, EndOfFile: true, Line: 7},
			}}}},
		{"first chunk without @@, nested anchors, unified hunk header",
			"*** Begin Patch\n*** Update File: b.py\n import os\n+import sys\n@@ class A:\n@@     def run(self):\n-        pass\n+        return 1\n@@ -40,3 +40,3 @@ def g():\n-    a\n+    b\n*** End Patch",
			[]PatchOp{{Kind: OpUpdate, Path: "b.py", Line: 2, Chunks: []PatchChunk{
				{OldLines: []string{"import os"}, NewLines: []string{"import os", "import sys"}, Line: 3},
				{Anchors: []string{"class A:", "def run(self):"}, OldLines: []string{"        pass"}, NewLines: []string{"        return 1"}, Line: 5},
				{Anchors: []string{"def g():"}, OldLines: []string{"    a"}, NewLines: []string{"    b"}, Line: 9},
			}}}},
		{"lenient: CRLF, blank lines, no End Patch, marker case and spaces",
			"\r\n\r\n  *** begin patch  \r\n***  Update File:  c.txt \r\n@@\r\n-old\r\n+new\r\n\r\n\r\n",
			[]PatchOp{{Kind: OpUpdate, Path: "c.txt", Line: 4, Chunks: []PatchChunk{{OldLines: []string{"old"}, NewLines: []string{"new"}, Line: 5}}}}},
		{"lenient: no Begin Patch",
			"*** Add File: n.txt\n+x\n*** End Patch\n",
			[]PatchOp{{Kind: OpAdd, Path: "n.txt", Content: "x\n", Line: 1}}},
		{"lenient: heredoc",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\nEOF\n",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: code fence",
			"```diff\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n```",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"empty lines inside and between chunks; no-prefix context; no-newline marker",
			"*** Begin Patch\n*** Update File: e.txt\n@@\n a\n\n-b\n+B\n\\ No newline at end of file\n\n\n@@\nc\n-d\n*** End Patch",
			[]PatchOp{{Kind: OpUpdate, Path: "e.txt", Line: 2, Chunks: []PatchChunk{
				{OldLines: []string{"a", "", "b"}, NewLines: []string{"a", "", "B"}, Line: 3},
				{OldLines: []string{"c", "d"}, NewLines: []string{"c"}, Line: 11},
			}}}},
		{"pure rename", "*** Begin Patch\n*** Update File: old.go\n*** Move to: new.go\n*** End Patch",
			[]PatchOp{{Kind: OpUpdate, Path: "old.go", MoveTo: "new.go", Line: 2}}},
		{"add with blank separator lines and empty file",
			"*** Begin Patch\n*** Add File: a.txt\n+one\n\n+three\n\n*** Add File: empty.txt\n*** End Patch",
			[]PatchOp{{Kind: OpAdd, Path: "a.txt", Content: "one\n\nthree\n", Line: 2}, {Kind: OpAdd, Path: "empty.txt", Line: 7}}},
		{"text after End Patch is ignored",
			"*** Begin Patch\n*** Delete File: x\n*** End Patch\nDone! I deleted x.",
			[]PatchOp{{Kind: OpDelete, Path: "x", Line: 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.patch)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if !reflect.DeepEqual(p.Ops, c.want) {
				t.Errorf("got  %+v\nwant %+v", p.Ops, c.want)
			}
		})
	}
}

func TestParsePatchErrors(t *testing.T) {
	cases := []struct {
		name  string
		patch string
		line  int
		msg   string
	}{
		{"empty", "  \n", 0, "the patch is empty"},
		{"no begin", "hello\n*** Update File: x\n", 1, "starts with \"*** Begin Patch\""},
		{"bad header", "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch", 2, "expected a file header"},
		{"text instead of header", "*** Begin Patch\n+x\n*** End Patch", 2, "expected a file header"},
		{"update without chunks", "*** Begin Patch\n*** Update File: x.go\n*** End Patch", 2, "has no changes"},
		{"add line without +", "*** Begin Patch\n*** Add File: x\n+a\nb\n*** End Patch", 4, "every line starts with '+'"},
		{"delete with lines", "*** Begin Patch\n*** Delete File: x\n-a\n*** End Patch", 3, "takes no lines"},
		{"no path", "*** Begin Patch\n*** Add File:\n+a\n*** End Patch", 2, "names no file"},
		{"empty chunk", "*** Begin Patch\n*** Update File: x\n@@ f\n@@\n*** End of File\n*** End Patch", 5, "follows no chunk lines"},
		{"no operations", "*** Begin Patch\n*** End Patch", 0, "no file operation"},
		{"move to nothing", "*** Begin Patch\n*** Update File: x\n*** Move to:\n@@\n-a\n*** End Patch", 3, "names no file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePatch(c.patch)
			var pe *PatchError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v", err)
			}
			if pe.Line != c.line || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got line %d %q, want line %d and %q", pe.Line, err, c.line, c.msg)
			}
		})
	}
}

func TestApplyChunks(t *testing.T) {
	src := "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n\ndef main():\n    A().run()\n"
	cases := []struct {
		name     string
		content  string
		patch    string
		want     string
		statuses []Status
	}{
		{"anchor picks the right duplicate", src,
			"@@ class B:\n     def run(self):\n-        return 1\n+        return 2\n",
			strings.Replace(src, "B:\n    def run(self):\n        return 1", "B:\n    def run(self):\n        return 2", 1),
			[]Status{StatusApplied}},
		{"without an anchor duplicates are ambiguous", src,
			"@@\n     def run(self):\n-        return 1\n+        return 2\n",
			src, []Status{StatusAmbiguous}},
		{"nested anchors", src,
			"@@ class B:\n@@ def run(self):\n-        return 1\n+        return 3\n",
			strings.Replace(src, "B:\n    def run(self):\n        return 1", "B:\n    def run(self):\n        return 3", 1),
			[]Status{StatusApplied}},
		{"chunks in order, the second after the first", "a\nx = 1\ny = 1\nx = 1\ny = 1\n",
			"@@\n a\n x = 1\n-y = 1\n+y = 2\n@@\n x = 1\n-y = 1\n+y = 3\n",
			"a\nx = 1\ny = 2\nx = 1\ny = 3\n", []Status{StatusApplied, StatusApplied}},
		{"identical chunks without a placed predecessor are ambiguous", "x = 1\ny = 1\nx = 1\ny = 1\n",
			"@@\n x = 1\n-y = 1\n+y = 2\n@@\n x = 1\n-y = 1\n+y = 3\n",
			"x = 1\ny = 1\nx = 1\ny = 1\n", []Status{StatusAmbiguous, StatusAmbiguous}},
		{"chunks out of order", "a\nb\nc\nd\n",
			"@@\n-c\n+C\n@@\n-a\n+A\n",
			"A\nb\nC\nd\n", []Status{StatusApplied, StatusApplied}},
		{"addition after the anchor", "def f():\n    pass\n\ndef g():\n    pass\n",
			"@@ def f():\n+    \"\"\"Doc.\"\"\"\n",
			"def f():\n    \"\"\"Doc.\"\"\"\n    pass\n\ndef g():\n    pass\n", []Status{StatusApplied}},
		{"addition without anchor appends", "a\nb",
			"@@\n+c\n",
			"a\nb\nc", []Status{StatusApplied}},
		{"addition already there", "a\nb\nc\n",
			"@@ a\n+b\n",
			"a\nb\nc\n", []Status{StatusAlreadyApplied}},
		{"end of file prefers the last match", "end\nmiddle\nend\n",
			"@@\n-end\n+END\n*** End of File\n",
			"end\nmiddle\nEND\n", []Status{StatusApplied}},
		{"CRLF file, indentation dropped", "if x:\r\n    a()\r\n    b()\r\n",
			"@@ if x:\n-a()\n+a(1)\n b()\n",
			"if x:\r\n    a(1)\r\n    b()\r\n", []Status{StatusApplied}},
		{"not found leaves the content", "a\nb\n",
			"@@\n-zzz\n+y\n",
			"a\nb\n", []Status{StatusNotFound}},
		{"already applied", "a\nB\n",
			"@@\n a\n-b\n+B\n",
			"a\nB\n", []Status{StatusAlreadyApplied}},
		{"missing anchor is ignored", "a\nb\n",
			"@@ def nowhere():\n-b\n+c\n",
			"a\nc\n", []Status{StatusApplied}},
		{"anchor repeated as context", "def f():\n    return 1\n",
			"@@ def f():\n def f():\n-    return 1\n+    return 2\n",
			"def f():\n    return 2\n", []Status{StatusApplied}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch("*** Begin Patch\n*** Update File: f\n" + c.patch + "*** End Patch\n")
			if err != nil {
				t.Fatal(err)
			}
			got, rs, err := ApplyChunks(c.content, p.Ops[0].Chunks, MatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
			if len(rs) != len(c.statuses) {
				t.Fatalf("%d results", len(rs))
			}
			for i, r := range rs {
				if r.Status != c.statuses[i] {
					t.Errorf("chunk %d: %s, want %s (%s)", i, r.Status, c.statuses[i], r.Hint)
				}
			}
		})
	}
	if _, _, err := ApplyChunks("a\n", []PatchChunk{{Line: 7}}, MatchOptions{}); err == nil || !strings.Contains(err.Error(), "line 7") {
		t.Errorf("empty chunk: %v", err)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ x\n y\n-z\n+w\n*** End of File\n*** End Patch")
	f.Add("<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF")
	f.Add("*** Update File: a\n@@ -1,2 +1,2 @@\n\n-\n+\n\\ x\n")
	f.Fuzz(func(t *testing.T, patch string) {
		p, err := ParsePatch(patch)
		if err != nil {
			return
		}
		if len(p.Ops) == 0 {
			t.Fatal("no operations and no error")
		}
		for _, op := range p.Ops {
			if op.Path == "" {
				t.Fatal("empty path")
			}
			for _, c := range op.Chunks {
				if len(c.OldLines) == 0 && len(c.NewLines) == 0 {
					t.Fatal("empty chunk")
				}
			}
			if op.Kind == OpUpdate && len(op.Chunks) > 0 && len(patch) < 4096 {
				// The chunks apply to something without panicking.
				_, rs, err := ApplyChunks(strings.Repeat("x\n", 3)+patch, op.Chunks, MatchOptions{})
				if err != nil || len(rs) != len(op.Chunks) {
					t.Fatalf("ApplyChunks: %v, %d results", err, len(rs))
				}
			}
		}
	})
}
