package repair

import (
	"bytes"
	"encoding/json"
	"slices"
	"unicode/utf8"
)

// EncodeArgs renders arguments with EncodeJSON; nil stays nil.
func EncodeArgs(args map[string]any) ([]byte, error) {
	if args == nil {
		return nil, nil
	}
	return EncodeJSON(args)
}

// EncodeJSON renders a JSON value compactly, keys sorted, without HTML
// escaping: file content such as "<div>" stays itself. The output is byte
// for byte encoding/json's (an Encoder with SetEscapeHTML(false)); the
// values the parsers produce are written directly, into a buffer sized
// once, because a verdict re-encodes whole file contents and encoding/json
// spends most of that time growing its buffer and reflecting.
func EncodeJSON(v any) ([]byte, error) {
	if out, ok := appendJSON(make([]byte, 0, encodedSize(v)), v); ok {
		return out, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodedSize estimates the encoding's length: exact for text with nothing
// to escape.
func encodedSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x) + 2
	case map[string]any:
		n := 2
		for k, e := range x {
			n += len(k) + 4 + encodedSize(e)
		}
		return n
	case []any:
		n := 2
		for _, e := range x {
			n += 1 + encodedSize(e)
		}
		return n
	}
	return 8
}

// appendJSON appends v's encoding; false for a value it does not write
// (another type, an invalid json.Number), left to encoding/json whole so
// errors stay its own.
func appendJSON(dst []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case string:
		return appendJSONString(dst, x), true
	case bool:
		if x {
			return append(dst, "true"...), true
		}
		return append(dst, "false"...), true
	case json.Number:
		if x == "" {
			x = "0" // as encoding/json writes the zero Number
		}
		if !isNumberLiteral(string(x)) {
			return dst, false
		}
		return append(dst, x...), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendJSON(dst, e); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	case map[string]any:
		return appendJSONObject(dst, x)
	}
	return dst, false
}

func appendJSONObject(dst []byte, m map[string]any) ([]byte, bool) {
	if m == nil {
		return append(dst, "null"...), true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		var ok bool
		if dst, ok = appendJSON(dst, m[k]); !ok {
			return dst, false
		}
	}
	return append(dst, '}'), true
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does without HTML escaping:
// short escapes for \b \f \n \r \t, \u00XX for other control bytes,
// U+FFFD for invalid UTF-8, and U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a look.
		for i+8 <= len(s) && !needsLook(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			dst = appendEscapedByte(dst, b)
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendEscapedByte(dst []byte, b byte) []byte {
	switch b {
	case '\\', '"':
		return append(dst, '\\', b)
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	}
	return append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
}

// needsLook reports whether any of the 8 bytes of s is a control byte, a
// quote, a backslash or not ASCII (SWAR: a byte test on all eight at once).
func needsLook(s string) bool {
	x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	less := (x - 0x20*ones) &^ x // high bit set where a byte is below 0x20 (and others flagged by x's own high bit, below)
	quote := x ^ '"'*ones
	slash := x ^ '\\'*ones
	zero := (quote-ones)&^quote | (slash-ones)&^slash
	return (less|zero|x)&highs != 0
}

// isNumberLiteral reports whether s is a JSON number literal, the check
// encoding/json makes before writing a json.Number.
func isNumberLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = skipDigits(s, i+1)
	default:
		return false
	}
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i = skipDigits(s, i+2)
	}
	if i+1 < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if s[i] == '+' || s[i] == '-' {
			i++
			if i == len(s) {
				return false
			}
		}
		i = skipDigits(s, i)
	}
	return i == len(s)
}

func skipDigits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}
