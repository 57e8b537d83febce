package edit

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// UnifiedDiff returns the unified diff that turns oldContent into
// newContent, with "a/PATH" and "b/PATH" headers, three lines of context and
// "\ No newline at end of file" after a last line that has no newline. It
// returns "" when the contents are equal. A created file is a diff from
// empty content, a deleted one a diff to empty content; the headers keep the
// path either way. Line endings are part of the lines: a CRLF file's lines
// end in "\r".
func UnifiedDiff(path, oldContent, newContent string) string {
	if oldContent == newContent {
		return ""
	}
	p := strings.TrimLeft(strings.TrimPrefix(strings.ReplaceAll(path, `\`, "/"), "./"), "/")
	return udiff.Unified("a/"+p, "b/"+p, oldContent, newContent)
}
