package stream

import (
	"bytes"
	"encoding/json"
	"iter"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// argsPreview turns what a jsonScanner finds in an arguments object into
// EventParam events: strings as they grow, other values once complete. Only
// a key's first occurrence is shown, so a preview never changes type.
type argsPreview struct {
	emit func(Event)
	// paramText shows a string's growth (Options.ParamText).
	paramText func(index int, param, text string)
	index     int
	// depth is the scanner depth of parameters (2 for Hermes).
	depth int
	// shown are the keys met, unless build keeps them.
	shown map[string]bool
	// build, when set, keeps the arguments object while the text is strict
	// JSON: its keys are the parameters met, and a second set of every key
	// would double the cost of a call of many parameters. It hands them
	// over to shown when it gives up (metFrom).
	build    *valueBuilder
	maxParam int
	// started: param is the last parameter started.
	started bool

	open   bool
	param  string
	skip   bool // a repeated key: not shown
	isText bool // a string value
	start  int
	showed bool // something of the string was shown
	// oversize: a value that completed past the parameter limit.
	oversize bool
}

func newArgsPreview(emit func(Event), paramText func(int, string, string), index, depth, maxParam int) argsPreview {
	return argsPreview{emit: emit, paramText: paramText, index: index, depth: depth, maxParam: maxParam}
}

// met reports whether key was met before, and notes it.
func (a *argsPreview) met(key string) bool {
	if a.build != nil {
		if met, ok := a.build.met(key); ok {
			return met // the builder adds key when its value ends
		}
	}
	if a.shown == nil {
		a.shown = map[string]bool{}
	}
	met := a.shown[key]
	a.shown[key] = true
	return met
}

// metFrom takes over the keys met from a builder giving up: those of its
// object, and the parameter started, whose value may not have ended.
func (a *argsPreview) metFrom(keys iter.Seq[string], n int) {
	if a.shown == nil {
		a.shown = make(map[string]bool, n+1)
	}
	for k := range keys {
		a.shown[k] = true
	}
	if a.started {
		a.shown[a.param] = true
	}
}

func (a *argsPreview) paramAt(s *jsonScanner) (string, bool) {
	if len(s.stack) != a.depth || !s.stack[a.depth-1].obj {
		return "", false
	}
	if a.depth == 2 && !isArgumentsKey(s.stack[0].key) {
		return "", false
	}
	return s.stack[a.depth-1].key, true
}

func (a *argsPreview) valueStart(s *jsonScanner, start int) {
	key, ok := a.paramAt(s)
	if !ok {
		return
	}
	c := s.buf[start]
	a.open, a.param, a.start, a.showed, a.started = true, key, start, false, true
	a.isText = c == '"' || c == '\''
	a.skip = a.met(key)
}

func (a *argsPreview) stringGrew(s *jsonScanner, chunk []byte, end bool) {
	if a.shows(s, len(chunk), end) {
		a.paramText(a.index, a.param, s.grewString(chunk))
	}
}

// keptGrew is stringGrew with the growth a piece of the string a
// valueBuilder keeps.
func (a *argsPreview) keptGrew(s *jsonScanner, grown string, end bool) {
	if a.shows(s, len(grown), end) {
		a.paramText(a.index, a.param, grown)
	}
}

// shows reports whether n more bytes of a string are shown, and notes it.
func (a *argsPreview) shows(s *jsonScanner, n int, end bool) bool {
	if !a.open || a.skip || len(s.stack) != a.depth || n == 0 && (!end || a.showed) {
		return false
	}
	a.showed = true
	return true
}

func (a *argsPreview) valueEnd(s *jsonScanner, start, end int) {
	if !a.open || start != a.start {
		return
	}
	if _, ok := a.paramAt(s); !ok {
		return
	}
	a.open = false
	if a.maxParam > 0 && end-start > a.maxParam {
		a.oversize = true
	}
	if a.skip || a.isText {
		return
	}
	if text, ok := jsonValueText(s.buf[start:end]); ok {
		a.emit(Event{Kind: EventParam, Index: a.index, Param: a.param, JSON: text})
	}
}

// tooLarge reports whether a value has grown past the parameter limit.
func (a *argsPreview) tooLarge(n int) bool {
	return a.oversize || a.open && a.maxParam > 0 && n-a.start > a.maxParam
}

// jsonValueText returns a complete non-string value as compact JSON,
// repaired if need be (True, None, invalid UTF-8, which json.Valid passes).
func jsonValueText(raw []byte) (string, bool) {
	if utf8.Valid(raw) && json.Valid(raw) {
		if !bytes.ContainsAny(raw, " \t\n\r") {
			return string(raw), true // compact already: a number, a literal
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.String(), true
		}
	}
	r, err := repair.RepairJSON(string(raw), repair.JSONOptions{})
	if err != nil || r.Truncated {
		return "", false
	}
	out, err := repair.EncodeJSON(r.Value)
	if err != nil {
		return "", false
	}
	return string(out), true
}

// isArgumentsKey reports the keys Hermes calls hold their arguments under.
func isArgumentsKey(k string) bool {
	switch k {
	case "arguments", "parameters", "args", "input":
		return true
	}
	return false
}
