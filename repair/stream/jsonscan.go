package stream

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// jsonScanner reads a JSON value as it arrives and tells a jsonHandler where
// its values start and end and what its strings hold. It resumes where it
// stopped, reading a split escape or character again whole. It tolerates
// single quotes, bare words and missing commas; on anything else it is lost
// and only looks for its stop byte.
type jsonScanner struct {
	h     jsonHandler
	buf   []byte // the buffer being scanned, for handlers
	pos   int    // next byte to read
	state scanState
	stack []frame

	quote    byte
	inKey    bool
	strStart int

	bareStart int
	key       []byte // key being read
	keys      keyArena
	scratch   []byte // decoded string growth, reused
	// src is the piece appended at buf[srcOff:], as a string: growth copied
	// verbatim from it is shown as a substring, without a copy.
	src    string
	srcOff int

	grewFrom, grewTo int
	grewVerbatim     bool

	muted bool
	// maxDepth bounds the open containers (0: none). Past it the scanner
	// only follows strings (stSkip), so its memory stops growing.
	maxDepth int
	tooDeep  bool
	// endStops makes scan return once the root value is complete or the
	// scanner is lost, for formats with no closing token after the value.
	endStops  bool
	skipDepth int // stSkip with endStops: the brackets still open

	skipQuote byte
	skipEsc   bool

	// lenient records that the text needed the scanner's tolerance (or is
	// not JSON at all): it is not strict JSON, so a value built from it
	// would not be what a strict parse gives.
	lenient bool
	// afterComma: the last structural byte was a comma, so a closing
	// bracket now closes a trailing comma.
	afterComma bool
}

type frame struct {
	obj   bool
	key   string // the member being read (objects)
	start int    // offset of the opening bracket
}

type scanState uint8

const (
	stValue  scanState = iota // expecting a value
	stKey                     // expecting a key or '}'
	stColon                   // expecting ':'
	stAfter                   // after a value: ',' or a closing bracket
	stString                  // inside a string
	stBare                    // inside a bare word
	stDone                    // the root value is complete
	stLost                    // not JSON any more: no more reports
	stSkip                    // nested too deep: strings followed, nothing reported
)

// maxKeyBytes bounds a key; a longer one is not a parameter name.
const maxKeyBytes = 1024

// jsonHandler receives what a jsonScanner finds, about a value in the
// container on top of s.stack (the root when it is empty).
type jsonHandler interface {
	valueStart(s *jsonScanner, start int)
	// stringGrew: a string grew by chunk, decoded and reused after the call.
	stringGrew(s *jsonScanner, chunk []byte, end bool)
	valueEnd(s *jsonScanner, start, end int)
}

// scan reads buf from s.pos: true at stop outside a string (0: never),
// false when it needs more input.
func (s *jsonScanner) scan(buf []byte, stop byte) bool {
	s.setBuf(buf)
	for s.pos < len(buf) {
		if s.endStops && (s.state == stDone || s.state == stLost) {
			return true
		}
		switch s.state {
		case stLost:
			return s.findStop(stop)
		case stSkip:
			return s.skipDeep(stop)
		case stString:
			if !s.readString() {
				return false
			}
			continue
		case stBare:
			if !s.readBare() {
				return false
			}
			continue
		}
		c := buf[s.pos]
		if isJSONSpace(c) {
			s.pos++
			continue
		}
		if c == stop && stop != 0 {
			return true
		}
		s.structural(c)
	}
	return false
}

// shift follows the buffer when its first n bytes, read, are taken out:
// the offsets move back, an offset before the cut only ever compared.
func (s *jsonScanner) shift(n int) {
	s.pos -= n
	s.strStart -= n
	s.bareStart -= n
	s.grewFrom -= n
	s.grewTo -= n
	for i := range s.stack {
		s.stack[i].start -= n
	}
}

// setBuf sets the buffer scanned. A buffer that grew in place only changes
// its length: writing its pointer again would cost a write barrier per
// fragment while the collector marks.
func (s *jsonScanner) setBuf(buf []byte) {
	if cap(buf) > 0 && cap(s.buf) > 0 && cap(s.buf) >= len(buf) && &s.buf[:1][0] == &buf[:1][0] {
		s.buf = s.buf[:len(buf)]
		return
	}
	s.buf = buf
}

func (s *jsonScanner) structural(c byte) {
	switch s.state {
	case stValue:
		s.beginValue(c)
	case stKey:
		s.beginKey(c)
	case stColon:
		if c == ':' || c == '=' {
			s.lenient = s.lenient || c == '='
			s.pos++
			s.state = stValue
		} else {
			s.lose()
		}
	case stAfter:
		s.separator(c)
	case stDone:
		s.lenient = true
		s.pos++ // text after the value: not ours to judge
	}
}

func (s *jsonScanner) beginKey(c byte) {
	comma := s.afterComma
	s.afterComma = false
	switch {
	case c == '"' || c == '\'':
		s.lenient = s.lenient || c == '\''
		s.quote, s.inKey, s.key = c, true, s.key[:0]
		s.state = stString
		s.pos++
	case c == '}':
		s.lenient = s.lenient || comma
		s.close(true)
	case c == ',':
		s.lenient = true
		s.pos++
	case isBareByte(c):
		s.lenient = true
		s.inKey, s.bareStart, s.state = true, s.pos, stBare
	default:
		s.lose()
	}
}

// separator reads c after a value; a missing comma is forgiven.
func (s *jsonScanner) separator(c byte) {
	top := &s.stack[len(s.stack)-1]
	switch {
	case c == ',':
		s.pos++
		s.afterComma = true
		s.state = stValue
		if top.obj {
			s.state = stKey
		}
	case c == '}' || c == ']':
		s.close(c == '}')
	case top.obj && (c == '"' || c == '\''):
		s.lenient = true
		s.state = stKey
	case !top.obj:
		s.lenient = true
		s.state = stValue
	default:
		s.lose()
	}
}

// findStop, once lost, only looks for stop.
func (s *jsonScanner) findStop(stop byte) bool {
	if stop != 0 {
		if k := bytes.IndexByte(s.buf[s.pos:], stop); k >= 0 {
			s.pos += k
			return true
		}
	}
	s.pos = len(s.buf)
	return false
}

func (s *jsonScanner) readBare() bool {
	for s.pos < len(s.buf) && isBareByte(s.buf[s.pos]) {
		s.pos++
	}
	if s.pos == len(s.buf) {
		return false
	}
	s.endBare()
	return true
}

// finish ends the input: a bare word running to the end is complete.
func (s *jsonScanner) finish(buf []byte) {
	s.setBuf(buf)
	if s.state == stBare && !s.inKey {
		s.h.valueEnd(s, s.bareStart, len(buf))
		s.afterValue()
	}
}

func (s *jsonScanner) lose() { s.state, s.lenient = stLost, true }

// mute stops the reports but goes on following the value, for a caller
// that must still find where it ends (a dropped Hermes call). The caller
// may then cut the buffer before pos, moving pos and bareStart back: a
// muted scanner reads before pos only bareStart, for a bare key's length.
func (s *jsonScanner) mute() { s.h, s.muted = mutedHandler{}, true }

type mutedHandler struct{}

func (mutedHandler) valueStart(*jsonScanner, int)          {}
func (mutedHandler) stringGrew(*jsonScanner, []byte, bool) {}
func (mutedHandler) valueEnd(*jsonScanner, int, int)       {}

// skipDeep passes over what follows a value nested too deep, up to stop
// outside a string (true) or the end of the buffer (false).
func (s *jsonScanner) skipDeep(stop byte) bool {
	buf := s.buf
	for ; s.pos < len(buf); s.pos++ {
		c := buf[s.pos]
		switch {
		case s.skipEsc:
			s.skipEsc = false
		case s.skipQuote != 0 && c == '\\':
			s.skipEsc = true
		case s.skipQuote != 0:
			if c == s.skipQuote {
				s.skipQuote = 0
			}
		case c == '"' || c == '\'':
			s.skipQuote = c
		case c == stop && stop != 0:
			return true
		case s.endStops && (c == '{' || c == '['):
			s.skipDepth++
		case s.endStops && (c == '}' || c == ']'):
			// With no closing token, the value's own end ends the call.
			if s.skipDepth--; s.skipDepth == 0 {
				s.pos++
				s.state = stDone
				return true
			}
		}
	}
	return false
}

func (s *jsonScanner) skip() {
	s.lose()
	s.pos++
}

func (s *jsonScanner) beginValue(c byte) {
	comma := s.afterComma
	s.afterComma = false
	switch {
	case (c == '{' || c == '[') && s.maxDepth > 0 && len(s.stack) >= s.maxDepth:
		s.tooDeep, s.state, s.skipDepth, s.stack = true, stSkip, len(s.stack)+1, nil
		s.h, s.muted = mutedHandler{}, true
		s.pos++
	case c == '{' || c == '[':
		s.h.valueStart(s, s.pos)
		s.stack = append(s.stack, frame{obj: c == '{', start: s.pos})
		s.pos++
		s.state = stValue
		if c == '{' {
			s.state = stKey
		}
	case c == '"' || c == '\'':
		s.lenient = s.lenient || c == '\''
		s.h.valueStart(s, s.pos)
		s.quote, s.inKey, s.strStart = c, false, s.pos
		s.state = stString
		s.pos++
	case c == ']' && len(s.stack) > 0 && !s.stack[len(s.stack)-1].obj:
		s.lenient = s.lenient || comma
		s.close(false) // an empty array, or a trailing comma
	case isBareByte(c):
		s.h.valueStart(s, s.pos)
		s.inKey, s.bareStart, s.state = false, s.pos, stBare
	default:
		s.lose()
	}
}

func (s *jsonScanner) close(obj bool) {
	if len(s.stack) == 0 || s.stack[len(s.stack)-1].obj != obj {
		s.lose()
		return
	}
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.pos++
	s.h.valueEnd(s, f.start, s.pos)
	s.afterValue()
}

func (s *jsonScanner) afterValue() {
	if len(s.stack) == 0 {
		s.state = stDone
	} else {
		s.state = stAfter
	}
}

func (s *jsonScanner) endBare() {
	if s.inKey && s.muted {
		// The key's bytes may be cut (mute): only its length matters.
		if s.pos-s.bareStart > maxKeyBytes {
			s.lose()
			return
		}
		s.setKey(nil)
		return
	}
	if s.inKey {
		s.setKey(s.buf[s.bareStart:s.pos])
		return
	}
	s.h.valueEnd(s, s.bareStart, s.pos)
	s.afterValue()
}

func (s *jsonScanner) setKey(k []byte) {
	if len(s.stack) == 0 || len(k) > maxKeyBytes {
		s.lose()
		return
	}
	s.stack[len(s.stack)-1].key = s.keys.keep(k)
	s.state = stColon
}

// keyArena keeps a call's keys together, in the order of the text, in
// chunks that never move: made one by one, each key lay among the values
// in memory, and the walks over a large object's keys in any other order
// (its map's, its keys' sorted) met a different cache line for each.
type keyArena struct{ cur strings.Builder }

// keyChunk is the largest chunk a keyArena allocates; the first is small,
// for a call of a few keys.
const keyChunk = 16 << 10

// keep returns k as a string in the arena.
func (a *keyArena) keep(k []byte) string {
	if len(k) == 0 {
		return ""
	}
	if a.cur.Cap()-a.cur.Len() < len(k) {
		size := max(len(k), min(max(2*a.cur.Cap(), 64), keyChunk))
		a.cur = strings.Builder{}
		a.cur.Grow(size)
	}
	n := a.cur.Len()
	a.cur.Write(k)
	return a.cur.String()[n:]
}

func (s *jsonScanner) readString() bool {
	buf := s.buf
	if n := len(buf) - s.pos; cap(s.scratch) < n {
		s.scratch = make([]byte, 0, n) // decoding never lengthens a string
	}
	out := s.scratch[:0]
	i := s.pos
	closed := false
	verbatim := true
loop:
	for i < len(buf) {
		c := buf[i]
		switch {
		case c == s.quote:
			closed = true
			i++
			break loop
		case c == '\\':
			if i+1 < len(buf) {
				if e, ok := jsonesc.Simple(buf[i+1]); ok {
					out = append(out, e)
					i += 2
					verbatim = false
					continue
				}
			}
			var n int
			out, n = appendEscape(out, buf[i:])
			if n == 0 {
				break loop // the escape is split: read it whole next time
			}
			// \' and an escape kept as a backslash are not JSON.
			s.lenient = s.lenient || n == 1 || buf[i+1] == '\''
			i += n
			verbatim = false
		case c < utf8.RuneSelf:
			plain := &plainInDouble
			if s.quote == '\'' {
				plain = &plainInSingle
			}
			s.lenient = s.lenient || c < 0x20 // a raw control character
			j := i + 1
			for j < len(buf) && plain[buf[j]] {
				j++
			}
			out = append(out, buf[i:j]...)
			i = j
		default:
			if !utf8.FullRune(buf[i:]) {
				break loop
			}
			r, size := utf8.DecodeRune(buf[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
				verbatim, s.lenient = false, true
			} else {
				out = append(out, buf[i:i+size]...)
			}
			i += size
		}
	}
	return s.stringRead(out, i, closed, verbatim)
}

// stringRead hands what readString decoded up to i to the key or the handler.
func (s *jsonScanner) stringRead(out []byte, i int, closed, verbatim bool) bool {
	s.grewFrom, s.grewTo, s.grewVerbatim = s.pos, i, verbatim
	if closed {
		s.grewTo--
	}
	s.pos = i
	if cap(out) > cap(s.scratch) {
		s.scratch = out[:0] // an invalid byte became U+FFFD, longer
	}
	if s.inKey {
		s.key = append(s.key, out...)
		if len(s.key) > maxKeyBytes {
			s.lose()
			return false
		}
		if closed {
			s.setKey(s.key)
		}
		return closed
	}
	if len(out) > 0 || closed {
		s.h.stringGrew(s, out, closed)
	}
	if closed {
		s.h.valueEnd(s, s.strStart, i)
		s.afterValue()
	}
	return closed
}

// grewString returns the growth just reported, a substring of src when it can.
func (s *jsonScanner) grewString(chunk []byte) string {
	if s.grewVerbatim && s.src != "" && s.grewFrom >= s.srcOff && s.grewTo-s.srcOff <= len(s.src) {
		return s.src[s.grewFrom-s.srcOff : s.grewTo-s.srcOff]
	}
	return string(chunk)
}

// appendEscape decodes the escape at the start of b onto out and returns
// the bytes it used, 0 when b ends before the escape is whole. An unknown
// escape keeps its backslash, as in JSON repair.
func appendEscape(out, b []byte) ([]byte, int) {
	if len(b) < 2 {
		return out, 0
	}
	if c, ok := jsonesc.Simple(b[1]); ok {
		return append(out, c), 2
	}
	switch b[1] {
	case '\'':
		return append(out, '\''), 2
	case 'u':
		r, n := jsonesc.Unicode(b)
		switch {
		case n == 0 && jsonesc.Partial(b):
			return out, 0
		case n == 0:
			return append(out, '\\'), 1
		case n == 6 && r >= 0xD800 && r <= 0xDBFF && jsonesc.Partial(b[6:]):
			return out, 0 // its low half may follow
		}
		return utf8.AppendRune(out, r), n // a lone surrogate becomes U+FFFD
	}
	return append(out, '\\'), 1
}

// plainInDouble and plainInSingle mark the bytes strings copy as they are
// in a run (a control character starts a run of its own, to be noted).
var plainInDouble, plainInSingle = plainBytes('"'), plainBytes('\'')

func plainBytes(quote byte) (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != int(quote) && c != '\\'
	}
	return t
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isBareByte reports bytes of numbers and bare words (True, an unquoted key).
func isBareByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '_' || c == '-' || c == '+' || c == '.' || c == '$'
}
