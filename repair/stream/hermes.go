package stream

import (
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// hermes is <tool_call>{"name": ..., "arguments": {...}}</tool_call>, a JSON
// body whose closing tag counts only outside its strings.
type hermes struct{}

const (
	hermesOpen  = "<tool_call>"
	hermesClose = "</tool_call>"
)

func (hermes) opener(_ *textParser, b []byte) (match, bool, string, int) {
	return literal(b, hermesOpen), false, "", len(hermesOpen)
}

// begin starts the body; the call is announced once its name is read.
func (hermes) begin(p *textParser, n int) textState {
	c := &p.call
	c.bodyStart = n
	c.hermes.argsPreview = newArgsPreview(c.hermes.emitStarted, c.index, 2, p.opts.MaxParamBytes)
	return inHermes
}

// param and valueClose are never asked: a Hermes body has no parameter tags.
func (hermes) param(*textParser, []byte) (match, string, int) { return noMatch, "", 0 }

func (hermes) valueClose(*textParser, string) (string, bool) { return "", false }

func (hermes) cutsValue(*textParser, []byte) (match, string) { return noMatch, "" }

func (hermes) call(p *textParser, block []byte, bodyEnd int) repair.Call {
	return p.call.hermes.call(block[:bodyEnd])
}

func (p *textParser) inHermes() bool {
	c := &p.call
	for {
		c.scan.pos = p.pos
		stopped := c.scan.scan(p.buf, '<')
		p.pos = c.scan.pos
		if c.scan.tooDeep && !c.dropped {
			p.drop(jsonTooDeepEvent(c.index, p.opts.MaxJSONDepth))
		}
		if !stopped {
			return false
		}
		switch literal(p.buf[p.pos:], hermesClose) {
		case matched:
			p.closeCall(p.pos, p.pos+len(hermesClose), false)
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
	name      []byte
	nameDone  bool
	nameFull  bool // name holds all it may of a longer one
	started   bool
	argsStart int // -1 until the arguments value starts
	argsEnd   int
}

func (h *hermesCall) valueStart(s *jsonScanner, start int) {
	if len(s.stack) == 1 && s.stack[0].obj && isArgumentsKey(s.stack[0].key) && h.argsStart < 0 {
		h.argsStart = start
	}
	if h.inArgs(s) {
		h.argsPreview.valueStart(s, start)
	}
}

// inArgs reports a value outside any arguments-like member but the one the
// call takes: the previews show only the arguments the closed call has.
func (h *hermesCall) inArgs(s *jsonScanner) bool {
	return len(s.stack) < 2 || s.stack[1].start == h.argsStart
}

func (h *hermesCall) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if len(s.stack) == 1 && s.stack[0].key == "name" && !h.nameDone && !h.nameFull {
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
	if len(s.stack) == 1 {
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

func (h *hermesCall) start(name string) {
	if h.started {
		return
	}
	h.started = true
	h.p.flushText()
	h.p.emit(Event{Kind: EventCallStarted, Index: h.index, Name: name})
}

// call builds the closed call, with JSON repair when the scanner was lost.
func (h *hermesCall) call(block []byte) repair.Call {
	body := block[h.p.call.bodyStart:]
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

// hermesFallback reads a body the scanner could not follow (a Python dict,
// a nested "function" object) with JSON repair.
func hermesFallback(body string) (name, args string) {
	r, err := repair.RepairJSON(body, repair.JSONOptions{})
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
