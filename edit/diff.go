package edit

import (
	"strconv"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// UnifiedDiff returns the unified diff from oldContent at oldPath to
// newContent at newPath, with three lines of context. A path is "" where
// the file does not exist: "--- /dev/null" for a created file, "+++
// /dev/null" for a deleted one; otherwise the headers are "a/PATH" and
// "b/PATH", and a moved file names both. It is "" when nothing changes;
// a file moved, created or deleted without content has headers and no
// hunk. Line endings are part of the lines: a CRLF file's lines end in "\r".
func UnifiedDiff(oldPath, newPath, oldContent, newContent string) string {
	from, to := diffLabel("a/", oldPath), diffLabel("b/", newPath)
	if oldContent == newContent {
		if strings.TrimPrefix(from, "a/") == strings.TrimPrefix(to, "b/") {
			return ""
		}
		return "--- " + from + "\n+++ " + to + "\n"
	}
	if oldContent == "" {
		return addedDiff(from, to, newContent)
	}
	return udiff.Unified(from, to, oldContent, newContent)
}

// noNewline follows a last line without its line break.
const noNewline = "\\ No newline at end of file\n"

// addedDiff is udiff.Unified(from, to, "", content), content not empty,
// built in one piece of its final size: every line added. udiff would
// split the content into lines, twice, and format each, several times
// the content's size for a file of megabytes.
func addedDiff(from, to, content string) string {
	lines := strings.Count(content, "\n")
	complete := strings.HasSuffix(content, "\n")
	if !complete {
		lines++
	}
	hunk := "@@ -0,0 +1 @@\n"
	if lines > 1 {
		hunk = "@@ -0,0 +1," + strconv.Itoa(lines) + " @@\n"
	}
	var b strings.Builder
	size := len("--- \n+++ \n") + len(from) + len(to) + len(hunk) + lines + len(content)
	if !complete {
		size += 1 + len(noNewline)
	}
	b.Grow(size)
	b.WriteString("--- " + from + "\n+++ " + to + "\n")
	b.WriteString(hunk)
	for rest := content; rest != ""; {
		line, tail, found := strings.Cut(rest, "\n")
		b.WriteByte('+')
		b.WriteString(line)
		b.WriteByte('\n')
		if !found {
			b.WriteString(noNewline)
		}
		rest = tail
	}
	return b.String()
}

// diffLabel is a diff header's file name: /dev/null for no file, else the
// path with forward slashes and without a leading "./" or "/" after prefix.
func diffLabel(prefix, path string) string {
	if path == "" {
		return "/dev/null"
	}
	return prefix + strings.TrimLeft(strings.TrimPrefix(strings.ReplaceAll(path, `\`, "/"), "./"), "/")
}
