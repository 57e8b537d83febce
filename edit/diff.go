package edit

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// UnifiedDiff returns the unified diff from oldContent to newContent, with
// "a/PATH" and "b/PATH" headers and three lines of context, or "" when they
// are equal. Line endings are part of the lines: a CRLF file's lines end in "\r".
func UnifiedDiff(path, oldContent, newContent string) string {
	if oldContent == newContent {
		return ""
	}
	p := strings.TrimLeft(strings.TrimPrefix(strings.ReplaceAll(path, `\`, "/"), "./"), "/")
	return udiff.Unified("a/"+p, "b/"+p, oldContent, newContent)
}
