package repair

import (
	"errors"
	"fmt"
	"strings"
)

// RepairedJSON is the outcome of RepairJSON.
type RepairedJSON struct {
	// Value is the JSON value: map[string]any, []any, string, json.Number,
	// bool or nil.
	Value any
	// Repairs lists what was changed, each with code JSON_REPAIRED or
	// PYTHON_LITERAL; empty when the text was valid JSON.
	Repairs []Repair
	// Truncated reports that the text ended inside a value (a string, a
	// number, a key without its value): Value shows what arrived, closed,
	// but it must not be used as the model's intent.
	Truncated bool
}

// JSONOptions make RepairJSON schema-aware.
type JSONOptions struct {
	// Keys are the object keys the text is expected to hold (a tool's
	// parameter names and their aliases, at any depth). When set, a quote
	// inside a string ends it only if what follows fits the structure: a
	// comma and one of these keys, or a closing bracket. Nil means any key.
	Keys map[string]bool
}

// RepairJSON parses text as JSON, repairing what language models get wrong:
// single quotes and Python literals, missing or extra commas, missing colons
// and quotes, comments, smart quotes, bad escapes, raw control characters,
// code fences and prose around the value, truncation. Valid JSON takes the
// strict fast path and comes back with no repairs. An error means nothing
// could be recovered; text nested deeper than MaxJSONDepth, valid or not,
// is an error wrapping ErrTooDeep.
func RepairJSON(text string, opts JSONOptions) (RepairedJSON, error) {
	if !plainlyBroken(text) {
		v, err := decodeJSON(text)
		if err == nil {
			return RepairedJSON{Value: v}, nil
		}
		if errors.Is(err, ErrTooDeep) {
			return RepairedJSON{}, err
		}
	}
	return repairJSON(text, opts)
}

// plainlyBroken reports text whose ends already show it is not strict JSON
// (a Python dict or unquoted keys at the start, a fence or prose first, an
// object or array that does not close, a trailing comma before the last
// bracket), so the strict pass, which would fail anyway after reading all
// of a large document, is skipped.
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
	// A comma before the closing bracket.
	i := last - 1
	for i > first && isJSONSpace(text[i]) {
		i--
	}
	return text[i] == ','
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// errNothing means the text held no JSON value that could be recovered.
var errNothing = errors.New("no JSON value found")

// errInvalidText means the text holds something no repair should paper
// over: a raw control character such as NUL, or a malformed \u escape.
var errInvalidText = errors.New("invalid control character or \\u escape")

// repairJSON is the tolerant parser behind RepairJSON, for text the strict
// parser rejected. It builds values directly (no intermediate repaired
// text) in one left-to-right pass; the only look-ahead is the bounded scan
// that decides whether a quote ends a string.
func repairJSON(text string, opts JSONOptions) (RepairedJSON, error) {
	if un, ok := unescapeEscapedJSON(text); ok {
		r, err := repairJSON(un, opts)
		if err == nil {
			r.Repairs = append([]Repair{{Code: CodeJSONRepaired, Detail: "decoded JSON that was escaped as a string body"}}, r.Repairs...)
		}
		return r, err
	}
	p := &repairParser{s: text, keys: opts.Keys, tooDeep: -1}
	v, err := p.document()
	if p.tooDeep >= 0 {
		return RepairedJSON{}, fmt.Errorf("at offset %d: %w", p.tooDeep, ErrTooDeep)
	}
	if err != nil {
		return RepairedJSON{}, err
	}
	if p.invalid {
		return RepairedJSON{}, errInvalidText
	}
	return RepairedJSON{Value: v, Repairs: p.repairs(), Truncated: p.truncated}, nil
}

// unescapeEscapedJSON recognises JSON whose quotes all arrive escaped
// ({\"a\": \"b\"}), as when a JSON string body is pasted without its quotes,
// and undoes one level of escaping.
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
