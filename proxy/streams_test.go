package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// Synthetic streams, built from argument fragments.

// tools declares a TodoWrite tool and a Write tool, in the API's shape.
func tools(api string) []any {
	todo := map[string]any{
		"type": "object",
		"properties": map[string]any{"todos": map[string]any{"type": "array", "items": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"content": map[string]any{"type": "string"}, "id": map[string]any{"type": "string"},
				"status": map[string]any{"type": "string", "enum": []any{"pending", "in_progress", "completed"}},
			},
			"required": []any{"content", "id", "status"}, "additionalProperties": false,
		}}},
		"required": []any{"todos"}, "additionalProperties": false,
	}
	write := map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}},
		"required":   []any{"path", "content"},
	}
	if api == "anthropic" {
		return []any{
			map[string]any{"name": "TodoWrite", "description": "todos", "input_schema": todo},
			map[string]any{"name": "Write", "description": "write", "input_schema": write},
		}
	}
	return []any{
		map[string]any{"type": "function", "function": map[string]any{"name": "TodoWrite", "parameters": todo}},
		map[string]any{"type": "function", "function": map[string]any{"name": "Write", "parameters": write}},
	}
}

func requestBody(api string, stream bool, withTools bool) []byte {
	req := map[string]any{"model": "test-model", "stream": stream, "messages": []any{map[string]any{"role": "user", "content": "hi"}}}
	if withTools {
		req["tools"] = tools(api)
	}
	b, _ := json.Marshal(req)
	return b
}

func apiPath(api string) string {
	if api == "anthropic" {
		return "/v1/messages"
	}
	return "/v1/chat/completions"
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// streamCall is a call of a synthetic stream.
type synthCall struct {
	index int
	name  string
	frags []string
}

// openAIStream is a chat completions stream: some text, then the calls'
// fragments (interleaved when there are several: one fragment of each in
// turn), then the finish chunk and [DONE].
func openAIStream(calls []synthCall, finish string) []byte {
	var b strings.Builder
	env := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	event := func(delta string, fin string) { fmt.Fprintf(&b, "data: "+env+"\n\n", delta, fin) }
	event(`{"role":"assistant","content":"Planning."}`, "null")
	for _, c := range calls {
		event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"call_%d","type":"function","function":{"name":%s,"arguments":""}}]}`, c.index, c.index, mustJSON(c.name)), "null")
	}
	for i := 0; ; i++ {
		more := false
		for _, c := range calls {
			if i < len(c.frags) {
				more = true
				event(fmt.Sprintf(`{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}`, c.index, mustJSON(c.frags[i])), "null")
			}
		}
		if !more {
			break
		}
	}
	if finish != "" {
		event(`{}`, mustJSON(finish))
		b.WriteString("data: [DONE]\n\n")
	}
	return []byte(b.String())
}

// anthropicStream is a messages stream: a text block, then each call's
// tool_use block (blocks are not interleaved), then the stop reason.
func anthropicStream(calls []synthCall, stop string, withBlockStop bool) []byte {
	var b strings.Builder
	event := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
	event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"m","stop_reason":null}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	event("ping", `{"type": "ping"}`)
	event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Planning."}}`)
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	for _, c := range calls {
		event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_%d","name":%s,"input":{}}}`, c.index, c.index, mustJSON(c.name)))
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":""}}`, c.index))
		for _, f := range c.frags {
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":%s}}`, c.index, mustJSON(f)))
		}
		if withBlockStop {
			event("content_block_stop", fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, c.index))
		}
	}
	if stop != "" {
		event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%s,"stop_sequence":null},"usage":{"output_tokens":9}}`, mustJSON(stop)))
		event("message_stop", `{"type":"message_stop"}`)
	}
	return []byte(b.String())
}

func synthStream(api string, calls []synthCall, finish string) []byte {
	if api == "anthropic" {
		if finish == "tool_calls" {
			finish = "tool_use"
		}
		return anthropicStream(calls, finish, true)
	}
	return openAIStream(calls, finish)
}

func sseUpstream(body []byte, log *upstreamLog) http.HandlerFunc {
	return replay(http.StatusOK, http.Header{"Content-Type": {"text/event-stream"}}, body, 0, log)
}

// splits returns ways to cut text into fragments: whole, one character
// each (a JSON string fragment cannot hold half a character), and random
// cuts.
func splits(text string, rng *rand.Rand) [][]string {
	var runes []string
	for _, r := range text {
		runes = append(runes, string(r))
	}
	out := [][]string{{text}, runes}
	for range 3 {
		var frags []string
		for i := 0; i < len(runes); {
			n := 1 + rng.IntN(6)
			frags = append(frags, strings.Join(runes[i:min(i+n, len(runes))], ""))
			i += n
		}
		out = append(out, frags)
	}
	return out
}

// TestAnySplitSameCall: however the arguments are cut into fragments (one
// character per event included), the client gets the same call: repaired
// into the same arguments, or unchanged byte for byte when valid.
func TestAnySplitSameCall(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name, tool, args string
		want             string // "" : unchanged
	}{
		{"python dict (the seed)", "TodoWrite", `{"todos": [{'content': '创建项目结构', 'id': '1', 'status': 'in_progress'}]}`,
			`{"todos":[{"content":"创建项目结构","id":"1","status":"in_progress"}]}`},
		{"escapes and surrogates, valid", "Write", `{"path": "a\u00e9.txt", "content": "\ud83d\ude00 \"q\" \\ }]"}`, ""},
		{"python literals", "Write", `{'path': 'a.py', 'content': 'x = True\n'}`, `{"content":"x = True\n","path":"a.py"}`},
		{"alias and trailing comma", "Write", `{"file_path": "a.txt", "content": "hi",}`, `{"content":"hi","path":"a.txt"}`},
	}
	for _, api := range []string{"openai", "anthropic"} {
		for _, tc := range cases {
			for i, frags := range splits(tc.args, rng) {
				t.Run(fmt.Sprintf("%s/%s/split%d", api, tc.name, i), func(t *testing.T) {
					in := synthStream(api, []synthCall{{index: 1, name: tc.tool, frags: frags}}, "tool_calls")
					tp := newTestProxy(t, sseUpstream(in, nil), nil)
					_, body := tp.post(t, apiPath(api), requestBody(api, true, true), nil)
					calls, _ := clientCalls(t, api, body)
					got := calls[1]
					if got == nil {
						t.Fatalf("no call in %s", body)
					}
					want := tc.want
					if want == "" {
						want = tc.args
					}
					if got.Args != want || got.Name != tc.tool {
						t.Fatalf("call %s %q, want %s %q", got.Name, got.Args, tc.tool, want)
					}
					if tc.want == "" && !bytes.Equal(body, in) {
						t.Fatalf("a valid call's stream changed:\n got %q\nwant %q", body, in)
					}
					if got, want := otherEvents(body), otherEvents(in); strings.Join(got, "") != strings.Join(want, "") {
						t.Fatalf("events without calls changed:\n got %q\nwant %q", got, want)
					}
				})
			}
		}
	}
}

// TestHoldBackEndsWhenTheValueCloses: a call's events are released as soon
// as its JSON value closes, before the finish chunk, and text after it is
// not held.
func TestHoldBackEndsWhenTheValueCloses(t *testing.T) {
	upstreamDone := make(chan struct{})
	first := openAIStream([]synthCall{{index: 0, name: "TodoWrite", frags: []string{`{"todos": [{'content': 'a',`, ` 'id': '1', 'status': 'pending'}]}`}}}, "")
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(first)
		_ = http.NewResponseController(w).Flush()
		<-upstreamDone // the finish chunk waits for the client to have seen the call
		_, _ = w.Write([]byte("data: [DONE]\n\n"))
	})
	tp := newTestProxy(t, upstream, nil)
	req, _ := http.NewRequest(http.MethodPost, tp.srv.URL+"/v1/chat/completions", bytes.NewReader(requestBody("openai", true, true)))
	resp, err := tp.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(`\"status\":\"pending\"}]}"`)) {
		n, err := resp.Body.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			close(upstreamDone)
			t.Fatalf("the stream ended before the repaired call came (%v):\n%s", err, got)
		}
	}
	close(upstreamDone)
}

// TestTruncatedStreams: calls cut off, by a length limit or by the stream
// ending, go out as they came, marked, never completed.
func TestTruncatedStreams(t *testing.T) {
	cut := []string{`{"todos": [{'content': 'a', 'id'`, `: '1', 'sta`}
	tests := []struct {
		name string
		api  string
		body []byte
	}{
		{"openai finish_reason length", "openai", openAIStream([]synthCall{{index: 0, name: "TodoWrite", frags: cut}}, "length")},
		{"openai stream ends mid-call", "openai", openAIStream([]synthCall{{index: 0, name: "TodoWrite", frags: cut}}, "")},
		{"anthropic max_tokens", "anthropic", anthropicStream([]synthCall{{index: 1, name: "TodoWrite", frags: cut}}, "max_tokens", true)},
		{"anthropic no block stop", "anthropic", anthropicStream([]synthCall{{index: 1, name: "TodoWrite", frags: cut}}, "", false)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestProxy(t, sseUpstream(tt.body, nil), nil)
			_, body := tp.post(t, apiPath(tt.api), requestBody(tt.api, true, true), nil)
			calls, _ := clientCalls(t, tt.api, body)
			var got *proxytest.Call
			for _, c := range calls {
				got = c
			}
			if got == nil || got.Args != strings.Join(cut, "") {
				t.Fatalf("call %+v, want the arguments as cut: %q", got, strings.Join(cut, ""))
			}
			if !bytes.Contains(body, []byte("truncated, not repaired\n\n")) {
				t.Errorf("no truncation mark in\n%s", body)
			}
			if stripped := bytes.ReplaceAll(body, markLine(body), nil); !bytes.Equal(stripped, tt.body) {
				t.Errorf("apart from the mark, the stream changed:\n got %q\nwant %q", stripped, tt.body)
			}
			if !strings.Contains(tp.logText(), `tool call truncated`) {
				t.Errorf("no log line for the truncated call:\n%s", tp.logText())
			}
		})
	}
}

// markLine returns the proxy's truncation comment in body.
func markLine(body []byte) []byte {
	i := bytes.Index(body, []byte(": toolguard: call "))
	if i < 0 {
		return nil
	}
	j := bytes.Index(body[i:], []byte("\n\n"))
	return body[i : i+j+2]
}

// TestAnthropicForgottenBracket: a block that stops before its JSON closes
// is repaired when the message ends normally (the model forgot a bracket),
// and held only until the stop reason says so.
func TestAnthropicForgottenBracket(t *testing.T) {
	in := anthropicStream([]synthCall{{index: 1, name: "Write", frags: []string{`{"path": "a.txt", "content": "hi"`}}}, "tool_use", true)
	tp := newTestProxy(t, sseUpstream(in, nil), nil)
	_, body := tp.post(t, "/v1/messages", requestBody("anthropic", true, true), nil)
	calls, _ := clientCalls(t, "anthropic", body)
	if c := calls[1]; c == nil || c.Args != `{"content":"hi","path":"a.txt"}` {
		t.Fatalf("call %+v, want it repaired", c)
	}
}

// TestInvalidUTF8Passes: bytes that are not UTF-8 in a text event pass as
// they are.
func TestInvalidUTF8Passes(t *testing.T) {
	in := []byte("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\xff\xfe\"}}]}\n\ndata: [DONE]\n\n")
	if utf8.Valid(in) {
		t.Fatal("the test stream is valid UTF-8")
	}
	tp := newTestProxy(t, sseUpstream(in, nil), nil)
	_, body := tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
	if !bytes.Equal(body, in) {
		t.Fatalf("got %q, want %q", body, in)
	}
}
