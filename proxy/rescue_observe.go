package proxy

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// In observe mode the rescue changes nothing: every answer goes out as the
// upstream sent it. It still reads the text, with a rescuer that only
// records (dry): each call it would have turned into a tool call is logged
// and counted as enforce mode would count it.

// observingRescue reports whether the rescue only records.
func (p *Proxy) observingRescue() bool { return p.cfg.Rescue && !p.enforce() }

// rescueTap follows a stream's text for a dry rescuer and passes every
// event on as it came.
type rescueTap struct {
	eventProcessor
	p  *Proxy
	rs *request
	r  *rescuer
	c  rescueChunk
}

func (p *Proxy) newRescueTap(rs *request, next eventProcessor) eventProcessor {
	t := &rescueTap{eventProcessor: next, p: p, rs: rs}
	if rs.api == apiOpenAI {
		t.r = p.newRescuer(rs, 0)
	}
	return t
}

func (t *rescueTap) event(raw []byte) {
	if data, _, _, ok := eventData(raw); ok {
		if t.rs.api == apiAnthropic {
			t.anthropic(data)
		} else {
			t.openAI(data)
		}
	}
	t.eventProcessor.event(raw)
}

func (t *rescueTap) openAI(data []byte) {
	if t.r == nil {
		return
	}
	if bytes.Equal(bytes.TrimSpace(data), markDone) {
		t.finish()
		return
	}
	c := &t.c
	if !c.parse(data) || c.choices == 0 {
		return
	}
	if c.choices > 1 || c.index != 0 || c.calls || !utf8.Valid(c.content) {
		t.r = nil // as enforce mode gives up
		return
	}
	if c.hasContent && len(c.content) > 0 {
		t.r.write(string(c.content))
		t.r.take()
	}
	if c.finish != nil {
		t.finish()
	}
}

func (t *rescueTap) anthropic(data []byte) {
	if !bytes.Contains(data, []byte(`"content_block_`)) {
		return
	}
	var e anthropicRescueEvent
	if json.Unmarshal(data, &e) != nil {
		return
	}
	switch {
	case e.Type == "content_block_start" && e.Index != nil && e.ContentBlock != nil && e.ContentBlock.Type == "text":
		t.r = t.p.newRescuer(t.rs, *e.Index)
	case e.Type == "content_block_delta" && t.r != nil && e.Delta != nil && e.Delta.Type == "text_delta" && e.Delta.Text != nil:
		t.r.write(*e.Delta.Text)
		t.r.take()
	case e.Type == "content_block_stop":
		t.finish()
	}
}

func (t *rescueTap) finish() {
	if t.r != nil {
		t.r.end()
		t.r = nil
	}
}

func (t *rescueTap) end(cut bool) {
	t.finish()
	t.eventProcessor.end(cut)
}
