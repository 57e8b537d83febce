package stream

import (
	"fmt"
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
