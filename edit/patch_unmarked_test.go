package edit

import (
	"errors"
	"strings"
	"testing"
)

// A patch with neither "*** Begin Patch" nor "*** End Patch", as Codex
// models (gpt-5-codex, codex-mini, o4-mini) sometimes send it, is read when
// it ends with a context line; the file then decides (CheckUnmarked). A
// begin marker without its end is still a cut.
func TestParsePatchUnmarked(t *testing.T) {
	cases := []struct {
		name      string
		patch     string
		unmarked  bool
		truncated bool
	}{
		{"gpt-5-codex: update ending with context",
			"*** Update File: src/app.py\n@@ def main():\n-    print(\"hi\")\n+    print(\"hello\")\n     return 0\n", true, false},
		{"codex-mini: no final line end",
			"*** Update File: a.go\n@@\n-\treturn 1\n+\treturn 2\n }", true, false},
		{"o4-mini: two files, the last ending with context",
			"*** Add File: b.txt\n+bee\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n", true, false},
		{"gpt-5-codex in a closed heredoc",
			"apply_patch <<'EOF'\n*** Update File: a.txt\n@@\n-two\n+TWO\n three\nEOF\n", true, false},
		{"ends with an added line: may be cut",
			"*** Update File: a.txt\n@@\n one\n-two\n+TWO\n", false, true},
		{"ends with an Add File line: may be cut",
			"*** Add File: b.txt\n+bee\n", false, true},
		{"begin marker and no end: cut",
			"*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+TWO\n three\n", false, true},
		{"heredoc left open: cut",
			"apply_patch <<'EOF'\n*** Update File: a.txt\n@@\n-two\n+TWO\n three\n", false, true},
		{"end marker without begin, as before",
			"*** Update File: a.txt\n@@\n-two\n+TWO\n*** End Patch\n", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.patch)
			if c.truncated {
				if !errors.Is(err, ErrTruncated) {
					t.Fatalf("err %v, want a truncation", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Unmarked != c.unmarked {
				t.Errorf("Unmarked = %v, want %v", p.Unmarked, c.unmarked)
			}
		})
	}
}

// CheckUnmarked: the unmarked patch applies only when each chunk matched
// the file on a whole-line equality rung.
func TestCheckUnmarked(t *testing.T) {
	cases := []struct {
		name, file, patch string
		whole             bool
	}{
		{"gpt-5-codex: context matches exactly",
			"def main():\n    print(\"hi\")\n    return 0\n",
			"*** Update File: app.py\n@@ def main():\n-    print(\"hi\")\n+    print(\"hello\")\n     return 0\n", true},
		{"context found only fuzzily",
			"def main():\n    print(\"hi there\")\n    return 0\n",
			"*** Update File: app.py\n@@ def main():\n-    print(\"hi therr\")\n+    print(\"hello\")\n     return 0\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePatch(c.patch)
			if err != nil || !p.Unmarked {
				t.Fatalf("parse: %v, unmarked %v", err, p != nil && p.Unmarked)
			}
			chunks := p.Ops[0].Chunks
			_, rs, err := ApplyChunks(c.file, chunks, MatchOptions{})
			if err != nil || rs[0].Status != StatusApplied {
				t.Fatalf("apply: %v %+v", err, rs)
			}
			_, why, whole := CheckUnmarked(chunks, rs)
			if whole != c.whole {
				t.Fatalf("whole = %v (%s), want %v", whole, why, c.whole)
			}
			if !whole && !strings.Contains(why, "neither \"*** Begin Patch\" nor \"*** End Patch\"") {
				t.Errorf("why %q", why)
			}
		})
	}
}
