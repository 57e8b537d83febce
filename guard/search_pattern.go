package guard

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A search pattern is Go's RE2 syntax (regexp): linear time whatever the
// pattern and the text, so no pattern can hang a search; no look-around
// and no back-references. Patterns match within a line, "^" and "$" at
// its ends. A literal (literal mode, or a regular expression that is one)
// is found with bytes.Index; a regular expression that requires a literal
// is searched for that literal first and checked on the lines that hold
// it, as ripgrep does; a case-insensitive literal on an ASCII file is
// found in a folded copy of it.

const (
	// maxSearchPatternBytes bounds a pattern's length.
	maxSearchPatternBytes = 4096
	// maxSearchProgram bounds a compiled pattern's instructions: a large
	// counted repetition ("(a{999}){999}") compiles to a large program.
	maxSearchProgram = 5000
	// searchChunk is how much text a regular expression without a literal
	// runs over at a time, to the end of a line, between looks at the
	// search's deadline: its cost grows with its program's size.
	searchChunk = 16 << 10
)

// linePattern is a compiled search pattern.
type linePattern struct {
	re *regexp.Regexp // (?m), with (?i) when folding
	// lit is a literal every match holds, "" when there is none; exact
	// says a line holding it matches (the pattern is the literal).
	lit   []byte
	fold  bool // lit is lower-case ASCII and matched regardless of case
	exact bool
	// piece is the longest part of a folded lit without "k" or "s", the
	// two ASCII letters that non-ASCII ones fold to (the Kelvin sign, "ſ"):
	// on a file beyond ASCII, lit itself when it has neither.
	piece []byte
}

// compileSearchPattern compiles raw; msg, when not "", tells the model
// what is wrong, naming the position.
func compileSearchPattern(raw string, literal, ignoreCase, smartCase bool) (*linePattern, string) {
	switch {
	case raw == "":
		return nil, "pattern is empty; give the text or the regular expression to search for"
	case len(raw) > maxSearchPatternBytes:
		return nil, fmt.Sprintf("pattern is %d bytes long; search patterns are limited to %d bytes", len(raw), maxSearchPatternBytes)
	case !utf8.ValidString(raw):
		return nil, "pattern is not valid UTF-8"
	case strings.ContainsAny(raw, "\n\r") && literal:
		return nil, "pattern spans lines; the search matches within one line, so give one line of text"
	}
	if smartCase && !ignoreCase {
		ignoreCase = !hasUpper(raw, literal)
	}
	expr := raw
	if literal {
		expr = regexp.QuoteMeta(raw)
	}
	flags := "(?m)"
	if ignoreCase {
		flags = "(?mi)"
	}
	tree, err := syntax.Parse(flags+expr, syntax.Perl)
	if err != nil {
		return nil, patternError(raw, err)
	}
	tree = tree.Simplify()
	prog, err := syntax.Compile(tree)
	if err != nil {
		return nil, patternError(raw, err)
	}
	if len(prog.Inst) > maxSearchProgram {
		return nil, fmt.Sprintf("pattern %q is too complex (it compiles to %d steps, at most %d): lower its repetition counts", raw, len(prog.Inst), maxSearchProgram)
	}
	re, err := regexp.Compile(flags + expr)
	if err != nil {
		return nil, patternError(raw, err)
	}
	p := &linePattern{re: re}
	p.lit, p.fold, p.exact = requiredLiteral(tree)
	if p.fold {
		for _, part := range strings.FieldsFunc(string(p.lit), func(r rune) bool { return r == 'k' || r == 's' }) {
			if len(part) > len(p.piece) {
				p.piece = []byte(part)
			}
		}
	}
	return p, ""
}

// patternError names what is wrong with raw and where: RE2 reports the
// offending part, which is found again in the pattern.
func patternError(raw string, err error) string {
	var se *syntax.Error
	if !errors.As(err, &se) {
		return fmt.Sprintf("pattern %q is not a valid regular expression: %v", raw, err)
	}
	where := ""
	se.Expr = strings.TrimPrefix(strings.TrimPrefix(se.Expr, "(?m)"), "(?mi)")
	if i := unbalancedParen(raw); i >= 0 && (se.Code == syntax.ErrMissingParen || se.Code == syntax.ErrUnexpectedParen) {
		where = fmt.Sprintf(" at position %d (%q)", i+1, raw[i:min(len(raw), i+20)])
	} else if i := strings.Index(raw, se.Expr); se.Expr != "" && i >= 0 {
		where = fmt.Sprintf(" at position %d (%q)", i+1, se.Expr)
	} else if se.Expr != "" {
		where = fmt.Sprintf(" (%q)", se.Expr)
	}
	msg := fmt.Sprintf("pattern %q is not a valid regular expression (Go RE2 syntax): %s%s", raw, se.Code, where)
	switch {
	case strings.Contains(raw, "(?=") || strings.Contains(raw, "(?!") || strings.Contains(raw, "(?<"):
		msg += "; look-around is not supported: match the text itself"
	case se.Code == syntax.ErrInvalidEscape && backReference(raw):
		msg += "; back-references (\\1) are not supported"
	case se.Code == syntax.ErrInvalidRepeatSize:
		msg += "; a repetition count is at most 1000"
	}
	return msg + "; to search for the text as written, set literal to true"
}

// unbalancedParen returns the offset of the first ")" that closes nothing
// or of the last "(" left open, skipping escapes and classes; -1 if none.
func unbalancedParen(raw string) int {
	var open []int
	inClass := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
			if i+1 < len(raw) && raw[i+1] == ']' {
				i++
			}
		case c == '(':
			open = append(open, i)
		case c == ')':
			if len(open) == 0 {
				return i
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		return open[len(open)-1]
	}
	return -1
}

// backReference reports whether raw has "\1".."\9".
func backReference(raw string) bool {
	for i := 0; i+1 < len(raw); i++ {
		if raw[i] == '\\' {
			if c := raw[i+1]; c >= '1' && c <= '9' {
				return true
			}
			i++
		}
	}
	return false
}

// hasUpper reports whether a pattern holds an upper-case letter of its own
// (smart case): escapes such as \S, \W and \p{Lu} name classes, not letters.
func hasUpper(raw string, literal bool) bool {
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		if r == '\\' && !literal && i+n < len(raw) {
			i += n
			c, m := utf8.DecodeRuneInString(raw[i:])
			i += m
			if (c == 'p' || c == 'P') && i < len(raw) && raw[i] == '{' {
				if j := strings.IndexByte(raw[i:], '}'); j >= 0 {
					i += j + 1
				}
			}
			continue
		}
		if unicode.IsUpper(r) {
			return true
		}
		i += n
	}
	return false
}

// requiredLiteral finds the longest literal every match of tree holds;
// exact when tree is that literal alone. A case-folded literal is used
// only when it is ASCII, lower-cased.
func requiredLiteral(tree *syntax.Regexp) (lit []byte, fold, exact bool) {
	cands := []*syntax.Regexp{tree}
	exact = true
	for tree.Op == syntax.OpCapture {
		tree = tree.Sub[0]
	}
	if tree.Op == syntax.OpConcat {
		cands, exact = tree.Sub, false
	}
	var best *syntax.Regexp
	for _, c := range cands {
		for c.Op == syntax.OpCapture {
			c = c.Sub[0]
		}
		if c.Op == syntax.OpPlus && c.Sub[0].Op == syntax.OpLiteral {
			c, exact = c.Sub[0], false
		}
		if c.Op == syntax.OpLiteral && (best == nil || len(c.Rune) > len(best.Rune)) {
			best = c
		}
	}
	if best == nil {
		return nil, false, false
	}
	s := string(best.Rune)
	fold = best.Flags&syntax.FoldCase != 0
	if fold {
		if !isASCII(s) {
			return nil, false, false
		}
		s = strings.ToLower(s)
	}
	if strings.ContainsAny(s, "\n") {
		return nil, false, false
	}
	return []byte(s), fold, exact && len(cands) == 1
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// lowerASCII writes src with ASCII letters lower-cased into dst (len(src))
// and reports whether src is all ASCII.
// Eight bytes at a time: a byte is upper-case when adding 0x80-'A' to its
// low seven bits sets the top bit and adding 0x80-'Z'-1 does not, and its
// own top bit is clear; 0x20 is then added.
func lowerASCII(dst, src []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	dst = dst[:len(src)]
	var high uint64
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := binary.LittleEndian.Uint64(src[i:])
		high |= w
		low := w &^ highs
		upper := (low + ones*(0x80-'A')) &^ (low + ones*(0x80-'Z'-1)) &^ w & highs
		binary.LittleEndian.PutUint64(dst[i:], w|upper>>2)
	}
	var tail byte
	for ; i < len(src); i++ {
		tail |= src[i]
		dst[i] = lowerTable[src[i]]
	}
	return high&highs == 0 && tail < utf8.RuneSelf
}

var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] += 'a' - 'A'
		}
	}
	return t
}()

// lineMatch is a matching line found in a file: the line's bounds and
// the match's start in it.
type lineMatch struct {
	start, end int // the line, without its newline
	col        int // byte offset of the first match in the line
}

// matcher finds the matching lines of one file's text.
type matcher struct {
	p      *linePattern
	ctx    context.Context // nil: no deadline
	folded []byte          // a folded copy of the text, reused between files
}

// each calls fn for every matching line of data in order; fn returns
// false to stop.
func (m *matcher) each(data []byte, fn func(lineMatch) bool) {
	p := m.p
	hay, lit := data, p.lit
	exact := p.exact
	if p.fold && lit != nil {
		if cap(m.folded) < len(data) {
			m.folded = make([]byte, len(data))
		}
		hay = m.folded[:len(data)]
		if !lowerASCII(hay, data) && len(p.piece) < len(lit) {
			// Beyond ASCII, "k" and "s" fold to other letters too: the
			// lines holding the rest of the literal are checked by the
			// regular expression, which knows them all.
			lit, exact = p.piece, false
			if len(lit) == 0 {
				hay, lit = data, nil
			}
		}
	}
	for pos := 0; pos < len(data); {
		var at int
		if lit != nil {
			i := bytes.Index(hay[pos:], lit)
			if i < 0 {
				return
			}
			at = pos + i
		} else {
			if m.ctx != nil && m.ctx.Err() != nil {
				return
			}
			limit := len(data)
			if pos+searchChunk < len(data) {
				if i := bytes.IndexByte(data[pos+searchChunk:], '\n'); i >= 0 {
					limit = pos + searchChunk + i
				}
			}
			loc := p.re.FindIndex(data[pos:limit])
			if loc == nil {
				if limit == len(data) {
					return
				}
				pos = limit + 1
				continue
			}
			at = pos + loc[0]
		}
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		if start == len(data) {
			return // past the final newline: no line there
		}
		end := len(data)
		if i := bytes.IndexByte(data[at:], '\n'); i >= 0 {
			end = at + i
		}
		col := at - start
		ok := exact
		if !exact {
			if loc := p.re.FindIndex(data[start:end]); loc != nil {
				ok, col = true, loc[0]
			}
		}
		if ok && !fn(lineMatch{start: start, end: end, col: col}) {
			return
		}
		if end == len(data) {
			return
		}
		pos = end + 1
	}
}
