package stream

import "github.com/toolguard/toolguard/repair"

// auto detects each call's format from the text itself. At a byte that may
// start a tag, it asks the formats in autoFormats, in order, whether their
// call opens there; the first that matches parses the call, with its own
// machine, and stays the current format until prose comes between calls.
// While a format could still match (its tag is split), auto waits, so the
// choice does not depend on the split.
//
// A token alone is no call, so prose that mentions one stays prose: an
// opening wrapper (<tool_call>, <function_calls>, a section token) counts
// only when a call of its format follows it, past white space; Hermes's
// <tool_call> only before '{'; a closing wrapper or separator only right
// after a call of its format. Harmony's headers are whole messages and
// count by themselves, and its end tokens close the messages of text it
// frames.
//
// Pythonic is left out: a list of calls at the start of a response is also
// how prose starts a Markdown list of links, and it needs a machine of its
// own. Llama 3's bare objects count at the start of the response or after a
// call, with their strict shape (llama.go). XMLTags counts with the tools
// of Options.Tools; white space around its calls is layout here, as in the
// other formats.
type auto struct{}

// autoFormats are the formats auto tries, in order: where two openers
// match the same bytes (<tool_call> opens Hermes, Qwen3-Coder and GLM-4.5
// calls), the lookahead of the earlier one is the stricter. Each names the
// tokens its calls and opening wrappers start with, so that a tag of none
// of them costs a few comparisons; XMLTags, whose tags are tool names,
// has none and is always asked.
var autoFormats = []struct {
	format Format
	starts []string
}{
	{Hermes, []string{hermesOpen}},
	{QwenXML, []string{hermesOpen, qwenXML.callTag}},
	{GLM45, []string{hermesOpen}},
	{MiniMax, []string{miniMax.wrappers[0], miniMax.callTag}},
	{ClaudeXML, []string{claudeXML.wrappers[0], claudeXML.callTag}},
	{Harmony, harmonyHeaders},
	{DeepSeekV3, []string{dsCallsBegin, dsCallBegin}},
	{DeepSeekV31, []string{dsCallsBegin, dsCallBegin}},
	{KimiK2, []string{kimiSection[0], kimiSection[2], kimiCallBegin}},
	{Mistral, []string{mistralCalls}},
	{Llama3JSON, []string{llamaTag, "{"}},
	{XMLTags, nil},
}

// autoTrigger is every byte an opener of autoFormats may start with.
const autoTrigger = "<[{"

// autoClosers are the wrapper tokens that close a group of calls, and the
// separators between calls: they count only after a call of their format.
var autoClosers = map[string]bool{
	hermesClose: true, "</minimax:tool_call>": true, "</function_calls>": true, dsCallsEnd: true,
	kimiSection[1]: true, kimiSection[3]: true, ",": true, "]": true, ";": true,
	harmonyEnds[0]: true, harmonyEnds[1]: true,
}

// autoState is the format of the call being read, or of the last one.
type autoState struct {
	format Format
	syntax textFormat
}

func (auto) triggers() string { return autoTrigger }

func (auto) opener(p *textParser, b []byte) (match, bool, string, int) {
	a := p.auto
	// The current format goes on while no prose came between its calls;
	// harmony's messages frame text.
	current := a.syntax != nil && (!p.runProse || a.format == Harmony)
	if current {
		if m, wrapper, name, n := p.autoTry(a.format, b, true); m != noMatch {
			return m, wrapper, name, n
		}
	}
	for _, c := range autoFormats {
		f := c.format
		if current && f == a.format || c.starts != nil && !startsAny(b, c.starts) {
			continue
		}
		m, wrapper, name, n := p.autoTry(f, b, false)
		switch m {
		case needMore:
			return needMore, false, "", 0
		case matched:
			a.format, a.syntax = f, formats[f].syntax
			p.trigger = autoTrigger
			if t, ok := a.syntax.(triggered); ok {
				p.trigger = t.triggers() + "["
			}
			return matched, wrapper, name, n
		}
	}
	return noMatch, false, "", 0
}

// autoTry asks format f whether a call or one of its wrappers starts at b,
// as auto counts them; current says f is the format of the last call.
func (p *textParser) autoTry(f Format, b []byte, current bool) (match, bool, string, int) {
	list, prose, after := p.list, p.runProse, p.afterCall
	if !current {
		p.list = false // Mistral's and Llama's lists are their own
	}
	m, wrapper, name, n := p.autoMatch(f, b, current, false)
	if m != matched {
		p.list = list
	}
	p.runProse, p.afterCall = prose, after
	return m, wrapper, name, n
}

// autoMatch is autoTry's question; nested says b follows an opening
// wrapper, where a wrapper answers at its own end.
func (p *textParser) autoMatch(f Format, b []byte, current, nested bool) (match, bool, string, int) {
	if m := autoGuard(f, b); m != matched {
		return m, false, "", 0
	}
	syntax := formats[f].syntax
	m, wrapper, name, n := syntax.opener(p, b)
	switch {
	case m != matched:
		return m, false, "", 0
	case f == Hermes:
		// The tag opens a call only before its JSON body.
		return p.autoFollows(b, n, func(rest []byte) match {
			if rest[0] == '{' {
				return matched
			}
			return noMatch
		}), false, name, n
	case f == GLM45:
		// A word right after <tool_call> is a name only before an
		// argument or the call's end, or the </arg_key> of a key it ran
		// into.
		if isJSONSpace(b[len(hermesOpen)]) {
			return noMatch, false, "", 0
		}
		return p.autoFollows(b, n, func(rest []byte) match {
			m, _ := anyLiteral(rest, glmKey, hermesClose, glmKeyClose)
			return m
		}), false, name, n
	case !wrapper:
		return matched, false, name, n
	case autoClosers[string(b[:n])]:
		if current {
			return matched, true, "", n
		}
		return noMatch, false, "", 0
	case f == Harmony:
		return matched, true, "", n // a whole message header
	case nested:
		// A wrapper right after a wrapper: no call follows the first
		// whatever follows this one. Reading on would go through a run
		// of wrappers at each of them, in time quadratic in the run.
		return matched, true, "", n
	}
	// An opening wrapper: a call of the format must follow it.
	p.runProse, p.afterCall = false, true
	m = p.autoFollows(b, n, func(rest []byte) match {
		cm, cw, _, _ := p.autoMatch(f, rest, true, true)
		if cm == matched && cw {
			return noMatch
		}
		return cm
	})
	return m, true, "", n
}

// autoFollows applies next to b past n and the white space after it.
func (p *textParser) autoFollows(b []byte, n int, next func([]byte) match) match {
	i := n
	for i < len(b) && isJSONSpace(b[i]) {
		if i-n > p.headerBound() {
			return noMatch
		}
		i++
	}
	if i == len(b) {
		return needMore
	}
	return next(b[i:])
}

// autoGuard tells the two DeepSeek formats apart: V3 types its calls
// "function" before the separator.
func autoGuard(f Format, b []byte) match {
	if f != DeepSeekV3 && f != DeepSeekV31 || literal(b, dsCallBegin) != matched {
		return matched
	}
	m := literal(b[len(dsCallBegin):], "function"+dsSep)
	switch {
	case m == needMore:
		return needMore
	case (m == matched) == (f == DeepSeekV3):
		return matched
	}
	return noMatch
}

func (auto) begin(p *textParser, n int) textState { return p.auto.syntax.begin(p, n) }

func (auto) param(p *textParser, b []byte) (match, string, int) { return p.auto.syntax.param(p, b) }

func (auto) valueClose(p *textParser, name string) (string, bool) {
	return p.auto.syntax.valueClose(p, name)
}

func (auto) cutsValue(p *textParser, b []byte) (match, string) {
	return p.auto.syntax.cutsValue(p, b)
}

func (auto) call(p *textParser, block []byte, bodyEnd int) repair.Call {
	return p.auto.syntax.call(p, block, bodyEnd)
}

// startsAny reports whether b starts with one of lits, or could.
func startsAny(b []byte, lits []string) bool {
	for _, lit := range lits {
		// Most tags differ from lit in their first two bytes.
		if b[0] != lit[0] || len(b) > 1 && len(lit) > 1 && b[1] != lit[1] {
			continue
		}
		if literal(b, lit) != noMatch {
			return true
		}
	}
	return false
}

// start reads, at the start of the response, a harmony call that stands
// alone with its tokens stripped (stripped.go).
func (auto) start(p *textParser, b []byte) (match, string, int) {
	m, name, n := harmony{}.start(p, b)
	if m == matched {
		p.auto.format, p.auto.syntax = Harmony, formats[Harmony].syntax
		p.trigger = autoTrigger
	}
	return m, name, n
}
