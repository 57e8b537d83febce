package proxy

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

// fixStreamRuns is fixStream without the rescue, with the fixer taking
// runs of template events as one (runs) or every event on its own.
func fixStreamRuns(t *testing.T, p *Proxy, rs *request, src io.ReadCloser, runs bool) []byte {
	t.Helper()
	r := p.newSSEReader(rs, src, false)
	if !r.fixer.runs {
		t.Fatal("the fixer reads no runs without the rescue")
	}
	r.fixer.runs = runs
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("read the stream: %v", err)
	}
	_ = r.Close()
	return got
}

// piecesOf cuts s into fragments of n bytes (ASCII only).
func piecesOf(s string, n int) []string {
	var out []string
	for i := 0; i < len(s); i += n {
		out = append(out, s[i:min(i+n, len(s))])
	}
	return out
}

// TestRunsSameAsEvents: a run of events shaped like the last, taken as one,
// goes out as the events taken one by one do, whatever the reads' ends:
// valid and repaired calls, fragments after the call's JSON closed, calls
// cut off, too large, or past the budget, and calls interleaved.
func TestRunsSameAsEvents(t *testing.T) {
	valid := `{"path": "a.go", "content": "` + strings.Repeat(`x \" y \\ z\n`, 40) + `"}`
	dict := `{'path': 'a.go', 'content': '` + strings.Repeat(`x \' y z`, 40) + `'}`
	after := append(piecesOf(valid, 7), " ", "  ", "\n")
	// Reads of whole read buffers, most of them one run.
	large := `{"path": "a.go", "content": "` + strings.Repeat(`x \" y \\ z\n`, 4000) + `"}`
	largeDict := `{'path': 'a.go', 'content': '` + strings.Repeat(`x \' y z`, 4000) + `'}`
	afterDict := append(piecesOf(dict, 7), " ", "  ", "x")
	cases := []struct {
		name   string
		calls  []synthCall
		finish string
		edit   func(*Config)
	}{
		{"valid", []synthCall{{index: 0, name: "Write", frags: piecesOf(valid, 5)}}, "tool_calls", nil},
		{"python dict", []synthCall{{index: 0, name: "Write", frags: piecesOf(dict, 5)}}, "tool_calls", nil},
		{"fragments after the close", []synthCall{{index: 0, name: "Write", frags: after}}, "tool_calls", nil},
		{"fragments after a repaired close", []synthCall{{index: 0, name: "Write", frags: afterDict}}, "tool_calls", nil},
		{"cut off", []synthCall{{index: 0, name: "Write", frags: piecesOf(dict[:200], 3)}}, "length", nil},
		{"no end", []synthCall{{index: 0, name: "Write", frags: piecesOf(dict[:200], 3)}}, "", nil},
		{"too large", []synthCall{{index: 0, name: "Write", frags: piecesOf(dict, 4)}}, "tool_calls",
			func(c *Config) { c.MaxCallBytes = 100 }},
		{"past the budget", []synthCall{{index: 0, name: "Write", frags: piecesOf(dict, 4)}}, "tool_calls",
			func(c *Config) {
				c.MaxRequestBytes, c.MaxResponseBytes, c.MaxCallBytes, c.MaxHeldBytes = 1000, 1000, 1000, 1000
			}},
		{"large", []synthCall{{index: 0, name: "Write", frags: piecesOf(large, 5)}}, "tool_calls", nil},
		{"large python dict", []synthCall{{index: 0, name: "Write", frags: piecesOf(largeDict, 5)}}, "tool_calls", nil},
		{"large, cut off", []synthCall{{index: 0, name: "Write", frags: piecesOf(largeDict[:30000], 5)}}, "length", nil},
		{"interleaved", []synthCall{{index: 0, name: "Write", frags: piecesOf(valid, 9)},
			{index: 1, name: "Write", frags: piecesOf(dict, 9)}}, "tool_calls", nil},
	}
	for _, api := range []string{"openai", "anthropic"} {
		a := apiOpenAI
		if api == "anthropic" {
			a = apiAnthropic
		}
		for _, tc := range cases {
			t.Run(api+"/"+tc.name, func(t *testing.T) {
				p := fuzzProxy(t, tc.edit)
				body := synthStream(api, tc.calls, tc.finish)
				run := func(src io.ReadCloser, runs bool) []byte {
					rs := p.newRequest(context.Background(), a, requestBody(api, true, true), "")
					return fixStreamRuns(t, p, rs, src, runs)
				}
				want := run(&piecesReader{pieces: [][]byte{bytes.Clone(body)}}, false)
				for _, cuts := range [][]byte{nil, {0}, {6, 0, 30}, {200}, {255, 255, 90}} {
					src := io.ReadCloser(&piecesReader{pieces: [][]byte{bytes.Clone(body)}})
					if cuts != nil {
						src = &cutReader{data: body, cuts: cuts}
					}
					if got := run(src, true); !bytes.Equal(got, want) {
						t.Fatalf("cut at %v: with runs the client read\n%q\nevent by event:\n%q", cuts, got, want)
					}
				}
			})
		}
	}
}

// TestRunTextSameAsEdits: a repaired call's run, rendered anew, is what
// editing each of its events' fragments gives (the first event's to the
// quoted arguments or "", the others' to ""), for runs of one event and
// more, whatever the fragments were.
func TestRunTextSameAsEdits(t *testing.T) {
	head := `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"`
	tail := `"}}]}}]}` + "\n\n"
	args := []byte(`{"path": "a.go", "content": "x \" é </b>\n"}`)
	frags := []string{`{'pa`, `th\u0027: `, `\"\\ `, ``, `é 😀`}
	for events := 1; events <= len(frags); events++ {
		for _, first := range []bool{false, true} {
			var raw []byte
			var edits []edit
			for i, fr := range frags[:events] {
				at := len(raw)
				raw = append(append(append(raw, head...), fr...), tail...)
				text := emptyString
				if i == 0 && first {
					text = jsonString(args)
				}
				edits = append(edits, edit{start: at + len(head) - 1, end: len(raw) - len(tail) + 1, text: text})
			}
			want := appendEdited([]byte("x"), raw, edits)
			r := runText{head: len(head), tail: len(tail), events: events, first: first, args: args}
			if got := r.appendTo([]byte("x"), raw); !bytes.Equal(got, want) {
				t.Errorf("%d events, first %v:\n%q\nedited:\n%q", events, first, got, want)
			}
		}
	}
}
