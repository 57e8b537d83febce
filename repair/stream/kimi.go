package stream

import "strings"

// Kimi K2's special tokens. The section tokens are also written singular.
const (
	kimiCallBegin = "<|tool_call_begin|>"
	kimiArgsBegin = "<|tool_call_argument_begin|>"
	kimiCallEnd   = "<|tool_call_end|>"
)

var kimiSection = []string{
	"<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
	"<|tool_call_section_begin|>", "<|tool_call_section_end|>",
}

// kimiClosers end a call's arguments: its own end, else the section's.
var kimiClosers = []string{kimiCallEnd, kimiSection[1], kimiSection[3]}

// kimi is Kimi K2's format:
//
//	<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{...}<|tool_call_end|>…<|tool_calls_section_end|>
//
// functions.NAME:IDX is the call's id, as the model's chat template refers
// to it; the tool's name is NAME.
type kimi struct{ jsonCall }

func (kimi) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m, n := anyLiteral(b, kimiSection...); m != noMatch {
		return m, true, "", n
	}
	if m := literal(b, kimiCallBegin); m != matched {
		return m, false, "", 0
	}
	// Models put a newline or spaces before the call's id.
	i := len(kimiCallBegin)
	for i < len(b) && isJSONSpace(b[i]) && i < p.headerBound() {
		i++
	}
	if i == len(b) {
		return needMore, false, "", 0
	}
	m, end, next := p.field(b, i, kimiArgsBegin)
	if m != matched || kimiName(headerName(b[i:end])) == "" {
		return m, false, "", 0
	}
	return matched, false, headerName(b[i:end]), next
}

// begin takes the header's id apart: the call keeps it as its id.
func (kimi) begin(p *textParser, n int) textState {
	c := &p.call
	c.id, c.name = c.name, kimiName(c.name)
	return p.beginArgs(n, kimiClosers)
}

// kimiName returns the tool's name in a call id functions.NAME:IDX: without
// the namespace and the index after the last colon.
func kimiName(id string) string {
	name := strings.TrimPrefix(id, "functions.")
	if k := strings.LastIndexByte(name, ':'); k >= 0 && isIndex(name[k+1:]) {
		name = name[:k]
	}
	return strings.TrimSpace(name)
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
