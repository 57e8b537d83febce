package stream

import "bytes"

// Servers that decode gpt-oss's output without its special tokens (a
// skip_special_tokens default, a chat template without the harmony parser)
// leave a call in the content as its header's words glued together:
//
//	<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{...}<|call|>
//	assistantcommentary to=functions.NAME json{...}
//
// Such text is a call only where it is the whole response: nothing but
// white space before the header and after the arguments' JSON value, the
// header naming a tool the caller declared (Options.Tools). Anything after
// it, on its line or a later one, makes all of it text (tail.go), and so
// does a header of an undeclared tool: prose that only shows a call is
// never one.

// starter is a format whose calls may also stand alone as the whole
// response, their markup stripped, read where the response starts.
type starter interface {
	// start matches at b[0], the response's first byte past white space,
	// a stripped call's header, and returns its tool and where its
	// arguments start.
	start(p *textParser, b []byte) (m match, name string, n int)
}

// atStart asks the format, once, whether the response starts with a call
// whose markup was stripped: needMore while the bytes so far could be one,
// matched when one opened.
func (p *textParser) atStart() match {
	s, ok := p.syntax.(starter)
	if !ok || len(p.opts.Tools) == 0 {
		p.startDone = true
		return noMatch
	}
	i := p.pos
	for i < len(p.buf) && isJSONSpace(p.buf[i]) {
		i++
	}
	p.pos += p.addText(p.pos, i, true)
	if p.runProse || p.afterCall || p.base+p.pos-len(p.space) != 0 {
		p.startDone = true
		return noMatch
	}
	if p.pos == len(p.buf) {
		return needMore
	}
	m, name, n := s.start(p, p.buf[p.pos:])
	if m == needMore {
		return needMore
	}
	p.startDone = true
	if m == matched {
		p.stripped = true
		p.open(name, n)
	}
	return m
}

// harmonyConstraints are the words <|constrain|> stood before.
var harmonyConstraints = []string{"json", "code"}

// start matches a harmony header stripped of its tokens, up to the '{' of
// the arguments:
//
//	[assistant][commentary|analysis] to=[functions.]NAME[ ][json|code] {
//
// The constraint may be glued to the name (NAME<|constrain|>json lost its
// token), so NAME is the one reading of the word, with or without a
// constraint after it, that is a declared tool.
func (harmony) start(p *textParser, b []byte) (match, string, int) {
	bound := p.headerBound()
	more := func() (match, string, int) {
		if len(b) >= bound {
			return noMatch, "", 0
		}
		return needMore, "", 0
	}
	b = b[:min(len(b), bound)]
	i, ok := optLiteral(b, 0, "assistant")
	if ok {
		i, ok = optLiteral(b, i, "commentary", "analysis")
	}
	if !ok {
		return more()
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	switch literal(b[i:], "to=") {
	case needMore:
		return more()
	case noMatch:
		return noMatch, "", 0
	}
	if i, ok = optLiteral(b, i+len("to="), "functions."); !ok {
		return more()
	}
	j := i
	for j < len(b) && bytes.IndexByte([]byte(" \t\r\n{<"), b[j]) < 0 {
		j++
	}
	if j == len(b) {
		return more()
	}
	name, glued := harmonyStrippedName(p, validString(b[i:j]))
	if name == "" {
		return noMatch, "", 0
	}
	for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
		j++
	}
	if !glued {
		if j, ok = optLiteral(b, j, harmonyConstraints...); !ok {
			return more()
		}
	}
	for j < len(b) && isJSONSpace(b[j]) {
		j++
	}
	switch {
	case j == len(b):
		return more()
	case b[j] != '{':
		return noMatch, "", 0
	}
	return matched, name, j
}

// harmonyStrippedName returns the declared tool a stripped header's word
// names, and whether a constraint was glued to it: the word, or the word
// less a constraint, when exactly one of them is declared.
func harmonyStrippedName(p *textParser, word string) (string, bool) {
	name, glued, found := "", false, 0
	if _, ok := p.opts.Tools[word]; ok {
		name, found = word, 1
	}
	for _, c := range harmonyConstraints {
		base, ok := bytes.CutSuffix([]byte(word), []byte(c))
		if _, declared := p.opts.Tools[string(base)]; ok && len(base) > 0 && declared {
			name, glued, found = string(base), true, found+1
		}
	}
	if found != 1 {
		return "", false
	}
	return name, glued
}

// optLiteral passes over the first of lits that b[i:] starts with, if
// any; false when b ends where one of them could still start.
func optLiteral(b []byte, i int, lits ...string) (int, bool) {
	for _, lit := range lits {
		switch literal(b[i:], lit) {
		case matched:
			return i + len(lit), true
		case needMore:
			return i, false
		}
	}
	return i, true
}
