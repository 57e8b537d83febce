package stream

import (
	"encoding/json"
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
	str  strings.Builder // the string value being read
	root map[string]any
}

type openValue struct {
	obj map[string]any
	arr []any
	// isArr: arr is the container (an empty array has a nil arr).
	isArr bool
}

func (b *valueBuilder) giveUp() {
	b.off, b.open, b.root = true, nil, nil
	b.str = strings.Builder{}
}

func (b *valueBuilder) valueStart(s *jsonScanner, start int) {
	if !b.off {
		switch c := s.buf[start]; {
		case s.lenient || len(b.open) == 0 && c != '{' || len(b.open) >= maxBuildDepth:
			b.giveUp()
		case c == '{':
			b.open = append(b.open, openValue{obj: make(map[string]any, 4)})
		case c == '[':
			b.open = append(b.open, openValue{isArr: true})
		case c == '"':
			b.str = strings.Builder{}
		}
	}
	b.next.valueStart(s, start)
}

func (b *valueBuilder) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if b.off || s.lenient {
		b.giveUp()
		b.next.stringGrew(s, chunk, end)
		return
	}
	// The kept string only grows, so a piece of it never changes: the
	// preview shows it without copying the chunk again.
	n := b.str.Len()
	// Grow doubles, as growAppend does; append's gentler growth for large
	// buffers would copy a large file's content many times.
	b.str.Grow(len(chunk))
	b.str.Write(chunk)
	b.next.keptGrew(s, b.str.String()[n:], end)
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
	switch c := s.buf[start]; c {
	case '{', '[':
		top := b.open[len(b.open)-1]
		b.open = b.open[:len(b.open)-1]
		if v = top.obj; top.isArr {
			v = top.arr
			if top.arr == nil {
				v = []any{}
			}
		}
	case '"':
		v = b.str.String()
		b.str = strings.Builder{}
	default:
		var ok bool
		if v, ok = bareValue(s.buf[start:end]); !ok {
			b.giveUp()
			return
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
	parent.obj[s.stack[len(s.stack)-1].key] = v // the last of a repeated key wins, as in a strict parse
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

// value returns the arguments object when the scanner read strict JSON to
// the end of one object, nil otherwise.
func (b *valueBuilder) value(s *jsonScanner) map[string]any {
	if b.off || s.lenient || s.state != stDone || len(b.open) != 0 {
		return nil
	}
	return b.root
}
