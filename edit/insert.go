package edit

import "strings"

// LineCount is the number of lines of content: a last line without a line
// break counts, an empty file has none.
func LineCount(content string) int {
	n := strings.Count(content, "\n")
	if content != "" && !strings.HasSuffix(content, "\n") {
		n++
	}
	return n
}

// InsertAfter inserts text as whole lines after line n of content (0: at
// the top, after a byte order mark), in the content's line endings: text
// gets CRLF breaks in a CRLF file and a final break; a last line without
// one gets one first. ok is false when n is past the last line.
func InsertAfter(content string, n int, text string) (out string, ok bool) {
	lines := LineCount(content)
	if n < 0 || n > lines {
		return content, false
	}
	eol := "\n"
	if strings.Contains(content, "\r\n") {
		eol = "\r\n"
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", eol)
	if !strings.HasSuffix(text, eol) {
		text += eol
	}
	at := 0
	if strings.HasPrefix(content, "\uFEFF") {
		at = len("\uFEFF")
	}
	for i := 0; i < n; i++ {
		j := strings.IndexByte(content[at:], '\n')
		if j < 0 {
			at = len(content)
			break
		}
		at += j + 1
	}
	head := content[:at]
	if head != "" && !strings.HasSuffix(head, "\n") && head != "\uFEFF" {
		head += eol
	}
	return head + text + content[at:], true
}
