package edit

import (
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

func TestUnifiedDiff(t *testing.T) {
	cases := []struct {
		name, from, to, old, new, want string
	}{
		{"equal", "a.txt", "a.txt", "x\n", "x\n", ""},
		{"one line changed, three lines of context", "dir/f.go", "dir/f.go",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"no newline at end of file", "f", "f",
			"a\nb", "a\nc",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"final newline added", "f", "f",
			"a\nb", "a\nb\n",
			"--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"created", "", "new.txt", "", "hello\nworld\n",
			"--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n"},
		{"created empty", "", "empty.txt", "", "",
			"--- /dev/null\n+++ b/empty.txt\n"},
		{"deleted", "./old.txt", "", "bye\n", "",
			"--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"},
		{"deleted empty", "old.txt", "", "", "",
			"--- a/old.txt\n+++ /dev/null\n"},
		{"moved and changed", "src/old.go", "src/new.go", "a\nb\n", "a\nB\n",
			"--- a/src/old.go\n+++ b/src/new.go\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"},
		{"moved only", "old.go", "pkg/new.go", "a\n", "a\n",
			"--- a/old.go\n+++ b/pkg/new.go\n"},
		{"same file written two ways", "./x.go", "x.go", "a\n", "a\n", ""},
		{"nothing either side", "", "", "", "", ""},
		{"windows path", `src\x.c`, `src\x.c`, "a\n", "b\n",
			"--- a/src/x.c\n+++ b/src/x.c\n@@ -1 +1 @@\n-a\n+b\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := UnifiedDiff(c.from, c.to, c.old, c.new); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

func TestUnifiedDiffOfAnEdit(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		b.WriteString("line\r\n")
	}
	old := b.String() + "target\r\n" + b.String()
	out, r := ApplyEdit(old, Edit{OldText: "target\n", NewText: "changed\nadded\n"}, MatchOptions{})
	if r.Status != StatusApplied {
		t.Fatal(r.Status)
	}
	d := UnifiedDiff("f.txt", "f.txt", old, out)
	want := "--- a/f.txt\n+++ b/f.txt\n@@ -38,7 +38,8 @@\n line\r\n line\r\n line\r\n-target\r\n+changed\r\n+added\r\n line\r\n line\r\n line\r\n"
	if d != want {
		t.Errorf("got:\n%q\nwant:\n%q", d, want)
	}
}

// addedCases are contents a created file may have: line breaks or not at
// the end, empty lines, CRLF, a lone CR, one line or many.
var addedCases = []string{"a", "a\n", "a\nb", "a\nb\n", "\n", "\n\n", "a\r\nb\r\n", "x\n\n\ny", "\r", "é\n\x00\n", strings.Repeat("line\n", 1000)}

// TestAddedDiff: a created file's diff, built in one piece, is byte for
// byte udiff's.
func TestAddedDiff(t *testing.T) {
	for _, c := range addedCases {
		for _, from := range []string{"", "old.txt"} {
			want := udiff.Unified(diffLabel("a/", from), "b/new.txt", "", c)
			if got := UnifiedDiff(from, "new.txt", "", c); got != want {
				t.Errorf("content %.40q from %q:\ngot  %q\nwant %q", c, from, got, want)
			}
		}
	}
}

func FuzzAddedDiff(f *testing.F) {
	for _, c := range addedCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if c == "" {
			return
		}
		want := udiff.Unified("/dev/null", "b/f", "", c)
		d := Added("", "f", c)
		var w strings.Builder
		if _, err := d.WriteTo(&w); err != nil {
			t.Fatal(err)
		}
		if got := d.String(); got != want || w.String() != want || d.Len() != len(want) {
			t.Fatalf("content %q:\ngot  %q\nwritten %q\nwant %q (%d bytes, Len %d)", c, got, w.String(), want, len(want), d.Len())
		}
	})
}
