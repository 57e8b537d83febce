package jsonrepair

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// MaxDepth bounds the nesting Decode and Repair parse, so input cannot
// exhaust the stack.
const MaxDepth = 512

// ErrTooDeep is wrapped by the error of Decode and Repair for text nesting
// past MaxDepth: no value rather than one cut short.
var ErrTooDeep = fmt.Errorf("objects and arrays nest more than %d levels deep", MaxDepth)

// SyntaxError is a strict-JSON parse failure at a byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
	err    error // ErrTooDeep or nil
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%s at offset %d", e.Msg, e.Offset) }

func (e *SyntaxError) Unwrap() error { return e.err }

func (p *strictParser) tooDeep() error {
	return &SyntaxError{Offset: p.i, Msg: ErrTooDeep.Error(), err: ErrTooDeep}
}

// Decode parses one strict JSON value, the fast path every arguments
// text takes first. Strings without escapes share s's memory; invalid UTF-8
// becomes U+FFFD byte by byte, as in encoding/json (protobuf needs UTF-8).
func Decode(s string) (any, error) {
	p := strictParser{s: s}
	v, err := p.document()
	if p.pooled != nil {
		*p.pooled = nil
		if cap(p.buf) <= maxPooledScratch {
			*p.pooled = p.buf[:0]
		}
		strictBufs.Put(p.pooled)
	}
	return v, err
}

func (p *strictParser) document() (any, error) {
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i != len(p.s) {
		return nil, p.errorf("unexpected text after the JSON value")
	}
	return v, nil
}

type strictParser struct {
	s string
	i int
	// buf is where escaped strings are decoded, taken at the first: from
	// strictBufs (pooled) while the rest of the text is small, else sized
	// for it.
	buf    []byte
	pooled *[]byte
	boxes  boxes // the string values' headers
}

// strictBufs keeps the buffers escaped strings are decoded in, up to
// maxPooledScratch bytes.
var strictBufs = sync.Pool{New: func() any { return new([]byte) }}

func (p *strictParser) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: p.i, Msg: fmt.Sprintf(format, args...)}
}

func (p *strictParser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *strictParser) value(depth int) (any, error) {
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return p.boxes.box(s), err
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case strings.HasPrefix(p.s[p.i:], "true"):
		p.i += 4
		return true, nil
	case strings.HasPrefix(p.s[p.i:], "false"):
		p.i += 5
		return false, nil
	case strings.HasPrefix(p.s[p.i:], "null"):
		p.i += 4
		return nil, nil
	default:
		return nil, p.errorf("invalid character %q looking for a value", c)
	}
}

func (p *strictParser) object(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.tooDeep()
	}
	p.i++ // {
	m := make(map[string]any, 4)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.errorf("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.errorf("expected ':' after an object key")
		}
		p.i++
		p.skipSpace()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unexpected end of input in an object")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.errorf("expected ',' or '}' in an object")
		}
	}
}

func (p *strictParser) array(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, p.tooDeep()
	}
	p.i++ // [
	a := make([]any, 0, 4)
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.skipSpace()
		if p.i >= len(p.s) {
			return nil, p.errorf("unexpected end of input in an array")
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.errorf("expected ',' or ']' in an array")
		}
	}
}

func (p *strictParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && '1' <= p.s[p.i] && p.s[p.i] <= '9':
		p.digits()
	default:
		return nil, p.errorf("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, p.errorf("invalid number: no digits after '.'")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, p.errorf("invalid number: no digits in the exponent")
		}
	}
	return json.Number(p.s[start:p.i]), nil
}

func (p *strictParser) digits() int {
	start := p.i
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}

func (p *strictParser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	var high byte // utf8.RuneSelf once the text read holds a byte that is not ASCII
	for p.i < len(p.s) {
		p.i = strictRunEnd(p.s, p.i, &high)
		if p.i >= len(p.s) {
			break
		}
		switch c := p.s[p.i]; c {
		case '"':
			raw := p.s[start:p.i]
			p.i++
			if high >= utf8.RuneSelf && !utf8.ValidString(raw) {
				return ToValidUTF8(raw), nil
			}
			return raw, nil
		case '\\':
			return p.escapedStr(start, high)
		default:
			return "", p.errorf("control character %q in a string", c)
		}
	}
	return "", p.errorf("unterminated string")
}

// strictRunEnd returns where the run from i of bytes that are neither a
// quote, a backslash nor a control byte ends, eight bytes at a time (see
// stopMask), setting high to utf8.RuneSelf if a byte of it is not ASCII.
func strictRunEnd(s string, i int, high *byte) int {
	var h uint64
	for ; i+8 <= len(s); i += 8 {
		w := load64(s, i)
		if m := (w-0x20*ones)&^w | zeroBytes(w^(ones*'"')) | zeroBytes(w^(ones*'\\')); m&highs != 0 {
			k := bits.TrailingZeros64(m&highs) >> 3
			if (h|w&(1<<(8*k)-1))&highs != 0 {
				*high = utf8.RuneSelf
			}
			return i + k
		}
		h |= w
	}
	for ; i < len(s); i++ {
		c := s[i]
		if c == '"' || c == '\\' || c < 0x20 {
			break
		}
		h |= uint64(c)
	}
	if h&highs != 0 {
		*high = utf8.RuneSelf
	}
	return i
}

// escapedStr decodes a string from start; p.i is at its first backslash,
// high is utf8.RuneSelf if the text before it is not all ASCII.
func (p *strictParser) escapedStr(start int, high byte) (string, error) {
	if v, ok := p.plainEscapedStr(start, high); ok {
		return v, nil
	}
	var b strings.Builder
	b.Grow(p.rawStringLen(start)) // decoded text is never longer than raw
	b.WriteString(ToValidUTF8(p.s[start:p.i]))
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.errorf("control character %q in a string", c)
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", p.errorf("unterminated escape")
			}
			e := p.s[p.i+1]
			p.i += 2
			if c, ok := jsonesc.Simple(e); ok {
				b.WriteByte(c)
				continue
			}
			switch e {
			case 'u':
				r, n := jsonesc.Unicode(p.s[p.i-2:])
				if n == 0 {
					return "", p.errorf("invalid \\u escape")
				}
				p.i += n - 2
				b.WriteRune(r) // a lone surrogate becomes U+FFFD, as in encoding/json
			default:
				return "", p.errorf("invalid escape '\\%c'", e)
			}
		case c < utf8.RuneSelf:
			// The run of plain ASCII in one write.
			j := p.i + 1
			for j < len(p.s) {
				d := p.s[j]
				if d == '"' || d == '\\' || d < 0x20 || d >= utf8.RuneSelf {
					break
				}
				j++
			}
			b.WriteString(p.s[p.i:j])
			p.i = j
		default:
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.WriteString(p.s[p.i : p.i+size])
			}
			p.i += size
		}
	}
	return "", p.errorf("unterminated string")
}

// plainEscapedStr decodes the usual string with escapes, valid UTF-8
// with valid escapes and no control byte, in one pass into p.buf; false
// leaves p.i where it was, for escapedStr's general decoding (and its
// errors). The decoded text is valid UTF-8 exactly when the raw text
// between the escapes is: an escape gives ASCII or a whole character.
// As in the repair parser's scan, runs are found and copied eight bytes
// at a time, each word stored whole (the buffer keeps room past its end),
// and an escape's neighbour is decoded without a search.
//
//nolint:gocyclo // one loop whose offsets stay in registers
func (p *strictParser) plainEscapedStr(start int, high byte) (string, bool) {
	s := p.s
	buf := append(p.scratch(start), s[start:p.i]...)
	n := len(buf)
	buf = buf[:cap(buf)]
	var h uint64 // the high bits of the runs read
	for i := p.i; ; {
		stop := false
		for i+8 <= len(s) {
			w := load64(s, i)
			if n+8 > len(buf) {
				buf = grown(buf, n, 8)
			}
			store64(buf[n:n+8], w)
			if m := ((w-0x20*ones)&^w | zeroBytes(w^(ones*'"')) | zeroBytes(w^(ones*'\\'))) & highs; m != 0 {
				k := bits.TrailingZeros64(m) >> 3
				h |= w & (1<<(8*k) - 1)
				i, n, stop = i+k, n+k, true
				break
			}
			h, i, n = h|w, i+8, n+8
		}
		for ; !stop && i < len(s); i, n = i+1, n+1 {
			c := s[i]
			if c == '"' || c == '\\' || c < 0x20 {
				break
			}
			if n >= len(buf) {
				buf = grown(buf, n, 1)
			}
			buf[n] = c
			h |= uint64(c)
		}
		if i >= len(s) {
			break
		}
		if s[i] == '"' {
			if (high >= utf8.RuneSelf || h&highs != 0) && !utf8.Valid(buf[:n]) {
				break
			}
			p.i = i + 1
			return p.decoded(buf[:n]), true
		}
		if s[i] != '\\' || i+1 >= len(s) {
			break // a control byte, or the text ends in the escape
		}
		if e, ok := jsonesc.Simple(s[i+1]); ok {
			if n >= len(buf) {
				buf = grown(buf, n, 1)
			}
			buf[n] = e
			i, n = i+2, n+1
			// An escape after an escape is decoded without a search.
			for i+1 < len(s) && s[i] == '\\' {
				e, ok := jsonesc.Simple(s[i+1])
				if !ok {
					break
				}
				if n >= len(buf) {
					buf = grown(buf, n, 1)
				}
				buf[n] = e
				i, n = i+2, n+1
			}
			continue
		}
		r, size := jsonesc.Unicode(s[i:])
		if size == 0 {
			break
		}
		buf = utf8.AppendRune(buf[:n], r) // a lone surrogate becomes U+FFFD
		n = len(buf)
		buf = buf[:cap(buf)]
		i += size
	}
	p.buf = buf[:0]
	return "", false
}

// scratch returns the buffer to decode a string from start in, empty.
func (p *strictParser) scratch(start int) []byte {
	if p.buf == nil {
		if rest := len(p.s) - start; rest > maxPooledScratch {
			p.buf = uncleared(rest)
		} else {
			p.pooled = strictBufs.Get().(*[]byte)
			p.buf = *p.pooled
		}
	}
	return p.buf[:0]
}

// decoded returns the string buf holds. One that fills most of a large
// buffer becomes the string itself (the buffer is dropped, not reused),
// as strText.String does; others are copied and the buffer kept.
func (p *strictParser) decoded(buf []byte) string {
	if n := len(buf); n > maxPooledScratch && 2*n >= cap(buf) {
		p.buf = nil
		if p.pooled != nil {
			*p.pooled, p.pooled = nil, nil // the pool gets a new one
		}
		return unsafe.String(unsafe.SliceData(buf), n)
	}
	p.buf = buf[:0]
	return string(buf)
}

// rawStringLen returns the raw length of the string from start, so a
// decode allocates once.
func (p *strictParser) rawStringLen(start int) int {
	return nextUnescaped(p.s, p.i, '"') - start
}

// ToValidUTF8 replaces each invalid byte with U+FFFD, as Decode reads
// strings (strings.ToValidUTF8 would merge runs, unlike encoding/json).
func ToValidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// nextUnescaped returns the offset of the first c at or after i that no
// backslash escapes, or len(s).
func nextUnescaped(s string, i int, c byte) int {
	for i < len(s) {
		k := strings.IndexByte(s[i:], c)
		if k < 0 {
			return len(s)
		}
		k += i
		n := 0
		for j := k - 1; j >= 0 && s[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return k
		}
		i = k + 1
	}
	return len(s)
}
