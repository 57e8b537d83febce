package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolguard/toolguard/repair"
)

// The fuzz targets, one per format, feed a response through the parser
// three ways: in as few pieces as possible (joined), split at the cut
// points the fuzzer chose (resplit) and one byte at a time, each run once
// without size limits and once with small ones. Every run checks the
// events' invariants as they arrive (fuzzChecker) and the parser's memory
// after every piece (checkMemory). Then:
//
//   - without size limits, the three outcomes are equal: text, calls,
//     starts, joined previews and errors (chunk invariance, as
//     TestChunkInvariance), JSON_TOO_DEEP drops included;
//   - with size limits, the three outcomes are equal too, except for what
//     the parser showed of a call it then dropped (its start and previews)
//     and which limit a call past several reports: both depend on when the
//     parser learns the call is too large, which depends on the split, and
//     it may not wait to learn it;
//   - size limits only drop calls: the text, the other calls and their
//     previews are those of the run without them.
//
// Both runs have the same depth limit (MaxJSONDepth): past it the scanner
// keeps no structure, only whether it is in a string, so where a dropped
// Hermes call ends in broken JSON may differ from a scanner without the
// limit, and must not depend on the split.
//
// The fuzz arguments are the response (data), the cut points (cuts: the
// gaps between cuts, each byte+1, cycled; none cuts every byte),
// lengthLimit for End, and the limits (limits: MaxParamBytes from the low
// byte, MaxCallBytes from the high byte, MaxJSONDepth from the whole, 0
// for none). For openai and anthropic, data is decoded into text pieces
// and tool call deltas by decodeDeltas.

func FuzzXMLTags(f *testing.F)   { fuzzFormat(f, XMLTags) }
func FuzzOpenAI(f *testing.F)    { fuzzFormat(f, OpenAI) }
func FuzzAnthropic(f *testing.F) { fuzzFormat(f, Anthropic) }
func FuzzHermes(f *testing.F)    { fuzzFormat(f, Hermes) }
func FuzzQwenXML(f *testing.F)   { fuzzFormat(f, QwenXML) }
func FuzzMiniMax(f *testing.F)   { fuzzFormat(f, MiniMax) }
func FuzzClaudeXML(f *testing.F) { fuzzFormat(f, ClaudeXML) }
func FuzzGLM45(f *testing.F)     { fuzzFormat(f, GLM45) }
func FuzzPythonic(f *testing.F)  { fuzzFormat(f, Pythonic) }

func FuzzHarmony(f *testing.F)     { fuzzFormat(f, Harmony) }
func FuzzDeepSeekV3(f *testing.F)  { fuzzFormat(f, DeepSeekV3) }
func FuzzDeepSeekV31(f *testing.F) { fuzzFormat(f, DeepSeekV31) }
func FuzzKimiK2(f *testing.F)      { fuzzFormat(f, KimiK2) }
func FuzzMistral(f *testing.F)     { fuzzFormat(f, Mistral) }
func FuzzLlama3JSON(f *testing.F)  { fuzzFormat(f, Llama3JSON) }

// FuzzAuto starts from the responses of every text format.
func FuzzAuto(f *testing.F) { fuzzFormat(f, Auto) }

func fuzzFormat(f *testing.F, format Format) {
	for _, seed := range fuzzSeeds(format) {
		for _, cuts := range [][]byte{nil, {0, 2, 6}, {12}} {
			f.Add(seed, cuts, false, uint16(0x4020))
		}
		f.Add(seed, []byte{3}, true, uint16(0xff00))
		f.Add(seed, []byte{5}, false, uint16(0xff05)) // nesting up to 8
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, lengthLimit bool, limits uint16) {
		var pieces []piece
		if format.Structured() {
			pieces = decodeDeltas(data)
		} else {
			pieces = []piece{text(string(data))}
		}
		depth := int(limits % 9)
		free := Options{Tools: xmlTools, MaxJSONDepth: depth}
		bounded := Options{Tools: xmlTools, MaxParamBytes: 1 + int(limits&0xff)*4, MaxCallBytes: 1 + int(limits>>8)*16, MaxJSONDepth: depth}
		splits := map[string][]piece{
			"joined": joined(pieces),
			"cuts":   resplit(pieces, fuzzCuts(cuts)),
			"bytes":  resplit(pieces, fuzzCuts(nil)),
		}
		var free3, bounded3 [3]fuzzRun
		for i, name := range []string{"joined", "cuts", "bytes"} {
			free3[i] = fuzzFeed(t, format, free, splits[name], lengthLimit)
			bounded3[i] = fuzzFeed(t, format, bounded, splits[name], lengthLimit)
		}
		whole := bounded3[0]
		for i, name := range []string{"cuts", "bytes"} {
			if got, want := free3[i+1], free3[0]; !reflect.DeepEqual(got, want) {
				t.Fatalf("without size limits (depth %d), split %s:\n got %#v\nwant %#v", depth, name, got, want)
			}
			got, want := viewOf(bounded3[i+1], bounded3[i+1].dropped), viewOf(whole, whole.dropped)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("with limits (call %d, param %d), split %s:\n got %#v\nwant %#v", bounded.MaxCallBytes, bounded.MaxParamBytes, name, got, want)
			}
		}
		for _, e := range free3[0].errs {
			if e.Code == CodeCallTooLarge || e.Code == CodeParamTooLarge {
				t.Fatalf("calls dropped without size limits: %v", free3[0].errs)
			}
		}
		got, want := viewOf(whole, whole.dropped), viewOf(free3[0], whole.dropped)
		want.Dropped = got.Dropped
		if len(got.Dropped) > 0 && slices.ContainsFunc(free3[0].errs, func(e fuzzError) bool { return e.Code == CodeCallQuoted }) {
			// A quoted call's markup passes on as text, unless a call
			// dropped beside it took the text with it.
			got.Text, want.Text = "", ""
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("limits (call %d, param %d) changed more than the calls they dropped:\n got %#v\nwant %#v", bounded.MaxCallBytes, bounded.MaxParamBytes, got, want)
		}
	})
}

// fuzzCuts returns cut points every gaps[i]+1 bytes, cycling through gaps;
// no gaps cuts every byte.
func fuzzCuts(gaps []byte) func(n int) []int {
	return func(n int) []int {
		var out []int
		for i, k := 0, 0; ; k++ {
			gap := 1
			if len(gaps) > 0 {
				gap = int(gaps[k%len(gaps)]) + 1
			}
			if i += gap; i >= n {
				return out
			}
			out = append(out, i)
		}
	}
}

// Separators of the delta encoding: records, and fields in a record.
const (
	recordSep = 0x1e
	fieldSep  = 0x1f
)

// decodeDeltas reads pieces of a structured response from fuzz bytes:
// records separated by 0x1e. A record starting with a digit 0-7 is a tool
// call delta: index (digit&3), Done (digit >= 4), then ID, name and
// arguments separated by 0x1f (missing fields are empty; the ID, which
// the parser passes on as given, is made valid UTF-8 as the API delivers
// it). A record starting with 't' is the text after it; any other record
// is text.
func decodeDeltas(data []byte) []piece {
	var out []piece
	for rec := range bytes.SplitSeq(data, []byte{recordSep}) {
		switch {
		case len(rec) == 0:
		case '0' <= rec[0] && rec[0] <= '7':
			fields := bytes.SplitN(rec[1:], []byte{fieldSep}, 3)
			fields = append(fields, nil, nil, nil)
			out = append(out, piece{delta: &ToolDelta{
				Index:     int(rec[0]-'0') & 3,
				Done:      rec[0] >= '4',
				ID:        strings.ToValidUTF8(string(fields[0]), "\uFFFD"),
				Name:      string(fields[1]),
				Arguments: string(fields[2]),
			}})
		case rec[0] == 't':
			out = append(out, text(string(rec[1:])))
		default:
			out = append(out, text(string(rec)))
		}
	}
	return out
}

// encodeDeltas is decodeDeltas' inverse, for seeds.
func encodeDeltas(pieces []piece) []byte {
	var recs [][]byte
	for _, pc := range pieces {
		if pc.delta == nil {
			recs = append(recs, []byte("t"+pc.text))
			continue
		}
		d := pc.delta
		op := byte('0' + d.Index)
		if d.Done {
			op += 4
		}
		recs = append(recs, []byte(string(op)+d.ID+"\x1f"+d.Name+"\x1f"+d.Arguments))
	}
	return bytes.Join(recs, []byte{recordSep})
}

// fuzzFeed is feed with the invariants of fuzzChecker checked on every
// event and the parser's memory after every piece.
func fuzzFeed(t *testing.T, format Format, opts Options, pieces []piece, lengthLimit bool) fuzzRun {
	t.Helper()
	c := newFuzzChecker(t, format, opts)
	p, err := New(format, opts, c.event)
	if err != nil {
		t.Fatal(err)
	}
	largest := 0
	for _, pc := range pieces {
		if pc.delta != nil {
			err = p.ToolDelta(*pc.delta)
		} else {
			err = p.Text(pc.text)
		}
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
		largest = max(largest, len(pc.text)+len(pc.delta.argsOrEmpty()))
		checkMemory(t, p, opts, largest)
	}
	if err := p.End(lengthLimit); err != nil {
		t.Fatal(err)
	}
	c.ended()
	if t.Failed() {
		t.FailNow()
	}
	// CALL_ALREADY_COMPLETE is reported for each fragment that arrives
	// after its call completed, and splitting a fragment makes more of
	// them: only the first per call is compared.
	out, errs, seen := c.out, []fuzzError(nil), map[int]bool{}
	for _, e := range c.errs {
		if e.Code == CodeCallAlreadyComplete {
			if seen[e.Index] {
				continue
			}
			seen[e.Index] = true
		}
		errs = append(errs, e)
	}
	out.Errors = nil
	// In xml_tags, text and call blocks are the whole response, each
	// invalid byte replaced, unless a call was dropped.
	if format == XMLTags && len(c.dropped) == 0 {
		var all strings.Builder
		for _, pc := range pieces {
			all.WriteString(pc.text)
		}
		if want := validString([]byte(all.String())); c.rebuilt.String() != want {
			t.Fatalf("text and calls\n%q\nare not the response\n%q", c.rebuilt.String(), want)
		}
	}
	return fuzzRun{out: out, errs: errs, dropped: c.dropped, parsed: c.parsed}
}

// fuzzRun is what one run gave: its outcome, its errors with their calls,
// and the calls it dropped.
type fuzzRun struct {
	out     outcome
	errs    []fuzzError
	dropped map[int]bool
	// parsed are the closed calls' Parsed, which must not depend on the split.
	parsed []map[string]any
}

type fuzzError struct {
	Index int
	Code  string
}

func (d *ToolDelta) argsOrEmpty() string {
	if d == nil {
		return ""
	}
	return d.Arguments
}

// checkMemory checks that the parser keeps only what it must after a
// piece, the largest so far n bytes: in prose, or in a dropped call, at
// most a tag it is waiting to recognise; in an open call, at most the
// call's limit; and a buffer capacity that follows from those bounds
// (growAppend at most doubles what one piece needs, and a buffer keeps
// its capacity).
func checkMemory(t *testing.T, p *Parser, opts Options, n int) {
	t.Helper()
	if p.text == nil {
		for i, c := range p.calls.calls {
			if opts.MaxCallBytes > 0 && len(c.args) > opts.MaxCallBytes {
				t.Fatalf("call %d holds %d bytes of arguments, past its limit %d", i, len(c.args), opts.MaxCallBytes)
			}
			if c.dropped && c.args != nil {
				t.Fatalf("dropped call %d still holds its arguments", i)
			}
			if opts.MaxJSONDepth > 0 && len(c.scan.stack) > opts.MaxJSONDepth {
				t.Fatalf("call %d holds %d open brackets, past its limit %d", i, len(c.scan.stack), opts.MaxJSONDepth)
			}
		}
		if len(p.calls.text.pending) >= utf8.UTFMax {
			t.Fatalf("text pass holds %q", p.calls.text.pending)
		}
		return
	}
	tp := p.text
	if len(tp.space) > maxLayout {
		t.Fatalf("%s parser holds %d bytes of white space, more than %d", tp.format, len(tp.space), maxLayout)
	}
	if d := opts.MaxJSONDepth; d > 0 && len(tp.call.scan.stack) > d+1 {
		t.Fatalf("hermes call holds %d open brackets, past its limit %d and the body's level", len(tp.call.scan.stack), d)
	}
	if d := opts.MaxJSONDepth; d > 0 && tp.py != nil && len(tp.py.lit.stack)+1 > d {
		t.Fatalf("pythonic call holds %d open brackets in its arguments, past its limit %d", len(tp.py.lit.stack)+1, d)
	}
	waiting := 2*tp.maxTag + 64 // a tag, or a closing tag and what follows it
	bound := waiting
	if tp.state != inProse && !tp.call.dropped {
		if opts.MaxCallBytes <= 0 {
			return
		}
		bound = opts.MaxCallBytes
	}
	if len(tp.buf) > bound {
		t.Fatalf("%s parser holds %d bytes (state %d, dropped %v), more than %d: %q",
			tp.format, len(tp.buf), tp.state, tp.call.dropped, bound, tp.buf)
	}
	limit := max(waiting, opts.MaxCallBytes)
	if capBound := max(512, 2*(limit+n)); cap(tp.buf) > capBound && opts.MaxCallBytes > 0 {
		t.Fatalf("%s parser buffer capacity %d, more than %d", tp.format, cap(tp.buf), capBound)
	}
}

// fuzzChecker is a collector that checks more as events arrive: every
// string is valid UTF-8; a parameter event carries text or JSON, not both;
// a call's name does not change from its start to its close, and the form
// of its closed call is its format's; nothing arrives for a call after it
// closed or was dropped (but CALL_ALREADY_COMPLETE); in text formats calls
// come one at a time in index order; and once the stream ended, every call
// that started closed or was dropped.
type fuzzChecker struct {
	*collector
	t       *testing.T
	format  Format
	opts    Options
	dropped map[int]bool
	errs    []fuzzError
	rebuilt strings.Builder // xml_tags: the text and the calls' blocks
	open    int             // text formats: the call started and not yet over, or -1
	highest int             // text formats: the highest call index seen, or -1
	parsed  []map[string]any
}

func newFuzzChecker(t *testing.T, format Format, opts Options) *fuzzChecker {
	return &fuzzChecker{collector: newCollector(t), t: t, format: format, opts: opts, dropped: map[int]bool{}, open: -1, highest: -1}
}

func (c *fuzzChecker) event(e Event) {
	t := c.t
	t.Helper()
	c.checkStrings(e)
	if e.Kind != EventText && e.Index < 0 {
		t.Errorf("event %+v for a negative index", e)
	}
	over := c.closed[e.Index] || c.dropped[e.Index]
	switch e.Kind {
	case EventText:
		if e.Index != -1 {
			t.Errorf("text event with index %d", e.Index)
		}
		c.rebuilt.WriteString(e.Text)
	case EventCallStarted:
		c.started(e, over)
	case EventParam:
		if e.JSON != "" && e.Text != "" {
			t.Errorf("parameter event with both text and JSON: %+v", e)
		}
		if c.dropped[e.Index] {
			t.Errorf("parameter %q of call %d shown after the call was dropped", e.Param, e.Index)
		}
	case EventCallClosed:
		c.closedCall(e, over)
	case EventError:
		c.errorEvent(e, over)
	default:
		t.Errorf("unknown event kind %d", e.Kind)
	}
	if !c.format.Structured() && e.Index > c.highest {
		c.highest = e.Index
	}
	c.collector.event(e)
}

func (c *fuzzChecker) checkStrings(e Event) {
	t := c.t
	t.Helper()
	for _, s := range [...]string{e.Text, e.Param, e.JSON, e.Name, e.ID, e.Call.Name, e.Call.Text} {
		if !utf8.ValidString(s) {
			t.Errorf("event %+v: %q is not valid UTF-8", e, s)
		}
	}
	for k, v := range e.Call.Params {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			t.Errorf("event %+v: parameter %q = %q is not valid UTF-8", e, k, v)
		}
	}
}

func (c *fuzzChecker) started(e Event, over bool) {
	t := c.t
	t.Helper()
	if over {
		t.Errorf("call %d started after it was over", e.Index)
	}
	if !c.format.Structured() {
		if c.open >= 0 {
			t.Errorf("call %d started while call %d is open", e.Index, c.open)
		}
		if e.Index <= c.highest {
			t.Errorf("call %d started after call %d", e.Index, c.highest)
		}
		c.open = e.Index
	}
}

// checkParsed checks a call's Parsed against the strict parse of its text:
// kept only for strict JSON, and then the same value, its numbers all
// int64s when ParsedIntegers says so.
func (c *fuzzChecker) checkParsed(e Event) {
	c.parsed = append(c.parsed, e.Call.Parsed)
	if e.Call.Parsed == nil {
		if e.Call.ParsedIntegers {
			c.t.Errorf("call %d: ParsedIntegers without Parsed", e.Index)
		}
		return
	}
	if e.Call.ParsedIntegers && !allInt64(e.Call.Parsed) {
		c.t.Errorf("call %d: ParsedIntegers, but a number of %#v is no int64", e.Index, e.Call.Parsed)
	}
	r, err := repair.RepairJSON(e.Call.Text, repair.JSONOptions{})
	if err != nil || len(r.Repairs) > 0 || r.Truncated || !reflect.DeepEqual(r.Value, e.Call.Parsed) {
		c.t.Errorf("call %d kept %#v from %q; RepairJSON gives %#v, %v, repairs %v, truncated %v",
			e.Index, e.Call.Parsed, e.Call.Text, r.Value, err, r.Repairs, r.Truncated)
	}
}

// allInt64 reports whether every number in v reads as an int64.
func allInt64(v any) bool {
	switch x := v.(type) {
	case json.Number:
		_, err := x.Int64()
		return err == nil
	case map[string]any:
		for _, e := range x {
			if !allInt64(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !allInt64(e) {
				return false
			}
		}
	}
	return true
}

func (c *fuzzChecker) closedCall(e Event, over bool) {
	t := c.t
	t.Helper()
	if over {
		t.Errorf("call %d closed after it was over", e.Index)
	}
	if name, ok := c.out.Starts[e.Index]; ok && name != e.Name {
		t.Errorf("call %d started as %q and closed as %q", e.Index, name, e.Name)
	}
	if e.Name != e.Call.Name {
		t.Errorf("call %d closed as %q with a call named %q", e.Index, e.Name, e.Call.Name)
	}
	if want, ok := fuzzForms[c.format]; ok && e.Call.Form != want {
		t.Errorf("call %d closed in form %v, want %v", e.Index, e.Call.Form, want)
	}
	if (e.Call.Form == repair.FormParams) != (e.Call.Params != nil) {
		t.Errorf("call %d closed in form %v with params %v", e.Index, e.Call.Form, e.Call.Params)
	}
	if c.open == e.Index {
		c.open = -1
	}
	c.checkParsed(e)
	if c.format == XMLTags {
		opening, closing := "<"+e.Name+">", "</"+e.Name+">"
		if strings.HasPrefix(e.Call.Text, toolWrapper) { // <tool name="X">
			opening, closing = toolWrapper+e.Call.Text[len(toolWrapper):len(toolWrapper)+1]+e.Name, toolWrapperClose
		}
		if !strings.HasPrefix(e.Call.Text, opening) || !e.Truncated && !strings.HasSuffix(e.Call.Text, closing) {
			t.Errorf("call %d closed with text %q", e.Index, e.Call.Text)
		}
		c.rebuilt.WriteString(e.Call.Text)
	}
	c.checkPreview(e, c.out.Shown[e.Index])
}

func (c *fuzzChecker) errorEvent(e Event, over bool) {
	t := c.t
	t.Helper()
	if e.Text == "" {
		t.Errorf("error event without a message: %+v", e)
	}
	c.errs = append(c.errs, fuzzError{e.Index, e.Code})
	switch e.Code {
	case CodeCallTooLarge, CodeParamTooLarge, CodeJSONTooDeep:
		c.dropEvent(e, over)
	case CodeCallQuoted:
		// Prose followed the call on its line: it was quoted, and ends.
		if c.format.Structured() || c.closed[e.Index] || c.dropped[e.Index] {
			t.Errorf("%s for call %d, which ended", e.Code, e.Index)
		}
		c.dropped[e.Index] = true
		if c.open == e.Index {
			c.open = -1
		}
	case CodeCallAlreadyComplete:
		if !c.format.Structured() || !c.closed[e.Index] && !c.dropped[e.Index] {
			t.Errorf("%s for call %d, which is not complete", e.Code, e.Index)
		}
	default:
		t.Errorf("unknown error code %q", e.Code)
	}
}

func (c *fuzzChecker) dropEvent(e Event, over bool) {
	t := c.t
	t.Helper()
	want := fmt.Sprintf(" past %d bytes", c.opts.MaxCallBytes)
	switch e.Code {
	case CodeParamTooLarge:
		want = fmt.Sprintf(" past %d bytes", c.opts.MaxParamBytes)
	case CodeJSONTooDeep:
		want = fmt.Sprintf("more than %d levels", c.opts.MaxJSONDepth)
		if c.opts.MaxJSONDepth <= 0 || fuzzForms[c.format] != repair.FormText && c.format != Auto {
			t.Errorf("%s in %s with depth limit %d", e.Code, c.format, c.opts.MaxJSONDepth)
		}
	}
	// The calls awaiting the end of the response are bounded at two calls.
	tail := fmt.Sprintf(" past %d bytes", 2*c.opts.MaxCallBytes)
	if !strings.Contains(e.Text, want) && !(e.Code == CodeCallTooLarge && strings.Contains(e.Text, tail)) {
		t.Errorf("%s with limits %d/%d/%d: %s", e.Code, c.opts.MaxCallBytes, c.opts.MaxParamBytes, c.opts.MaxJSONDepth, e.Text)
	}
	if over {
		t.Errorf("call %d dropped (%s) after it was over", e.Index, e.Code)
	}
	if !c.format.Structured() && (e.Index < c.highest || c.open >= 0 && c.open != e.Index) {
		t.Errorf("call %d dropped while call %d is open, after call %d", e.Index, c.open, c.highest)
	}
	c.dropped[e.Index] = true
	if c.open == e.Index {
		c.open = -1
	}
}

// checkPreview checks that the joined previews of a closed call are its
// parameters, where the call says what they are: its Params (qwen_xml,
// minimax), or its arguments when they are a valid JSON object (the first
// occurrence of each member; Hermes does not show the arguments written
// before the name, so there the previews are only some of them).
func (c *fuzzChecker) checkPreview(e Event, shown map[string]string) {
	c.t.Helper()
	if e.Call.Form == repair.FormParams {
		if !reflect.DeepEqual(shown, e.Call.Params) && !(len(shown) == 0 && len(e.Call.Params) == 0) {
			c.t.Errorf("call %d previews %q, closed with %q", e.Index, shown, e.Call.Params)
		}
		return
	}
	if e.Call.Form != repair.FormText || !json.Valid([]byte(e.Call.Text)) {
		return
	}
	members, ok := jsonMembers(e.Call.Text)
	if !ok {
		return
	}
	for k, v := range shown {
		if want, ok := members[k]; !ok || v != want {
			c.t.Errorf("call %d previews %q = %q, closed with %q (present %v) in %s", e.Index, k, v, want, ok, e.Call.Text)
		}
	}
	if !namedInBody[c.format] && len(shown) != len(members) {
		c.t.Errorf("call %d previews %q, closed with %q", e.Index, shown, members)
	}
}

// jsonMembers returns the members of a JSON object as the previews show
// them: strings decoded, other values compact and prefixed "json:", the
// first occurrence of a key. It fails for what is not an object and for a
// key too long for the scanner.
func jsonMembers(text string) (map[string]string, bool) {
	dec := json.NewDecoder(strings.NewReader(text))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	out := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil || len(key) > maxKeyBytes {
			return nil, false
		}
		if _, dup := out[key]; dup {
			continue
		}
		if raw[0] == '"' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, false
			}
			out[key] = s
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, false
		}
		out[key] = "json:" + b.String()
	}
	return out, true
}

// ended checks that every call that started closed or was dropped.
func (c *fuzzChecker) ended() {
	for i := range c.out.Starts {
		if !c.closed[i] && !c.dropped[i] {
			c.t.Errorf("call %d started and never closed nor dropped", i)
		}
	}
}

var fuzzForms = map[Format]repair.Form{
	XMLTags: repair.FormXML, OpenAI: repair.FormText, Anthropic: repair.FormText,
	Hermes: repair.FormText, QwenXML: repair.FormParams, MiniMax: repair.FormParams,
	Harmony: repair.FormText, DeepSeekV3: repair.FormText, DeepSeekV31: repair.FormText,
	KimiK2: repair.FormText, Mistral: repair.FormText, Llama3JSON: repair.FormText,
	GLM45: repair.FormParams, Pythonic: repair.FormText, ClaudeXML: repair.FormParams,
}

// namedInBody are the formats whose calls may name the tool after some of
// the arguments, which are then not shown.
var namedInBody = map[Format]bool{Hermes: true, Mistral: true, Llama3JSON: true, Auto: true}

// view is what a run with limits must give however the response was
// split: all of its outcome but the starts and previews of the calls it
// dropped, and the drops without which limit each one reports.
type view struct {
	Text    string
	Calls   []closed
	Starts  map[int]string
	Shown   map[int]map[string]string
	Dropped []int
	Other   []fuzzError // CALL_ALREADY_COMPLETE
}

// viewOf is run's view, less the starts and previews of the calls in drop.
func viewOf(run fuzzRun, drop map[int]bool) view {
	v := view{Text: run.out.Text, Starts: map[int]string{}, Shown: map[int]map[string]string{}}
	for _, call := range run.out.Calls {
		if !drop[call.Index] {
			v.Calls = append(v.Calls, call)
		}
	}
	for i, name := range run.out.Starts {
		if !drop[i] {
			v.Starts[i] = name
		}
	}
	for i, shown := range run.out.Shown {
		if !drop[i] {
			v.Shown[i] = shown
		}
	}
	for _, e := range run.errs {
		switch {
		case e.Code == CodeCallTooLarge || e.Code == CodeParamTooLarge || e.Code == CodeJSONTooDeep:
			v.Dropped = append(v.Dropped, e.Index)
		case e.Code == CodeCallQuoted && drop[e.Index]:
			// A call the limits dropped is not there to be quoted.
		default:
			v.Other = append(v.Other, e)
		}
	}
	return v
}

// fuzzSeeds returns the responses of streamCases in format, and some
// nasty ones: characters and escapes to split, tags inside strings and
// values, unclosed and nested tags, a '<' at the end, huge names.
func fuzzSeeds(format Format) [][]byte {
	var seeds [][]byte
	add := func(pieces ...piece) {
		if format.Structured() {
			seeds = append(seeds, encodeDeltas(pieces))
		} else {
			seeds = append(seeds, []byte(joined(pieces)[0].text))
		}
	}
	for _, tc := range streamCases() {
		// Auto starts from every text format's responses.
		if tc.format == format || tc.format.Structured() && format.Structured() || format == Auto && !tc.format.Structured() {
			add(tc.pieces...)
		}
	}
	long := strings.Repeat("a", 300)
	huge := strings.Repeat("é", 700)
	spaces := strings.Repeat(" ", 1000)
	switch format {
	case XMLTags:
		for _, s := range []string{
			"é€😀 \xe2\x82 \xff <read_file><path>é😀\xf0\x9f</path></read_file> ü",
			"a <", "a <read_fi", "<write_to_file><path>a</path><content>x</content>  \n ",
			"<write_to_file><content>x</content>\n<path>p</path></write_to_file>",
			"<tool name='read_file' ><path>a</path></tool><tool name=\"read_file\"><path>b</path><tool name=\"\">",
			"<write_to_file><path><read_file><path>a</path></read_file></path></write_to_file>",
			"<" + long + ">x</" + long + ">",
			"<read_file>\r\n<path>\r\na\r\n</path>\r\n</read_file>\r",
			"<read_file><path>a</path><path>b</path></read_file><read_file>",
			"<write_to_file><content>\n" + huge + "</content></write_to_file>",
			"<attempt_completion><result>x</result  ></attempt_completion>",
			"<write_to_file><content>" + huge + "</content>" + spaces + "\n</write_to_file>",
		} {
			add(text(s))
		}
	case Hermes:
		for _, s := range []string{
			`<tool_call>{"name": "w", "arguments": {"c": "\ud83d\ude00 \u00e9 \ud83d \ude00 \ud83d\u0041 </tool_call> <tool_call>"}}</tool_call>`,
			`<tool_call>{"name": "` + long + long + long + long + `", "arguments": {}}</tool_call>`,
			`<tool_call>{"name": "` + huge + `", "arguments": {}}</tool_call>`,
			`<tool_call>{"name": "a", "arguments": {"x": [1, {"y": "`,
			`<tool_call>{"name": "a", "function": {"name": "b", "arguments": {"x": 1`,
			`<tool_call><tool_call>{}</tool_call></tool_call> <`,
			`<tool_call>{'name': 'a', 'arguments': {'x': True, 'y': None, 'z': 'it\'s'}}</tool_call>`,
			`<tool_call>{name: "a", arguments: {x: 1, y: -2.5e3}}</tool_call>`,
			`<tool_call>{"name": "a", "arguments": {"c": "` + huge + ` </tool_call> x"}, "z": 1}</tool_call>after`,
			`<tool_call>{"arguments": {"c": "` + huge + `"}, "name": "late"}</tool_call>`,
			"<tool_call>{\"name\": \"a\", \"arguments\": {\"p\": \"\xe2\x82\xac\xff\"}} < </tool_call>",
			`<tool_call>{"name": "a", "arguments": "{\"x\": 1}"}</tool_call>`,
			`<tool_call>{"name": "a", "arguments": {"x": "1"}, "args": {"y": "2", "x": [3]}}</tool_call>`,
			`<tool_call>{"name": "a", "arguments": {"": "` + huge + `"}}</tool_call>`,
			// An open value of 129 bytes, the parameter limit of the seeds'
			// limits 0x4020, then the closing tag.
			`<tool_call>{"name": "a", "arguments": {"n": [` + strings.Repeat("1,", 64) + `</tool_call>`,
			`<tool_call>{name: "a", arguments: {c: "` + huge + `", ` + long + `: 1, "d": "</tool_call>"}}</tool_call>after`,
			// Nested past the limit: skipped to the closing tag outside strings.
			`<tool_call>{"name": "a", "arguments": {"x": [[[[[[[[[[ 'it\'s </tool_call>' "\"</tool_call>" ]]]]]]]]]]}} < </tool_call>after`,
			`<tool_call>{"name": "a", "arguments": {"x": [{"y": [{"z": [[[[ "</tool_call>`,
			"\n<tool_call>{\"name\": \"a\"}</tool_call>\n\n<tool_call>{\"name\": \"b\"}</tool_call>\nx\n",
		} {
			add(text(s))
		}
	case QwenXML:
		for _, s := range []string{
			"<tool_call><tool_call><function=a><parameter=x>1</parameter></function></tool_call></tool_call>",
			"<function=a><parameter=x>é</parameter>  \n </function>",
			"<function=" + long + "><parameter=x>1</parameter></function>",
			"<function=a><parameter=x>abc</parameter",
			"<function=a><parameter=x>1</parameter><parameter=x>2</parameter></function>",
			"<function=a><parameter=x>\n" + huge + "\n</parameter> </function> tail <",
			"<function=a>\n<parameter=x>\r\n</parameter> \n<parameter=\n",
			"<function=a><parameter=x>" + huge + "</parameter>" + spaces + "</function>",
			// Values whose closing tag is left out, ended by the next parameter at a line start.
			"<function=write_to_file>\n<parameter=content>\nx\n<parameter=path>\n<parameter=path>\ny\n</parameter></function>",
			"<function=a><parameter=x>1\n<parameter=y>2\r\n<parameter=x>3\n<parameter=",
			"<function=a><parameter=x>\n<parameter=" + long + ">\n</parameter></function>",
			"<function=a><parameter=x>" + huge + "\n<parameter=y>" + huge + "\n<parameter=z>\n</function>",
			// White space around calls: layout, unless prose shares its run.
			"\n\n<tool_call>\n<function=a>\n</function>\n</tool_call>\n \n<tool_call>\n<function=b>\n</function>\n</tool_call>\n\n",
			"<function=a></function>\n" + spaces + spaces + spaces + spaces + spaces + "\n<function=b></function> x \n",
			" \t\r\n \xff\n<tool_call>\r\n",
		} {
			add(text(s))
		}
	case MiniMax:
		for _, s := range []string{
			`<invoke name="a"   ><parameter name="x"  >1</parameter></invoke>`,
			`<invoke name="a"` + spaces + `>`,
			`<invoke name="a"><parameter name="x"` + spaces + `>1</parameter></invoke>`,
			`<invoke name="a"><parameter name="x">` + huge + `</parameter>` + spaces + `</invoke>`,
			`<minimax:tool_call><minimax:tool_call><invoke name=a><parameter name=b>c</parameter></invoke>`,
			`<invoke name='a'><parameter name='x'>é</parameter ><parameter name="y">` + huge + `</parameter></invoke></minimax:tool_call>`,
			`<invoke name="` + long + `"></invoke>`,
			`<invoke name="a"><parameter name="x">1</parameter><parameter name="x">2</parameter></invoke> <invoke`,
			"<invoke name=\"a\"><parameter name=\"x\">1\n<parameter name=\"y\">2\n<parameter name='x'>3</parameter></invoke>",
			"<invoke name=\"a\"><parameter name=\"x\">1\n<parameter name=\"y\"" + spaces + ">2</parameter></invoke>",
			"<invoke name=\"a\"><parameter name=\"x\">" + huge + "\n<parameter name=\"y\">" + huge + "</parameter></invoke>",
			"\n<minimax:tool_call>\n<invoke name=\"a\"></invoke>\n</minimax:tool_call>\n \n<minimax:tool_call>\n<invoke name=\"b\"></invoke>\n</minimax:tool_call>\n",
		} {
			add(text(s))
		}
	case Harmony, DeepSeekV3, DeepSeekV31, KimiK2, Mistral, Llama3JSON:
		for _, s := range jsonFormatSeeds(format, long, huge, spaces) {
			add(text(s))
		}
	case GLM45, Pythonic, ClaudeXML:
		for _, s := range tagFormatSeeds(format) {
			add(text(s))
		}
	default: // OpenAI, Anthropic
		add(frag(0, "c0", "wr", ""), frag(0, "", "ite", `{"a": "\ud83d`), frag(0, "", "", `\ude00 \u00e9\xff", "n": [1, {"b": tru`), frag(0, "", "", "e}]}"), done(0))
		add(frag(1, "c1", "a", `{"x": 1}`), done(1), frag(1, "", "a", `{"y": 2}`), frag(2, "c2", "b", "{\"x\": \"\x00\"}\x00{"), text("é"), text("\xe2\x82"), text("\xac"))
		add(frag(0, "c0", "w", `{"content": "`+huge+`", "path": "p"}`), frag(3, "c3", "r", `{"path": "q"}`), done(0))
		add(frag(0, "c0", "w", `{"a": [[[[[[`+long+`]]]]]], "b": {'c': None}, d: True}`))
		add(done(2), frag(2, "x", "y", "{}"), text("<tool_call>"))
		add(frag(0, "c0", "w", `{"": "`+huge+`"}`))
		add(frag(0, "c0", "w", `{"a": [{"b": [[[[[[[[`), frag(1, "c1", "r", `{"x": [[1]]}`), frag(0, "", "", `"]]"]]]]]]]]}]}`), done(0), done(1))
		// Strict JSON, kept as parsed, and texts one leniency away from it.
		add(frag(0, "c0", "w", `{"path": "a\"b\\c\u00e9\ud83d\ude00\/", "n": -1.5e3, "l": [true, false, null, {}, []], "o": {"k": "v", "k": "w"}}`), done(0))
		add(frag(0, "c0", "w", `{"a": [1,], "b": 1}`), frag(1, "c1", "w", `{"a": 1,}`), frag(2, "c2", "w", `{"a": "x\qy"}`), frag(3, "c3", "w", "{\"a\": \"\x01\"}"), done(0), done(1), done(2), done(3))
		add(frag(0, "c0", "w", `{"a": 01}`), frag(1, "c1", "w", `{"a": 1} x`), frag(2, "c2", "w", `{"a" = 1}`), frag(3, "c3", "w", `{"a": 1 "b": 2}`), done(0), done(1), done(2), done(3))
	}
	return seeds
}

// TestDecodeDeltas checks that the structured seeds decode to the pieces
// they were made from.
func TestDecodeDeltas(t *testing.T) {
	for _, tc := range streamCases() {
		if !tc.format.Structured() {
			continue
		}
		if got := decodeDeltas(encodeDeltas(tc.pieces)); !reflect.DeepEqual(got, tc.pieces) {
			t.Errorf("%s: decoded %+v, want %+v", tc.name, got, tc.pieces)
		}
	}
}
