package stream

import (
	"bytes"

	"github.com/toolguard/toolguard/repair"
)

// glm45 is GLM-4.5's format (also 4.6 and 4.7, which drop the newlines):
//
//	<tool_call>name
//	<arg_key>key</arg_key>
//	<arg_value>value</arg_value>
//	</tool_call>
//
// The wrapper is Hermes's, but the body is a name, then pairs of tags. A
// value is text, typed by the tool's schema in the pipeline; its closing
// tag counts only before the next <arg_key> or </tool_call> (the content
// rule of qwen_xml and minimax), so a value may hold "</arg_value>".
type glm45 struct{}

const (
	glmKey      = "<arg_key>"
	glmKeyClose = "</arg_key>"
	glmValue    = "<arg_value>"
	glmClose    = "</arg_value>"
)

// opener matches <tool_call> and the name after it, which ends at a
// newline or a tag. The name is one word: prose that mentions the tag
// ("wrap it in <tool_call> tags") is no call.
func (glm45) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m := literal(b, hermesOpen); m != matched {
		return m, false, "", 0
	}
	start := len(hermesOpen)
	for i := start; i < len(b); i++ {
		if i-start > p.maxTag {
			return noMatch, false, "", 0
		}
		if b[i] != '\n' && b[i] != '<' {
			continue
		}
		name := bytes.TrimSpace(b[start:i])
		if len(name) == 0 || bytes.ContainsAny(name, " \t\r") {
			return noMatch, false, "", 0
		}
		return matched, false, validString(name), i
	}
	return needMore, false, "", 0
}

func (glm45) begin(p *textParser, _ int) textState {
	c := &p.call
	c.closer, c.follows, c.params = hermesClose, []string{glmKey, hermesClose}, map[string]string{}
	return inCall
}

// param matches <arg_key>key</arg_key> and the <arg_value> after it, with
// white space (or a literal "\n", which GLM models write too) between.
func (glm45) param(p *textParser, b []byte) (match, string, int) {
	if m := literal(b, glmKey); m != matched {
		return m, "", 0
	}
	// The key runs to </arg_key>, on one line, no longer than a tag name.
	start := len(glmKey)
	window := b[start:min(len(b), start+p.maxTag+len(glmKeyClose))]
	k := bytes.IndexAny(window, "<\n")
	switch {
	case k < 0 && len(window) < len(b)-start, k >= 0 && window[k] == '\n':
		return noMatch, "", 0
	case k < 0:
		return needMore, "", 0
	}
	if m := literal(b[start+k:], glmKeyClose); m != matched {
		return m, "", 0
	}
	key := bytes.TrimSpace(window[:k])
	if len(key) == 0 {
		return noMatch, "", 0
	}
	i, m := p.glmGap(b, start+k+len(glmKeyClose))
	if m != matched {
		return m, "", 0
	}
	switch literal(b[i:], glmValue) {
	case needMore:
		return needMore, "", 0
	case noMatch:
		return noMatch, "", 0
	}
	return matched, validString(key), i + len(glmValue)
}

// glmGap passes over what may stand between </arg_key> and <arg_value>:
// white space, or a literal "\n" (GLM models write that too).
func (p *textParser) glmGap(b []byte, i int) (int, match) {
	for from := i; i-from <= p.maxTag; {
		switch {
		case i == len(b), b[i] == '\\' && i+1 == len(b):
			return i, needMore
		case isJSONSpace(b[i]):
			i++
		case b[i] == '\\' && b[i+1] == 'n':
			i += 2
		default:
			return i, matched
		}
	}
	return i, noMatch
}

func (glm45) valueClose(*textParser, string) (string, bool) { return glmClose, true }

func (f glm45) cutsValue(p *textParser, b []byte) (match, string) {
	m, name, _ := f.param(p, b)
	return p.cutsAt(m, name)
}

func (glm45) call(p *textParser, _ []byte, _ int) repair.Call { return p.paramsCall() }
