package oracle

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// style is how a value is written out: JSON, or one of the ways models
// write it wrong.
type style struct {
	python     bool // Python literals: True, False, None; repr's quotes
	single     bool // every string in single quotes, JSON otherwise
	rawNewline bool // newlines inside strings written raw
	rawQuote   bool // double quotes inside strings left unescaped
	spaced     bool // ", " and ": " as Python and many models write them
}

// JSON returns v as compact JSON with keys sorted, no HTML escaping.
func JSON(v any) string { return encode(v, style{}) }

func encode(v any, st style) string {
	var b strings.Builder
	writeValue(&b, v, st)
	return b.String()
}

func writeValue(b *strings.Builder, v any, st style) {
	comma, colon := ",", ":"
	if st.spaced || st.python {
		comma, colon = ", ", ": "
	}
	switch x := v.(type) {
	case nil:
		b.WriteString(pick(st.python, "None", "null"))
	case bool:
		switch {
		case st.python && x:
			b.WriteString("True")
		case st.python:
			b.WriteString("False")
		case x:
			b.WriteString("true")
		default:
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(x))
	case string:
		writeString(b, x, st)
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(comma)
			}
			writeValue(b, e, st)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				b.WriteString(comma)
			}
			writeString(b, k, st)
			b.WriteString(colon)
			writeValue(b, x[k], st)
		}
		b.WriteByte('}')
	default:
		// float64 and the like, from a decoder without UseNumber.
		data, _ := json.Marshal(x)
		b.Write(data)
	}
}

func pick(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// writeString writes s quoted in the style. Python's repr quotes with '
// unless s holds ' and no ".
func writeString(b *strings.Builder, s string, st style) {
	q := byte('"')
	if st.single || st.python && !(strings.Contains(s, "'") && !strings.Contains(s, `"`)) {
		q = '\''
	}
	b.WriteByte(q)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == rune(q) && !(st.rawQuote && q == '"'):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n' && st.rawNewline:
			b.WriteByte('\n')
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20:
			const hex = "0123456789abcdef"
			b.WriteString(`\u00`)
			b.WriteByte(hex[r>>4])
			b.WriteByte(hex[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
}

// Python returns v as a Python literal, as repr writes it.
func Python(v any) string { return encode(v, style{python: true}) }

// Equal reports whether two argument values are the same: numbers by their
// text, objects whatever their key order.
func Equal(a, b any) bool { return JSON(a) == JSON(b) }
