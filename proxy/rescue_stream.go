package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// the rescue's to take.
type openAIRescue struct {
	next eventProcessor
	f    *fixer // the events made go out through it, after what it holds
	r    *rescuer
	// The chunk fields the events made for rescued calls repeat.
	id, created, model json.RawMessage
	calls              int
}

type openAIRescueChunk struct {
	ID      json.RawMessage `json:"id"`
	Created json.RawMessage `json:"created"`
	Model   json.RawMessage `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string         `json:"content"`
			ToolCalls json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
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
	var c openAIRescueChunk
	if json.Unmarshal(data, &c) != nil || len(c.Choices) == 0 {
		x.next.event(raw)
		return
	}
	x.id, x.created, x.model = c.ID, c.Created, c.Model
	ch := c.Choices[0]
	if len(c.Choices) > 1 || ch.Index != 0 || hasCalls(ch.Delta.ToolCalls) {
		x.finish()
		x.next.event(raw)
		return
	}
	if ch.Delta.Content != nil && *ch.Delta.Content != "" {
		x.r.write(*ch.Delta.Content)
		pieces := x.r.take()
		if ch.FinishReason == nil && len(pieces) == 1 && pieces[0].call == nil && pieces[0].text == *ch.Delta.Content {
			x.next.event(raw) // the delta as it came
			return
		}
		// The event keeps its other fields, with the content that may go.
		first := ""
		if len(pieces) > 0 && pieces[0].call == nil && ch.FinishReason == nil {
			first, pieces = pieces[0].text, pieces[1:]
		}
		if cs, ce, ok := valueAt(data, "choices", 0, "delta", "content"); ok {
			raw = rewriteData(raw, off, single, len(data), applyEdits(data, []edit{{start: cs, end: ce, text: jsonString(first)}}))
			data, off, single, _ = eventData(raw)
		}
		if ch.FinishReason == nil {
			x.next.event(raw)
			x.emit(pieces)
			return
		}
		x.emit(pieces)
	}
	if ch.FinishReason != nil {
		rescued := x.r.rescued > 0
		x.finish()
		if rescued && *ch.FinishReason == "stop" {
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
			orNull(x.id), orNull(x.created), orNull(x.model), delta))
	}
}

func orNull(v json.RawMessage) []byte {
	if len(v) == 0 {
		return []byte("null")
	}
	return v
}

func (x *openAIRescue) end(cut bool) {
	x.finish()
	x.next.end(cut)
}

func (x *openAIRescue) stopped() bool { return x.next.stopped() }

func (x *openAIRescue) drain() { x.next.drain() }

func (x *openAIRescue) close() { x.next.close() }
