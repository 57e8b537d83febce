package repair

import "strings"

// splitToolBlock finds the tool block in a model's text: the first element
// isTool accepts, up to its last closing tag, so file content holding the
// tag survives. Elements before it (<thinking>) are skipped whole. With no
// tool element the whole text is the body.
func splitToolBlock(text string, isTool func(string) bool) (tag, body string, closed bool) {
	for i := 0; ; {
		name, end, ok := nextOpeningTag(text, i)
		if !ok {
			return "", text, true
		}
		closing := "</" + name + ">"
		if isTool(name) {
			rest := text[end:]
			if k := strings.LastIndex(rest, closing); k >= 0 {
				return name, rest[:k], true
			}
			return name, rest, false
		}
		k := strings.Index(text[end:], closing)
		if k < 0 {
			return "", text, true
		}
		i = end + k + len(closing)
	}
}

// nextOpeningTag finds the first "<name>" at or after text[i].
func nextOpeningTag(text string, i int) (name string, end int, ok bool) {
	for i < len(text) {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return "", 0, false
		}
		i += j
		if name, end, ok := openingTagAt(text, i); ok {
			return name, end, true
		}
		i++
	}
	return "", 0, false
}

// openingTagAt reports whether "<name>" (no attributes) starts at text[i].
func openingTagAt(text string, i int) (name string, end int, ok bool) {
	if i >= len(text) || text[i] != '<' {
		return "", 0, false
	}
	j := i + 1
	for j < len(text) && IsTagNameByte(text[j], j == i+1) {
		j++
	}
	if j == i+1 || j >= len(text) || text[j] != '>' {
		return "", 0, false
	}
	return text[i+1 : j], j + 1, true
}

// IsTagNameByte reports whether c may stand in a tag name (at its start if first).
func IsTagNameByte(c byte, first bool) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', c == '_':
		return true
	case '0' <= c && c <= '9', c == '-', c == '.', c == ':':
		return !first
	}
	return false
}

// parseXMLParams splits a tool block body into its parameters. A content
// value runs to its last closing tag (a </content> inside a file is kept),
// any other to its first, so markup in it stays text. truncated names the
// parameter whose closing tag never came.
func parseXMLParams(body string, isContent func(string) bool) (params map[string]string, truncated string) {
	params = map[string]string{}
	for i := 0; ; {
		name, start, ok := nextOpeningTag(body, i)
		if !ok {
			break
		}
		closing := "</" + name + ">"
		var k int
		if isContent(name) {
			k = strings.LastIndex(body[start:], closing)
		} else {
			k = strings.Index(body[start:], closing)
		}
		if k < 0 {
			if _, dup := params[name]; !dup {
				params[name] = TrimLayout(body[start:])
			}
			return params, name
		}
		if _, dup := params[name]; !dup {
			params[name] = TrimLayout(body[start : start+k])
		}
		i = start + k + len(closing)
	}
	return params, ""
}

// TrimLayout removes one leading and one trailing newline, layout around
// an XML value.
func TrimLayout(v string) string {
	if strings.HasPrefix(v, "\r\n") {
		v = v[2:]
	} else if strings.HasPrefix(v, "\n") {
		v = v[1:]
	}
	if strings.HasSuffix(v, "\r\n") {
		v = v[:len(v)-2]
	} else if strings.HasSuffix(v, "\n") {
		v = v[:len(v)-1]
	}
	return v
}
