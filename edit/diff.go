package edit

import (
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
	return udiff.Unified(from, to, oldContent, newContent)
}

// diffLabel is a diff header's file name: /dev/null for no file, else the
// path with forward slashes and without a leading "./" or "/" after prefix.
func diffLabel(prefix, path string) string {
	if path == "" {
		return "/dev/null"
	}
	return prefix + strings.TrimLeft(strings.TrimPrefix(strings.ReplaceAll(path, `\`, "/"), "./"), "/")
}
