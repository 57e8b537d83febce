package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// Fuzz targets for the proxy's parsers: the SSE framing, the JSON walker
// and the stream fixers of both APIs, end to end through sseReader. CI
// runs their seed corpus (the fixtures' streams and testdata/fuzz); `make
// fuzz` runs them for minutes.

// fuzzPieces returns the upstream's reads: data cut at the gaps in cuts
// (each byte+1, cycled); no cuts means one byte per read.
func fuzzPieces(data, cuts []byte) [][]byte {
	var out [][]byte
	for i, k := 0, 0; i < len(data); k++ {
		gap := 1
		if len(cuts) > 0 {
			gap = int(cuts[k%len(cuts)]) + 1
		}
		out = append(out, data[i:min(i+gap, len(data))])
		i += gap
	}
	return out
}

// piecesReader returns one piece per Read, as a network connection does.
type piecesReader struct{ pieces [][]byte }

func (r *piecesReader) Read(p []byte) (int, error) {
	for len(r.pieces) > 0 && len(r.pieces[0]) == 0 {
		r.pieces = r.pieces[1:]
	}
	if len(r.pieces) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.pieces[0])
	r.pieces[0] = r.pieces[0][n:]
	return n, nil
}

func (r *piecesReader) Close() error { return nil }

// cutReader returns the pieces fuzzPieces cuts, one per Read, without
// building them first: a slice for each byte of the one-byte-per-read pass
// was a good part of the fuzz target's time.
type cutReader struct {
	data, cuts []byte
	k, left    int // the piece being read, and its bytes not read yet
}

func (r *cutReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	if r.left == 0 {
		r.left = 1
		if len(r.cuts) > 0 {
			r.left = int(r.cuts[r.k%len(r.cuts)]) + 1
		}
		r.k++
	}
	n := copy(p, r.data[:min(r.left, len(r.data))])
	r.data, r.left = r.data[n:], r.left-n
	return n, nil
}

func (r *cutReader) Close() error { return nil }

// fixStream runs an upstream stream, read from src, through the fixer of
// the api and returns what the client reads.
func fixStream(t *testing.T, p *Proxy, rs *request, src io.ReadCloser) []byte {
	t.Helper()
	r := p.newSSEReader(rs, src, true)
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read the stream: %v", err)
	}
	_ = r.Close()
	return got
}

// fuzzProxy is a proxy for fuzzing the fixers: the upstream is never
// called, nothing is logged.
func fuzzProxy(t testing.TB, edit func(*Config)) *Proxy {
	cfg := DefaultConfig()
	cfg.Upstream = "http://127.0.0.1:1"
	if edit != nil {
		edit(&cfg)
	}
	p, err := New(cfg, Options{Log: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// frameEvents cuts a whole stream into its events as the proxy frames
// them (eventEnd); a last event without its blank line is the last
// element.
func frameEvents(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := eventEnd(b)
		if n == 0 {
			n = len(b)
		}
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}

// callMarks are the bytes of the events a fixer may hold, rewrite or add
// to: those of tool calls, and the proxy's own comment lines.
var callMarks = [][]byte{markToolCalls, markToolUse, markInputJSONDelta, []byte(": toolguard:")}

func callish(ev []byte) bool {
	for _, m := range callMarks {
		if bytes.Contains(ev, m) {
			return true
		}
	}
	return false
}

// truncationComment is the line the proxy adds after a call cut off.
func isTruncationComment(ev []byte) bool {
	return bytes.HasPrefix(ev, []byte(": toolguard: call ")) && bytes.HasSuffix(ev, []byte(" truncated, not repaired\n\n")) &&
		bytes.Count(ev, []byte("\n")) == 2
}

// fuzzSeedStreams are the fixtures' streams of an API and a few synthetic
// ones.
func fuzzSeedStreams(f *testing.F, api string) [][]byte {
	var seeds [][]byte
	all, err := proxytest.Load("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range all {
		if s.API == api && s.SSE != nil {
			seeds = append(seeds, s.SSE)
		}
	}
	todo := `{"todos": [{'content': 'a\u00e9', 'id': '1', 'status': 'pending'}]}`
	write := `{"path": "a.go", "content": "x\ny"}`
	seeds = append(seeds,
		synthStream(api, []synthCall{{index: 0, name: "todowrite", frags: []string{todo[:9], todo[9:20], todo[20:]}}}, "tool_calls"),
		synthStream(api, []synthCall{{index: 0, name: "Write", frags: []string{write[:5], write[5:]}}}, "length"),
		synthStream(api, []synthCall{{index: 0, name: "Write", frags: []string{write[:12]}}}, ""),
		synthStream(api, []synthCall{{index: 0, name: "Write", frags: []string{write}}, {index: 1, name: "TodoWrite", frags: []string{todo}}}, "tool_calls"),
	)
	// Calls left in the text, for the rescue.
	for _, text := range []string{qwenContent, hermesText, harmonyText, mentionText, undeclaredText, invalidText, cutText} {
		deltas := []string{text[:len(text)/3], text[len(text)/3:]}
		if api == "anthropic" {
			seeds = append(seeds, anthropicTextStream(deltas, true))
		} else {
			seeds = append(seeds, openAITextStream(deltas, "stop"))
		}
	}
	return seeds
}

func FuzzOpenAIStream(f *testing.F)    { fuzzStream(f, "openai") }
func FuzzAnthropicStream(f *testing.F) { fuzzStream(f, "anthropic") }

// fuzzStream feeds an upstream stream (data) through the API's fixer three
// ways: in one read, cut where the fuzzer chose (cuts), and one byte per
// read; with fallback on or off (noFallback), a call size limit (the low
// bits of callLimit pick one of callLimits, 0: the default) and the rescue
// on or off (bit 2). Then:
//
//   - the client reads the same bytes all three ways (chunk invariance);
//   - with fallback on, every event that carries no part of a tool call
//     reaches the client byte for byte, in order, and nothing else is
//     added but the proxy's truncation comments, each an event of its own;
//   - a stream without any tool call comes out byte-identical;
//   - with the rescue on, the same holds of a stream whose text holds
//     nothing that may open a call in the text ('<', '[', '{'), and a
//     stream a client can read stays one it can read.
func fuzzStream(f *testing.F, api string) {
	for _, seed := range fuzzSeedStreams(f, api) {
		f.Add(seed, []byte{}, false, uint8(0))
		f.Add(seed, []byte{6, 0, 30}, true, uint8(0))
		f.Add(seed, []byte{200}, false, uint8(2))
	}
	// One proxy per configuration, built when first used (building one
	// compiles the built-in parameter aliases) and kept for the process.
	callLimits := []int{0, 8, 64, 512}
	var proxies [2][4][2]*Proxy
	proxyFor := func(t *testing.T, fb, k, rescue int) *Proxy {
		if proxies[fb][k][rescue] == nil {
			cfg := DefaultConfig()
			cfg.Upstream, cfg.Fallback, cfg.Rescue = "http://127.0.0.1:1", fb == 0, rescue == 0
			if callLimits[k] > 0 {
				cfg.MaxCallBytes = callLimits[k]
			}
			p, err := New(cfg, Options{Log: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			proxies[fb][k][rescue] = p
		}
		return proxies[fb][k][rescue]
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte, noFallback bool, callLimit uint8) {
		if len(data) > 32<<10 {
			return // larger streams add nothing but time
		}
		fb := 0
		if noFallback {
			fb = 1
		}
		rescue := callLimit&4 == 0
		p := proxyFor(t, fb, int(callLimit)%len(callLimits), int(callLimit>>2&1))
		a := apiOpenAI
		if api == "anthropic" {
			a = apiAnthropic
		}
		run := func(src io.ReadCloser) []byte {
			rs := p.newRequest(context.Background(), a, requestBody(api, true, true), "")
			// Rescued calls get random ids.
			return sameIDs(fixStream(t, p, rs, src))
		}
		whole := run(&piecesReader{pieces: [][]byte{bytes.Clone(data)}})
		if got := run(&cutReader{data: data, cuts: cuts}); !bytes.Equal(got, whole) {
			t.Fatalf("cut at %v: the client read\n%q\nin one read:\n%q", cuts, got, whole)
		}
		if got := run(&cutReader{data: data}); !bytes.Equal(got, whole) {
			t.Fatalf("one byte per read: the client read\n%q\nin one read:\n%q", got, whole)
		}
		markup := rescue && textMarkup(data)
		if !callish(data) && !markup && !bytes.Equal(whole, sameIDs(data)) {
			t.Fatalf("a stream without tool calls changed:\n got %q\nwant %q", whole, data)
		}
		if markup {
			if _, err := proxytest.ReadStream(api, data); err == nil {
				if _, err := proxytest.ReadStream(api, whole); err != nil {
					t.Fatalf("the rescue made a stream the client cannot read: %v\n%q", err, whole)
				}
			}
		}
		if noFallback || markup {
			return
		}
		var in, out [][]byte
		added := 0
		for _, ev := range frameEvents(sameIDs(data)) {
			switch {
			case isTruncationComment(ev):
				added--
			case !callish(ev):
				in = append(in, ev)
			}
		}
		for _, ev := range frameEvents(whole) {
			switch {
			case isTruncationComment(ev):
				added++
			case !callish(ev):
				out = append(out, ev)
			}
		}
		sameEvents(t, "events without calls, out and in", out, in)
		comments := bytes.Count(whole, []byte(": toolguard: call ")) - bytes.Count(data, []byte(": toolguard: call "))
		if comments != added {
			t.Fatalf("%d truncation comments added, %d of them events of their own:\n%q", comments, added, whole)
		}
	})
}

// sameEvents fails the test unless got and want are the same events.
func sameEvents(t *testing.T, what string, got, want [][]byte) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d:\n got %q\nwant %q", what, len(got), len(want), got, want)
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("%s: event %d is %q, want %q", what, i, got[i], want[i])
		}
	}
}

// FuzzSSEFraming: the proxy frames a stream into the events a line by line
// reading of the format finds (proxytest.SplitEvents), whatever pieces it
// arrives in; eventData's data is where it says, and rewriting an event
// with its own data gives it back.
func FuzzSSEFraming(f *testing.F) {
	for _, s := range []string{
		"data: x\n\ndata: y\r\n\r\n: c\r\r",
		"event: a\ndata: {\"a\":\ndata: 1}\nid: 7\n\nrest",
		"data\n\ndata:x\r\n\r",
		"data: [DONE]\n\n",
	} {
		f.Add([]byte(s), []byte{3})
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		events := frameEvents(data)
		if got := bytes.Join(events, nil); !bytes.Equal(got, data) {
			t.Fatalf("the events %q are not the input %q", got, data)
		}
		// The same events as the format's line-by-line reading.
		sameEvents(t, "proxytest.SplitEvents", proxytest.SplitEvents(data), events)
		// Framing as sseReader does it: the input arriving in pieces, each
		// search resuming where the last stopped.
		var again [][]byte
		var buf []byte
		var fr framer
		for _, piece := range fuzzPieces(data, cuts) {
			buf = append(buf, piece...)
			at := 0
			for {
				n := fr.next(buf[at:])
				if n == 0 {
					break
				}
				again = append(again, bytes.Clone(buf[at:at+n]))
				at += n
			}
			buf = buf[:copy(buf, buf[at:])]
		}
		if len(buf) > 0 {
			again = append(again, buf) // the unfinished last event
		}
		sameEvents(t, fmt.Sprintf("in pieces %v", cuts), again, events)
		for _, ev := range events {
			d, off, single, ok := eventData(ev)
			if !ok {
				continue
			}
			if single && !bytes.Equal(ev[off:off+len(d)], d) {
				t.Fatalf("eventData(%q): the data %q is not at %d", ev, d, off)
			}
			if !single || bytes.ContainsAny(d, "\r\n") {
				continue
			}
			if got := rewriteData(ev, off, single, len(d), d); !bytes.Equal(got, ev) {
				t.Fatalf("rewriting %q with its own data gave %q", ev, got)
			}
		}
	})
}

// FuzzJSONWalker: on any input the walker stays in bounds; on valid JSON
// it agrees with encoding/json: skipValue ends the document, members and
// elements see every member and element, and appendUnquoted decodes
// strings as encoding/json does (for valid UTF-8, which encoding/json
// would otherwise replace).
func FuzzJSONWalker(f *testing.F) {
	for _, s := range []string{
		` {"a": [1, {"b\u0063": "x\"}"}, null], "d" : {"e": "\ud83d\ude00 é\n"}} `,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\\\\\": 1}"}}]},"finish_reason":null}]}`,
		`["\ud800", "\udc00\ud800x", "\/\b\f\n\r\t"]`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{'a'"}}`,
		`-12`, `"\u00"`, `{"a":`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		// In bounds whatever the input.
		var oa openAIChunk
		oa.parse(doc)
		var ae anthropicEvent
		ae.parse(doc)
		for _, path := range [][]any{{"a"}, {0}, {"choices", 0, "message"}, {"content", 1, "input"}} {
			if s, e, ok := valueAt(doc, path...); ok && (s < 0 || e > len(doc) || s >= e) {
				t.Fatalf("valueAt(%v) = [%d, %d) in %d bytes", path, s, e, len(doc))
			}
		}
		start := skipSpace(doc, 0)
		if !json.Valid(doc) || start == len(doc) {
			return
		}
		end := skipValue(doc, start)
		if want := len(bytes.TrimRight(doc, " \t\r\n")); end != want {
			t.Fatalf("skipValue(%q) = %d, want %d", doc, end, want)
		}
		checkStrings(t, doc, start)
		switch doc[start] {
		case '{':
			var m map[string]json.RawMessage
			if err := json.Unmarshal(doc, &m); err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			if members(doc, start, func(key []byte, v int) int {
				seen[string(key)] = true
				return skipValue(doc, v)
			}) != end {
				t.Fatalf("members(%q) did not end where the object does", doc)
			}
			for k := range m {
				if utf8.Valid(doc) && !seen[k] {
					t.Fatalf("members(%q) missed key %q", doc, k)
				}
			}
		case '[':
			var a []json.RawMessage
			if err := json.Unmarshal(doc, &a); err != nil {
				t.Fatal(err)
			}
			n := 0
			if elements(doc, start, func(_, v int) int { n++; return skipValue(doc, v) }) != end || n != len(a) {
				t.Fatalf("elements(%q): %d elements, want %d", doc, n, len(a))
			}
		}
	})
}

// checkStrings compares appendUnquoted with encoding/json on every string
// of the valid document doc, walking it with the walker.
func checkStrings(t *testing.T, doc []byte, i int) {
	t.Helper()
	switch doc[i] {
	case '"':
		end := skipString(doc, i)
		got, ok := appendUnquoted(nil, doc[i:end])
		var want string
		if err := json.Unmarshal(doc[i:end], &want); err != nil || !ok {
			t.Fatalf("string %q: appendUnquoted ok=%v, encoding/json %v", doc[i:end], ok, err)
		}
		if utf8.Valid(doc[i:end]) && string(got) != want {
			t.Fatalf("string %q: appendUnquoted %q, encoding/json %q", doc[i:end], got, want)
		}
	case '{':
		members(doc, i, func(_ []byte, v int) int { checkStrings(t, doc, v); return skipValue(doc, v) })
	case '[':
		elements(doc, i, func(_, v int) int { checkStrings(t, doc, v); return skipValue(doc, v) })
	}
}

// textMarkup reports a stream whose text (OpenAI content, Anthropic text
// deltas) holds a byte that may open a call in the text.
func textMarkup(data []byte) bool {
	for _, ev := range frameEvents(data) {
		var e struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Delta struct {
				Text string `json:"text"`
			} `json:"delta"`
		}
		if json.Unmarshal(eventJSON(ev), &e) != nil {
			continue
		}
		texts := []string{e.Delta.Text}
		for _, ch := range e.Choices {
			texts = append(texts, ch.Delta.Content)
		}
		for _, s := range texts {
			if strings.ContainsAny(s, "<[{") {
				return true
			}
		}
	}
	return false
}
