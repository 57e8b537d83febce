package proxy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// Answers as model servers send them when their own tool parser missed
// the call: the markup in the message's text.
const (
	qwenContent = "I'll write it.\n<tool_call>\n<function=Write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhi <b>\n</parameter>\n</function>\n</tool_call>"
	hermesText  = "<tool_call>\n{\"name\": \"Write\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"hi <b>\"}}\n</tool_call>"
	harmonyText = "<|channel|>analysis<|message|>Need to write.<|end|><|start|>assistant<|channel|>commentary to=functions.Write <|constrain|>json<|message|>{\"path\": \"a.txt\", \"content\": \"hi <b>\"}<|call|>"
	// Texts that must pass as they are.
	mentionText    = "Wrap each call in <tool_call> and </tool_call> tags, e.g. <tool_call>name\n."
	undeclaredText = "<tool_call>\n{\"name\": \"Edit\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>"
	invalidText    = "Writing.\n<tool_call>\n{\"name\": \"Write\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>"
	cutText        = "<tool_call>\n<function=Write>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhi"
)

// rescuedArgs are the arguments of the rescued Write call.
const rescuedArgs = `{"content":"hi <b>","path":"a.txt"}`

// sameIDs replaces the random ids of rescued calls: what a ReplaceAll of
// `(call_|toolu_)[0-9a-f]{24}` with "${1}X" does, by hand, as the regexp took a third of the stream
// fuzz targets' time.
func sameIDs(b []byte) []byte {
	var out []byte
	done := 0 // b[:done] is in out
	for i := 0; i < len(b); {
		k := bytes.IndexByte(b[i:], '_')
		if k < 0 {
			break
		}
		u := i + k
		i = u + 1
		// The prefix may not overlap the last id replaced.
		if !bytes.HasSuffix(b[done:u], []byte("call")) && !bytes.HasSuffix(b[done:u], []byte("toolu")) {
			continue
		}
		if len(b)-i < 24 || !lowerHex(b[i:i+24]) {
			continue
		}
		out = append(append(out, b[done:i]...), 'X')
		i += 24
		done = i
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

func lowerHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func openAITextBody(content, finish string) []byte {
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion","model":"qwen3-coder","choices":[{"index":0,"message":{"role":"assistant","content":%s},"logprobs":null,"finish_reason":%s}],"usage":{"total_tokens":9}}`,
		jsonString(content), mustJSON(finish))
}

func openAIRescuedBody(content string) []byte {
	c := "null"
	if content != "" {
		c = string(jsonString(content))
	}
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion","model":"qwen3-coder","choices":[{"index":0,"message":{"role":"assistant","content":%s,"tool_calls":[{"id":"call_X","type":"function","function":{"name":"Write","arguments":%s}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"total_tokens":9}}`,
		c, jsonString(rescuedArgs))
}

func anthropicTextBody(text string) []byte {
	return fmt.Appendf(nil, `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","usage":{"output_tokens":9}}`, jsonString(text))
}

// TestRescueNonStreamed: a complete, declared, valid call in the text
// becomes a tool call, the prose around it kept; any other text, and
// every answer with the rescue off, comes byte for byte.
func TestRescueNonStreamed(t *testing.T) {
	tests := []struct {
		name, api string
		in        []byte
		off       bool
		observe   bool   // report-only mode: nothing is rescued
		want      []byte // nil: unchanged
	}{
		{"openai qwen3-coder XML after prose", "openai", openAITextBody(qwenContent, "stop"), false, false, openAIRescuedBody("I'll write it.\n")},
		{"openai hermes JSON alone", "openai", openAITextBody(hermesText, "stop"), false, false, openAIRescuedBody("")},
		{"openai harmony, the analysis kept as text", "openai", openAITextBody(harmonyText, "stop"), false, false, openAIRescuedBody("Need to write.")},
		{"openai rescue off", "openai", openAITextBody(qwenContent, "stop"), true, false, nil},
		{"openai observe mode rescues nothing", "openai", openAITextBody(qwenContent, "stop"), false, true, nil},
		{"anthropic observe mode rescues nothing", "anthropic", anthropicTextBody(qwenContent), false, true, nil},
		{"openai prose mentioning the tags", "openai", openAITextBody(mentionText, "stop"), false, false, nil},
		{"openai undeclared tool", "openai", openAITextBody(undeclaredText, "stop"), false, false, nil},
		{"openai invalid arguments", "openai", openAITextBody(invalidText, "stop"), false, false, nil},
		{"openai call cut off", "openai", openAITextBody(cutText, "length"), false, false, nil},
		{"anthropic qwen3-coder XML after prose", "anthropic", anthropicTextBody(qwenContent), false, false,
			[]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"I'll write it.\n"},{"type":"tool_use","id":"toolu_X","name":"Write","input":` + rescuedArgs + `}],"stop_reason":"tool_use","usage":{"output_tokens":9}}`)},
		{"anthropic prose mentioning the tags", "anthropic", anthropicTextBody(mentionText), false, false, nil},
		{"anthropic invalid arguments", "anthropic", anthropicTextBody(invalidText), false, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestProxy(t, jsonUpstream(tt.in, nil), func(c *Config) {
				c.Rescue = !tt.off
				if tt.observe {
					c.Mode = ModeObserve
				}
			})
			resp, body := tp.post(t, apiPath(tt.api), requestBody(tt.api, false, true), nil)
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(sameIDs(body), want) {
				t.Fatalf("status %d\n got %s\nwant %s", resp.StatusCode, body, want)
			}
			if rescued := strings.Contains(tp.logText(), "tool call rescued from the text"); rescued != (tt.want != nil) {
				t.Errorf("rescue logged: %v, want %v:\n%s", rescued, tt.want != nil, tp.logText())
			}
		})
	}
}

// openAITextStream is a chat completions stream whose content comes in
// the given deltas.
func openAITextStream(deltas []string, finish string) []byte {
	var b strings.Builder
	env := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	fmt.Fprintf(&b, "data: "+env+"\n\n", `{"role":"assistant","content":""}`, "null")
	for _, d := range deltas {
		fmt.Fprintf(&b, "data: "+env+"\n\n", `{"content":`+string(jsonString(d))+`}`, "null")
	}
	fmt.Fprintf(&b, "data: "+env+"\n\n", `{}`, mustJSON(finish))
	b.WriteString("data: [DONE]\n\n")
	return []byte(b.String())
}

// TestRescueStreamed: however the content is split, a rescued call comes
// as one tool call with finish_reason tool_calls and the prose as content;
// text that is no call to rescue comes as the same text.
func TestRescueStreamed(t *testing.T) {
	tests := []struct {
		name, text, finish string
		wantText           string // with a rescued call; "" with none
	}{
		{"qwen3-coder XML after prose", qwenContent, "stop", "I'll write it.\n"},
		{"hermes JSON", hermesText, "stop", ""},
		{"harmony", harmonyText, "stop", "Need to write."},
		{"prose mentioning the tags", mentionText, "stop", ""},
		{"undeclared tool", undeclaredText, "stop", ""},
		{"invalid arguments", invalidText, "stop", ""},
		{"call cut off", cutText, "length", ""},
	}
	rng := rand.New(rand.NewPCG(17, 1))
	for _, tt := range tests {
		rescued := tt.name == "hermes JSON" || tt.wantText != ""
		for i, deltas := range splits(tt.text, rng) {
			t.Run(fmt.Sprintf("%s/%d", tt.name, i), func(t *testing.T) {
				in := openAITextStream(deltas, tt.finish)
				tp := newTestProxy(t, sseUpstream(in, nil), nil)
				_, body := tp.post(t, apiPath("openai"), requestBody("openai", true, true), nil)
				s, err := proxytest.ReadStream("openai", body)
				if err != nil {
					t.Fatalf("%v\n%s", err, body)
				}
				if !rescued {
					if s.Text != tt.text || len(s.Calls) != 0 || s.Reason != tt.finish {
						t.Fatalf("text %q, calls %v, reason %q; want the text as it came\n%s", s.Text, s.Calls, s.Reason, body)
					}
					return
				}
				if len(s.Calls) != 1 || s.Calls[0].Name != "Write" || s.Calls[0].Args != rescuedArgs || s.Reason != "tool_calls" || s.Text != tt.wantText {
					t.Fatalf("text %q, calls %+v, reason %q\n%s", s.Text, s.Calls, s.Reason, body)
				}
			})
		}
	}
}

// TestRescueStreamUntouched: a stream whose text holds nothing that may
// open a call comes byte for byte.
func TestRescueStreamUntouched(t *testing.T) {
	in := openAITextStream([]string{"Plain ", "prose, é, no tags.", "\n\nDone."}, "stop")
	tp := newTestProxy(t, sseUpstream(in, nil), nil)
	_, body := tp.post(t, apiPath("openai"), requestBody("openai", true, true), nil)
	if !bytes.Equal(body, in) {
		t.Fatalf("got\n%s\nwant\n%s", body, in)
	}
}

// TestRescueMetrics: each rescue is counted as action "rescued".
func TestRescueMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	tp := newTestProxy(t, jsonUpstream(openAITextBody(qwenContent, "stop"), nil), nil, func(o *Options) { o.Metrics = reg })
	for range 2 {
		tp.post(t, apiPath("openai"), requestBody("openai", false, true), nil)
	}
	if n := counterValue(tp.metrics.cells[apiOpenAI][actionRescued]); n != 2 {
		t.Errorf("toolguard_proxy_calls_total{api=openai,action=rescued} = %v, want 2", n)
	}
	if n := counterValue(tp.metrics.cells[apiOpenAI][actionInvalid]); n != 0 {
		t.Errorf("a rescued call also counted invalid: %v", n)
	}
}

// anthropicTextStream is a messages stream: a text block in the given
// deltas, then a tool_use block of the upstream's own when withCall.
func anthropicTextStream(deltas []string, withCall bool) []byte {
	var b strings.Builder
	event := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
	event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	for _, d := range deltas {
		event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(jsonString(d))+`}}`)
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	stop := "end_turn"
	if withCall {
		stop = "tool_use"
		event("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"Write","input":{}}}`)
		event("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"b.txt\", \"content\": \"x\"}"}}`)
		event("content_block_stop", `{"type":"content_block_stop","index":1}`)
	}
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":9}}`)
	event("message_stop", `{"type":"message_stop"}`)
	return []byte(b.String())
}

// TestRescueAnthropicStreamed: a rescued call becomes a tool_use block
// after the text block it stood in, the upstream's own blocks moved up;
// text with no call to rescue comes as the same text.
func TestRescueAnthropicStreamed(t *testing.T) {
	tests := []struct {
		name, text string
		withCall   bool
		wantText   string
		wantCalls  []proxytest.Call // ids left out
		wantReason string
	}{
		{"qwen3-coder XML after prose", qwenContent + "\nDone.", false, "I'll write it.\n\nDone.",
			[]proxytest.Call{{Index: 1, Name: "Write", Args: rescuedArgs}}, "tool_use"},
		{"hermes JSON before the upstream's own call", hermesText, true, "",
			[]proxytest.Call{{Index: 1, Name: "Write", Args: rescuedArgs}, {Index: 2, Name: "Write", Args: `{"path": "b.txt", "content": "x"}`}}, "tool_use"},
		{"prose mentioning the tags", mentionText, false, mentionText, nil, "end_turn"},
		{"invalid arguments", invalidText, true, invalidText, []proxytest.Call{{Index: 1, Name: "Write", Args: `{"path": "b.txt", "content": "x"}`}}, "tool_use"},
	}
	rng := rand.New(rand.NewPCG(17, 2))
	for _, tt := range tests {
		for i, deltas := range splits(tt.text, rng) {
			t.Run(fmt.Sprintf("%s/%d", tt.name, i), func(t *testing.T) {
				tp := newTestProxy(t, sseUpstream(anthropicTextStream(deltas, tt.withCall), nil), nil)
				_, body := tp.post(t, apiPath("anthropic"), requestBody("anthropic", true, true), nil)
				s, err := proxytest.ReadStream("anthropic", body)
				if err != nil {
					t.Fatalf("%v\n%s", err, body)
				}
				for k := range s.Calls {
					s.Calls[k].ID = ""
				}
				if s.Text != tt.wantText || s.Reason != tt.wantReason || fmt.Sprint(s.Calls) != fmt.Sprint(tt.wantCalls) {
					t.Fatalf("text %q, calls %+v, reason %q\n%s", s.Text, s.Calls, s.Reason, body)
				}
			})
		}
	}
}

// TestRescueText: how a text splits into what goes out, in one piece and
// in pieces of 1 and 5 bytes.
func TestRescueText(t *testing.T) {
	const (
		valid   = "<tool_call>\n<function=Write>\n<parameter=path>a.txt</parameter>\n<parameter=content>hi <b></parameter>\n</function>\n</tool_call>"
		invalid = "<tool_call>\n<function=Write>\n<parameter=path>b.txt</parameter>\n</function>\n</tool_call>"
	)
	call := "call(Write " + rescuedArgs + ")"
	tests := []struct {
		name, text string
		limit      int
		want       []string // text pieces, and call(...) for calls
	}{
		{"two calls, prose between and after", "A.\n" + valid + "\nB.\n" + valid + "\nC.", 0, []string{"A.\n", call, "\nB.\n", call, "\nC."}},
		{"a call not rescued keeps its text and the text up to the next", invalid + "\nB.\n" + valid, 0, []string{invalid + "\nB.\n<tool_call>\n", call}},
		// The text from the rescued call's end on goes as written: its
		// closing wrapper too.
		{"a rescued call, then one not rescued", valid + "\n" + invalid + "\nC.", 0, []string{call, "\n</tool_call>\n" + invalid + "\nC."}},
		{"no call: the text as it is", "x <tool_call> y {\"name\": 1} [TOOL_CALLS]", 0, []string{"x <tool_call> y {\"name\": 1} [TOOL_CALLS]"}},
		{"held past the limit: the text as it is", valid, 40, []string{valid}},
	}
	for _, tt := range tests {
		for _, piece := range []int{1, 5, len(tt.text)} {
			t.Run(fmt.Sprintf("%s/%d", tt.name, piece), func(t *testing.T) {
				p := fuzzProxy(t, func(c *Config) {
					if tt.limit > 0 {
						c.MaxCallBytes = tt.limit
					}
				})
				rs := p.newRequest(t.Context(), apiOpenAI, requestBody("openai", false, true), "")
				r := p.newRescuer(rs, 0)
				var got []string
				take := func() {
					for _, pc := range r.take() {
						s := pc.text
						if pc.call != nil {
							s = "call(" + pc.call.name + " " + string(pc.call.args) + ")"
						}
						if k := len(got) - 1; k >= 0 && pc.call == nil && !strings.HasPrefix(got[k], "call(") {
							got[k] += s // text cut differently by the pieces
							continue
						}
						got = append(got, s)
					}
				}
				for i := 0; i < len(tt.text); i += piece {
					r.write(tt.text[i:min(i+piece, len(tt.text))])
					take()
				}
				r.end()
				take()
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
					t.Fatalf("got  %q\nwant %q", got, tt.want)
				}
			})
		}
	}
}
