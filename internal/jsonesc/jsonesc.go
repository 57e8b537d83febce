// Package jsonesc decodes the escapes of JSON strings: the one-character
// ones and \uXXXX, joining UTF-16 surrogate pairs. What to do with an
// invalid or lone escape is each caller's policy.
package jsonesc

// Simple decodes a one-character escape (\" \\ \/ \b \f \n \r \t) from the
// byte after the backslash. A table, so that it inlines: escaped file
// content has a few in every line.
func Simple(e byte) (byte, bool) {
	c := simpleEscapes[e]
	return c, c != 0
}

var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// Unicode decodes the \uXXXX escape at the start of s, with the low half
// that follows when it is the high half of a surrogate pair. n is the bytes
// used: 12 for a pair, 6 for one escape, 0 when s does not start with \u and
// four hex digits. A surrogate that is not half of a pair comes back as it
// is; encoding it (utf8.AppendRune, strings.Builder.WriteRune) gives U+FFFD.
func Unicode[T ~string | ~[]byte](s T) (r rune, n int) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, 0
	}
	r, ok := hex4(s[2:6])
	if !ok {
		return 0, 0
	}
	if r >= 0xD800 && r <= 0xDBFF && len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
		if lo, ok := hex4(s[8:12]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
			return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12
		}
	}
	return r, 6
}

// Partial reports whether s is a \uXXXX escape cut short: fewer than six
// bytes that begin one (the empty string included).
func Partial[T ~string | ~[]byte](s T) bool {
	if len(s) >= 6 || len(s) > 0 && s[0] != '\\' || len(s) > 1 && s[1] != 'u' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if _, ok := HexDigit(s[i]); !ok {
			return false
		}
	}
	return true
}

// HexDigit returns the value of a hex digit.
func HexDigit(c byte) (byte, bool) {
	v := hexValue[c]
	return byte(v), v >= 0
}

// hexValue maps the bytes to their value as hex digits, -1 for the others:
// a table keeps hex4 small enough to inline.
var hexValue = func() (t [256]int8) {
	for i := range t {
		switch c := byte(i); {
		case '0' <= c && c <= '9':
			t[i] = int8(c - '0')
		case 'a' <= c && c <= 'f':
			t[i] = int8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[i] = int8(c - 'A' + 10)
		default:
			t[i] = -1
		}
	}
	return t
}()

// hex4 parses four hex digits, the length of s.
func hex4[T ~string | ~[]byte](s T) (rune, bool) {
	if len(s) != 4 {
		return 0, false
	}
	a, b, c, d := hexValue[s[0]], hexValue[s[1]], hexValue[s[2]], hexValue[s[3]]
	if a|b|c|d < 0 {
		return 0, false
	}
	return rune(a)<<12 | rune(b)<<8 | rune(c)<<4 | rune(d), true
}
