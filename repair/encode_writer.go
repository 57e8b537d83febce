package repair

import (
	"io"
	"maps"
	"slices"
	"unicode/utf8"
)

// writeChunk is the most WriteJSON holds of a string's encoding at once.
const writeChunk = 32 << 10

// WriteJSON writes EncodeJSON's encoding of v to w, byte for byte, without
// holding it whole: a large string is encoded a piece at a time. It is for
// hashing arguments whose encoding no answer carries (a 16 MB content).
func WriteJSON(w io.Writer, v any) error {
	jw := jsonWriter{w: w, chunk: writeChunk}
	jw.value(v)
	return jw.err
}

type jsonWriter struct {
	w     io.Writer
	chunk int
	buf   []byte
	err   error
}

func (j *jsonWriter) write(b []byte) {
	if j.err == nil {
		_, j.err = j.w.Write(b)
	}
}

func (j *jsonWriter) value(v any) {
	switch x := v.(type) {
	case string:
		j.str(x)
	case map[string]any:
		if x == nil {
			j.write([]byte("null"))
			return
		}
		j.write([]byte{'{'})
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				j.write([]byte{','})
			}
			j.str(k)
			j.write([]byte{':'})
			j.value(x[k])
		}
		j.write([]byte{'}'})
	case []any:
		if x == nil {
			j.write([]byte("null"))
			return
		}
		j.write([]byte{'['})
		for i, e := range x {
			if i > 0 {
				j.write([]byte{','})
			}
			j.value(e)
		}
		j.write([]byte{']'})
	default:
		// Scalars, and values only encoding/json writes (its errors).
		var err error
		if j.buf, err = AppendJSON(j.buf[:0], x); err != nil && j.err == nil {
			j.err = err
		}
		j.write(j.buf)
	}
}

// str writes s quoted, in pieces that end where a rune starts: each rune is
// escaped alone, so the pieces' escapes are the whole string's.
func (j *jsonWriter) str(s string) {
	j.write([]byte{'"'})
	for len(s) > 0 {
		n := min(len(s), j.chunk)
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		j.buf = appendJSONString(j.buf[:0], s[:n])
		j.write(j.buf[1 : len(j.buf)-1])
		s = s[n:]
	}
	j.write([]byte{'"'})
}
