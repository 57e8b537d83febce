package edit

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	ulcs "github.com/aymanbagabas/go-udiff/lcs"
)

// diffContext is the unchanged lines a hunk shows around a change.
const diffContext = 3

// Diff is a unified diff, sized and written without being held: what it
// keeps follows the lines that changed, not the files. udiff, given two
// files, splits both into lines (the old one twice), copies each change's
// new text, lists every line of each hunk and formats them one by one
// into a growing buffer: 10 to 20 times the file's size for a one-line
// change of a file of megabytes. Here the lines the two contents share
// at their start and end are left out before anything is split, udiff's
// line diff (its lcs package, the same algorithm) runs on what remains, and the hunks
// are runs of lines, written out as they are read.
type Diff struct {
	header string
	added  *AddedDiff // old was empty: every line added
	hunks  []diffHunk
	old    lineSet // the old content's lines
	new    []string
	size   int
}

// diffHunk is one "@@" hunk: its first lines in each content (1-based)
// and its runs of lines.
type diffHunk struct {
	from, to int
	runs     []diffRun
}

// diffRun is lines [start, end) of the old content (kept or deleted) or of
// the new content's changed lines (inserted).
type diffRun struct {
	kind       byte // ' ', '-' or '+'
	start, end int
}

// lineSet is the old content's lines by number: the changed region's,
// split, and up to diffContext lines either side of it, the rest never
// looked at.
type lineSet struct {
	first  int      // number of mid[0]
	before []string // the lines just before mid
	mid    []string
	after  []string // the lines just after mid
}

func (s *lineSet) line(i int) string {
	switch {
	case i < s.first:
		return s.before[len(s.before)-(s.first-i)]
	case i < s.first+len(s.mid):
		return s.mid[i-s.first]
	}
	return s.after[i-s.first-len(s.mid)]
}

// Unified is the diff UnifiedDiff returns, not yet written.
func Unified(oldPath, newPath, oldContent, newContent string) Diff {
	from, to := diffLabel("a/", oldPath), diffLabel("b/", newPath)
	header := "--- " + from + "\n+++ " + to + "\n"
	if oldContent == newContent {
		if strings.TrimPrefix(from, "a/") == strings.TrimPrefix(to, "b/") {
			return Diff{}
		}
		return Diff{header: header, size: len(header)}
	}
	if oldContent == "" {
		d := addedDiff(from, to, newContent)
		return Diff{added: &d, size: d.Len()}
	}
	d := Diff{header: header}
	d.build(oldContent, newContent)
	return d
}

// build finds the hunks: the shared lines at both ends left out, the rest
// diffed by lines.
func (d *Diff) build(a, b string) {
	lo, endA, endB := changedLines(a, b)
	first := strings.Count(a[:lo], "\n")
	d.old = lineSet{first: first, before: lastLines(a[:lo], diffContext),
		mid: splitLines(a[lo:endA]), after: firstLines(a[endA:], diffContext)}
	d.new = splitLines(b[lo:endB])
	d.hunks = hunks(ulcs.DiffLines(d.old.mid, d.new), first,
		first-len(d.old.before), first+len(d.old.mid)+len(d.old.after))
	d.size = int(d.writeHunks(&counter{}))
}

// changedLines is the lines udiff's line diff needs to see to find the
// changes of a into b, in the same place: a[lo:endA] and b[lo:endB].
// Outside them a and b share their first and their last lines, which the
// algorithm (Myers') follows before anything else, as runs of equal
// lines from either end. When those two runs overlap, one content is the
// other with lines added in a stretch of repeated lines, and any place in
// the stretch is as good: the algorithm sees the whole stretch, from the
// shorter content's shared tail to the shared head, and puts them where
// udiff mostly does (not always: it sees the stretch's edges differently).
func changedLines(a, b string) (lo, endA, endB int) {
	head := commonLinePrefix(a, b)
	tailA, tailB := commonLineSuffix(a, b)
	switch {
	case tailA >= head && tailB >= head:
		lo, endA, endB = head, tailA, tailB
	case len(a) < len(b):
		lo, endA, endB = tailA, head, head+len(b)-len(a)
	default:
		lo, endA, endB = tailB, head+len(a)-len(b), head
	}
	return lo, endA, endB
}

// hunks groups the line changes, numbered in the mid lines, into hunks
// numbered in the whole contents as udiff's ToUnified does: changes at
// most 2×diffContext lines apart share a hunk. Old lines [lo, hi) are
// known. udiff (v0.4.1) numbers a hunk's new lines without the kept
// lines between the changes of the hunks before it; here they are
// counted, so that every hunk applies where it says.
func hunks(changes []ulcs.Diff, first, lo, hi int) []diffHunk {
	var out []diffHunk
	var h *diffHunk
	last, shift := 0, 0 // the old line after the last change; new minus old lines so far
	for _, c := range changes {
		start, end := first+c.Start, first+c.End
		switch {
		case h != nil && start == last:
		case h != nil && start <= last+2*diffContext:
			h.runs = append(h.runs, diffRun{' ', last, start})
		default:
			if h != nil {
				h.runs = append(h.runs, diffRun{' ', last, min(last+diffContext, hi)})
				out = append(out, *h)
			}
			lead := min(diffContext, start-lo)
			h = &diffHunk{from: start + 1 - lead, to: start + shift + 1 - lead}
			h.runs = append(h.runs, diffRun{' ', start - lead, start})
		}
		h.runs = append(h.runs, diffRun{'-', start, end}, diffRun{'+', c.ReplStart, c.ReplEnd})
		shift += (c.ReplEnd - c.ReplStart) - (end - start)
		last = end
	}
	if h != nil {
		h.runs = append(h.runs, diffRun{' ', last, min(last+diffContext, hi)})
		out = append(out, *h)
	}
	return out
}

// Len returns the diff's size in bytes.
func (d Diff) Len() int { return d.size }

// String returns the diff, built in one piece of its size.
func (d Diff) String() string {
	if d.added != nil {
		return d.added.String()
	}
	var b strings.Builder
	b.Grow(d.size)
	d.writeHunks(&b)
	return b.String()
}

// WriteTo writes the diff to w through a buffer of its own, never holding
// it whole.
func (d Diff) WriteTo(w io.Writer) (int64, error) {
	if d.added != nil {
		return d.added.WriteTo(w)
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	d.writeHunks(bw)
	return int64(d.size), bw.Flush()
}

type diffWriter interface {
	io.StringWriter
	io.ByteWriter
}

// counter counts what is written to it.
type counter struct{ n int64 }

func (c *counter) WriteString(s string) (int, error) { c.n += int64(len(s)); return len(s), nil }
func (c *counter) WriteByte(byte) error              { c.n++; return nil }

// writeHunks writes the header and the hunks as udiff formats them, and
// returns the bytes written when w is a counter.
func (d Diff) writeHunks(w diffWriter) int64 {
	if d.header == "" {
		return 0
	}
	_, _ = w.WriteString(d.header)
	for _, h := range d.hunks {
		d.writeHunk(w, h)
	}
	if c, ok := w.(*counter); ok {
		return c.n
	}
	return 0
}

func (d Diff) writeHunk(w diffWriter, h diffHunk) {
	fromCount, toCount := 0, 0
	for _, r := range h.runs {
		n := r.end - r.start
		switch r.kind {
		case '-':
			fromCount += n
		case '+':
			toCount += n
		default:
			fromCount += n
			toCount += n
		}
	}
	_, _ = w.WriteString("@@ -")
	writeRange(w, h.from, fromCount)
	_, _ = w.WriteString(" +")
	writeRange(w, h.to, toCount)
	_, _ = w.WriteString(" @@\n")
	for _, r := range h.runs {
		for i := r.start; i < r.end; i++ {
			var line string
			if r.kind == '+' {
				line = d.new[i]
			} else {
				line = d.old.line(i)
			}
			_ = w.WriteByte(r.kind)
			_, _ = w.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				_ = w.WriteByte('\n')
				_, _ = w.WriteString(noNewline)
			}
		}
	}
}

// writeRange writes a hunk's range as udiff does, GNU diff's "0,0" for
// none at the start.
func writeRange(w diffWriter, start, count int) {
	var buf [48]byte
	switch {
	case count > 1:
		b := strconv.AppendInt(buf[:0], int64(start), 10)
		b = append(b, ',')
		_, _ = w.WriteString(string(strconv.AppendInt(b, int64(count), 10)))
	case start == 1 && count == 0:
		_, _ = w.WriteString("0,0")
	default:
		_, _ = w.WriteString(string(strconv.AppendInt(buf[:0], int64(start), 10)))
	}
}

// splitLines is s's lines, each with its line break, in a slice of their
// number.
func splitLines(s string) []string {
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") && s != "" {
		n++
	}
	lines := make([]string, 0, n)
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		lines = append(lines, s[:i])
		s = s[i:]
	}
	return lines
}

// lastLines is the last n lines of s, which ends with a line break or is
// empty.
func lastLines(s string, n int) []string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		i = strings.LastIndexByte(s[:i-1], '\n') + 1
	}
	return splitLines(s[i:])
}

// firstLines is the first n lines of s.
func firstLines(s string, n int) []string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			i = len(s)
			break
		}
		i += j + 1
	}
	return splitLines(s[:i])
}

// commonLinePrefix is the size of the whole lines a and b start with.
func commonLinePrefix(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return strings.LastIndexByte(a[:i], '\n') + 1
}

// commonLineSuffix is where the whole lines a and b end with start in
// each: in a and in b.
func commonLineSuffix(a, b string) (int, int) {
	n := min(len(a), len(b))
	k := 0
	for k < n && a[len(a)-1-k] == b[len(b)-1-k] {
		k++
	}
	// The shared bytes start inside a line unless they follow a line
	// break in both, or the start of both.
	i, j := len(a)-k, len(b)-k
	if (i == 0 || a[i-1] == '\n') && (j == 0 || b[j-1] == '\n') {
		return i, j
	}
	nl := strings.IndexByte(a[i:], '\n')
	if nl < 0 {
		return len(a), len(b)
	}
	return i + nl + 1, j + nl + 1
}
