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
		{"lenient: CRLF, blank lines, marker case and spaces",
			"\r\n\r\n  *** begin patch  \r\n***  Update File:  c.txt \r\n@@\r\n-old\r\n+new\r\n\r\n  *** end patch\r\n\r\n",
			[]PatchOp{{Kind: OpUpdate, Path: "c.txt", Line: 4, Chunks: []PatchChunk{{OldLines: []string{"old"}, NewLines: []string{"new"}, Line: 5}}}}},
		{"lenient: no Begin Patch",
			"*** Add File: n.txt\n+x\n*** End Patch\n",
			[]PatchOp{{Kind: OpAdd, Path: "n.txt", Content: "x\n", Line: 1}}},
		{"lenient: heredoc",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\nEOF\n",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: heredoc, double quotes",
			"apply_patch <<\"EOF\"\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\nEOF",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: heredoc, bare word, no command",
			"<<EOF\n*** Begin Patch\n*** Add File: n.txt\n+EOF is content here\n*** End Patch\nEOF\n",
			[]PatchOp{{Kind: OpAdd, Path: "n.txt", Content: "EOF is content here\n", Line: 3}}},
		{"lenient: heredoc <<- with a tab-indented delimiter of its own",
			"apply_patch <<-PATCH\n\t*** Begin Patch\n\t*** Delete File: d.txt\n\t*** End Patch\n\tPATCH\n",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: heredoc closed, then the model's words",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\nEOF\nThat removes d.txt.",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: code fence",
			"```diff\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\n```",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 3}}},
		{"lenient: heredoc inside a code fence",
			"```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: d.txt\n*** End Patch\nEOF\n```\n",
			[]PatchOp{{Kind: OpDelete, Path: "d.txt", Line: 4}}},
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

// TestParsePatchRefusals: a patch cut off (no End Patch, a line cut in
// the middle, a heredoc or fence never closed) is refused as truncated,
// never applied; a malformed wrapper is refused as malformed.
func TestParsePatchRefusals(t *testing.T) {
	const resendMsg = "nothing was applied: resend the whole patch, ending with \"*** End Patch\" (a long one as several smaller patches)"
	cases := []struct {
		name      string
		patch     string
		truncated bool
		err       string
	}{
		{"no End Patch after whole lines",
			"*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n", true,
			"line 5: the patch ends without \"*** End Patch\", so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"no End Patch, CRLF",
			"*** Begin Patch\r\n*** Delete File: x\r\n", true,
			"line 2: the patch ends without \"*** End Patch\", so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"cut inside a + line",
			"*** Begin Patch\n*** Add File: a.txt\n+line1\n+li", true,
			"line 4: the patch ends without \"*** End Patch\" and its last line, \"+li\", has no line end, so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"cut inside a context line",
			"*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n     x = ", true,
			"line 6: the patch ends without \"*** End Patch\" and its last line, \"     x = \", has no line end, so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"cut inside the End Patch line",
			"*** Begin Patch\n*** Delete File: x\n*** End Pat", true,
			"line 3: the patch ends without \"*** End Patch\" and its last line, \"*** End Pat\", has no line end, so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"cut inside a file header",
			"*** Begin Patch\n*** Add Fi", true,
			"line 2: the patch ends without \"*** End Patch\" and its last line, \"*** Add Fi\", has no line end, so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"cut inside a heredoc",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: a\n+x", true,
			"line 4: the patch ends without \"*** End Patch\" and its last line, \"+x\", has no line end, so it was probably cut off (the output may have hit a length limit); " + resendMsg},
		{"heredoc closed without End Patch",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\nEOF\n", true,
			"line 4: the patch has no \"*** End Patch\" line before the heredoc closes with \"EOF\", so it may be incomplete; " + resendMsg},
		{"heredoc never closed",
			"apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n", true,
			"line 1: the heredoc opened by \"apply_patch <<'EOF'\" has no closing \"EOF\" line after \"*** End Patch\": the text was probably cut off; nothing was applied: resend the whole patch and its closing \"EOF\" line (a long one as several smaller patches)"},
		{"code fence never closed",
			"```diff\n*** Begin Patch\n*** Delete File: x\n*** End Patch", true,
			"line 1: the code fence opened by \"```diff\" has no closing \"```\" line after \"*** End Patch\": the text was probably cut off; nothing was applied: resend the whole patch and its closing \"```\" line (a long one as several smaller patches)"},
		{"mismatched heredoc quotes",
			"apply_patch <<\"EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n", false,
			"line 1: the heredoc opener \"apply_patch <<\\\"EOF'\" quotes its delimiter with mismatched marks: write <<'EOF', <<\"EOF\" or <<EOF"},
		{"heredoc quote opened only",
			"<<'EOF\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n", false,
			"line 1: the heredoc opener \"<<'EOF\" quotes its delimiter with mismatched marks: write <<'EOF', <<\"EOF\" or <<EOF"},
		{"heredoc left open inside a closed fence",
			"```bash\napply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\n```\n", false,
			"line 2: the heredoc opened by \"apply_patch <<'EOF'\" is never closed: put a line \"EOF\" right after \"*** End Patch\""},
		{"a unified hunk without its file header is no patch",
			"*** Begin Patch\n@@ -1 +1 @@\n-a\n+b\n*** End Patch", false,
			"line 2: expected a file header (\"*** Add File: PATH\", \"*** Delete File: PATH\", \"*** Update File: PATH\") or \"*** End Patch\", not \"@@ -1 +1 @@\""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.patch)
			if err == nil {
				t.Fatalf("accepted: %+v", p.Ops)
			}
			if err.Error() != c.err {
				t.Errorf("error\n%s\nwant\n%s", err, c.err)
			}
			var pe *PatchError
			if !errors.As(err, &pe) || pe.Truncated != c.truncated || errors.Is(err, ErrTruncated) != c.truncated {
				t.Errorf("truncated %v, want %v", errors.Is(err, ErrTruncated), c.truncated)
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
		{"addition without anchor appends", "a\nb\n",
			"@@\n+c\n",
			"a\nb\nc\n", []Status{StatusApplied}},
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

// TestApplyChunksFinalNewline: a file a patch changed ends with a newline
// (Codex's grammar), in the file's own line ending; one the patch did not
// change keeps its bytes, and a plain edit keeps the absence.
func TestApplyChunksFinalNewline(t *testing.T) {
	cases := []struct {
		name, content, patch, want string
	}{
		{"changed file gains its final newline", "a\nb", "@@\n-b\n+c\n", "a\nc\n"},
		{"change away from the end", "a\nb\nc", "@@\n-a\n+A\n", "A\nb\nc\n"},
		{"CRLF file gains CRLF", "a\r\nb", "@@\n-a\n+A\n", "A\r\nb\r\n"},
		{"lines appended", "a\nb", "@@\n+c\n", "a\nb\nc\n"},
		{"a file with its final newline is left so", "a\nb\n", "@@\n-b\n+c\n", "a\nc\n"},
		{"emptied file stays empty", "a", "@@\n-a\n", ""},
		{"nothing applied: bytes kept", "a\nb", "@@\n-a\n+a\n b\n", "a\nb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch("*** Begin Patch\n*** Update File: f\n" + c.patch + "*** End Patch\n")
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := ApplyChunks(c.content, p.Ops[0].Chunks, MatchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	if got, r := ApplyEdit("a\nb", Edit{OldText: "b", NewText: "c"}, MatchOptions{}); got != "a\nc" || r.Status != StatusApplied {
		t.Errorf("a plain edit: %q %s, want \"a\\nc\" kept without a final newline", got, r.Status)
	}
}

func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch")
	f.Add("*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ x\n y\n-z\n+w\n*** End of File\n*** End Patch")
	f.Add("<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF")
	f.Add("*** Update File: a\n@@ -1,2 +1,2 @@\n\n-\n+\n\\ x\n")
	// Truncation shapes: no End Patch, a line cut, wrappers left open.
	f.Add("*** Begin Patch\n*** Add File: a\n+line1\n+li")
	f.Add("*** Begin Patch\n*** Update File: a\n@@\n ctx\n-old\n+new\n")
	f.Add("apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n")
	f.Add("apply_patch <<\"EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF")
	f.Add("```bash\napply_patch <<-EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n```\nDone.")
	f.Fuzz(func(t *testing.T, patch string) {
		p, err := ParsePatch(patch)
		if err != nil {
			return
		}
		if len(p.Ops) == 0 {
			t.Fatal("no operations and no error")
		}
		if !hasEndPatch(patch) {
			t.Fatal("accepted without an End Patch line")
		}
		if len(patch) <= 2048 {
			checkCuts(t, patch)
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

// hasEndPatch reports whether a line of text is an End Patch marker.
func hasEndPatch(text string) bool {
	for _, l := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if kind, _, ok := marker(l); ok && kind == "end patch" {
			return true
		}
	}
	return false
}

// checkCuts cuts an accepted patch at every earlier offset: a cut that left
// no End Patch line is refused, as truncated once its Begin Patch line is
// whole; a cut that kept one may parse.
func checkCuts(t *testing.T, patch string) {
	begin := strings.Index(patch, "*** Begin Patch\n")
	if begin > 0 && patch[begin-1] != '\n' {
		begin = -1 // not a line of its own
	}
	for k := range len(patch) {
		cut := patch[:k]
		if hasEndPatch(cut) {
			continue
		}
		parsed, err := ParsePatch(cut)
		if err == nil && parsed.Unmarked {
			continue // no marker at all: the file decides (CheckUnmarked)
		}
		if err == nil {
			t.Fatalf("cut at %d of %q accepted", k, patch)
		}
		if begin >= 0 && k > begin+len("*** Begin Patch\n") && !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d of %q: %v, not a truncation", k, patch, err)
		}
	}
}
