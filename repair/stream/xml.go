package stream

import (
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// xmlTags is Cline's format: <tool><param>value</param></tool>.
type xmlTags struct{}

func (xmlTags) opener(p *textParser, b []byte) (match, bool, string, int) {
	m, name, n := p.nameTag(b, func(name string) bool { _, ok := p.opts.Tools[name]; return ok }, p.toolPrefix)
	return m, false, name, n
}

func (xmlTags) begin(p *textParser, _ int) textState {
	c := &p.call
	c.tags = p.opts.Tools[c.name]
	c.closer = "</" + c.name + ">"
	c.follows = []string{c.closer}
	for param := range c.tags.Params {
		c.follows = append(c.follows, "<"+param+">")
	}
	return inCall
}

func (xmlTags) param(p *textParser, b []byte) (match, string, int) {
	params := p.call.tags.Params
	return p.nameTag(b, func(name string) bool { _, ok := params[name]; return ok }, func(prefix []byte) bool {
		for name := range params {
			if strings.HasPrefix(name, string(prefix)) {
				return true
			}
		}
		return false
	})
}

// valueClose follows Cline's rule: only a content value may hold its own
// closing tag.
func (xmlTags) valueClose(p *textParser, name string) (string, bool) {
	return "</" + name + ">", p.call.tags.Params[name]
}

// cutsValue: a Cline value ends only at its closing tag; markup in a
// value is common (HTML, XML files).
func (xmlTags) cutsValue(*textParser, []byte) (match, string) { return noMatch, "" }

func (xmlTags) call(p *textParser, block []byte, _ int) repair.Call {
	return repair.Call{Name: p.call.name, Form: repair.FormXML, Text: validString(block)}
}

// nameTag matches "<name>" where known accepts the name; prefix says
// whether a partial name could still become one.
func (p *textParser) nameTag(b []byte, known func(string) bool, prefix func([]byte) bool) (match, string, int) {
	j := 1
	for j < len(b) && repair.IsTagNameByte(b[j], j == 1) {
		j++
	}
	if j == len(b) {
		if j-1 <= p.maxTag && prefix(b[1:j]) {
			return needMore, "", 0
		}
		return noMatch, "", 0
	}
	if j == 1 || b[j] != '>' || !known(string(b[1:j])) {
		return noMatch, "", 0
	}
	return matched, string(b[1:j]), j + 1
}

func (p *textParser) toolPrefix(prefix []byte) bool {
	for name := range p.opts.Tools {
		if strings.HasPrefix(name, string(prefix)) {
			return true
		}
	}
	return false
}
