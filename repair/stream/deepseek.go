package stream

// DeepSeek's special tokens, with full-width bars (U+FF5C) and U+2581 for
// spaces: multi-byte, so a split inside one waits like a split tag.
const (
	dsCallsBegin = "<｜tool▁calls▁begin｜>"
	dsCallsEnd   = "<｜tool▁calls▁end｜>"
	dsCallBegin  = "<｜tool▁call▁begin｜>"
	dsCallEnd    = "<｜tool▁call▁end｜>"
	dsSep        = "<｜tool▁sep｜>"
)

// deepSeek is DeepSeek-V3.1's format,
//
//	<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{...}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
//
// and, with v3, DeepSeek-V3's, whose header gives a type before the
// separator and whose arguments stand in a fence:
//
//	<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{...}\n```<｜tool▁call▁end｜>
//
// The arguments end at the call's end token outside their strings; the
// section's end token closes a call whose own end was left out.
type deepSeek struct {
	jsonCall
	v3 bool
}

var dsClosers = []string{dsCallEnd, dsCallsEnd}

// dsFences open the arguments of a V3 call; the model may leave them out.
var dsFences = []string{"```json\n", "```json\r\n", "```\n"}

func (f deepSeek) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m, n := anyLiteral(b, dsCallsBegin, dsCallsEnd); m != noMatch {
		return m, true, "", n
	}
	if m := literal(b, dsCallBegin); m != matched {
		return m, false, "", 0
	}
	i := len(dsCallBegin)
	if !f.v3 {
		m, end, next := p.field(b, i, dsSep)
		if m != matched || headerName(b[i:end]) == "" {
			return m, false, "", 0
		}
		return matched, false, headerName(b[i:end]), next
	}
	m, _, i := p.field(b, i, dsSep) // the type: "function"
	if m != matched {
		return m, false, "", 0
	}
	m, end, next := p.field(b, i, "\n")
	if m != matched || headerName(b[i:end]) == "" {
		return m, false, "", 0
	}
	fence, n := anyLiteral(b[next:], dsFences...)
	if fence == needMore {
		return needMore, false, "", 0
	}
	return matched, false, headerName(b[i:end]), next + n
}

func (f deepSeek) begin(p *textParser, n int) textState {
	p.call.fenced = f.v3
	return p.beginArgs(n, dsClosers)
}
