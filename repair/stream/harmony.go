package stream

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// harmony is gpt-oss's format. The output is a run of messages, each a
// header up to <|message|>, its content, and an end token:
//
//	<|channel|>analysis<|message|>…<|end|>
//	<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>
//	<|start|>assistant<|channel|>final<|message|>…<|return|>
//
// A header with a recipient (to=, before or after <|channel|>) opens a
// call to it, functions.NAME naming the tool NAME; its content is the
// arguments. Any other message's content (the analysis, commentary and
// final channels) is text, without its header and end tokens: the Event
// has no way to mark the analysis as reasoning.
type harmony struct{ jsonCall }

const harmonyMessage = "<|message|>"

var (
	harmonyHeaders = []string{"<|start|>", "<|channel|>"}
	harmonyEnds    = []string{"<|end|>", "<|return|>"}
	// harmonyClosers end a call's arguments: <|call|>, or <|end|> when the
	// model ends the message as a text one.
	harmonyClosers = []string{"<|call|>", "<|end|>"}
)

func (harmony) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m, n := anyLiteral(b, harmonyEnds...); m != noMatch {
		return m, true, "", n
	}
	m, n := anyLiteral(b, harmonyHeaders...)
	if m != matched {
		return m, false, "", 0
	}
	m, end, next := p.field(b, n, harmonyMessage)
	if m != matched {
		return m, false, "", 0
	}
	name := harmonyRecipient(b[:end])
	return matched, name == "", name, next
}

func (harmony) begin(p *textParser, n int) textState {
	if p.stripped { // stripped.go: the arguments' own end closes the call
		p.stripped = false
		p.tail.whole = true
		st := p.beginArgs(n, nil)
		p.call.repairs = append(p.call.repairs, repair.Repair{Code: repair.CodeXMLRepaired,
			Detail: fmt.Sprintf("the call came as text, its harmony tokens (<|channel|>, <|message|>, <|call|>) stripped by the server; the response is only its header, naming the declared tool %q, and its arguments", p.call.name)})
		return st
	}
	st := p.beginArgs(n, harmonyClosers)
	// Servers often take <|call|> for a stop token and keep it: a body
	// complete when the response ends is the whole call.
	p.call.stopOptional = true
	return st
}

// harmonyRecipient returns the tool a message header addresses with to=,
// without the functions. namespace; "" when it addresses none.
func harmonyRecipient(header []byte) string {
	for i := 0; ; {
		k := bytes.Index(header[i:], []byte("to="))
		if k < 0 {
			return ""
		}
		k += i
		if k == 0 || header[k-1] == ' ' || header[k-1] == '>' {
			to := header[k+len("to="):]
			if e := bytes.IndexAny(to, " <"); e >= 0 {
				to = to[:e]
			}
			return headerName([]byte(strings.TrimPrefix(string(to), "functions.")))
		}
		i = k + len("to=")
	}
}
