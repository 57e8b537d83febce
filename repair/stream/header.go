package stream

import (
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// Formats that name a call in a header of special tokens (DeepSeek, Kimi
// K2, harmony, Mistral) match the whole header at once, as prefixedTags
// matches <function=name>: the bytes so far either are a header, could
// still become one (needMore, held), or are text. A header is bounded, so
// what is held while waiting is too.

// headerBound is the longest header worth waiting for: a name as long as
// the longest tag, and the tokens around it.
func (p *textParser) headerBound() int { return p.maxTag + 64 }

// field finds, from b[i], the first of terms that ends a header field: it
// returns where the field ends and where the term does. A field holds no
// newline (unless a term is one) and ends within the header bound.
func (p *textParser) field(b []byte, i int, terms ...string) (m match, end, next int) {
	for j := i; j < len(b); j++ {
		m, n := anyLiteral(b[j:], terms...)
		switch {
		case m == matched:
			return matched, j, j + n
		case m == needMore:
			return needMore, 0, 0
		case b[j] == '\n' || j >= p.headerBound():
			return noMatch, 0, 0
		}
	}
	if len(b) >= p.headerBound() {
		return noMatch, 0, 0
	}
	return needMore, 0, 0
}

// headerName returns a name read from a header as valid UTF-8 without the
// white space around it.
func headerName(b []byte) string { return strings.TrimSpace(validString(b)) }

// jsonCall is a format whose calls hold JSON: its header's arguments, or a
// body with the name and the arguments, as Hermes's.
type jsonCall struct{ noParams }

func (jsonCall) call(p *textParser, block []byte, bodyEnd int) repair.Call {
	return p.call.hermes.call(block[:bodyEnd])
}
