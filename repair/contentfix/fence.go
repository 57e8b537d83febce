package contentfix

import "strings"

// StripCodeFence removes a code fence wrapping the whole content, unless
// the target is Markdown. A fence inside the fence (a document about code
// blocks) makes it decline, which keeps the repair idempotent.
func StripCodeFence(content, path string) (string, bool) {
	out, ok := stripFenceOnce(content, path)
	if !ok {
		return content, false
	}
	if _, again := stripFenceOnce(out, path); again {
		return content, false
	}
	return out, true
}

// stripFenceOnce strips one level, as CommonMark reads fences; the only
// closing line must be the last.
func stripFenceOnce(content, path string) (string, bool) {
	if isMarkdownPath(path) {
		return content, false
	}
	body := strings.TrimRight(strings.TrimLeft(content, " \t\r\n"), " \t\r\n")
	nl := strings.IndexByte(body, '\n')
	if nl <= 0 {
		return content, false
	}
	open := strings.TrimRight(body[:nl], " \t\r")
	ch := open[0]
	if ch != '`' && ch != '~' {
		return content, false
	}
	n := 0
	for n < len(open) && open[n] == ch {
		n++
	}
	if n < 3 || (ch == '`' && strings.IndexByte(open[n:], '`') >= 0) {
		return content, false
	}
	rest := body[nl+1:]
	for pos := 0; ; {
		end := strings.IndexByte(rest[pos:], '\n')
		if end < 0 {
			if isClosingFence(rest[pos:], ch, n) {
				return rest[:pos], true
			}
			return content, false // never closed
		}
		if isClosingFence(rest[pos:pos+end], ch, n) {
			return content, false // closed early: something follows the fence
		}
		pos += end + 1
	}
}

// isClosingFence reports whether line closes a fence of n characters ch.
func isClosingFence(line string, ch byte, n int) bool {
	line = strings.TrimRight(line, " \t\r")
	indent := 0
	for indent < len(line) && line[indent] == ' ' {
		indent++
	}
	if indent > 3 {
		return false
	}
	run := line[indent:]
	if len(run) < n {
		return false
	}
	for i := 0; i < len(run); i++ {
		if run[i] != ch {
			return false
		}
	}
	return true
}
