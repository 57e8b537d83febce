package edit

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// UnifiedDiff returns the unified diff from oldContent at oldPath to
// newContent at newPath, with three lines of context. A path is "" where
// the file does not exist: "--- /dev/null" for a created file, "+++
// /dev/null" for a deleted one; otherwise the headers are "a/PATH" and
// "b/PATH", and a moved file names both. It is "" when nothing changes;
// a file moved, created or deleted without content has headers and no
// hunk. Line endings are part of the lines: a CRLF file's lines end in "\r".
func UnifiedDiff(oldPath, newPath, oldContent, newContent string) string {
	return Unified(oldPath, newPath, oldContent, newContent).String()
}

// noNewline follows a last line without its line break.
const noNewline = "\\ No newline at end of file\n"

// AddedDiff is the diff of a content added whole, every line added: the
// diff UnifiedDiff gives from "" to that content, which can be sized and
// written out without being held. udiff would split the content into
// lines, twice, and format each: several times the content's size for a
// file of megabytes.
type AddedDiff struct {
	header, hunk, content string
	lines                 int
	complete              bool // the content ends with a line break
}

// Added is the diff of newContent, not empty, added at newPath where
// oldPath ("" for no file) was empty: UnifiedDiff(oldPath, newPath, "",
// newContent).
func Added(oldPath, newPath, newContent string) AddedDiff {
	return addedDiff(diffLabel("a/", oldPath), diffLabel("b/", newPath), newContent)
}

func addedDiff(from, to, content string) AddedDiff {
	d := AddedDiff{header: "--- " + from + "\n+++ " + to + "\n", content: content,
		lines: strings.Count(content, "\n"), complete: strings.HasSuffix(content, "\n")}
	if !d.complete {
		d.lines++
	}
	d.hunk = "@@ -0,0 +1 @@\n"
	if d.lines > 1 {
		d.hunk = "@@ -0,0 +1," + strconv.Itoa(d.lines) + " @@\n"
	}
	return d
}

// Len returns the diff's size in bytes.
func (d AddedDiff) Len() int {
	n := len(d.header) + len(d.hunk) + d.lines + len(d.content)
	if !d.complete {
		n += 1 + len(noNewline)
	}
	return n
}

// String returns the diff, built in one piece of its size.
func (d AddedDiff) String() string {
	var b strings.Builder
	b.Grow(d.Len())
	d.write(&b)
	return b.String()
}

// WriteTo writes the diff to w through a buffer of its own, never holding
// it whole.
func (d AddedDiff) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 32<<10)
	d.write(bw)
	return int64(d.Len()), bw.Flush()
}

// write writes the diff to w, whose errors its owner reports (a Builder
// has none, a bufio.Writer keeps its first).
func (d AddedDiff) write(w interface {
	io.StringWriter
	io.ByteWriter
}) {
	_, _ = w.WriteString(d.header)
	_, _ = w.WriteString(d.hunk)
	for rest := d.content; rest != ""; {
		line, tail, found := strings.Cut(rest, "\n")
		_ = w.WriteByte('+')
		_, _ = w.WriteString(line)
		_ = w.WriteByte('\n')
		if !found {
			_, _ = w.WriteString(noNewline)
		}
		rest = tail
	}
}

// diffLabel is a diff header's file name: /dev/null for no file, else the
// path with forward slashes and without a leading "./" or "/" after prefix.
func diffLabel(prefix, path string) string {
	if path == "" {
		return "/dev/null"
	}
	return prefix + strings.TrimLeft(strings.TrimPrefix(strings.ReplaceAll(path, `\`, "/"), "./"), "/")
}
