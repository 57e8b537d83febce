package stream

import "unicode/utf8"

// appendValid appends b to dst as valid UTF-8 and returns the bytes used: a
// character split at the end waits unless final. Each invalid byte becomes
// U+FFFD on its own, so the result does not depend on the split.
func appendValid(dst, b []byte, final bool) ([]byte, int) {
	i := 0
	for i < len(b) {
		start := i
		for i < len(b) && b[i] < utf8.RuneSelf {
			i++
		}
		dst = append(dst, b[start:i]...)
		if i == len(b) {
			break
		}
		if !utf8.FullRune(b[i:]) && !final {
			return dst, i
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i++
			continue
		}
		dst = append(dst, b[i:i+size]...)
		i += size
	}
	return dst, len(b)
}

// validString returns b with every invalid byte replaced by U+FFFD.
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	out, _ := appendValid(make([]byte, 0, len(b)+8), b, true)
	return string(out)
}

// growAppend appends s to *b, doubling the capacity when it must grow:
// append's gentler growth for large slices would copy a call many times.
// With room, only the length is written: append writes the pointer again,
// a write barrier per fragment while the collector marks.
func growAppend(b *[]byte, s string) {
	n := len(*b)
	if need := n + len(s); need > cap(*b) {
		nb := make([]byte, n, max(need, 2*cap(*b), 512))
		copy(nb, *b)
		*b = nb
	}
	*b = (*b)[:n+len(s)]
	copy((*b)[n:], s)
}
