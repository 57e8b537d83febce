package contentfix

import "strings"

// RemoveReplacementChars removes well-formed U+FFFD characters.
func RemoveReplacementChars(content string) (string, bool) {
	const rc = "\uFFFD"
	if !strings.Contains(content, rc) {
		return content, false
	}
	return strings.ReplaceAll(content, rc, ""), true
}
