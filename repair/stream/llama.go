package stream

// llama3 is Llama 3's JSON tool calls: objects
//
//	{"name": "NAME", "parameters": {...}}
//
// optionally after <|python_tag|>, several separated by ';' (layout). An
// object is a call only where nothing but white space came before it since
// the start of the output, <|python_tag|> or the previous call. After
// <|python_tag|>, and after ';' in the calls that follow it, any object is
// one, its name read wherever it stands. A bare object must also start
// with the call's shape: "name" first with a string value (after "type":
// "function" if any), then "parameters" or "arguments". So prose that is
// or holds a JSON object stays text. The object's own end closes the call.
type llama3 struct{ jsonCall }

const llamaTag = "<|python_tag|>"

func (llama3) triggers() string { return "<{;" }

func (llama3) opener(p *textParser, b []byte) (match, bool, string, int) {
	if p.runProse {
		p.list = false // prose ends the calls <|python_tag|> began
	}
	switch b[0] {
	case '<':
		m := literal(b, llamaTag)
		if m == matched {
			p.list = true
		}
		return m, true, "", len(llamaTag)
	case ';':
		if p.afterCall && !p.runProse {
			return matched, true, "", 1
		}
	case '{':
		switch {
		case p.runProse:
		case p.list:
			return matched, false, "", 0
		default:
			return llamaShape(b, p.headerBound()), false, "", 0
		}
	}
	return noMatch, false, "", 0
}

func (llama3) begin(p *textParser, n int) textState {
	return p.beginBody(n, nil)
}

// llamaShape matches at b[0] == '{' the start of a call object, up to the
// colon after its "parameters" or "arguments" key, within bound bytes.
func llamaShape(b []byte, bound int) match {
	r := shapeReader{b: b, i: 1, bound: min(len(b), bound), m: matched}
	if r.space(); r.lit(`"type"`, `"name"`) == 0 {
		r.space()
		r.lit(":")
		r.space()
		r.lit(`"function"`)
		r.space()
		r.lit(",")
		r.space()
		r.lit(`"name"`)
	}
	r.space()
	r.lit(":")
	r.space()
	r.lit(`"`)
	r.name()
	r.space()
	r.lit(",")
	r.space()
	r.lit(`"parameters"`, `"arguments"`)
	r.space()
	r.lit(":")
	if r.m == needMore && len(b) >= bound {
		return noMatch
	}
	return r.m
}

// shapeReader reads a fixed shape of JSON tokens: m turns to needMore at
// the end of the bytes, or noMatch at a byte that does not fit.
type shapeReader struct {
	b     []byte
	i     int
	bound int
	m     match
}

func (r *shapeReader) space() {
	for r.m == matched && r.i < r.bound && isJSONSpace(r.b[r.i]) {
		r.i++
	}
}

// lit reads one of lits and returns which, or -1.
func (r *shapeReader) lit(lits ...string) int {
	if r.m != matched {
		return -1
	}
	more := false
	for k, lit := range lits {
		switch literal(r.b[r.i:r.bound], lit) {
		case matched:
			r.i += len(lit)
			return k
		case needMore:
			more = true
		}
	}
	r.m = noMatch
	if more {
		r.m = needMore
	}
	return -1
}

// name reads a plain string's characters and its closing quote: a name
// with escapes or a newline is not a call's.
func (r *shapeReader) name() {
	start := r.i
	for r.m == matched && r.i < r.bound {
		switch c := r.b[r.i]; {
		case c == '"' && r.i > start:
			r.i++
			return
		case c == '"' || c == '\\' || c == '\n':
			r.m = noMatch
			return
		}
		r.i++
	}
	if r.m == matched {
		r.m = needMore
	}
}
