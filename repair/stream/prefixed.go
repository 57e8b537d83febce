package stream

import (
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// prefixedTags is a format whose tags carry names after a prefix:
// <function=name>, <invoke name="name">.
type prefixedTags struct {
	wrappers          []string // tags around calls, passed over
	callTag, paramTag string   // prefixes of the opening tags
	endTag            string
	quoted            bool // names may be quoted
}

const paramClose = "</parameter>"

func (f prefixedTags) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m, n := anyLiteral(b, f.wrappers...); m != noMatch {
		return m, true, "", n
	}
	m, name, n := p.prefixed(b, f.callTag, f.quoted)
	return m, false, name, n
}

func (f prefixedTags) begin(p *textParser, _ int) textState {
	c := &p.call
	c.closer, c.follows, c.params = f.endTag, []string{f.paramTag, f.endTag}, map[string]string{}
	return inCall
}

func (f prefixedTags) param(p *textParser, b []byte) (match, string, int) {
	return p.prefixed(b, f.paramTag, f.quoted)
}

func (prefixedTags) valueClose(*textParser, string) (string, bool) { return paramClose, true }

// cutsValue ends a value whose closing tag the model left out: at a line
// start, the opening tag of a parameter not met yet in this call (one the
// tool declares, when the parser knows the tool) starts the next value.
// A repeated or undeclared name stays text, so a file quoting its own tag
// is kept; the newline before the tag is layout, as before a closing tag.
//
// So does the call's end tag when the closing wrapper follows it, past
// white space (vLLM reads qwen3-coder's calls so): the two closing tags
// prove the value complete; next is then "".
func (f prefixedTags) cutsValue(p *textParser, b []byte) (match, string) {
	if m := f.endsCall(b); m != noMatch {
		return m, ""
	}
	m, name, _ := f.param(p, b)
	return p.cutsAt(m, name)
}

// endsCall matches at b the call's end tag followed, past white space, by
// the closing wrapper.
func (f prefixedTags) endsCall(b []byte) match {
	if m := literal(b, f.endTag); m != matched {
		return m
	}
	i := len(f.endTag)
	for i < len(b) && isJSONSpace(b[i]) && i < maxLayout {
		i++
	}
	if i == len(b) {
		return needMore
	}
	return literal(b[i:], f.wrappers[1])
}

// cutsAt decides, for a parameter tag matched at a line start inside a
// value, whether it ends the value (see prefixedTags.cutsValue).
func (p *textParser) cutsAt(m match, name string) (match, string) {
	if m != matched {
		return m, ""
	}
	c := &p.call
	if c.seen[name] {
		return noMatch, ""
	}
	if tags, known := p.opts.Tools[c.name]; known {
		if _, declared := tags.Params[name]; !declared {
			return noMatch, ""
		}
	}
	return matched, name
}

func (prefixedTags) call(p *textParser, _ []byte, _ int) repair.Call { return p.paramsCall() }

// paramsCall is the open call of a tag format, its values split out.
func (p *textParser) paramsCall() repair.Call {
	return repair.Call{Name: p.call.name, Form: repair.FormParams, Params: p.call.params, Repairs: p.call.repairs, Unparseable: p.call.refusal}
}

// prefixed matches lit, a name (maybe quoted) and '>'.
func (p *textParser) prefixed(b []byte, lit string, quoted bool) (match, string, int) {
	if m := literal(b, lit); m != matched {
		return m, "", 0
	}
	i := len(lit)
	var q byte
	if quoted && i < len(b) && (b[i] == '"' || b[i] == '\'') {
		q = b[i]
		i++
	}
	start := i
	for ; i < len(b); i++ {
		c := b[i]
		if c == '<' || c == '\n' || i-start > p.maxTag {
			return noMatch, "", 0
		}
		if q != 0 && c == q || q == 0 && c == '>' {
			break
		}
	}
	end := i
	if q != 0 && i < len(b) {
		i++ // the closing quote
		for i < len(b) && b[i] == ' ' {
			// The spaces count in the bound: a tag waited for is held in memory.
			if i-start > p.maxTag {
				return noMatch, "", 0
			}
			i++
		}
	}
	if i >= len(b) {
		return needMore, "", 0
	}
	// Names go out as they are, so as valid UTF-8.
	name := strings.TrimSpace(validString(b[start:end]))
	if b[i] != '>' || name == "" {
		return noMatch, "", 0
	}
	return matched, name, i + 1
}
