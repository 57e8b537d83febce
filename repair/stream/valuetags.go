package stream

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// A tag format's value can come with its own tags written twice or left
// out, as a Cline block's (repair/xmltags.go, whose rules these are): an
// exact repetition with nothing between is taken out (XML_REPAIRED); a
// value that starts or ends with its own tag, layout between, is refused
// (two readings); a closing tag with no opening tag, between parameters
// or inside a value that is no file text, means a parameter's opening tag
// was lost and the call is refused, never read without it.

// valueTagged is a format whose values' own tags are judged so.
type valueTagged interface {
	// valueOpening returns, from what the parameter's match read, the
	// value's opening tag as written ("" when it has none) and the prefix
	// every opening tag of a value starts with.
	valueOpening(read string) (opening, prefix string)
	// strayClosers are the closing tags that, between parameters, close
	// nothing: a value's, and a key's unless the text between opens it
	// (prefix: what its opening tags start with).
	strayClosers() []tagPair
}

func (f prefixedTags) valueOpening(read string) (string, string) {
	return read, f.paramTag[:strings.IndexAny(f.paramTag[1:], " =")+1]
}

// tagPair is a closing tag and what its opening tags start with.
type tagPair struct{ closing, prefix string }

func (prefixedTags) strayClosers() []tagPair { return []tagPair{{closing: paramClose}} }

func (glm45) valueOpening(read string) (string, string) {
	if strings.HasSuffix(read, glmValue) {
		return glmValue, strings.TrimSuffix(glmValue, ">")
	}
	return "", strings.TrimSuffix(glmValue, ">")
}

func (glm45) strayClosers() []tagPair {
	// A key with no value at all stays out (glm.go): its closing tag
	// closes its key.
	return []tagPair{{closing: glmClose}, {glmKeyClose, strings.TrimSuffix(glmKey, ">")}}
}

// valueOpening is the open value's opening tag as written, "" where the
// format judges no tags or the value has none.
func (p *textParser) valueOpening() string {
	c := &p.call
	vt, ok := p.valueTags()
	if !ok {
		return ""
	}
	opening, _ := vt.valueOpening(validString(p.buf[c.valOpen:c.valStart]))
	return opening
}

// judgeOpening looks, before any of the value is shown, at whether it
// starts with its own opening tag again, nothing between: then the value
// starts after it, so the previews never show it, and closeValue judges
// whether the value's tags balance without it (written twice) or not (two
// readings). false: the bytes so far could still be the tag.
func (p *textParser) judgeOpening() bool {
	c := &p.call
	v := p.buf[c.valStart:]
	switch {
	case c.opening == "":
	case len(v) < len(c.opening) && strings.HasPrefix(c.opening, string(v)):
		return false
	case strings.HasPrefix(string(v[:min(len(v), len(c.opening))]), c.opening):
		c.valStart += len(c.opening)
		c.emitted, c.openTwice = c.valStart, true
		p.pos = max(p.pos, c.valStart)
	}
	c.openJudged = true
	return true
}

// closesValue decides, at a closing tag at b[at] that closes the value
// only before one of the call's follows, whether it does: it returns
// where the value ends and the parse goes on. The closing tag written
// twice, nothing between, before a follow, is one closing tag (XML_REPAIRED)
// unless the value opens the tag itself, which the first then closes.
func (p *textParser) closesValue(at int) (m match, end, next int) {
	c := &p.call
	n := len(c.paramClose)
	after := p.buf[at+n:]
	if m = anyFollows(after, c.follows); m != noMatch {
		return m, at, at + n
	}
	if literal(after, c.paramClose) == needMore {
		return needMore, 0, 0
	}
	if literal(after, c.paramClose) == noMatch {
		return noMatch, 0, 0
	}
	if m = anyFollows(after[n:], c.follows); m != matched {
		return m, 0, 0
	}
	if vt, ok := p.valueTags(); ok {
		_, prefix := vt.valueOpening("")
		value := validString(p.buf[c.valStart:at])
		opens := repair.CountOpening(value, prefix)
		if c.openTwice {
			opens++
		}
		if opens > strings.Count(value, c.paramClose) {
			return matched, at + n, at + 2*n
		}
	}
	if !c.dropped && !c.repeat {
		c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: c.param,
			Detail: fmt.Sprintf("the closing tag %s was written twice; the second was taken out", c.paramClose)})
	}
	return matched, at, at + 2*n
}

// judgeValue returns the value of the open parameter, raw as found, and
// refuses the call where its own tags leave two readings.
func (p *textParser) judgeValue(raw string) string {
	c := &p.call
	vt, ok := p.valueTags()
	if !ok {
		return raw
	}
	_, prefix := vt.valueOpening("")
	closing := c.paramClose
	if c.openTwice {
		if repair.CountOpening(raw, prefix) == strings.Count(raw, closing) {
			c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: c.param,
				Detail: fmt.Sprintf("the opening tag %s was written twice; the second was taken out", c.opening)})
			return raw
		}
		p.refuse(fmt.Sprintf("The value of %q starts with its opening tag %s a second time, and its tags do not balance without it: the tag was written twice, or the value holds it, so the call was not read. Write the tag once.", c.param, c.opening))
		return raw
	}
	if _, _, refusal := repair.OwnTags(c.param, raw, "", prefix, closing, p.textParam(c.param), false); refusal != "" {
		p.refuse(refusal)
	}
	return raw
}

// textParam reports whether a value may hold a closing tag that nothing
// in it opens: file text, or any parameter of a tool the parser does not
// know.
func (p *textParser) textParam(name string) bool {
	tags, known := p.opts.Tools[p.call.name]
	return !known || tags.Params[name]
}

// valueTags is the format whose values' tags are judged, auto's as it
// decided.
func (p *textParser) valueTags() (valueTagged, bool) {
	syntax := p.syntax
	if p.auto != nil {
		syntax = p.auto.syntax
	}
	vt, ok := syntax.(valueTagged)
	return vt, ok
}

// strayClosing matches at b[0] == '<', between parameters, a closing tag
// of a value. One that the text since the last parameter does not open
// closes nothing: the call is refused. It returns the bytes to pass over.
func (p *textParser) strayClosing(b []byte) (match, int) {
	c := &p.call
	vt, ok := p.valueTags()
	if !ok {
		return noMatch, 0
	}
	best := noMatch
	for _, t := range vt.strayClosers() {
		switch literal(b, t.closing) {
		case needMore:
			best = needMore
		case matched:
			gap := validString(p.buf[c.gapStart:p.pos])
			if !c.dropped && (t.prefix == "" || repair.CountOpening(gap, t.prefix) <= strings.Count(gap, t.closing)) {
				p.refuse(repair.LostOpeningMessage(gap, t.closing))
			}
			// What is read so far is judged: the next closing tag looks
			// only at the text after this one.
			c.gapStart = p.pos + len(t.closing)
			return matched, len(t.closing)
		}
	}
	return best, 0
}

// refuse keeps the first reason a call cannot be read.
func (p *textParser) refuse(why string) {
	if p.call.refusal == "" {
		p.call.refusal = why
	}
}
