// Package jsonrepair reads the JSON models write: strict JSON on a fast
// path (Decode), and, when that fails, a tolerant one-pass parser that
// repairs quotes, Python literals, commas, colons, comments, escapes, fences
// and prose around, and truncation (Repair). It knows no tools and no repair
// codes: the caller names what the Fixes say.
package jsonrepair

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Result is the outcome of Repair.
type Result struct {
	// Value is map[string]any, []any, string, json.Number, bool or nil.
	Value any
	// Fixes say what was repaired, in order; empty for valid JSON.
	Fixes []Fix
	// Truncated reports text that ended inside a value: Value shows what
	// arrived but is not the model's intent.
	Truncated bool
}

// Fix is one kind of change Repair made to the text.
type Fix struct {
	Kind   Kind
	Detail string
}

// Kind tells the JSON repairs from the Python literals read as JSON.
type Kind uint8

const (
	// Syntax is JSON syntax repaired: quotes, commas, brackets, fences.
	Syntax Kind = iota
	// Python is Python literals read as JSON: True, None, 'strings', tuples.
	Python
)

// Options make Repair schema-aware.
type Options struct {
	// Keys are the object keys expected at any depth (nil: any). A quote
	// followed by a comma then ends a string only before one of them.
	Keys map[string]bool
	// Levels, when set, are the keys expected by the depth of the object
	// they stand in, the outermost first, in place of Keys: a nil level, or
	// one past the end, expects any key. The schema then sorts quotes only
	// where it lists the keys; in an object it leaves open (an untyped
	// array's items, {type: object}) the text's own structure decides.
	Levels []map[string]bool
	// ForCall reads text that is a tool call's arguments, or the envelope
	// around them, as Levels do where they list no keys: a reading only a
	// schema could settle (a member guessed after a comma in a value
	// missing its quote, a line comment holding the rest of the text) is
	// refused. Without it, and without Levels, such text is read as the
	// JSON-repair libraries read it.
	ForCall bool
}

// Repair parses text as JSON, repairing what models get wrong (quotes,
// Python literals, commas, colons, comments, escapes, fences and prose
// around, truncation). Valid JSON takes the strict fast path. Nesting past
// MaxDepth is an error wrapping ErrTooDeep.
func Repair(text string, opts Options) (Result, error) {
	if !plainlyBroken(text) {
		v, err := Decode(text)
		if err == nil {
			return Result{Value: v}, nil
		}
		if errors.Is(err, ErrTooDeep) {
			return Result{}, err
		}
	}
	return repairJSON(text, opts)
}

// plainlyBroken reports text whose ends show it is not strict JSON, so the
// strict pass, which would fail after reading a whole large document, is
// skipped.
func plainlyBroken(text string) bool {
	first, last := 0, len(text)-1
	for first <= last && isJSONSpace(text[first]) {
		first++
	}
	for last >= first && isJSONSpace(text[last]) {
		last--
	}
	if first > last {
		return false
	}
	switch c := text[first]; {
	case c == '{':
		i := first + 1
		for i < last && isJSONSpace(text[i]) {
			i++
		}
		if text[last] != '}' || text[i] != '"' && text[i] != '}' {
			return true
		}
	case c == '[':
		if text[last] != ']' {
			return true
		}
	case c == '"' || c == '-' || '0' <= c && c <= '9' || c == 't' || c == 'f' || c == 'n':
		return false
	default:
		return true
	}

	i := last - 1
	for i > first && isJSONSpace(text[i]) {
		i--
	}
	return text[i] == ','
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

var errNothing = errors.New("no JSON value found")

// ErrKeyQuote reports a key whose closing quote is missing before its
// colon, where the tool declares no such key: the text is not cut off, and
// guessing where the key ends could misread the call.
var ErrKeyQuote = errors.New("has no closing quote before its colon")

// ErrAmbiguousQuote reports a string with a quote left unescaped inside it
// whose end the text does not settle: it has no closing quote of its own,
// or a quote inside it could end it as well as the one that does. Each
// reading gives another value, so none is chosen.
var ErrAmbiguousQuote = errors.New("has a quote inside it that could also end it, and no closing quote settles which")

// ErrStrayText reports text after a value that is neither a value nor a
// separator: a bare word ({"limit": 1454 oops}, [true oops]) or a comment
// that swallows the rest of the call. Read as a value it adds one the
// model may not have meant; dropped, it may lose one; so neither is done.
var ErrStrayText = errors.New("is neither a value nor a separator: a stray word that could be a value or junk")

// errInvalidText is text no repair should paper over (NUL, a malformed \u).
var errInvalidText = errors.New("invalid control character or \\u escape")

// repairJSON is the tolerant parser, for text the strict one rejected. It
// builds values in one pass; the only look-ahead decides whether a quote
// ends a string.
func repairJSON(text string, opts Options) (Result, error) {
	if un, ok := unescapeEscapedJSON(text); ok {
		r, err := repairJSON(un, opts)
		if err == nil {
			r.Fixes = append([]Fix{{Kind: Syntax, Detail: "decoded JSON that was escaped as a string body"}}, r.Fixes...)
		}
		return r, err
	}
	if v, ok := fencedJSON(text); ok {
		return Result{Value: v, Fixes: []Fix{{Kind: Syntax, Detail: "removed a code fence"}}}, nil
	}
	p := newParser(text, opts.Keys, opts.Levels)
	p.forCall = opts.ForCall || opts.Levels != nil
	if p.levels != nil {
		p.keys = nil // set by level as objects open (parse.go)
	}
	bufs := parseBuffersPool.Get().(*parseBuffers)
	p.scratch, p.found, p.python = bufs.scratch[:0], bufs.found[:0], bufs.python[:0]
	v, err := p.document()
	var fixes []Fix
	if err == nil {
		fixes = p.fixes()
	}
	bufs.keep(p)
	parseBuffersPool.Put(bufs)
	if p.tooDeep >= 0 {
		return Result{}, fmt.Errorf("at offset %d: %w", p.tooDeep, ErrTooDeep)
	}
	if p.keyQuote >= 0 {
		return Result{}, fmt.Errorf("the key at offset %d, %s: %w", p.keyQuote, strconv.Quote(clipText(text[p.keyQuote:], 40)), ErrKeyQuote)
	}
	if p.ambiguous >= 0 {
		return Result{}, fmt.Errorf("the string at offset %d, %s: %w", p.ambiguous, strconv.Quote(clipText(text[p.ambiguous:], 40)), ErrAmbiguousQuote)
	}
	if p.stray >= 0 {
		return Result{}, fmt.Errorf("the text at offset %d, %s, %w", p.stray, strconv.Quote(clipText(text[p.stray:], 40)), ErrStrayText)
	}
	if err != nil {
		return Result{}, err
	}
	if p.invalid {
		return Result{}, errInvalidText
	}
	return Result{Value: v, Fixes: fixes, Truncated: p.truncated}, nil
}

// clipText returns s, or its first n characters and an ellipsis.
func clipText(s string, n int) string {
	end := 0
	for range n {
		if end >= len(s) {
			return s
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	if end >= len(s) {
		return s
	}
	return s[:end] + "…"
}

// fencedJSON returns the value of valid JSON in a code fence, opened,
// closed or both, with nothing else around it: the strict reading, which
// the same text unfenced gets, instead of the repair parser's guesses about
// where strings end.
func fencedJSON(text string) (any, bool) {
	body := strings.TrimSpace(text)
	body, opened := strings.CutPrefix(body, "```")
	if opened {
		body = strings.TrimLeft(body, "`")
		for len(body) > 0 && isWordByte(body[0]) { // language tag
			body = body[1:]
		}
	}
	body, closed := strings.CutSuffix(body, "```")
	if !opened && !closed {
		return nil, false
	}
	v, err := Decode(body)
	return v, err == nil
}

// unescapeEscapedJSON undoes one level of escaping of JSON whose quotes all
// arrive escaped ({\"a\": \"b\"}).
func unescapeEscapedJSON(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if !(strings.HasPrefix(t, `{\"`) || strings.HasPrefix(t, `[\"`) || strings.HasPrefix(t, `\"`)) {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(t))
	for i := 0; i < len(t); i++ {
		if t[i] == '\\' && i+1 < len(t) && (t[i+1] == '"' || t[i+1] == '\\') {
			b.WriteByte(t[i+1])
			i++
			continue
		}
		b.WriteByte(t[i])
	}
	return b.String(), true
}

// parseBuffers is the buffer str builds strings in and the lists of the
// repairs noted, pooled so a parse does not grow new ones from nothing.
type parseBuffers struct {
	scratch       []byte
	found, python []string
}

var parseBuffersPool = sync.Pool{New: func() any { return new(parseBuffers) }}

// maxPooledScratch is the largest buffer kept for the next parse: one
// grown by a single large string is left to the collector.
const maxPooledScratch = 64 << 10

// keep takes back the parser's buffers, the notes cleared: a note may be
// a key's name, which the pool must not hold on to.
func (b *parseBuffers) keep(p *repairParser) {
	b.scratch = nil
	if cap(p.scratch) <= maxPooledScratch {
		b.scratch = p.scratch[:0]
	}
	clear(p.found)
	clear(p.python)
	b.found, b.python = nil, nil
	if cap(p.found)+cap(p.python) <= maxPooledNotes {
		b.found, b.python = p.found[:0], p.python[:0]
	}
}

// maxPooledNotes bounds the notes kept for the next parse: a text may
// close the quotes of many keys, each noted with its name.
const maxPooledNotes = 64
