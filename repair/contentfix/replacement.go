package contentfix

import "strings"

// RemoveReplacementChars removes U+FFFD characters. Only well-formed ones
// go: bytes that are not valid UTF-8 are kept (JSON and protobuf strings
// cannot carry them).
func RemoveReplacementChars(content string) (string, bool) {
	const rc = "\uFFFD"
	if !strings.Contains(content, rc) {
		return content, false
	}
	return strings.ReplaceAll(content, rc, ""), true
}
