package stream

// ValueScanner finds where a JSON value arriving in pieces ends, with the
// parsers' tolerance (single quotes, bare words, missing commas), reading
// each byte a bounded number of times: a front end learns the moment a
// call's arguments are complete without parsing them again. The zero value
// is ready to use; it is not safe for concurrent use.
type ValueScanner struct {
	s    jsonScanner
	init bool
}

// Scan reads text, the whole value so far (the previous text with a piece
// appended), and reports whether the root value is complete.
func (v *ValueScanner) Scan(text []byte) (complete bool) {
	if !v.init {
		v.s.h, v.init = mutedHandler{}, true
	}
	if v.s.state == stDone {
		return true
	}
	v.s.scan(text, 0)
	if v.s.state == stBare && !v.s.inKey && len(v.s.stack) == 0 {
		return false // a bare root value has no closing byte
	}
	return v.s.state == stDone
}

// Lost reports text the scanner cannot follow: Scan will never report it complete.
func (v *ValueScanner) Lost() bool { return v.s.state == stLost }
