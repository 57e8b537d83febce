package stream

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/repair"
)

// glm45 is GLM-4.5's format (also 4.6 and 4.7, which drop the newlines):
//
//	<tool_call>name
//	<arg_key>key</arg_key>
//	<arg_value>value</arg_value>
//	</tool_call>
//
// The wrapper is Hermes's, but the body is a name, then pairs of tags. A
// value is text, typed by the tool's schema in the pipeline; its closing
// tag counts only before the next <arg_key> or </tool_call> (the content
// rule of qwen_xml and minimax), so a value may hold "</arg_value>".
//
// GLM models leave tags out, and the closing tags still tell where things
// end: the first <arg_key>, so the name runs into the first
// key (write_to_filepath</arg_key>), and an <arg_value>, so the value
// follows </arg_key> (key</arg_key>a.py</arg_value>). Each is read and
// reported as XML_REPAIRED; a name and key that only the declared tools
// could split, and do not, make the call unreadable.
type glm45 struct{}

const (
	glmKey      = "<arg_key>"
	glmKeyClose = "</arg_key>"
	glmValue    = "<arg_value>"
	glmClose    = "</arg_value>"
)

// opener matches <tool_call> and the name after it, which ends at a
// newline or a tag. The name is one word: prose that mentions the tag
// ("wrap it in <tool_call> tags") is no call. Before </arg_key>, the words
// are the name and the first key (glmRunIn).
func (glm45) opener(p *textParser, b []byte) (match, bool, string, int) {
	if m := literal(b, hermesOpen); m != matched {
		return m, false, "", 0
	}
	start := len(hermesOpen)
	i := start
	for ; i < len(b) && b[i] != '\n' && b[i] != '<'; i++ {
		if i-start > p.maxTag {
			return noMatch, false, "", 0
		}
	}
	if i == len(b) {
		return needMore, false, "", 0
	}
	word := bytes.TrimSpace(b[start:i])
	if b[i] == '<' {
		switch literal(b[i:], glmKeyClose) {
		case needMore:
			return needMore, false, "", 0
		case matched:
			return p.glmRunIn(word, i)
		}
	}
	if len(word) == 0 || bytes.ContainsAny(word, " \t\r") {
		return noMatch, false, "", 0
	}
	name := validString(word)
	p.glmHead = glmHead{}
	if b[i] == '\n' {
		switch m, key, at := p.glmKeyLine(b, i); m {
		case needMore:
			return needMore, false, "", 0
		case matched:
			p.glmHead = glmHead{key: key, detail: fmt.Sprintf("the first parameter %q had no opening tag %s; it was read from the line after the tool name", key, glmKey)}
			return matched, false, name, at
		}
	}
	return matched, false, name, i
}

func (glm45) begin(p *textParser, _ int) textState {
	c := &p.call
	c.closer, c.follows, c.params = hermesClose, []string{glmKey, hermesClose}, map[string]string{}
	h := p.glmHead
	p.glmHead = glmHead{}
	c.head, c.refusal = h.key, h.refusal
	if h.detail != "" {
		c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: h.key, Detail: h.detail})
	}
	return inCall
}

// param matches <arg_key>key</arg_key> and the <arg_value> after it, with
// white space (or a literal "\n", which GLM models write too) between; or,
// right after the header, the </arg_key> of the key the name ran into.
// Without <arg_value>, the value starts after </arg_key> and ends at its
// closing tag as any other: it is read, and the repair says so.
func (f glm45) param(p *textParser, b []byte) (match, string, int) {
	c := &p.call
	m, key, n, valueTag := f.readParam(p, b, c.head, false)
	if m != matched {
		return m, "", 0
	}
	c.head = ""
	if bytes.Contains(b[:n], []byte(glmKeyClose+glmKeyClose)) && !c.dropped && !c.seen[key] {
		c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: key,
			Detail: fmt.Sprintf("the closing tag %s was written twice; the second was taken out", glmKeyClose)})
	}
	if !valueTag && !c.dropped && !c.seen[key] {
		c.repairs = append(c.repairs, repair.Repair{Code: repair.CodeXMLRepaired, Param: key,
			Detail: fmt.Sprintf("the value of %q had no opening tag %s; it was read from %s to its closing tag %s", key, glmValue, glmKeyClose, glmClose)})
	}
	return matched, key, n
}

// readParam reads a parameter's key and where its value starts; valueTag
// says the value opened with <arg_value>, which strict requires. head is
// a key whose </arg_key> may stand at b[0].
func (glm45) readParam(p *textParser, b []byte, head string, strict bool) (m match, key string, n int, valueTag bool) {
	var i int
	if head != "" {
		if m := literal(b, glmKeyClose); m != noMatch {
			key, i = head, len(glmKeyClose)
			if m == needMore {
				return needMore, "", 0, false
			}
		}
	}
	if i == 0 {
		if m, key, i = p.glmKeyTag(b); m != matched {
			return m, "", 0, false
		}
		// </arg_key> written twice, nothing between: one (param reports it).
		switch literal(b[i:], glmKeyClose) {
		case needMore:
			return needMore, "", 0, false
		case matched:
			i += len(glmKeyClose)
		}
	}
	j, m := p.glmGap(b, i)
	if m == needMore {
		return needMore, "", 0, false
	}
	if m == matched {
		switch literal(b[j:], glmValue) {
		case needMore:
			return needMore, "", 0, false
		case matched:
			return matched, key, j + len(glmValue), true
		}
		// A key with no value at all is no parameter.
		switch m, _ := anyLiteral(b[j:], glmKey, hermesClose); {
		case m == needMore:
			return needMore, "", 0, false
		case m == matched, strict:
			return noMatch, "", 0, false
		}
	}
	if strict {
		return noMatch, "", 0, false
	}
	return matched, key, i, false
}

// glmKeyTag matches <arg_key>key</arg_key> and returns where it ends.
func (p *textParser) glmKeyTag(b []byte) (match, string, int) {
	if m := literal(b, glmKey); m != matched {
		return m, "", 0
	}
	// The key runs to </arg_key>, on one line, no longer than a tag name.
	start := len(glmKey)
	window := b[start:min(len(b), start+p.maxTag+len(glmKeyClose))]
	k := bytes.IndexAny(window, "<\n")
	switch {
	case k < 0 && len(window) < len(b)-start, k >= 0 && window[k] == '\n':
		return noMatch, "", 0
	case k < 0:
		return needMore, "", 0
	}
	if m := literal(b[start+k:], glmKeyClose); m != matched {
		return m, "", 0
	}
	key := bytes.TrimSpace(window[:k])
	if len(key) == 0 {
		return noMatch, "", 0
	}
	return matched, validString(key), start + k + len(glmKeyClose)
}

// glmGap passes over what may stand between </arg_key> and <arg_value>:
// white space, or a literal "\n" (GLM models write that too).
func (p *textParser) glmGap(b []byte, i int) (int, match) {
	for from := i; i-from <= p.maxTag; {
		switch {
		case i == len(b), b[i] == '\\' && i+1 == len(b):
			return i, needMore
		case isJSONSpace(b[i]):
			i++
		case b[i] == '\\' && b[i+1] == 'n':
			i += 2
		default:
			return i, matched
		}
	}
	return i, noMatch
}

func (glm45) valueClose(*textParser, string) (string, bool) { return glmClose, true }

// cutsValue: a value left without </arg_value> ends at a whole parameter
// on the next line, its tags all there.
func (f glm45) cutsValue(p *textParser, b []byte) (match, string) {
	m, name, _, _ := f.readParam(p, b, "", true)
	return p.cutsAt(m, name)
}

func (glm45) call(p *textParser, _ []byte, _ int) repair.Call { return p.paramsCall() }

// glmHead is what the opener read past the name, for begin: the key of a
// first parameter whose <arg_key> the model left out and the repair that
// says so, or why the call cannot be read.
type glmHead struct{ key, detail, refusal string }

// glmRunIn reads a header that </arg_key> ends at b[at]: the name and the
// first key with no <arg_key> between them. Two words are the name and
// the key. One word is split where a declared tool ends and one of its
// parameters makes the rest, when exactly one split does; otherwise the
// call is opened under the word as written, and refused.
func (p *textParser) glmRunIn(word []byte, at int) (match, bool, string, int) {
	if fields := bytes.Fields(word); len(fields) == 2 {
		name, key := validString(fields[0]), validString(fields[1])
		p.glmHead = glmHead{key: key, detail: fmt.Sprintf("%q after the tool name had no opening tag %s; it was read as the first parameter's key", key, glmKey)}
		return matched, false, name, at
	} else if len(fields) != 1 {
		return noMatch, false, "", 0
	}
	whole := validString(word)
	var splits []string
	for tool, tags := range p.opts.Tools {
		if key, ok := strings.CutPrefix(whole, tool); ok && key != "" {
			if _, declared := tags.Params[key]; declared {
				splits = append(splits, tool)
			}
		}
	}
	if len(splits) == 1 {
		tool := splits[0]
		key := whole[len(tool):]
		p.glmHead = glmHead{key: key, detail: fmt.Sprintf("the tool name ran into the first parameter's key as %q, with no %s between them; it was read as tool %q and parameter %q, the only split into a declared tool and one of its parameters", whole, glmKey, tool, key)}
		return matched, false, tool, at
	}
	why := "no split of it makes a declared tool and one of its parameters"
	if len(splits) > 1 {
		slices.Sort(splits)
		var ways []string
		for _, tool := range splits {
			ways = append(ways, fmt.Sprintf("%s + %s", tool, whole[len(tool):]))
		}
		why = "it splits into more than one declared tool and parameter (" + strings.Join(ways, ", ") + ")"
	}
	p.glmHead = glmHead{refusal: fmt.Sprintf("The tool name and the first parameter's key ran together as %q, with no %s between them, and %s, so the call was not read. "+
		"Write the tool name, then %skey%s%svalue%s for each parameter.", whole, glmKey, why, glmKey, glmKeyClose, glmValue, glmClose)}
	return matched, false, whole, at
}

// glmKeyLine reads, from the newline after the name at b[i], a key alone
// before </arg_key> on the next line: its <arg_key> was left out. It
// returns the key and where its </arg_key> starts.
func (p *textParser) glmKeyLine(b []byte, i int) (match, string, int) {
	j := i
	for j < len(b) && isJSONSpace(b[j]) && j-i <= p.maxTag {
		j++
	}
	k := j
	for k < len(b) && !isJSONSpace(b[k]) && b[k] != '<' && k-i <= p.maxTag {
		k++
	}
	switch {
	case k-i > p.maxTag:
		return noMatch, "", 0
	case k == len(b):
		return needMore, "", 0
	case k == j || b[k] != '<':
		return noMatch, "", 0
	}
	if m := literal(b[k:], glmKeyClose); m != matched {
		return m, "", 0
	}
	return matched, validString(b[j:k]), k
}
