package edit

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

// applyStrict applies diff, as Unified writes it, to old, checking every
// hunk's numbers and counts and every kept or deleted line.
func applyStrict(old, diff string) (string, error) {
	lines := splitLines(old)
	var out []string
	next := 0 // the old line to copy next
	rest := diff
	readLine := func() (string, bool) {
		if rest == "" {
			return "", false
		}
		l, r, _ := strings.Cut(rest, "\n")
		rest = r
		return l, true
	}
	for i := 0; i < 2; i++ {
		if l, ok := readLine(); !ok || !strings.HasPrefix(l, [2]string{"--- ", "+++ "}[i]) {
			return "", fmt.Errorf("header line %d: %q", i, l)
		}
	}
	for rest != "" {
		l, _ := readLine()
		var a, b, c, d int
		if _, err := parseHunkHeader(l, &a, &b, &c, &d); err != nil {
			return "", err
		}
		start := a - 1
		if b == 0 {
			start = a
		}
		if start < next || start > len(lines) {
			return "", fmt.Errorf("hunk %q at old line %d, after %d", l, start, next)
		}
		out = append(out, lines[next:start]...)
		next = start
		if want := c - 1; d == 0 && len(out) != c || d > 0 && len(out) != want {
			return "", fmt.Errorf("hunk %q: new line %d, is %d", l, c, len(out)+1)
		}
		gotFrom, gotTo := 0, 0
		for gotFrom < b || gotTo < d {
			l, ok := readLine()
			if !ok || l == "" {
				return "", fmt.Errorf("hunk ends early: %d/%d %d/%d", gotFrom, b, gotTo, d)
			}
			text := l[1:] + "\n"
			if strings.HasPrefix(rest, noNewline) {
				rest = rest[len(noNewline):]
				text = l[1:]
			}
			switch l[0] {
			case ' ', '-':
				if next >= len(lines) || lines[next] != text {
					return "", fmt.Errorf("old line %d is not %q", next+1, text)
				}
				next++
				gotFrom++
				if l[0] == ' ' {
					out = append(out, text)
					gotTo++
				}
			case '+':
				out = append(out, text)
				gotTo++
			default:
				return "", fmt.Errorf("line %q", l)
			}
		}
		if gotFrom != b || gotTo != d {
			return "", fmt.Errorf("hunk %q has %d and %d lines", l, gotFrom, gotTo)
		}
	}
	out = append(out, lines[next:]...)
	return strings.Join(out, ""), nil
}

func parseHunkHeader(l string, a, b, c, d *int) (int, error) {
	body, ok := strings.CutPrefix(l, "@@ -")
	body, ok2 := strings.CutSuffix(body, " @@")
	from, to, ok3 := strings.Cut(body, " +")
	if !ok || !ok2 || !ok3 {
		return 0, fmt.Errorf("hunk header %q", l)
	}
	rng := func(s string, start, count *int) error {
		x, y, found := strings.Cut(s, ",")
		var err error
		if *start, err = strconv.Atoi(x); err != nil {
			return err
		}
		*count = 1
		if found {
			*count, err = strconv.Atoi(y)
		}
		return err
	}
	if err := rng(from, a, b); err != nil {
		return 0, err
	}
	return 0, rng(to, c, d)
}

// checkDiff checks Unified's diff of old and new: it applies, its size and
// streamed bytes agree, and it is udiff's whenever udiff's has one hunk
// (udiff numbers later hunks' new lines wrong).
func checkDiff(t *testing.T, old, new string, same bool) (compared bool) {
	t.Helper()
	d := Unified("f", "f", old, new)
	got := d.String()
	if len(got) != d.Len() {
		t.Fatalf("Len %d, String %d bytes", d.Len(), len(got))
	}
	var buf bytes.Buffer
	if _, err := d.WriteTo(&buf); err != nil || buf.String() != got {
		t.Fatalf("WriteTo: %v %q, String %q", err, buf.String(), got)
	}
	if old == new {
		if got != "" {
			t.Fatalf("no change, diff %q", got)
		}
		return false
	}
	applied, err := applyStrict(old, got)
	if err != nil || applied != new {
		t.Fatalf("%q to %q: diff\n%s\napplied: %v %q", old, new, got, err, applied)
	}
	if want := udiff.Unified("a/f", "b/f", old, new); same && unambiguous(old, new) && old != "" && strings.Count(want, "\n@@ ") == 1 && got != want {
		t.Fatalf("%q to %q: diff\n%s\nudiff's\n%s", old, new, got, want)
	}
	return same && unambiguous(old, new) && old != ""
}

// lineText makes each byte of s a line of its own (CR LF for upper case),
// the last without its line break when odd is set: few distinct lines,
// many repeated, as diffs find ambiguous.
func lineText(s string, odd bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := 'a' + s[i]%4
		b.WriteByte(c)
		switch {
		case i == len(s)-1 && odd:
		case s[i]%7 == 0:
			b.WriteString("\r\n")
		default:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func FuzzUnifiedDiff(f *testing.F) {
	for _, c := range [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"}, {"a\nb", "a\nb\n"}, {"a\r\nb\r\n", "a\r\nc\r\n"}, {"", "x"}, {"x", ""},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2x\n3\n4\n5\n6\n7\n8\n9x\n10\n"}, {"aaaa", "aaaaa"},
	} {
		f.Add(c[0], c[1], byte(0))
		f.Add(c[0], c[1], byte(1))
	}
	f.Fuzz(func(t *testing.T, old, new string, mode byte) {
		if mode&1 == 1 {
			old, new = lineText(old, mode&2 != 0), lineText(new, mode&4 != 0)
		}
		_ = checkDiff(t, old, new, true)
	})
}

// TestUnifiedDiffRandom edits random files of repeated lines in one place
// and in several.
func TestUnifiedDiffRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	compared := 0
	for range 20000 {
		n := rnd.Intn(40)
		old := make([]byte, n)
		for i := range old {
			old[i] = byte(rnd.Intn(6))
		}
		nw := append([]byte(nil), old...)
		edits := 1 + rnd.Intn(3)
		for range edits {
			at := rnd.Intn(len(nw) + 1)
			del := min(rnd.Intn(4), len(nw)-at)
			ins := make([]byte, rnd.Intn(4))
			for i := range ins {
				ins[i] = byte(rnd.Intn(6))
			}
			nw = append(nw[:at], append(ins, nw[at+del:]...)...)
		}
		if checkDiff(t, lineText(string(old), rnd.Intn(2) == 0), lineText(string(nw), rnd.Intn(2) == 0), edits == 1) {
			compared++
		}
	}
	if compared < 500 {
		t.Fatalf("compared with udiff %d times", compared)
	}
}

// unambiguous says whether old and new differ in one stretch of lines
// removed and one added, no line repeated in them nor by
// the lines just before and after them: then the one shortest way from
// old to new is to remove the ones and add the others, which udiff's
// algorithm finds in the whole contents as in that stretch. (Elsewhere
// shortest ways are many, and which one it takes depends on what it sees.)
func unambiguous(old, new string) bool {
	head := commonLinePrefix(old, new)
	tailA, tailB := commonLineSuffix(old, new)
	if tailA < head || tailB < head {
		return false
	}
	removed, added := splitLines(old[head:tailA]), splitLines(new[head:tailB])
	if len(removed)+len(added) > 50 {
		return false // past udiff's bound on its search
	}
	seen := map[string]bool{}
	for _, l := range append(removed, added...) {
		l = strings.TrimSuffix(l, "\n")
		if seen[l] {
			return false
		}
		seen[l] = true
	}
	var edges []string
	if head > 0 {
		edges = lastLines(old[:head], 1)
	}
	for _, e := range append(edges, firstLines(old[tailA:], 1)...) {
		if seen[strings.TrimSuffix(e, "\n")] {
			return false
		}
	}
	return true
}

func TestUnifiedTable(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	tests := []struct{ name, old, new, want string }{
		{"one line", ten, strings.Replace(ten, "5\n", "five\n", 1),
			"--- a/f\n+++ b/f\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n"},
		{"first line", ten, "0\n" + ten[2:], "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-1\n+0\n 2\n 3\n 4\n"},
		{"added last line", ten, ten + "11", "--- a/f\n+++ b/f\n@@ -8,3 +8,4 @@\n 8\n 9\n 10\n+11\n\\ No newline at end of file\n"},
		{"line break added at the end", "a\nb", "a\nb\n", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{"crlf", "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\r\n-b\r\n+B\r\n c\r\n"},
		// udiff numbers the second hunk +21: the kept lines between the
		// changes of the first hunk are not counted.
		{"second hunk after an insertion", strings.Repeat("x\n", 2) + ten + ten + ten,
			strings.Repeat("x\n", 2) + "1\n2\nnew\n3\n4\nfive\n" + ten[10:] + ten + strings.Replace(ten, "7\n", "seven\n", 1),
			"--- a/f\n+++ b/f\n@@ -2,9 +2,10 @@\n x\n 1\n 2\n+new\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n" +
				"@@ -26,7 +27,7 @@\n 4\n 5\n 6\n-7\n+seven\n 8\n 9\n 10\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := UnifiedDiff("f", "f", tt.old, tt.new); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			_ = checkDiff(t, tt.old, tt.new, false)
		})
	}
}
