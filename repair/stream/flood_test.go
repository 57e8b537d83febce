package stream

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// floodUnits are openers, and openers with a tiny call, that a response may
// repeat: wrappers after wrappers, tokens of several formats, bare braces.
var floodUnits = []struct {
	format Format
	unit   string
}{
	{Auto, "<tool_call>"},
	{Auto, "<tool_call>\n"},
	{Auto, "<function_calls>"},
	{Auto, "<minimax:tool_call>"},
	{Auto, "<｜tool▁calls▁begin｜>"},
	{Auto, "<|tool_calls_section_begin|>"},
	{Auto, "<|python_tag|>"},
	{Auto, "<function="},
	{Auto, "[TOOL_CALLS]"},
	{Auto, `{"name": `},
	{Auto, `<tool_call><function=[TOOL_CALLS]{"name": `},
	{Auto, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`},
	{Hermes, "<tool_call>"},
	{QwenXML, "<tool_call>"},
	{MiniMax, "<minimax:tool_call>"},
	{ClaudeXML, "<function_calls>"},
	{Mistral, "[TOOL_CALLS]"},
	{Mistral, "[TOOL_CALLS]["},
	{Llama3JSON, `{"name": `},
	{Llama3JSON, "<|python_tag|>"},
}

// TestOpenerFloodHoldsLittle feeds a flood of openers in small pieces and
// in one piece: in prose the parser holds at most a tag that may still
// open a call, never the flood, so each byte is looked at a bounded number
// of times (a flood of wrappers in auto was held whole, and read again
// from its start at every piece).
func TestOpenerFloodHoldsLittle(t *testing.T) {
	for _, fl := range floodUnits {
		text := strings.Repeat(fl.unit, (64<<10)/len(fl.unit))
		for _, piece := range []int{7, 16, len(text)} {
			t.Run(fmt.Sprintf("%s/%q/%d", fl.format, fl.unit, piece), func(t *testing.T) {
				p, _ := New(fl.format, Options{MaxCallBytes: 1 << 20}, func(Event) {})
				bound := p.text.headerBound() + len(fl.unit)
				most := 0
				for i := 0; i < len(text); i += piece {
					_ = p.Text(text[i:min(i+piece, len(text))])
					if p.text.state == inProse {
						most = max(most, len(p.text.buf)-p.text.pos)
					}
				}
				if most > bound {
					t.Errorf("the parser held %d bytes of the %d in prose; want at most %d", most, len(text), bound)
				}
				_ = p.End(false)
			})
		}
	}
}

// TestQueuedValueIsOneEvent grows a value one byte a piece while a call
// before it on its line waits for the line's end: the value's growth waits
// as one event, not one per piece (240 bytes each, for one byte of input),
// and comes out as in one piece.
func TestQueuedValueIsOneEvent(t *testing.T) {
	value := strings.Repeat("a", 16<<10)
	for _, tc := range []struct {
		format   Format
		pre, end string
	}{
		{Hermes, `<tool_call>{"name":"f","arguments":{}}</tool_call><tool_call>{"name":"g","arguments":{"c":"`, `"}}</tool_call>`},
		{QwenXML, "<tool_call><function=f></function></tool_call><tool_call><function=g><parameter=c>", "</parameter></function></tool_call>"},
		{Mistral, `[TOOL_CALLS][{"name":"f","arguments":{}},{"name":"g","arguments":{"c":"`, `"}}]`},
	} {
		t.Run(tc.format.String(), func(t *testing.T) {
			opts := Options{MaxCallBytes: 1 << 20}
			whole := feed(t, tc.format, opts, []piece{text(tc.pre + value + tc.end)}, false)
			c := newCollector(t)
			p, _ := New(tc.format, opts, c.event)
			_ = p.Text(tc.pre)
			most := 0
			for i := range value {
				_ = p.Text(value[i : i+1])
				most = max(most, len(p.text.tail.queue))
			}
			_ = p.Text(tc.end)
			_ = p.End(false)
			if most > 4 {
				t.Errorf("%d events waited for the line's end; want at most 4", most)
			}
			if !reflect.DeepEqual(c.out, whole) {
				t.Errorf("in one-byte pieces\n%+v\nin one piece\n%+v", c.out, whole)
			}
			if c.out.Shown[1]["c"] != value {
				t.Errorf("the value shown is %d bytes; want %d", len(c.out.Shown[1]["c"]), len(value))
			}
		})
	}
}

// TestTailQueueBounded floods a line with tiny calls: the events waiting
// for its end are bounded by the tail's bound as the bytes kept are, the
// calls dropped with CALL_TOO_LARGE, whatever the split.
func TestTailQueueBounded(t *testing.T) {
	for _, fl := range []struct {
		format Format
		unit   string
	}{
		{Llama3JSON, `{"name": "f", "parameters": {}};`},
		{Mistral, `[TOOL_CALLS]f[ARGS]{}`},
		{Hermes, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`},
		{Auto, `<tool_call>{"name": "f", "arguments": {}}</tool_call>`},
	} {
		text := strings.Repeat(fl.unit, (100<<10)/len(fl.unit))
		opts := Options{MaxCallBytes: 64 << 10}
		limit := max(2*opts.MaxCallBytes/queuedEventBytes, minQueued)
		var first outcome
		for _, piece := range []int{1, 7, len(text)} {
			t.Run(fmt.Sprintf("%s/%d", fl.format, piece), func(t *testing.T) {
				c := newCollector(t)
				p, _ := New(fl.format, opts, c.event)
				most := 0
				for i := 0; i < len(text); i += piece {
					_ = p.Text(text[i:min(i+piece, len(text))])
					most = max(most, len(p.text.tail.queue))
				}
				_ = p.End(false)
				if most > limit {
					t.Errorf("%d events waited for the line's end; want at most %d", most, limit)
				}
				if len(c.out.Calls) > 0 || len(c.out.Errors) == 0 || c.out.Errors[0] != CodeCallTooLarge {
					t.Errorf("%d calls closed, errors %v; want none closed, CALL_TOO_LARGE", len(c.out.Calls), c.out.Errors[:min(3, len(c.out.Errors))])
				}
				if first.Starts == nil {
					first = c.out
				} else if !reflect.DeepEqual(c.out, first) {
					t.Errorf("in pieces of %d the outcome differs from pieces of 1", piece)
				}
			})
		}
	}
}
