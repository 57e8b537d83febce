package stream

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// hermes is <tool_call>{"name": ..., "arguments": {...}}</tool_call>, a JSON
// body whose closing tag counts only outside its strings.
type hermes struct{ noParams }

// noParams is a format whose calls hold JSON, not parameter tags: the tag
// machine never asks it about parameters.
type noParams struct{}

func (noParams) param(*textParser, []byte) (match, string, int) { return noMatch, "", 0 }

func (noParams) valueClose(*textParser, string) (string, bool) { return "", false }

func (noParams) cutsValue(*textParser, []byte) (match, string) { return noMatch, "" }

const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
)

func (hermes) triggers() string { return "<{" }

// opener matches <tool_call>, or, where the response starts, the bare
// object {"name": ..., "arguments": ...} a server left without its tags
// (llamaShape), which its own end closes.
func (hermes) opener(p *textParser, b []byte) (match, bool, string, int) {
	if b[0] == '{' {
		if p.runProse || p.afterCall || p.base+p.pos-len(p.space) != 0 {
			return noMatch, false, "", 0
		}
		return llamaShape(b, p.headerBound()), false, "", 0
	}
	return literal(b, hermesOpen), false, "", len(hermesOpen)
}

func (hermes) begin(p *textParser, n int) textState {
	if n == 0 { // a bare object: its own end closes it
		return p.beginBody(n, nil)
	}
	return p.beginBody(n, hermesClosers)
}

var hermesClosers = []string{hermesClose}

// beginBody starts a body holding the name and the arguments, ended by one
// of closers or, with none, by its own end; the call is announced once its
// name is read.
func (p *textParser) beginBody(n int, closers []string) textState {
	c := &p.call
	c.bodyStart = n
	c.setClosers(closers)
	c.hermes.argsPreview = newArgsPreview(c.hermes.emitStarted, c.hermes.paramTextStarted, c.index, 2, p.opts.MaxParamBytes)
	return inHermes
}

// beginArgs starts a body that is the arguments of a call its header
// named, ended by one of closers or, with none, by its own end.
func (p *textParser) beginArgs(n int, closers []string) textState {
	c := &p.call
	c.bodyStart = n
	c.setClosers(closers)
	c.scan.maxDepth = p.opts.MaxJSONDepth // no body level around the arguments
	h := &c.hermes
	h.direct, h.nameDone, h.name = true, true, []byte(c.name)
	h.argsPreview = newArgsPreview(h.emitStarted, h.paramTextStarted, c.index, 1, p.opts.MaxParamBytes)
	h.start(c.name)
	return inHermes
}

// setClosers sets the tokens that end the body; they share their first
// byte, which the scanner stops at outside strings.
func (c *openCall) setClosers(closers []string) {
	c.closers, c.stop = closers, 0
	if len(closers) > 0 {
		c.stop = closers[0][0]
	}
	c.scan.endStops = len(closers) == 0
}

func (hermes) call(p *textParser, block []byte, bodyEnd int) repair.Call {
	return p.call.hermes.call(block[:bodyEnd])
}

func (p *textParser) inHermes() bool {
	c := &p.call
	for {
		c.scan.pos = p.pos
		stopped := c.scan.scan(p.buf, c.stop)
		p.pos = c.scan.pos
		if c.scan.tooDeep && !c.dropped {
			p.drop(jsonTooDeepEvent(c.index, p.opts.MaxJSONDepth))
		}
		if len(c.closers) == 0 {
			// The value's end ends the call; a value the scanner cannot
			// follow ends where it lost it, and the rest is text.
			if c.scan.state != stDone && c.scan.state != stLost {
				return false
			}
			p.closeCall(p.pos, p.pos, false)
			return true
		}
		if !stopped {
			return false
		}
		switch m, n := anyLiteral(p.buf[p.pos:], c.closers...); m {
		case matched:
			p.closeCall(p.pos, p.pos+n, false)
			return true
		case needMore:
			return false
		}
		c.scan.skip()
		p.pos = c.scan.pos
	}
}

type hermesCall struct {
	p *textParser
	argsPreview
	// direct: the body is the arguments, of a call its header named.
	direct    bool
	name      []byte
	nameDone  bool
	nameFull  bool // name holds all it may of a longer one
	started   bool
	argsStart int // -1 until the arguments value starts
	argsEnd   int
}

func (h *hermesCall) valueStart(s *jsonScanner, start int) {
	if h.direct && len(s.stack) == 0 {
		h.argsStart = start
	}
	if !h.direct && len(s.stack) == 1 && s.stack[0].obj && isArgumentsKey(s.stack[0].key) && h.argsStart < 0 {
		h.argsStart = start
	}
	if h.inArgs(s) {
		h.argsPreview.valueStart(s, start)
	}
}

// inArgs reports a value outside any arguments-like member but the one the
// call takes: the previews show only the arguments the closed call has.
func (h *hermesCall) inArgs(s *jsonScanner) bool {
	return h.direct || len(s.stack) < 2 || s.stack[1].start == h.argsStart
}

func (h *hermesCall) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if !h.direct && len(s.stack) == 1 && s.stack[0].key == "name" && !h.nameDone && !h.nameFull {
		// A name is cut at the last whole character that fits and never
		// appended to after: what is kept does not depend on the chunks.
		part := chunk
		if room := maxKeyBytes - len(h.name); len(part) > room {
			for room > 0 && !utf8.RuneStart(part[room]) {
				room--
			}
			part, h.nameFull = part[:room], true
		}
		h.name = append(h.name, part...)
	}
	if h.inArgs(s) {
		h.argsPreview.stringGrew(s, chunk, end)
	}
}

func (h *hermesCall) valueEnd(s *jsonScanner, start, end int) {
	if h.direct && len(s.stack) == 0 {
		h.argsEnd = end
	}
	if !h.direct && len(s.stack) == 1 {
		switch key := s.stack[0].key; {
		case key == "name" && !h.nameDone && (s.buf[start] == '"' || s.buf[start] == '\''):
			h.nameDone = true
			h.start(string(h.name))
		case isArgumentsKey(key) && start == h.argsStart:
			h.argsEnd = end
		}
	}
	if h.inArgs(s) {
		h.argsPreview.valueEnd(s, start, end)
	}
}

// emitStarted passes on the previews of a started call only: arguments
// written before the name are measured but not shown.
func (h *hermesCall) emitStarted(e Event) {
	if h.started {
		h.p.emit(e)
	}
}

func (h *hermesCall) paramTextStarted(index int, param, text string) {
	if h.started {
		h.p.opts.ParamText(index, param, text)
	}
}

func (h *hermesCall) start(name string) {
	if h.started {
		return
	}
	h.started = true
	h.p.flushText()
	h.p.emit(Event{Kind: EventCallStarted, Index: h.index, ID: h.p.call.id, Name: name, Offset: h.p.call.start, Inline: h.p.call.inline})
}

// call builds the closed call, with JSON repair when the scanner was lost.
func (h *hermesCall) call(block []byte) repair.Call {
	body := block[h.p.call.bodyStart:]
	if h.direct {
		return repair.Call{Name: h.p.call.name, Form: repair.FormText, Text: h.directArgs(block), Repairs: h.p.call.repairs}
	}
	name, args := string(h.name), ""
	switch {
	case h.nameDone && h.argsStart >= 0 && h.argsEnd > h.argsStart:
		args = validString(block[h.argsStart:h.argsEnd])
	case h.nameDone && h.argsStart >= 0:
		args = validString(block[h.argsStart:])
	case h.nameDone && h.p.call.scan.state == stDone:

	default:
		var found string
		found, args = hermesFallback(validString(body))
		// A call closes under the name it started with.
		if !h.nameDone {
			name = found
		}
	}
	h.start(name)
	return repair.Call{Name: name, Form: repair.FormText, Text: args}
}

// directArgs returns the arguments of a call its header named: the JSON
// value, or when the scanner could not follow it, the body as written
// (less the fence around it), for repair.
func (h *hermesCall) directArgs(block []byte) string {
	c := &h.p.call
	switch {
	case h.argsStart >= 0 && h.argsEnd > h.argsStart:
		return validString(block[h.argsStart:h.argsEnd])
	case h.argsStart >= 0:
		block = block[h.argsStart:]
	default:
		block = block[c.bodyStart:]
	}
	body := bytes.TrimRightFunc(block, unicode.IsSpace)
	if c.fenced {
		body = bytes.TrimRightFunc(bytes.TrimSuffix(body, []byte("```")), unicode.IsSpace)
	}
	return validString(bytes.TrimLeftFunc(body, unicode.IsSpace))
}

// hermesFallback reads a body the scanner could not follow (a Python dict,
// a nested "function" object) with JSON repair.
func hermesFallback(body string) (name, args string) {
	r, err := repair.RepairJSON(body, repair.JSONOptions{ForCall: true})
	if err != nil {
		return "", body
	}
	m, ok := r.Value.(map[string]any)
	if !ok {
		return "", body
	}
	if f, ok := m["function"].(map[string]any); ok {
		m = f
	}
	name, _ = m["name"].(string)
	for _, k := range []string{"arguments", "parameters", "args", "input"} {
		switch v := m[k].(type) {
		case nil:
			continue
		case string:
			return name, v
		default:
			out, err := repair.EncodeJSON(v)
			if err != nil {
				return name, ""
			}
			return name, string(out)
		}
	}
	return name, ""
}

func (p *textParser) dropHermesParam() {
	c := &p.call
	p.drop(paramTooLargeEvent(c.index, c.hermes.param, p.opts.MaxParamBytes))
}
