package proxy

import (
	"bytes"

	"github.com/toolguard/toolguard/repair/stream"
)

// Anthropic messages stream events.

// anthropicEvent is what the proxy reads of an event.
type anthropicEvent struct {
	typ        []byte
	index      int
	blockType  []byte
	name       span // content_block.name
	deltaType  []byte
	partial    span // delta.partial_json
	stopReason []byte
}

func (e *anthropicEvent) parse(data []byte) bool {
	*e = anthropicEvent{}
	str := func(v int, into *[]byte) int {
		s, end, ok := stringAt(data, v)
		if ok {
			*into, _ = appendUnquoted(nil, data[s.start:s.end])
		}
		return end
	}
	end := members(data, skipSpace(data, 0), func(key []byte, v int) int {
		switch string(key) {
		case "type":
			return str(v, &e.typ)
		case "index":
			n, end := intAt(data, v)
			e.index = n
			return end
		case "content_block":
			if data[v] != '{' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "type":
					return str(v, &e.blockType)
				case "name":
					s, end, ok := stringAt(data, v)
					if ok {
						e.name = s
					}
					return end
				}
				return skipValue(data, v)
			})
		case "delta":
			if data[v] != '{' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "type":
					return str(v, &e.deltaType)
				case "partial_json":
					s, end, ok := stringAt(data, v)
					if ok {
						e.partial = s
					}
					return end
				case "stop_reason":
					return str(v, &e.stopReason)
				}
				return skipValue(data, v)
			})
		}
		return skipValue(data, v)
	})
	return end >= 0
}

var (
	markToolUse        = []byte(`"tool_use"`)
	markInputJSONDelta = []byte(`"input_json_delta"`)
	markBlockStop      = []byte(`"content_block_stop"`)
	markMessageDelta   = []byte(`"message_delta"`)
	markMessageStop    = []byte(`"message_stop"`)
	markError          = []byte(`"error"`)
)

var (
	typeBlockDelta     = []byte("content_block_delta")
	typeInputJSONDelta = []byte("input_json_delta")
)

// anthropicFixer follows a messages stream.
type anthropicFixer struct{ *fixer }

func (f anthropicFixer) event(raw []byte) {
	if f.halt {
		return
	}
	data, _, single, ok := eventData(raw)
	if !ok {
		f.pass(raw)
		return
	}
	interesting := f.tmpl.valid || bytes.Contains(data, markToolUse) || bytes.Contains(data, markInputJSONDelta) ||
		f.open > 0 && (bytes.Contains(data, markBlockStop) || bytes.Contains(data, markMessageDelta) ||
			bytes.Contains(data, markMessageStop) || bytes.Contains(data, markError))
	if !interesting {
		f.pass(raw)
		return
	}
	var e anthropicEvent
	if sp, ok := f.tmpl.match(data, single); ok {
		// The same delta as the last one but for its fragment.
		e = anthropicEvent{typ: typeBlockDelta, index: f.tmpl.key.index, deltaType: typeInputJSONDelta, partial: sp}
	} else {
		if !e.parse(data) {
			f.pass(raw)
			return
		}
		f.tmpl.valid = false
		if string(e.typ) == "content_block_delta" && string(e.deltaType) == "input_json_delta" && e.partial.end > 0 &&
			e.name.end == 0 && len(e.stopReason) == 0 && len(e.blockType) == 0 && single {
			f.tmpl.set(data, e.partial, callKey{0, e.index})
		}
	}
	key := callKey{0, e.index}
	switch string(e.typ) {
	case "content_block_start":
		if string(e.blockType) != "tool_use" {
			break
		}
		if old := f.calls[key]; old != nil && old.isOpen() {
			f.complete(old, !old.stopped) // a block restarted
		}
		c := f.newCall(key)
		c.name, _ = appendUnquoted(nil, data[e.name.start:e.name.end])
		f.fragment(c, fragment{ev: f.enqueue(raw), name: e.name})
		f.decide(c)
		f.drain()
		return
	case "content_block_delta":
		c := f.calls[key]
		if c == nil || string(e.deltaType) != "input_json_delta" || e.partial.end == 0 || c.state == statePassing {
			break
		}
		ev := f.enqueue(raw)
		if c.state == stateDone {
			frag, _ := appendUnquoted(nil, data[e.partial.start:e.partial.end])
			f.late(c, ev, e.partial, frag)
			f.drain()
			return
		}
		c.args, _ = appendUnquoted(c.args, data[e.partial.start:e.partial.end])
		f.fragment(c, fragment{ev: ev, args: e.partial})
		f.advance(c)
		f.drain()
		return
	case "content_block_stop":
		c := f.calls[key]
		if c == nil || c.state != stateHeld {
			break
		}
		f.enqueue(raw)
		if len(c.args) == 0 || c.scan.Scan(c.args) {
			f.complete(c, false)
		} else {
			// Its JSON never closed: cut off by the token limit, or a
			// model that forgot a bracket. The message's stop reason,
			// which comes next, tells which.
			c.stopped = true
		}
		f.drain()
		return
	case "message_delta":
		if len(e.stopReason) == 0 {
			break
		}
		f.enqueue(raw)
		length := stream.IsLengthLimit(string(e.stopReason))
		f.finish(all, func(c *streamCall) bool { return length || !c.stopped })
		f.drain()
		return
	case "message_stop", "error":
		// The end, or the stream failed: calls still open were cut off.
		f.enqueue(raw)
		f.finish(all, always)
		f.drain()
		return
	}
	f.pass(raw)
}
