package proxy

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// openAIRescue rescues the calls left in a chat completions stream's
// content (rescue.go) before the fixer sees the events. The content deltas
// go through a rescuer: a delta whose text may go out as it came is passed
// unchanged; one holding text that may still be part of a call goes with
// the content that may go out, and the held text follows in the events
// made for it. A rescued call goes out as one tool_calls delta. At the end
// (a finish_reason, [DONE], the body's end), what is held goes out; the
// finish_reason "stop" becomes "tool_calls" when a call was rescued.
//
// Rescue is given up, what is held sent as it came, when the upstream
// sends tool calls itself or several choices: its indexes are then not
// the rescue's to take, or invalid UTF-8 in the content.
type openAIRescue struct {
	next eventProcessor
	f    *fixer // the events made go out through it, after what it holds
	r    *rescuer
	// The chunk fields the events made for rescued calls repeat.
	id, created, model []byte
	calls              int
	c                  rescueChunk
}

// rescueChunk is what the rescue reads of a chunk, with the proxy's JSON
// walker (a stream has tens of thousands of chunks).
type rescueChunk struct {
	id, created, model span
	choices, index     int
	content            []byte
	hasContent         bool
	calls              bool // the delta holds tool calls
	finish             []byte
}

func (c *rescueChunk) parse(data []byte) bool {
	*c = rescueChunk{content: c.content[:0]}
	end := members(data, skipSpace(data, 0), func(key []byte, v int) int {
		switch string(key) {
		case "id", "created", "model":
			e := skipValue(data, v)
			s := span{v, e}
			switch key[0] {
			case 'i':
				c.id = s
			case 'c':
				c.created = s
			default:
				c.model = s
			}
			return e
		case "choices":
			if data[v] == 'n' {
				return skipValue(data, v)
			}
			return elements(data, v, func(_, v int) int {
				c.choices++
				return c.parseChoice(data, v)
			})
		}
		return skipValue(data, v)
	})
	return end >= 0
}

func (c *rescueChunk) parseChoice(data []byte, v int) int {
	return members(data, v, func(key []byte, v int) int {
		switch string(key) {
		case "index":
			return readInt(data, v, &c.index)
		case "finish_reason":
			return readText(data, v, &c.finish)
		case "delta":
			if data[v] == 'n' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "content":
					var s span
					end := readString(data, v, &s)
					if s.end > 0 {
						c.content, c.hasContent = appendUnquoted(c.content[:0], data[s.start:s.end])
					}
					return end
				case "tool_calls":
					end := skipValue(data, v)
					c.calls = end >= 0 && data[v] == '[' && data[skipSpace(data, v+1)] != ']'
					return end
				}
				return skipValue(data, v)
			})
		}
		return skipValue(data, v)
	})
}

func (x *openAIRescue) event(raw []byte) {
	if x.r == nil {
		x.next.event(raw)
		return
	}
	data, off, single, ok := eventData(raw)
	switch {
	case !ok:
		x.next.event(raw)
		return
	case bytes.Equal(bytes.TrimSpace(data), markDone):
		x.finish()
		x.next.event(raw)
		return
	}
	c := &x.c
	if !c.parse(data) || c.choices == 0 {
		x.next.event(raw)
		return
	}
	if x.id == nil {
		x.id, x.created, x.model = fieldOf(data, c.id), fieldOf(data, c.created), fieldOf(data, c.model)
	}
	// Invalid UTF-8 in the content goes as it came: the parser would
	// replace it.
	if c.choices > 1 || c.index != 0 || c.calls || !utf8.Valid(c.content) {
		x.finish()
		x.next.event(raw)
		return
	}
	finish := c.finish != nil
	if c.hasContent && len(c.content) > 0 {
		x.r.write(string(c.content))
		pieces := x.r.take()
		if !finish && len(pieces) == 1 && pieces[0].call == nil && pieces[0].text == string(c.content) {
			x.next.event(raw) // the delta as it came
			return
		}
		// The event keeps its other fields, with the content that may go.
		first := ""
		if len(pieces) > 0 && pieces[0].call == nil && !finish {
			first, pieces = pieces[0].text, pieces[1:]
		}
		if cs, ce, ok := valueAt(data, "choices", 0, "delta", "content"); ok {
			raw = rewriteData(raw, off, single, len(data), applyEdits(data, []edit{{start: cs, end: ce, text: jsonString(first)}}))
			data, off, single, _ = eventData(raw)
		}
		if !finish {
			x.next.event(raw)
			x.emit(pieces)
			return
		}
		x.emit(pieces)
	}
	if finish {
		// The calls of a text wait for its end (stream/tail.go): count
		// them after it.
		rescued := x.r != nil && x.r.end() > 0
		x.finish()
		if rescued && string(c.finish) == "stop" {
			if fs, fe, ok := valueAt(data, "choices", 0, "finish_reason"); ok {
				raw = rewriteData(raw, off, single, len(data), applyEdits(data, []edit{{start: fs, end: fe, text: []byte(`"tool_calls"`)}}))
			}
		}
	}
	x.next.event(raw)
}

// finish ends the rescue: what is held goes out.
func (x *openAIRescue) finish() {
	if x.r == nil {
		return
	}
	x.r.end()
	x.emit(x.r.take())
	x.r = nil
}

// emit writes an event per piece.
func (x *openAIRescue) emit(pieces []rescuePiece) {
	for _, pc := range pieces {
		var delta []byte
		if pc.call == nil {
			delta = append(append([]byte(`{"content":`), jsonString(pc.text)...), '}')
		} else {
			index := x.calls
			x.calls++
			delta = append(append([]byte(`{"tool_calls":[`), marshalNoEscape(openAICall(pc.call, &index))...), "]}"...)
		}
		x.f.pass(fmt.Appendf(nil, `data: {"id":%s,"object":"chat.completion.chunk","created":%s,"model":%s,"choices":[{"index":0,"delta":%s,"finish_reason":null}]}`+"\n\n",
			x.id, x.created, x.model, delta))
	}
}

// fieldOf copies a chunk's member value, "null" when absent.
func fieldOf(data []byte, s span) []byte {
	if s.end <= s.start {
		return []byte("null")
	}
	return bytes.Clone(data[s.start:s.end])
}

func (x *openAIRescue) end(cut bool) {
	x.finish()
	x.next.end(cut)
}

func (x *openAIRescue) stopped() bool { return x.next.stopped() }

func (x *openAIRescue) drain() { x.next.drain() }

// frame lets the fixer take runs of events once the rescue is over: its
// event then hands every event on as it came.
func (x *openAIRescue) frame(buf []byte) int {
	x.f.runs = x.r == nil
	return x.next.frame(buf)
}

func (x *openAIRescue) close() { x.next.close() }
