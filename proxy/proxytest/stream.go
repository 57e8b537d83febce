package proxytest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Call is a tool call as a client rebuilds it from an answer.
type Call struct {
	Index          int
	ID, Name, Args string
}

// Stream is what a client reads of a streamed answer.
type Stream struct {
	// Calls are the tool calls, in index order.
	Calls []Call
	// Reason is the finish_reason (OpenAI) or stop_reason (Anthropic).
	Reason string
	// Text joins the content deltas (OpenAI) or text deltas (Anthropic).
	Text string
	// End is the event that ended the stream: "[DONE]", "message_stop" or
	// "error"; "" when it stopped without one.
	End string
	// MultiLine counts the events whose data came in several lines (SSE
	// allows it; the APIs send one).
	MultiLine int
}

// Call returns the call at index, nil when there is none.
func (s *Stream) Call(index int) *Call {
	i := slices.IndexFunc(s.Calls, func(c Call) bool { return c.Index == index })
	if i < 0 {
		return nil
	}
	return &s.Calls[i]
}

// ReadStream reads a streamed answer of api ("openai" or "anthropic") as a
// strict client: an event that breaks the SSE framing or the API's
// protocol (an unknown event, a call named twice, a block not open, an
// event after the end) is an error.
func ReadStream(api string, body []byte) (*Stream, error) {
	events, multi, err := sseEvents(body)
	if err != nil {
		return nil, err
	}
	r := &streamReader{s: &Stream{MultiLine: multi}, byIndex: map[int]*Call{}, open: map[int]bool{}}
	for i, ev := range events {
		if r.s.End != "" {
			err = fmt.Errorf("an event after %s", r.s.End)
		} else if api == "anthropic" {
			err = r.anthropic(ev)
		} else {
			err = r.openAI(ev)
		}
		if err != nil {
			return nil, fmt.Errorf("event %d: %w", i, err)
		}
	}
	for _, c := range r.byIndex {
		r.s.Calls = append(r.s.Calls, *c)
	}
	slices.SortFunc(r.s.Calls, func(a, b Call) int { return a.Index - b.Index })
	return r.s, nil
}

// field is one line of an event: its name and value.
type field struct{ name, value string }

// sseEvents splits an SSE body into events of fields, comments left out,
// data lines joined; multi counts the events with several data lines.
func sseEvents(body []byte) (events [][]field, multi int, err error) {
	for i, ev := range SplitEvents(body) {
		text := strings.ReplaceAll(string(ev), "\r\n", "\n")
		if !strings.HasSuffix(text, "\n\n") {
			return nil, 0, fmt.Errorf("event %d %q does not end with a blank line", i, ev)
		}
		var fields []field
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n\n"), "\n") {
			if strings.HasPrefix(line, ":") {
				continue
			}
			k, v, ok := strings.Cut(line, ":")
			if !ok {
				return nil, 0, fmt.Errorf("event %d: line %q has no field", i, line)
			}
			v = strings.TrimPrefix(v, " ")
			if n := len(fields); n > 0 && k == "data" && fields[n-1].name == "data" {
				fields[n-1].value += "\n" + v
				multi++
				continue
			}
			fields = append(fields, field{k, v})
		}
		if len(fields) > 0 {
			events = append(events, fields)
		}
	}
	if len(events) == 0 {
		return nil, 0, errors.New("no events")
	}
	return events, multi, nil
}

type streamReader struct {
	s       *Stream
	byIndex map[int]*Call
	open    map[int]bool // Anthropic's blocks started, not stopped
	n       int          // events read
}

type openAIChunk struct {
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Error json.RawMessage `json:"error"`
}

func (r *streamReader) openAI(ev []field) error {
	if len(ev) != 1 || ev[0].name != "data" {
		return fmt.Errorf("%v, want one data field", ev)
	}
	data := ev[0].value
	if data == "[DONE]" {
		r.s.End = data
		return nil
	}
	var chunk openAIChunk
	if err := json.Unmarshal([]byte(data), &chunk); err != nil {
		return fmt.Errorf("%w: %s", err, data)
	}
	if chunk.Error != nil {
		r.s.End = "error"
		return nil
	}
	if chunk.Object != "chat.completion.chunk" {
		return fmt.Errorf("object %q", chunk.Object)
	}
	for _, ch := range chunk.Choices {
		if ch.Delta.Content != nil {
			r.s.Text += *ch.Delta.Content
		}
		for _, tc := range ch.Delta.ToolCalls {
			c := r.byIndex[tc.Index]
			switch {
			case c == nil && (tc.ID == "" || tc.Function.Name == ""):
				return fmt.Errorf("call %d opens without id and name", tc.Index)
			case c == nil:
				c = &Call{Index: tc.Index, ID: tc.ID, Name: tc.Function.Name}
				r.byIndex[tc.Index] = c
			case tc.ID != "" || tc.Function.Name != "":
				return fmt.Errorf("call %d named twice", tc.Index)
			}
			c.Args += tc.Function.Arguments
		}
		if ch.FinishReason != nil {
			r.s.Reason = *ch.FinishReason
		}
	}
	return nil
}

type anthropicEvent struct {
	Type         string `json:"type"`
	Index        int    `json:"index"`
	ContentBlock struct {
		Type  string          `json:"type"`
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		PartialJSON string `json:"partial_json"`
		Text        string `json:"text"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
}

func (r *streamReader) anthropic(ev []field) error {
	first := r.n == 0
	r.n++
	if len(ev) != 2 || ev[0].name != "event" || ev[1].name != "data" {
		return fmt.Errorf("%v, want an event and a data field", ev)
	}
	var d anthropicEvent
	if err := json.Unmarshal([]byte(ev[1].value), &d); err != nil {
		return err
	}
	if d.Type != ev[0].value {
		return fmt.Errorf("event %q carries type %q", ev[0].value, d.Type)
	}
	switch d.Type {
	case "message_start":
		if !first {
			return errors.New("message_start after other events")
		}
	case "content_block_start", "content_block_delta", "content_block_stop":
		return r.anthropicBlock(d)
	case "message_delta":
		r.s.Reason = d.Delta.StopReason
	case "message_stop", "error":
		r.s.End = d.Type
	case "ping":
	default:
		return fmt.Errorf("unknown type %q", d.Type)
	}
	return nil
}

func (r *streamReader) anthropicBlock(d anthropicEvent) error {
	open := r.open[d.Index]
	switch {
	case d.Type == "content_block_start" && open:
		return fmt.Errorf("block %d started twice", d.Index)
	case d.Type != "content_block_start" && !open:
		return fmt.Errorf("%s for block %d, not open", d.Type, d.Index)
	}
	switch d.Type {
	case "content_block_start":
		r.open[d.Index] = true
		if d.ContentBlock.Type != "tool_use" {
			return nil
		}
		if string(d.ContentBlock.Input) != "{}" {
			return fmt.Errorf("tool_use starts with input %s", d.ContentBlock.Input)
		}
		r.byIndex[d.Index] = &Call{Index: d.Index, ID: d.ContentBlock.ID, Name: d.ContentBlock.Name}
	case "content_block_delta":
		if d.Delta.Type == "text_delta" {
			r.s.Text += d.Delta.Text
		}
		if d.Delta.Type != "input_json_delta" {
			return nil
		}
		c := r.byIndex[d.Index]
		if c == nil {
			return fmt.Errorf("input_json_delta for block %d, not a tool_use", d.Index)
		}
		c.Args += d.Delta.PartialJSON
	case "content_block_stop":
		delete(r.open, d.Index)
	}
	return nil
}
