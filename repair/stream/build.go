package stream

import (
	"encoding/json"
	"maps"
	"strings"
)

// maxBuildDepth bounds the nesting a valueBuilder follows; deeper
// arguments are left to the validation's own parse, which knows its limit.
const maxBuildDepth = 64

// valueBuilder keeps the arguments object a jsonScanner reads, so that the
// call's validation need not parse the whole text again once it closes. It
// builds only while the text is strict JSON: on the first leniency it gives
// up, and the text is parsed, and repaired, as any other. It passes every
// report on to next, the preview, with the string growth as a piece of the
// string it keeps rather than a copy.
type valueBuilder struct {
	next *argsPreview
	off  bool
	// open are the containers being read, innermost last.
	open []openValue
	str  keptString     // the string value being read
	root map[string]any // the arguments object, once it ended
	// scalar is the first byte of the scalar being read, 0 between
	// values: valueEnd knows what ends without reading the buffer, whose
	// start a long call forgets (structuredParser.forget).
	scalar byte
	// otherNumbers: a number read is not a short integer (shortInteger).
	otherNumbers bool
}

type openValue struct {
	obj object
	arr []any
	// isArr: arr is the container (an empty array has a nil arr).
	isArr bool
}

func (b *valueBuilder) giveUp() {
	if b.next != nil && b.next.build == b {
		switch {
		case b.off:
		case len(b.open) > 0 && !b.open[0].isArr:
			b.next.metFrom(b.open[0].obj.keys(), b.open[0].obj.n)
		case len(b.open) == 0 && b.root != nil:
			b.next.metFrom(maps.Keys(b.root), len(b.root))
		}
	}
	b.off, b.open, b.root = true, nil, nil
	b.str = keptString{}
}

func (b *valueBuilder) valueStart(s *jsonScanner, start int) {
	if !b.off {
		c := s.buf[start]
		if s.lenient || len(b.open) == 0 && c != '{' || len(b.open) >= maxBuildDepth {
			b.giveUp()
		} else {
			if top := len(b.open) - 1; top >= 0 && !b.open[top].isArr {
				b.open[top].obj.start(s.stack[len(s.stack)-1].key)
			}
			b.begin(c)
		}
	}
	b.next.valueStart(s, start)
}

// begin opens the value c starts.
func (b *valueBuilder) begin(c byte) {
	switch c {
	case '{':
		b.open = append(b.open, openValue{})
	case '[':
		b.open = append(b.open, openValue{isArr: true})
	case '"':
		b.str, b.scalar = keptString{}, c
	default:
		b.scalar = c
	}
}

func (b *valueBuilder) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if b.off || s.lenient {
		b.giveUp()
		b.next.stringGrew(s, chunk, end)
		return
	}
	b.next.keptGrew(s, b.str.write(chunk), end)
}

func (b *valueBuilder) valueEnd(s *jsonScanner, start, end int) {
	b.next.valueEnd(s, start, end)
	if b.off {
		return
	}
	if s.lenient || len(b.open) == 0 {
		b.giveUp()
		return
	}
	var v any
	c := b.scalar
	b.scalar = 0
	switch c {
	case 0:
		top := b.open[len(b.open)-1]
		b.open[len(b.open)-1] = openValue{} // its members go once in the map
		b.open = b.open[:len(b.open)-1]
		switch {
		case !top.isArr:
			v = top.obj.toMap()
		case top.arr == nil:
			v = []any{}
		default:
			v = top.arr
		}
	case '"':
		v = b.str.String()
		b.str = keptString{}
	default:
		var ok bool
		raw := s.buf[start:end]
		if v, ok = bareValue(raw); !ok {
			b.giveUp()
			return
		}
		if _, isNumber := v.(json.Number); isNumber && !shortInteger(raw) {
			b.otherNumbers = true
		}
	}
	if len(b.open) == 0 {
		b.root, _ = v.(map[string]any)
		return
	}
	parent := &b.open[len(b.open)-1]
	if parent.isArr {
		parent.arr = append(parent.arr, v)
		return
	}
	if !parent.obj.end(v) {
		b.giveUp()
	}
}

// keptString keeps a string value as it grows, in pieces that never move,
// so that what write returns is never copied again: the preview shows it.
// A long string is kept in chunks joined once at its end: doubling one
// buffer would allocate about twice again what the string holds, in
// fresh memory the system must fault in page by page.
type keptString struct {
	done []string        // full chunks
	cur  strings.Builder // the chunk being written, never grown past a chunk
	n    int             // the bytes of done
}

// keptChunk is the size of a long string's chunks.
const keptChunk = 64 << 10

// Len returns the bytes kept.
func (k *keptString) Len() int { return k.n + k.cur.Len() }

// write appends p and returns it as a piece of the kept string.
func (k *keptString) write(p []byte) string {
	if k.cur.Cap()-k.cur.Len() < len(p) {
		if need := k.cur.Len() + len(p); need <= keptChunk {
			k.cur.Grow(len(p)) // doubling, up to a chunk
		} else {
			k.done = append(k.done, k.cur.String())
			k.n += k.cur.Len()
			k.cur = strings.Builder{}
			k.cur.Grow(max(keptChunk, len(p)))
		}
	}
	n := k.cur.Len()
	k.cur.Write(p)
	return k.cur.String()[n:]
}

// String returns the whole string, joined when it is long.
func (k *keptString) String() string {
	if len(k.done) == 0 {
		return k.cur.String()
	}
	return strings.Join(append(k.done, k.cur.String()), "")
}

// met reports whether the arguments object being built has the parameter
// key; false, false once the builder gave up or when it builds no object.
func (b *valueBuilder) met(key string) (met, ok bool) {
	switch {
	case b.off:
		return false, false
	case len(b.open) > 0:
		if b.open[0].isArr {
			return false, false
		}
		return b.open[0].obj.met(key), true
	case b.root != nil:
		_, met = b.root[key]
		return met, true
	}
	return false, false
}

// bareValue reads a literal or a number as a strict parse does.
func bareValue(raw []byte) (any, bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	if c := raw[0]; (c == '-' || '0' <= c && c <= '9') && json.Valid(raw) {
		return json.Number(raw), true
	}
	return nil, false
}

// shortInteger reports whether a JSON number is an integer of at most 18
// digits, which reads as an int64.
func shortInteger(raw []byte) bool {
	if raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) > 18 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// integers reports whether every number of the value built is a short
// integer.
func (b *valueBuilder) integers() bool { return !b.otherNumbers }

// value returns the arguments object when the scanner read strict JSON to
// the end of one object, nil otherwise.
func (b *valueBuilder) value(s *jsonScanner) map[string]any {
	if b.off || s.lenient || s.state != stDone || len(b.open) != 0 {
		return nil
	}
	return b.root
}
