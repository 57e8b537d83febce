package repair

import (
	"slices"
	"strings"
)

// splitToolBlock finds the tool block in a model's text: the first element
// isTool accepts, or a wrapper naming such a tool in an attribute (<tool
// name="X">, <invoke name="X">), up to its last closing tag, so file content
// holding the tag survives. Elements before it (<thinking>) are skipped
// whole; a container of calls (<function_calls>) is read into. A wrapper
// naming an unknown tool is the block only when no other is found, so
// prose quoting the syntax does not hide the call. With no tool element
// the whole text is the body. opening is the block's opening tag as
// written.
func splitToolBlock(text string, isTool func(string) bool) (tool, opening, body string, closed bool) {
	// The first wrapper of an unknown tool: its body is found only if used.
	unknownAt, unknownEnd, unknownTag, unknownName := 0, -1, "", ""
	for i := 0; ; {
		at, tag, attr, end, ok := nextOpeningTagAt(text, i)
		if !ok {
			break
		}
		closing := "</" + tag + ">"
		switch local := localName(tag); {
		case attr == "" && isTool(tag):
			rest := text[end:]
			if k := strings.LastIndex(rest, closing); k >= 0 {
				return tag, text[at:end], rest[:k], true
			}
			return tag, text[at:end], rest, false
		case attr != "" && slices.Contains(toolWrappers, local):
			if isTool(attr) {
				body, closed := wrapperBody(text[end:], tag)
				return attr, text[at:end], body, closed
			}
			if unknownEnd < 0 {
				unknownAt, unknownEnd, unknownTag, unknownName = at, end, tag, attr
			}
		case attr == "" && slices.Contains(callContainers, local):
			i = end
			continue
		}
		k := strings.Index(text[end:], closing)
		if k < 0 {
			break
		}
		i = end + k + len(closing)
	}
	if unknownEnd >= 0 {
		body, closed := wrapperBody(text[unknownEnd:], unknownTag)
		return unknownName, text[unknownAt:unknownEnd], body, closed
	}
	return "", "", text, true
}

// Elements that carry a name in a name attribute rather than in their tag,
// compared without a namespace prefix.
var (
	// toolWrappers name the tool: <tool name="X">…</tool>.
	toolWrappers = []string{"tool", "invoke", "tool_call", "function_call"}
	// paramElements name a parameter: <parameter name="K">V</parameter>.
	paramElements = []string{"parameter", "param", "argument", "arg"}
	// callContainers hold tool wrappers.
	callContainers = []string{"function_calls", "tool_calls"}
)

func localName(tag string) string {
	return tag[strings.LastIndexByte(tag, ':')+1:]
}

func isParamElement(tag string) bool { return slices.Contains(paramElements, localName(tag)) }

// wrapperBody returns a wrapper's body: up to the closing tag that another
// wrapper of the same kind follows (a second call is not this one's body),
// else up to its last closing tag.
func wrapperBody(rest, tag string) (string, bool) {
	closing := "</" + tag + ">"
	for off := 0; ; {
		k := strings.Index(rest[off:], closing)
		if k < 0 {
			break
		}
		end := off + k
		next := skipSpace(rest, end+len(closing))
		if t, attr, _, ok := openingTagAt(rest, next); ok && t == tag && attr != "" {
			return rest[:end], true
		}
		off = end + len(closing)
	}
	if k := strings.LastIndex(rest, closing); k >= 0 {
		return rest[:k], true
	}
	return rest, false
}

// nextOpeningTagAt finds the first opening tag (see openingTagAt) at or after i, and where the tag
// starts.
func nextOpeningTagAt(text string, i int) (at int, tag, attr string, end int, ok bool) {
	for i < len(text) {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			return 0, "", "", 0, false
		}
		i += j
		if tag, attr, end, ok := openingTagAt(text, i); ok {
			return i, tag, attr, end, true
		}
		i++
	}
	return 0, "", "", 0, false
}

// openingTagAt reports whether an opening tag starts at text[i]: "<tag>"
// without attributes, or, for the elements that name a tool or a parameter
// by attribute, `<tag name="X">`, whose X is attr. Other attributes are not
// read: such a tag is text.
func openingTagAt(text string, i int) (tag, attr string, end int, ok bool) {
	if i >= len(text) || text[i] != '<' {
		return "", "", 0, false
	}
	j := i + 1
	for j < len(text) && IsTagNameByte(text[j], j == i+1) {
		j++
	}
	if j == i+1 || j >= len(text) {
		return "", "", 0, false
	}
	tag = text[i+1 : j]
	if text[j] == '>' {
		return tag, "", j + 1, true
	}
	if local := localName(tag); !slices.Contains(toolWrappers, local) && !isParamElement(tag) {
		return "", "", 0, false
	}
	attr, end, ok = nameAttribute(text, j)
	if !ok {
		return "", "", 0, false
	}
	return tag, attr, end, true
}

// maxNameAttr bounds a name attribute's value: names are short, and a
// quote that never closes must not send the search through the whole text.
const maxNameAttr = 256

// nameAttribute reads ` name="X">` (either quote, spaces around '=') at
// text[j] and returns X and the end of the tag.
func nameAttribute(text string, j int) (string, int, bool) {
	k := skipSpace(text, j)
	if k == j || !strings.HasPrefix(text[k:], "name") {
		return "", 0, false
	}
	k = skipSpace(text, k+len("name"))
	if k >= len(text) || text[k] != '=' {
		return "", 0, false
	}
	k = skipSpace(text, k+1)
	if k >= len(text) || text[k] != '"' && text[k] != '\'' {
		return "", 0, false
	}
	q := text[k]
	v := text[k+1 : min(len(text), k+1+maxNameAttr+1)]
	n := strings.IndexByte(v, q)
	if n <= 0 || strings.ContainsAny(v[:n], "<>\n") {
		return "", 0, false
	}
	k = skipSpace(text, k+1+n+1)
	if k >= len(text) || text[k] != '>' {
		return "", 0, false
	}
	return v[:n], k + 1, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
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

// parseXMLParams splits a tool block body into its parameters, written
// <name>V</name> or <parameter name="name">V</parameter>. A content value
// runs to its last closing tag (a </content> inside a file is kept), any
// other to its first, so markup in it stays text. A tag written twice or
// a closing tag with no opening one is judged by xmltags.go.
func parseXMLParams(body string, isContent func(string) bool) xmlParams {
	out := xmlParams{params: map[string]string{}}
	for i := 0; ; {
		at, tag, attr, start, ok := nextOpeningTagAt(body, i)
		gap := body[i:]
		if ok {
			gap = body[i:at]
		}
		if out.strayClosing(gap) || !ok {
			return out
		}
		name, named := tag, attr != "" && isParamElement(tag)
		if named {
			name = attr
		}
		closing := "</" + tag + ">"
		var k int
		switch {
		case named && isContent(name):
			k = namedContentEnd(body[start:], closing)
		case isContent(name):
			k = strings.LastIndex(body[start:], closing)
		default:
			k = strings.Index(body[start:], closing)
		}
		if k < 0 {
			if _, dup := out.params[name]; !dup {
				out.params[name] = TrimLayout(body[start:])
			}
			out.truncated = name
			return out
		}
		v, ok := out.ownTags(name, tag, body[at:start], body[start:start+k])
		if !ok {
			return out
		}
		if _, dup := out.params[name]; !dup {
			out.params[name] = TrimLayout(v)
		}
		i = start + k + len(closing)
		i = out.doubledClosing(name, closing, body, i)
	}
}

// namedContentEnd finds where a content value given as <parameter
// name="K"> ends. Every parameter closes with the same tag, so the last
// one would swallow the parameters after it: the value ends at the first
// closing tag that the next parameter or the body's end follows, else at
// the last.
func namedContentEnd(rest, closing string) int {
	for off := 0; ; {
		k := strings.Index(rest[off:], closing)
		if k < 0 {
			break
		}
		end := off + k
		next := rest[skipSpace(rest, end+len(closing)):]
		if next == "" {
			return end
		}
		if tag, attr, _, ok := openingTagAt(next, 0); ok && attr != "" && isParamElement(tag) {
			return end
		}
		off = end + len(closing)
	}
	return strings.LastIndex(rest, closing)
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
