package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/toolguard/toolguard/repair/stream"
)

// anthropicEvent is what the proxy reads of a messages stream event.
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
	end := members(data, skipSpace(data, 0), func(key []byte, v int) int {
		switch string(key) {
		case "type":
			return readText(data, v, &e.typ)
		case "index":
			return readInt(data, v, &e.index)
		case "content_block":
			if data[v] != '{' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "type":
					return readText(data, v, &e.blockType)
				case "name":
					return readString(data, v, &e.name)
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
					return readText(data, v, &e.deltaType)
				case "partial_json":
					return readString(data, v, &e.partial)
				case "stop_reason":
					return readText(data, v, &e.stopReason)
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

func (f anthropicFixer) event(raw []byte) { f.fixer.event(raw, f) }

func (f anthropicFixer) read(data []byte) reading {
	interesting := f.tmpl.valid || bytes.Contains(data, markToolUse) || bytes.Contains(data, markInputJSONDelta) ||
		f.open > 0 && (bytes.Contains(data, markBlockStop) || bytes.Contains(data, markMessageDelta) ||
			bytes.Contains(data, markMessageStop) || bytes.Contains(data, markError))
	if !interesting || !f.ae.parse(data) {
		return readNone
	}
	return readJSON
}

func (f anthropicFixer) readFragment(s span, key callKey) {
	f.ae = anthropicEvent{typ: typeBlockDelta, index: key.index, deltaType: typeInputJSONDelta, partial: s}
}

func (f anthropicFixer) fragmentOnly() (span, callKey, bool) {
	e := &f.ae
	ok := string(e.typ) == "content_block_delta" && string(e.deltaType) == "input_json_delta" && e.partial.end > 0 &&
		e.name.end == 0 && len(e.stopReason) == 0 && len(e.blockType) == 0
	return e.partial, callKey{0, e.index}, ok
}

func (f anthropicFixer) handle(raw, data []byte) bool {
	e := &f.ae
	switch string(e.typ) {
	case "content_block_start":
		return string(e.blockType) == "tool_use" && f.blockStart(raw, data)
	case "content_block_delta":
		return string(e.deltaType) == "input_json_delta" && e.partial.end > 0 && f.blockDelta(raw, data)
	case "content_block_stop":
		return f.blockStop(raw)
	case "message_delta":
		if len(e.stopReason) == 0 {
			return false
		}
		f.enqueue(raw)
		length := stream.IsLengthLimit(string(e.stopReason))
		f.finish(all, func(c *streamCall) bool { return length || !c.stopped })
		return true
	case "message_stop", "error":
		// The end, or the stream failed: calls still open were cut off.
		f.enqueue(raw)
		f.finish(all, always)
		return true
	}
	return false
}

func (f anthropicFixer) blockStart(raw, data []byte) bool {
	key := callKey{0, f.ae.index}
	if old := f.call(key); old != nil && old.isOpen() {
		f.complete(old, !old.stopped) // a block restarted
	}
	c := f.newCall(key)
	c.name, _ = appendUnquoted(nil, data[f.ae.name.start:f.ae.name.end])
	f.fragment(c, fragment{ev: f.enqueue(raw), name: f.ae.name})
	f.decide(c)
	return true
}

func (f anthropicFixer) blockDelta(raw, data []byte) bool {
	c := f.call(callKey{0, f.ae.index})
	if c == nil || c.state == statePassing {
		return false
	}
	ev := f.enqueue(raw)
	if c.state == stateDone {
		f.late(c, ev, data, f.ae.partial)
		return true
	}
	f.appendArgs(c, data[f.ae.partial.start:f.ae.partial.end])
	f.fragment(c, fragment{ev: ev, args: f.ae.partial})
	f.advance(c)
	return true
}

func (f anthropicFixer) blockStop(raw []byte) bool {
	c := f.call(callKey{0, f.ae.index})
	if c == nil || c.state != stateHeld {
		return false
	}
	f.enqueue(raw)
	if len(c.args) == 0 || c.scan.Scan(c.args) {
		f.complete(c, false)
	} else {
		// Its JSON never closed: cut off by the token limit, or a model
		// that forgot a bracket. The message's stop reason, which comes
		// next, tells which.
		c.stopped = true
	}
	return true
}

type anthropicResponse struct {
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
}

// anthropicBodyCalls returns the calls of a message.
func anthropicBodyCalls(body []byte) []bodyCall {
	var r anthropicResponse
	if !bytes.Contains(body, markToolUse) || json.Unmarshal(body, &r) != nil {
		return nil
	}
	var out []bodyCall
	for k, b := range r.Content {
		if b.Type != "tool_use" {
			continue
		}
		out = append(out, bodyCall{
			index: k, name: b.Name, args: b.Input,
			truncated: stream.IsLengthLimit(r.StopReason) && k == len(r.Content)-1,
			argsPath:  []any{"content", k, "input"}, namePath: []any{"content", k, "name"},
		})
	}
	return out
}
