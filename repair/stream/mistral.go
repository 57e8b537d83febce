package stream

import "strings"

// mistral is Mistral's format, in either of its forms, each after the
// [TOOL_CALLS] token:
//
//	[TOOL_CALLS][{"name": "NAME", "arguments": {...}}, …]
//	[TOOL_CALLS]NAME[ARGS]{...}[TOOL_CALLS]NAME2[CALL_ID]ID[ARGS]{...}
//
// In the first, each object of the array is a call, read as a Hermes body;
// the array's brackets and commas are layout, and anything else ends the
// array as text. In the second, the arguments follow the header; [CALL_ID]
// gives the call's id. No token closes a call: the JSON value's own end
// does.
type mistral struct{ jsonCall }

const (
	mistralCalls  = "[TOOL_CALLS]"
	mistralArgs   = "[ARGS]"
	mistralCallID = "[CALL_ID]"
)

func (mistral) triggers() string { return "<[{,]" }

func (mistral) opener(p *textParser, b []byte) (match, bool, string, int) {
	if p.list {
		if m, wrapper, n := p.listItem(b); m != noMatch {
			return m, wrapper, "", n
		}
	}
	if m := literal(b, mistralCalls); m != matched {
		return m, false, "", 0
	}
	i := len(mistralCalls)
	for i < len(b) && isJSONSpace(b[i]) && i < p.headerBound() {
		i++
	}
	switch {
	case i == len(b) && i < p.headerBound():
		return needMore, false, "", 0
	case i == len(b):
		return noMatch, false, "", 0
	case b[i] == '[':
		p.list = true
		return matched, true, "", i + 1
	case b[i] == '{':
		p.list = true
		return matched, true, "", i
	}
	m, end, next := p.field(b, i, mistralArgs)
	if m != matched || mistralHeader(b[i:end]).name == "" {
		return m, false, "", 0
	}
	return matched, false, string(b[i:end]), next
}

// listItem matches what may come next in a [TOOL_CALLS] array: a call's
// object, a comma, or the closing bracket. Text there ends the array.
func (p *textParser) listItem(b []byte) (m match, wrapper bool, n int) {
	if p.runProse {
		p.list = false
		return noMatch, false, 0
	}
	switch b[0] {
	case '{':
		return matched, false, 0
	case ',':
		return matched, true, 1
	case ']':
		p.list = false
		return matched, true, 1
	}
	return noMatch, false, 0
}

func (mistral) begin(p *textParser, n int) textState {
	c := &p.call
	if c.name == "" { // an object of the array
		return p.beginBody(n, nil)
	}
	h := mistralHeader([]byte(c.name))
	c.name, c.id = h.name, h.id
	return p.beginArgs(n, nil)
}

type mistralCall struct{ name, id string }

// mistralHeader reads NAME or NAME[CALL_ID]ID.
func mistralHeader(b []byte) mistralCall {
	name, id, _ := strings.Cut(validString(b), mistralCallID)
	return mistralCall{name: strings.TrimSpace(name), id: strings.TrimSpace(id)}
}
