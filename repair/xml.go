package repair

import "strings"

// splitToolBlock finds the tool block in a model's text: the first element
// whose tag isTool accepts, and its body up to that tag's last closing tag
// (the closing tag of the tool decides, so file content holding the same tag
// survives). Prose and other elements before it (a <thinking> block) are
// skipped whole, so a tool name mentioned inside them is not taken for the
// call. When no element names a tool the whole text is the body: the caller
// sent the parameters without a wrapper. closed is false when the block's
// closing tag never came.
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

// nextOpeningTag finds the first opening tag "<name>" at or after text[i]
// and returns its name and the index just past it.
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

// openingTagAt reports whether an opening tag "<name>" starts at text[i], and
// returns its name and the index just past it. Names are XML-ish identifiers;
// attributes are not part of the tool formats handled here.
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

// IsTagNameByte reports whether c may stand in an XML tool or parameter tag
// name, at its start when first is set.
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
// parameter's value runs to the last closing tag of that parameter in the
// body (Cline's rule: a literal </content> inside a file is kept); any other
// value ends at its first closing tag, so nested markup in a value (XML
// memory, HTML) is kept as text. One newline right after the opening tag and
// one right before the closing tag are layout, not value. truncated names
// the parameter whose closing tag never came, if any; its value is what
// arrived.
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

// TrimLayout removes one leading and one trailing newline (LF or CRLF): in
// XML tool formats they are layout around a value, not part of it.
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
