package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

func TestEventEnd(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"data: x\n\nrest", 9},
		{"data: x\r\n\r\nrest", 11},
		{"data: x\r\rrest", 9},
		{"data: x\n\r\nrest", 10},
		{"event: a\ndata: x\n\n", 18},
		{": comment\n\n", 11},
		{"data: x\n", 0},
		{"data: x\r", 0},
		{"data: x\r\n\r", 0}, // the \n of the blank line's \r\n may follow
		{"\nrest", 1},        // an empty line first
		{"\r\nrest", 2},
		{"data: " + strings.Repeat("x", 100) + "\n\n", 108},
		{"data: " + strings.Repeat("x", 100) + "\r\ndata: y\r\n\r\n", 119},
	}
	for _, tt := range tests {
		if got := eventEnd([]byte(tt.in)); got != tt.want {
			t.Errorf("eventEnd(%q) = %d, want %d", tt.in, got, tt.want)
		}
		// Arriving a byte at a time, each search resuming where the last
		// stopped, the event ends at the same place.
		var fr framer
		got := 0
		for i := 1; i <= len(tt.in) && got == 0; i++ {
			got = fr.next([]byte(tt.in[:i]))
		}
		if got != tt.want {
			t.Errorf("framer on %q byte by byte = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestUnfinished: what the proxy appends after an event the stream ended
// in the middle of makes an event of its own, whatever the framing.
func TestUnfinished(t *testing.T) {
	for _, tt := range []struct{ raw, want string }{
		{"data: x\n\n", ""},
		{"data: x\r\n\r\n", ""},
		{"data: x", "\n\n"},
		{"data: x\n", "\n"},
		{"data: x\r\n", "\n"},
		{"data: x\r", "\n\n"},
		{"", ""},
	} {
		got := unfinished([]byte(tt.raw))
		if got != tt.want {
			t.Errorf("unfinished(%q) = %q, want %q", tt.raw, got, tt.want)
		}
		if tt.raw == "" {
			continue
		}
		next := ": toolguard\n\n"
		if n := eventEnd([]byte(tt.raw + got + next)); n != len(tt.raw)+len(got) {
			t.Errorf("%q + %q: the event ends at %d, want %d", tt.raw, got, n, len(tt.raw)+len(got))
		}
	}
}

func TestEventData(t *testing.T) {
	tests := []struct {
		in, data string
		single   bool
	}{
		{"data: {\"a\":1}\n\n", `{"a":1}`, true},
		{"data:{\"a\":1}\n\n", `{"a":1}`, true},
		{"event: x\r\ndata: {\"a\":1}\r\n\r\n", `{"a":1}`, true},
		{"data: {\"a\":\ndata: 1}\n\n", "{\"a\":\n1}", false},
		{"data: [DONE]\n\n", "[DONE]", true},
		{"data\n\n", "", true},
	}
	for _, tt := range tests {
		data, off, single, ok := eventData([]byte(tt.in))
		if !ok || string(data) != tt.data || single != tt.single {
			t.Errorf("eventData(%q) = %q single=%v ok=%v", tt.in, data, single, ok)
			continue
		}
		if single && tt.in[off:off+len(data)] != tt.data {
			t.Errorf("eventData(%q): offset %d is not where the data is", tt.in, off)
		}
	}
	if _, _, _, ok := eventData([]byte(": ping\n\n")); ok {
		t.Error("a comment has data")
	}
	// Rewriting keeps every other line.
	raw := []byte("event: e\ndata: {\"a\":\ndata: 1}\nid: 7\n\n")
	got := rewriteData(raw, 0, false, 0, []byte(`{"a":2}`))
	if want := "event: e\ndata: {\"a\":2}\nid: 7\n\n"; string(got) != want {
		t.Errorf("rewriteData = %q, want %q", got, want)
	}
}

func TestJSONWalker(t *testing.T) {
	doc := []byte(` {"a": [1, {"b\u0063": "x\"}"}, null], "d" : {"e": "\ud83d\ude00 é\n"}} `)
	s, e, ok := valueAt(doc, "a", 1, "bc")
	if !ok || string(doc[s:e]) != `"x\"}"` {
		t.Errorf("valueAt a/1/bc = %q, %v", doc[s:e], ok)
	}
	if _, _, ok := valueAt(doc, "a", 3); ok {
		t.Error("valueAt found a fourth element")
	}
	s, e, _ = valueAt(doc, "d", "e")
	got, ok := appendUnquoted(nil, doc[s:e])
	var want string
	_ = json.Unmarshal(doc[s:e], &want)
	if !ok || string(got) != want {
		t.Errorf("appendUnquoted = %q, want %q", got, want)
	}
	for _, q := range []string{`"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"plain"`, `"\/\b\f\r\t"`} {
		got, ok := appendUnquoted(nil, []byte(q))
		var want string
		_ = json.Unmarshal([]byte(q), &want)
		if !ok || string(got) != want {
			t.Errorf("appendUnquoted(%s) = %q, want %q as encoding/json", q, got, want)
		}
	}
	if _, ok := appendUnquoted(nil, []byte(`"\x"`)); ok {
		t.Error("a bad escape was accepted")
	}
	out := applyEdits([]byte(`{"a":"x","b":"y"}`), []edit{{start: 13, end: 16, text: []byte(`"Y"`)}, {start: 5, end: 8, text: []byte(`""`)}})
	if string(out) != `{"a":"","b":"Y"}` {
		t.Errorf("applyEdits = %s", out)
	}
	out = applyEdits([]byte(`{"a":"x","b":"y"}`), []edit{{start: 13, end: 16, text: []byte(`{"k": "v\n"}`), quote: true}})
	if string(out) != `{"a":"x","b":"{\"k\": \"v\\n\"}"}` {
		t.Errorf("applyEdits, quoted = %s", out)
	}
	var c openAIChunk
	if !c.parse([]byte(`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"{"},"index":2}]},"index":1,"finish_reason":"length"}]}`)) ||
		len(c.calls) != 1 || c.calls[0].choice != 1 || c.calls[0].index != 2 || string(c.choices[0].finish) != "length" {
		t.Errorf("parse: %+v", c)
	}
	if c.parse([]byte(`{"choices":[{"index":"0"}]}`)) {
		t.Error("a string index was read as a number")
	}
}

// TestTemplate: an event that shares the bytes around the last fragment
// is read without parsing only when what is between is one string; frame
// finds the same in the stream's bytes, and the event's end.
func TestTemplate(t *testing.T) {
	data := []byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ab"}}]}}]}`)
	raw := append(append([]byte("event: x\ndata: "), data...), "\n\n"...)
	var tm template
	at := bytes.Index(data, []byte(`"ab"`))
	tm.set(raw, len("event: x\ndata: "), len(data), span{at, at + 4}, callKey{0, 0})
	with := func(body string) []byte {
		return []byte(strings.Replace(string(data), `"ab"`, `"`+body+`"`, 1))
	}
	for body, want := range map[string]bool{
		`cd`:                 true,
		`c\"d`:               true,
		`c\\`:                true,
		``:                   true,
		`c\`:                 false, // the closing quote would be escaped
		`c","name":"evil`:    false, // a quote ends the string
		`c\\","name":"x`:     false,
		`\u00e9\ud83d\ude00`: true,
	} {
		s, ok := tm.match(with(body), true)
		if ok != want {
			t.Errorf("match(%s) = %v, want %v", body, ok, want)
		}
		ev := []byte(strings.Replace(string(raw), `"ab"`, `"`+body+`"`, 1))
		n, fs := tm.frame(append(bytes.Clone(ev), "data: next\n\n"...))
		if (n > 0) != want || n > 0 && (n != len(ev) || fs != s) {
			t.Errorf("frame(%s) = %d %v, want %v: %d %v", body, n, fs, want, len(ev), s)
		}
		if n, _ := tm.frame(ev[:len(ev)-1]); n != 0 {
			t.Errorf("frame(%s) found an event not whole yet", body)
		}
	}
	if _, ok := tm.match(with("cd"), false); ok {
		t.Error("matched an event with several data lines")
	}
	for _, body := range []string{"c\nd", "c\rd", "c\\\nd", "\n", "c\nd\",\"e", "c\\\n\"d", "c\r\\\"d"} {
		ev := []byte(strings.Replace(string(raw), `"ab"`, `"`+body+`"`, 1))
		if n, _ := tm.frame(ev); n != 0 {
			t.Errorf("frame(%q) framed an event with a line end in its fragment", body)
		}
	}
	tm.set(append(bytes.Clone(raw[:len(raw)-2]), "\r\n\r\n"...), len("event: x\ndata: "), len(data), span{at, at + 4}, callKey{0, 0})
	if n, _ := tm.frame(append(bytes.Clone(raw[:len(raw)-2]), "\r\n\r\n"...)); n != 0 {
		t.Error("framed after an event with \\r line ends: the framer's rules differ")
	}
}

// FuzzTemplateFrame: whatever follows the template's head, an event that
// frame takes is the one the framer finds, with one data line, and its
// fragment where match finds it: frame only ever saves the slow path's
// work.
func FuzzTemplateFrame(f *testing.F) {
	data := []byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ab"}}]}}]}`)
	raw := append(append([]byte("event: x\ndata: "), data...), "\n\n"...)
	at := bytes.Index(data, []byte(`"ab"`))
	for _, body := range []string{"cd", `c\"d`, `c\\`, "c\nd", "c\rd", `c","name":"x`, "c\\\n\"d"} {
		f.Add([]byte(body), []byte("data: next\n\n"))
	}
	f.Fuzz(func(t *testing.T, body, rest []byte) {
		var tm template
		tm.set(raw, len("event: x\ndata: "), len(data), span{at, at + 4}, callKey{0, 0})
		head, tail := raw[:len("event: x\ndata: ")+at+1], raw[len("event: x\ndata: ")+at+3:]
		buf := append(append(append(append([]byte(nil), head...), body...), tail...), rest...)
		n, s := tm.frame(buf)
		if n == 0 {
			return
		}
		if m := eventEnd(buf); m != n {
			t.Fatalf("frame took %d bytes of %q, the framer %d", n, buf, m)
		}
		d, _, single, ok := eventData(buf[:n])
		if !ok || !single {
			t.Fatalf("frame took %q, with no single data line", buf[:n])
		}
		if ms, ok := tm.match(d, single); !ok || ms != s {
			t.Fatalf("frame found the fragment at %v in %q, match %v %v", s, d, ms, ok)
		}
	})
}

// TestMultiLineData: events whose JSON spans several data lines are read
// and rewritten too.
func TestMultiLineData(t *testing.T) {
	in := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt',`, ` 'content': 'hi'}`}}}, "tool_calls")
	in = bytes.ReplaceAll(in, []byte(`"choices":`), []byte("\"choices\":\ndata: "))
	tp := newTestProxy(t, sseUpstream(in, nil), nil)
	_, body := tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
	calls, _ := clientCalls(t, "openai", body)
	if c := calls[0]; c == nil || c.Args != `{"content":"hi","path":"a.txt"}` {
		t.Fatalf("call %+v\n%s", c, body)
	}
}

// TestReadBufferKept: events that reads cut in two, none larger than a
// read, are read into the one read-sized buffer the reader starts with: it
// is neither grown nor dropped, and nothing is drawn from the budget.
func TestReadBufferKept(t *testing.T) {
	write := `{"path": "a.go", "content": "` + strings.Repeat("x", 4000) + `"}`
	var frags []string
	for i := 0; i < len(write); i += 16 {
		frags = append(frags, write[i:min(i+16, len(write))])
	}
	in := synthStream("openai", []synthCall{{index: 0, name: "Write", frags: frags}}, "tool_calls")
	for _, cuts := range [][]byte{nil, {99}, {255, 6}} {
		p := fuzzProxy(t, nil)
		rs := p.newRequest(context.Background(), apiOpenAI, requestBody("openai", true, true), "")
		r := p.newSSEReader(rs, &cutReader{data: in, cuts: cuts}, true)
		var out []byte
		buf := make([]byte, 4096)
		var first []byte
		for {
			n, err := r.Read(buf)
			out = append(out, buf[:n]...)
			if first == nil && cap(r.in) > 0 {
				first = r.in[:1]
			}
			if cap(r.in) != sseReadSize || &r.in[:1][0] != &first[0] || r.hold.n != 0 {
				t.Fatalf("cuts %v: the reader's buffer is %d bytes (counted %d), a new one: %v", cuts, cap(r.in), r.hold.n, &r.in[:1][0] != &first[0])
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		_ = r.Close()
		if !bytes.Equal(out, in) {
			t.Fatalf("cuts %v: the stream changed", cuts)
		}
	}
}

// TestBulkReads: once a read fills the room it was given, the upstream is
// ahead, and the reader reads bulkReadSize at a time, the buffer beyond one
// read's counted in the budget; with no room in the budget for it, one
// read's size still. Either way the stream goes out as it came, and
// closing gives the budget back.
func TestBulkReads(t *testing.T) {
	in := openAITextStream(piecesOf(strings.Repeat("text, ", 40000), 16), "stop")
	for _, tc := range []struct {
		name     string
		held     int64
		wantSize int
	}{{"budget", 8 << 20, bulkReadSize}, {"no budget for it", 64 << 10, sseReadSize}} {
		t.Run(tc.name, func(t *testing.T) {
			p := fuzzProxy(t, func(c *Config) {
				c.MaxRequestBytes, c.MaxResponseBytes, c.MaxCallBytes, c.MaxHeldBytes = 64<<10, 64<<10, 64<<10, tc.held
			})
			rs := p.newRequest(context.Background(), apiOpenAI, requestBody("openai", true, true), "")
			r := p.newSSEReader(rs, &piecesReader{pieces: [][]byte{bytes.Clone(in)}}, false)
			var out []byte
			buf := make([]byte, 64<<10)
			size := 0
			for {
				n, err := r.Read(buf)
				out = append(out, buf[:n]...)
				size = max(size, cap(r.in))
				if want := int64(max(cap(r.in)-sseReadSize, 0)); r.hold.n != want {
					t.Fatalf("a buffer of %d bytes counted as %d", cap(r.in), r.hold.n)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			_ = r.Close()
			if size != tc.wantSize {
				t.Errorf("reads into %d bytes, want %d", size, tc.wantSize)
			}
			if !bytes.Equal(out, in) {
				t.Error("the stream changed")
			}
			if used := p.budget.Used(); used != 0 {
				t.Errorf("%d bytes of the budget still drawn after the close", used)
			}
		})
	}
}
