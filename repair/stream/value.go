package stream

// ValueScanner finds where a JSON value that arrives in pieces ends, with
// the parsers' tolerance: single-quoted strings, bare words (True, None,
// unquoted keys), missing and trailing commas. A front end that forwards a
// call's argument fragments (the proxy) feeds it the text so far after each
// piece, to learn the moment the arguments are complete without parsing
// them again from the start: each byte is read a bounded number of times,
// and an escape or character split between pieces is read whole.
//
// On text it cannot follow (prose, a quote inside a single-quoted string)
// it gives up: Lost reports it, and no end is ever found. It never judges
// the value; the complete text goes through the repair pipeline.
//
// The zero value is ready to use. It is not safe for concurrent use.
type ValueScanner struct {
	s    jsonScanner
	init bool
}

// Scan reads text, the whole value so far: the text of the previous call
// with the new piece appended (the same bytes before it; the scanner reads
// only what was added, and re-reads only a split escape or character). It
// reports whether the root value is complete, which stays true. Bytes after
// the value's end are not looked at.
func (v *ValueScanner) Scan(text []byte) (complete bool) {
	if !v.init {
		v.s.h, v.init = mutedHandler{}, true
	}
	if v.s.state == stDone {
		return true
	}
	v.s.scan(text, 0)
	if v.s.state == stBare && !v.s.inKey && len(v.s.stack) == 0 {
		// A bare root value (a number, true) has no closing byte: it is
		// complete only at the end of the input.
		return false
	}
	return v.s.state == stDone
}

// Lost reports that the text is not a JSON value the scanner can follow,
// so Scan will never report it complete.
func (v *ValueScanner) Lost() bool { return v.s.state == stLost }
