// Package contentfix repairs file content and edit text the way models
// garble them: a code fence around a whole file, escaping applied twice,
// HTML entities, U+FFFD, read-tool line numbers; and finds placeholder
// comments that stand for omitted code. Each fix changes text only on
// strong evidence and otherwise returns it unchanged with false.
package contentfix

import "strings"

// ext returns the lower-cased extension, with its dot, of the last element
// of a slash- or backslash-separated path.
func ext(path string) string {
	path = strings.TrimSpace(path)
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	i := strings.LastIndexByte(base, '.')
	if i < 0 {
		return ""
	}
	return strings.ToLower(base[i:])
}

func isMarkdownPath(path string) bool {
	switch ext(path) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// isMarkupPath reports files where HTML entities are meant literally.
func isMarkupPath(path string) bool {
	switch ext(path) {
	case ".html", ".htm", ".xhtml", ".xml", ".svg", ".jsx", ".tsx", ".vue", ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isWordByte counts any byte of a multi-byte character as a letter (of
// another script).
func isWordByte(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c >= 0x80
}
