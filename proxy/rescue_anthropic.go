package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// anthropicRescue rescues the calls left in a messages stream's text
// blocks (rescue.go) before the fixer sees the events. Each text block's
// deltas go through a rescuer; a rescued call closes the text block it
// stood in and goes out as a tool_use block of its own, and the text after
// it opens a new text block: the blocks after it, the upstream's own
// included, move up by the blocks added. A stop_reason "end_turn" becomes
// "tool_use" when a call was rescued. With nothing rescued, the text goes
// out as it came, in the same or differently cut deltas.
type anthropicRescue struct {
	next  eventProcessor
	f     *fixer
	p     *Proxy
	rs    *request
	r     *rescuer // the text block being read, nil outside one
	shift int      // blocks added before the upstream's next
	cur   int      // the index of the block last opened
	open  bool     // the text block at cur is open
	any   bool     // a call was rescued
}

type anthropicRescueEvent struct {
	Type         string `json:"type"`
	Index        *int   `json:"index"`
	ContentBlock *struct {
		Type string `json:"type"`
	} `json:"content_block"`
	Delta *struct {
		Type       string  `json:"type"`
		Text       *string `json:"text"`
		StopReason *string `json:"stop_reason"`
	} `json:"delta"`
}

var markBlockStart = []byte(`"content_block_start"`)

func (x *anthropicRescue) event(raw []byte) {
	e, data, off, single, ok := x.read(raw)
	if !ok {
		x.next.event(raw)
		return
	}
	switch {
	case e.Type == "content_block_start" && e.Index != nil && e.ContentBlock != nil && e.ContentBlock.Type == "text":
		x.r = x.p.newRescuer(x.rs, *e.Index+x.shift)
		x.cur, x.open = *e.Index+x.shift, true
	case e.Type == "content_block_delta" && x.r != nil && e.Delta != nil && e.Delta.Type == "text_delta" && e.Delta.Text != nil:
		x.textDelta(raw, *e.Delta.Text)
		return
	case e.Type == "content_block_stop" && x.r != nil:
		x.r.end()
		x.emit(x.r.take())
		x.r = nil
		if !x.open {
			return // a rescued call closed the block
		}
		x.open = false
	case e.Type == "message_delta" && x.any && e.Delta != nil && e.Delta.StopReason != nil && *e.Delta.StopReason == "end_turn":
		if s, end, ok := valueAt(data, "delta", "stop_reason"); ok {
			raw = rewriteData(raw, off, single, len(data), applyEdits(data, []edit{{start: s, end: end, text: []byte(`"tool_use"`)}}))
		}
	}
	if e.Index != nil && x.shift != 0 {
		raw = x.moveIndex(raw, *e.Index)
	}
	x.next.event(raw)
}

// read decodes an event the rescue may act on; ok is false for one it
// passes on untouched: a run of the fixer's (frame), or, with no text block
// being read and nothing added, anything but a block's start or, after a
// rescued call, the message's delta.
func (x *anthropicRescue) read(raw []byte) (e anthropicRescueEvent, data []byte, off int, single, ok bool) {
	if h := x.f.hint; h.run && h.n == len(raw) && &raw[0] == h.at {
		return e, nil, 0, false, false
	}
	data, off, single, ok = eventData(raw)
	if !ok || x.shift == 0 && x.r == nil && !bytes.Contains(data, markBlockStart) && !(x.any && bytes.Contains(data, markMessageDelta)) {
		return e, nil, 0, false, false
	}
	if json.Unmarshal(data, &e) != nil {
		return e, nil, 0, false, false
	}
	return e, data, off, single, true
}

// textDelta follows a delta of the text block being read.
func (x *anthropicRescue) textDelta(raw []byte, text string) {
	x.r.write(text)
	pieces := x.r.take()
	if x.shift == 0 && len(pieces) == 1 && pieces[0].call == nil && pieces[0].text == text {
		x.next.event(raw) // the delta as it came
		return
	}
	x.emit(pieces)
}

// moveIndex returns the event with its block index moved past the blocks
// added.
func (x *anthropicRescue) moveIndex(raw []byte, index int) []byte {
	data, off, single, _ := eventData(raw)
	s, end, ok := valueAt(data, "index")
	if !ok {
		return raw
	}
	return rewriteData(raw, off, single, len(data), applyEdits(data, []edit{{start: s, end: end, text: strconv.AppendInt(nil, int64(index+x.shift), 10)}}))
}

// emit writes the events of a text block's pieces: text deltas, and for a
// call, the text block closed and a tool_use block.
func (x *anthropicRescue) emit(pieces []rescuePiece) {
	for _, pc := range pieces {
		if pc.call == nil {
			if !x.open {
				x.cur++
				x.shift++
				x.open = true
				x.send("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"text","text":""}}`, x.cur))
			}
			x.send("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":%s}}`, x.cur, jsonString(pc.text)))
			continue
		}
		if x.open {
			x.send("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, x.cur))
			x.open = false
		}
		x.cur++
		x.shift++
		x.any = true
		x.send("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`,
			x.cur, jsonString(pc.call.id), jsonString(pc.call.name)))
		x.send("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, x.cur, jsonString(string(pc.call.args))))
		x.send("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, x.cur))
	}
}

func (x *anthropicRescue) send(typ, data string) {
	x.f.pass([]byte("event: " + typ + "\ndata: " + data + "\n\n"))
}

func (x *anthropicRescue) end(cut bool) {
	if x.r != nil {
		x.r.end()
		x.emit(x.r.take())
		x.r = nil
	}
	x.next.end(cut)
}

func (x *anthropicRescue) stopped() bool { return x.next.stopped() }

func (x *anthropicRescue) drain() { x.next.drain() }

// frame lets the fixer take runs of events while no text block is read
// and none was added: its event then hands on as it came every event
// but a block's start, which a run never holds.
func (x *anthropicRescue) frame(buf []byte) int {
	x.f.runs = x.r == nil && x.shift == 0 && !x.any
	return x.next.frame(buf)
}

func (x *anthropicRescue) close() { x.next.close() }
