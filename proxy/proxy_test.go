package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// openAIBody is a non-streamed chat completion holding one call.
func openAIBody(name, args, finish string) []byte {
	return fmt.Appendf(nil, `{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":%s,"arguments":%s}}]},"finish_reason":%s}]}`,
		mustJSON(name), mustJSON(args), mustJSON(finish))
}

// anthropicBody is a non-streamed message holding one tool_use block.
func anthropicBody(name, input, stop string) []byte {
	return fmt.Appendf(nil, `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"},{"type":"tool_use","id":"toolu_1","name":%s,"input":%s}],"stop_reason":%s}`,
		mustJSON(name), input, mustJSON(stop))
}

func jsonUpstream(body []byte, log *upstreamLog) http.HandlerFunc {
	return replay(http.StatusOK, http.Header{"Content-Type": {"application/json"}}, body, 0, log)
}

// TestNonStreamed: each shape repaired in place, every other byte kept;
// nothing to change means the same bytes.
func TestNonStreamed(t *testing.T) {
	tests := []struct {
		name, api string
		in        []byte
		want      []byte // nil: unchanged
	}{
		{"openai python dict", "openai", openAIBody("Write", `{'path': 'a.txt', 'content': 'hi'}`, "tool_calls"),
			openAIBody("Write", `{"content":"hi","path":"a.txt"}`, "tool_calls")},
		{"openai name case", "openai", openAIBody("write", `{"path": "a.txt", "content": "hi"}`, "tool_calls"),
			openAIBody("Write", `{"path": "a.txt", "content": "hi"}`, "tool_calls")},
		{"openai valid", "openai", openAIBody("Write", `{"path": "a.txt", "content": "<b>&</b>"}`, "tool_calls"), nil},
		{"openai truncated", "openai", openAIBody("Write", `{"path": "a.txt", "content": "h`, "length"), nil},
		{"anthropic alias", "anthropic", anthropicBody("Write", `{"file_path": "a.txt", "content": "hi"}`, "tool_use"),
			anthropicBody("Write", `{"content":"hi","path":"a.txt"}`, "tool_use")},
		{"anthropic valid", "anthropic", anthropicBody("Write", `{"path": "a.txt",  "content": "hi"}`, "tool_use"), nil},
		{"anthropic undeclared tool", "anthropic", anthropicBody("Edit", `{"file_path": "a.txt"}`, "tool_use"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tp := newTestProxy(t, jsonUpstream(tt.in, nil), nil)
			resp, body := tp.post(t, apiPath(tt.api), requestBody(tt.api, false, true), nil)
			want := tt.want
			if want == nil {
				want = tt.in
			}
			if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want) {
				t.Fatalf("status %d\n got %s\nwant %s", resp.StatusCode, body, want)
			}
			if resp.ContentLength != int64(len(want)) {
				t.Errorf("Content-Length %d, want %d", resp.ContentLength, len(want))
			}
			if strings.Contains(tt.name, "truncated") && resp.Header.Get("X-Toolguard-Truncated-Calls") != "1" {
				t.Errorf("a truncated call is not marked: headers %v", resp.Header)
			}
		})
	}
}

// TestOnlyDeclaredTargetTools: calls of tools the request did not declare,
// or left out by --tools, and answers to requests that declare no tools,
// pass byte for byte.
func TestOnlyDeclaredTargetTools(t *testing.T) {
	python := `{'path': 'a.txt', 'content': 'hi'}`
	for _, api := range []string{"openai", "anthropic"} {
		t.Run(api, func(t *testing.T) {
			// Write is one of toolguard's built-in aliases (write_to_file);
			// the request declares only TodoWrite.
			in := synthStream(api, []synthCall{{index: 0, name: "Write", frags: []string{python}}}, "tool_calls")
			tp := newTestProxy(t, sseUpstream(in, nil), nil)
			req := map[string]any{"model": "m", "stream": true, "tools": tools(api)[:1]}
			if _, body := tp.post(t, apiPath(api), []byte(mustJSON(req)), nil); !bytes.Equal(body, in) {
				t.Errorf("an undeclared tool's call changed:\n%s", body)
			}
			if _, body := tp.post(t, apiPath(api), requestBody(api, true, false), nil); !bytes.Equal(body, in) {
				t.Errorf("with no tools declared, the stream changed:\n%s", body)
			}
			only := newTestProxy(t, sseUpstream(in, nil), func(c *Config) { c.Tools = []string{"TodoWrite"} })
			if _, body := only.post(t, apiPath(api), requestBody(api, true, true), nil); !bytes.Equal(body, in) {
				t.Errorf("--tools TodoWrite: a Write call changed:\n%s", body)
			}
			all := newTestProxy(t, sseUpstream(in, nil), nil)
			if _, body := all.post(t, apiPath(api), requestBody(api, true, true), nil); bytes.Equal(body, in) {
				t.Errorf("every declared tool: the Write call was not repaired")
			}
		})
	}
}

// TestStrictAndFallback: a call that is still invalid after repair goes as
// written (strict, fallback), repaired anyway (no strict), or is refused
// with an error in the API's shape (no fallback); an unparseable one is a
// failure even without strict.
func TestStrictAndFallback(t *testing.T) {
	missing := `{'path': 'a.txt'}` // repaired syntax, but content is required
	garbage := `not json <<<`
	tests := []struct {
		name             string
		args             string
		strict, fallback bool
		want             string // the arguments the client gets; "" when refused
	}{
		{"strict, fallback: as written", missing, true, true, missing},
		{"no strict: repaired anyway", missing, false, true, `{"path":"a.txt"}`},
		{"no fallback: refused", missing, true, false, ""},
		{"no strict, no fallback: still repaired", missing, false, false, `{"path":"a.txt"}`},
		{"unparseable, no strict, fallback: as written", garbage, false, true, garbage},
		{"unparseable, no fallback: refused", garbage, false, false, ""},
	}
	for _, api := range []string{"openai", "anthropic"} {
		for _, tt := range tests {
			t.Run(api+"/"+tt.name, func(t *testing.T) {
				edit := func(c *Config) { c.Strict, c.Fallback = tt.strict, tt.fallback }
				in := synthStream(api, []synthCall{{index: 1, name: "Write", frags: []string{tt.args[:5], tt.args[5:]}}}, "tool_calls")
				tp := newTestProxy(t, sseUpstream(in, nil), edit)
				resp, body := tp.post(t, apiPath(api), requestBody(api, true, true), nil)
				calls, _ := clientCalls(t, api, body)
				if tt.want == "" {
					if calls[1] != nil {
						t.Fatalf("a refused call reached the client: %+v", calls[1])
					}
					if !bytes.Contains(body, []byte(`"toolguard_error"`)) || bytes.Contains(body, []byte("[DONE]")) ||
						bytes.Contains(body, []byte("message_stop")) {
						t.Fatalf("want the stream to end with an error event:\n%s", body)
					}
					if !bytes.Contains(body, []byte("Planning.")) {
						t.Errorf("what came before the call is missing:\n%s", body)
					}
				} else if c := calls[1]; c == nil || c.Args != tt.want {
					t.Fatalf("call %+v, want arguments %q", c, tt.want)
				}
				if resp.StatusCode != http.StatusOK {
					t.Errorf("status %d", resp.StatusCode)
				}

				// Not streamed: a refusal is a 502 in the API's shape.
				var nb []byte
				if api == "anthropic" {
					input := tt.args
					if !json.Valid([]byte(input)) {
						input = mustJSON(input) // a string: what a broken server might send
					}
					nb = anthropicBody("Write", input, "tool_use")
				} else {
					nb = openAIBody("Write", tt.args, "tool_calls")
				}
				tp = newTestProxy(t, jsonUpstream(nb, nil), edit)
				resp, body = tp.post(t, apiPath(api), requestBody(api, false, true), nil)
				if tt.want == "" {
					if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(body, []byte(`"toolguard_error"`)) {
						t.Fatalf("status %d %s; want 502 and an error", resp.StatusCode, body)
					}
					if api == "anthropic" && !bytes.Contains(body, []byte(`"type":"error"`)) {
						t.Errorf("not Anthropic's error shape: %s", body)
					}
				} else if resp.StatusCode != http.StatusOK {
					t.Fatalf("status %d %s", resp.StatusCode, body)
				}
			})
		}
	}
}

// TestRefusalCountsProblems: a refusal names every kind of problem and,
// past the verdict's cap, how many there are.
func TestRefusalCountsProblems(t *testing.T) {
	tests := []struct {
		keys int
		want string
		not  string
	}{
		{3, "could not be repaired: UNEXPECTED_PARAM", "problems"},
		{repair.MaxViolations + 10, fmt.Sprintf("could not be repaired: UNEXPECTED_PARAM (%d problems)", repair.MaxViolations+10), ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.keys), func(t *testing.T) {
			args := `{"path":"a.txt","content":"x"`
			for i := range tt.keys {
				args += fmt.Sprintf(`,"unknown_%03d":1`, i)
			}
			args += "}"
			tp := newTestProxy(t, jsonUpstream(openAIBody("Write", args, "tool_calls"), nil), func(c *Config) { c.Strict, c.Fallback = true, false })
			resp, body := tp.post(t, apiPath("openai"), requestBody("openai", false, true), nil)
			if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(body, []byte(tt.want)) {
				t.Fatalf("status %d %s; want 502 saying %q", resp.StatusCode, body, tt.want)
			}
			if tt.not != "" && bytes.Contains(body, []byte(tt.not)) {
				t.Errorf("the refusal says %q: %s", tt.not, body)
			}
		})
	}
}

// recorder is a guard.Observer writing down what it sees.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) Verdict(v *guard.Verdict, tool string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var codes []string
	for _, x := range v.Repairs {
		codes = append(codes, x.Code)
	}
	r.lines = append(r.lines, fmt.Sprintf("verdict tool=%s ok=%v repairs=%s", tool, v.OK(), strings.Join(codes, ",")))
}
func (r *recorder) Execution(*guard.Execution) {}
func (r *recorder) StreamCall(f stream.Format, o guard.StreamCallOutcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, fmt.Sprintf("stream format=%s outcome=%s", f, o))
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.lines
	r.lines = nil
	return out
}

// TestCountingAndMetrics: repairs reach the metrics; calls are counted in
// the session the header names, and in none without it; the header is
// not forwarded.
func TestCountingAndMetrics(t *testing.T) {
	rec := &recorder{}
	reg := prometheus.NewRegistry()
	log := &upstreamLog{}
	in := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt'}`}}}, "tool_calls")
	tp := newTestProxy(t, sseUpstream(in, log), nil, func(o *Options) {
		o.Observe = func(*repair.Registry) (guard.Observer, error) { return rec, nil }
		o.Metrics = reg
	})
	ctx := context.Background()
	header := http.Header{DefaultSessionHeader: {"task-42"}}
	for i := 1; i <= 2; i++ {
		tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), header)
		st, err := tp.guard.Session(ctx, "task-42")
		if err != nil || st.State.Consecutive != uint32(i) {
			t.Fatalf("after %d invalid calls: session %+v, %v; want %d consecutive mistakes", i, st, err, i)
		}
	}
	if r, _ := log.last(t); r.Header.Get(DefaultSessionHeader) != "" {
		t.Error("the session header was forwarded upstream")
	}
	if got, want := rec.take(), []string{
		"verdict tool=custom ok=false repairs=PYTHON_LITERAL", "stream format=openai outcome=unusable",
		"verdict tool=custom ok=false repairs=PYTHON_LITERAL", "stream format=openai outcome=unusable",
	}; !slices.Equal(got, want) {
		t.Errorf("observed %q, want %q", got, want)
	}

	// Without the header: observed, counted in no session.
	tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
	if got := rec.take(); len(got) != 2 {
		t.Errorf("observed %q, want a verdict and a stream call", got)
	}
	if st, _ := tp.guard.Session(ctx, ""); st.State.Exists {
		t.Error("a request without a session header was counted in the empty session")
	}
	if st, _ := tp.guard.Session(ctx, "task-42"); st.State.Consecutive != 2 {
		t.Errorf("task-42 moved without its header: %+v", st)
	}
	if n := counterValue(tp.metrics.cells[apiOpenAI][actionInvalid]); n != 3 {
		t.Errorf("toolguard_proxy_calls_total{api=openai,action=invalid} = %v, want 3", n)
	}
	if n, err := seriesCount(reg, "toolguard_proxy_calls_total"); err != nil || n != 2*len(actions) {
		t.Errorf("%d series (%v), want every api × action from the start", n, err)
	}
	// A header that is no session id is the caller's mistake.
	resp, _ := tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), http.Header{DefaultSessionHeader: {strings.Repeat("x", 300)}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("an oversized session header: status %d, want 400", resp.StatusCode)
	}
}

// TestClientDisconnectCancelsUpstream: when the client goes away mid-stream
// the upstream's request is cancelled.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	cancelled := make(chan struct{})
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt', `}}}, ""))
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done() // the rest of the call never comes
		close(cancelled)
	})
	tp := newTestProxy(t, upstream, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tp.srv.URL+"/v1/chat/completions", bytes.NewReader(requestBody("openai", true, true)))
	req.Header.Set(DefaultSessionHeader, "gone")
	resp, err := tp.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// The text event arrives; the call is held.
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || !strings.Contains(line, "Planning.") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	resp.Body.Close()
	select {
	case <-cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("the upstream's request was not cancelled")
	}
	// Once the proxy is done with it, the call the client left is neither
	// concluded nor counted: the model did nothing wrong.
	for tp.logs.FilterMessage("proxied request").Len() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if strings.Contains(tp.logText(), "tool call") {
		t.Errorf("a call the client left was concluded:\n%s", tp.logText())
	}
	if st, _ := tp.guard.Session(context.Background(), "gone"); st.State.Exists {
		t.Errorf("a call the client left was counted: %+v", st)
	}
}

// TestSizeLimits: an oversized request is refused before the upstream
// sees it; an oversized answer or call passes through unrepaired.
func TestSizeLimits(t *testing.T) {
	python := `{'path': 'a.txt', 'content': '` + strings.Repeat("x", 200) + `'}`
	t.Run("request", func(t *testing.T) {
		log := &upstreamLog{}
		tp := newTestProxy(t, jsonUpstream([]byte(`{}`), log), func(c *Config) { c.MaxRequestBytes = 100 })
		resp, body := tp.post(t, "/v1/chat/completions", requestBody("openai", false, true), nil)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !bytes.Contains(body, []byte("max-request-bytes")) || log.count() != 0 {
			t.Fatalf("status %d %s, upstream got %d requests; want 413 and none", resp.StatusCode, body, log.count())
		}
	})
	t.Run("response", func(t *testing.T) {
		in := openAIBody("Write", python, "tool_calls")
		tp := newTestProxy(t, jsonUpstream(in, nil), func(c *Config) { c.MaxResponseBytes = 100 })
		if _, body := tp.post(t, "/v1/chat/completions", requestBody("openai", false, true), nil); !bytes.Equal(body, in) {
			t.Fatalf("an oversized answer changed: %s", body)
		}
		if !strings.Contains(tp.logText(), "larger than the response limit") {
			t.Errorf("not logged:\n%s", tp.logText())
		}
	})
	t.Run("events behind a held call", func(t *testing.T) {
		// A call that never closes, then text: what waits behind the call
		// is bounded too, and once past the bound it all goes out as it
		// came, without waiting for the stream's end.
		p := fuzzProxy(t, func(c *Config) { c.MaxCallBytes = 64 })
		rs := p.newRequest(context.Background(), apiOpenAI, requestBody("openai", true, true), "")
		out := new([]byte)
		f := openAIFixer{newFixer(p, rs, out)}
		in := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{"path": "a", "content": "`}}}, "")
		for _, ev := range frameEvents(in) {
			f.event(ev)
		}
		if len(*out) >= len(in) {
			t.Fatalf("the open call's events were not held: %d of %d bytes out", len(*out), len(in))
		}
		text := []byte(`data: {"choices":[{"index":0,"delta":{"content":"more text"},"finish_reason":null}]}` + "\n\n")
		for range 16 {
			f.event(text)
			f.drain()
		}
		if want := append(bytes.Clone(in), bytes.Repeat(text, 16)...); !bytes.Equal(*out, want) {
			t.Fatalf("past the bound, the client got %d bytes, want the %d that came, as they came", len(*out), len(want))
		}
		if rs.actions[actionTooLarge] != 1 {
			t.Errorf("actions %v, want the call counted as too large", rs.actions)
		}
	})
	for _, api := range []string{"openai", "anthropic"} {
		t.Run("streamed call/"+api, func(t *testing.T) {
			in := synthStream(api, []synthCall{{index: 0, name: "Write", frags: []string{python[:100], python[100:]}}}, "tool_calls")
			tp := newTestProxy(t, sseUpstream(in, nil), func(c *Config) { c.MaxCallBytes = 64 })
			if _, body := tp.post(t, apiPath(api), requestBody(api, true, true), nil); !bytes.Equal(body, in) {
				t.Fatalf("an oversized call changed:\n%s", body)
			}
			if !strings.Contains(tp.logText(), "too large to repair") {
				t.Errorf("not logged:\n%s", tp.logText())
			}
		})
	}
}

// TestNoKeyInLogs: at debug level, through repairs, pass-through paths and
// upstream failures, no key the client sent is ever logged.
func TestNoKeyInLogs(t *testing.T) {
	const secret = "sk-SECRET-0123456789"
	header := http.Header{
		"Authorization": {"Bearer " + secret}, "X-Api-Key": {secret}, "Api-Key": {secret},
		"Cookie": {"session=" + secret},
	}
	log := &upstreamLog{}
	in := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt', 'content': 'hi'}`}}}, "tool_calls")
	tp := newTestProxy(t, sseUpstream(in, log), nil)
	tp.post(t, "/v1/chat/completions?key="+secret, requestBody("openai", true, true), header)
	r, _ := log.last(t)
	if r.Header.Get("Authorization") != "Bearer "+secret || r.Header.Get("X-Api-Key") != secret || r.URL.Query().Get("key") != secret {
		t.Fatalf("the upstream did not get the client's credentials: %v %v", r.Header, r.URL)
	}
	req, _ := http.NewRequest(http.MethodGet, tp.srv.URL+"/v1/models?key="+secret, nil)
	req.Header = header.Clone()
	if resp, err := tp.srv.Client().Do(req); err == nil {
		resp.Body.Close()
	}
	// An upstream that is gone.
	tp.upstream.Close()
	resp, body := tp.post(t, "/v1/chat/completions?key="+secret, requestBody("openai", true, true), header)
	if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(body, []byte("upstream_error")) {
		t.Errorf("upstream down: status %d %s; want 502", resp.StatusCode, body)
	}
	logs := tp.logText()
	if !strings.Contains(logs, "tool call repaired") || !strings.Contains(logs, "upstream request failed") {
		t.Fatalf("the log lacks the lines this test is about:\n%s", logs)
	}
	if strings.Contains(logs, "SECRET") {
		t.Fatalf("a key was logged:\n%s", logs)
	}
}

// TestNotAnOpenProxy: the upstream is the configured one whatever the
// request says: absolute-form URIs and CONNECT are refused, the Host
// header is ignored, paths cannot climb out of the upstream's prefix.
func TestNotAnOpenProxy(t *testing.T) {
	log := &upstreamLog{}
	tp := newTestProxy(t, jsonUpstream([]byte(`{"data":[]}`), log), nil)
	addr := strings.TrimPrefix(tp.srv.URL, "http://")
	raw := func(request string) string {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := io.WriteString(conn, request); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.Status
	}
	for name, request := range map[string]string{
		"absolute-form": "GET http://evil.example/v1/models HTTP/1.1\r\nHost: evil.example\r\n\r\n",
		"CONNECT":       "CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n",
		"dot-dot":       "GET /v1/../../admin HTTP/1.1\r\nHost: x\r\n\r\n",
		"empty segment": "GET //evil.example/x HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		if status := raw(request); !strings.HasPrefix(status, "400") {
			t.Errorf("%s: %s, want 400", name, status)
		}
	}
	if n := log.count(); n != 0 {
		t.Fatalf("the upstream got %d requests, want none", n)
	}
	// A Host header naming another server changes nothing.
	if status := raw("GET /v1/models?limit=2 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n"); !strings.HasPrefix(status, "200") {
		t.Fatalf("status %s", status)
	}
	r, _ := log.last(t)
	if up := strings.TrimPrefix(tp.upstream.URL, "http://"); r.Host != up || r.URL.RequestURI() != "/v1/models?limit=2" {
		t.Errorf("the upstream got Host %q %s, want %q /v1/models?limit=2", r.Host, r.URL.RequestURI(), up)
	}
}

// TestUpstreamPrefix: a path prefix on the upstream URL comes before the
// request's path; a trailing /v1, as clients' base URLs are written, is
// dropped rather than doubled.
func TestUpstreamPrefix(t *testing.T) {
	for _, tt := range []struct{ prefix, path, want string }{
		{"", "/v1/chat/completions", "/v1/chat/completions"},
		{"/", "/v1/messages", "/v1/messages"},
		{"/v1", "/v1/chat/completions", "/v1/chat/completions"},
		{"/v1/", "/v1/messages", "/v1/messages"},
		{"/api/openai", "/v1/chat/completions", "/api/openai/v1/chat/completions"},
		{"/api/openai/v1", "/v1/chat/completions", "/api/openai/v1/chat/completions"},
		{"/v1/proxy", "/v1/models", "/v1/proxy/v1/models"},
		{"/api/v10", "/v1/models", "/api/v10/v1/models"},
		// A client whose base URL is the proxy's root: the /v1 given with
		// the upstream is kept for it.
		{"/v1", "/chat/completions", "/v1/chat/completions"},
		{"/api/openai/v1/", "/chat/completions", "/api/openai/v1/chat/completions"},
		{"/v1", "/v1x/models", "/v1/v1x/models"},
		{"", "/chat/completions", "/chat/completions"},
		{"/api/openai", "/chat/completions", "/api/openai/chat/completions"},
	} {
		t.Run(tt.prefix+" "+tt.path, func(t *testing.T) {
			log := &upstreamLog{}
			up := httptest.NewServer(jsonUpstream([]byte(`{}`), log))
			t.Cleanup(up.Close)
			cfg := DefaultConfig()
			cfg.Upstream = up.URL + tt.prefix
			p, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = p.Close() })
			srv := httptest.NewServer(p)
			t.Cleanup(srv.Close)
			resp, err := http.Post(srv.URL+tt.path, "application/json", strings.NewReader(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if r, _ := log.last(t); r.URL.Path != tt.want {
				t.Errorf("upstream path %q, want %q", r.URL.Path, tt.want)
			}
			base, trimmed := cfg.UpstreamBase()
			if wantTrim := strings.HasSuffix(strings.TrimSuffix(tt.prefix, "/"), "/v1"); trimmed != wantTrim || !strings.HasPrefix(base, up.URL) || strings.HasSuffix(strings.TrimSuffix(base, "/"), "/v1") {
				t.Errorf("UpstreamBase() = %q, %v; want %s without /v1, trimmed %v", base, trimmed, up.URL+tt.prefix, wantTrim)
			}
		})
	}
}

// TestHeaders: end-to-end headers go on unchanged, hop-by-hop ones do
// not; a request whose answer is repaired asks for it unencoded, others
// keep the client's Accept-Encoding.
func TestHeaders(t *testing.T) {
	log := &upstreamLog{}
	upstream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.add(r, nil)
		w.Header().Set("Connection", "X-Up-Hop")
		w.Header().Set("X-Up-Hop", "1")
		w.Header().Set("X-Request-Id", "req-1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	})
	tp := newTestProxy(t, upstream, nil)
	for _, path := range []string{"/v1/chat/completions", "/v1/embeddings"} {
		req, _ := http.NewRequest(http.MethodPost, tp.srv.URL+path, bytes.NewReader(requestBody("openai", false, true)))
		req.Header.Set("Connection", "X-Hop")
		req.Header.Set("X-Hop", "1")
		req.Header.Set("Proxy-Authorization", "Basic eA==")
		req.Header.Set("X-Forwarded-For", "10.0.0.1")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		req.Header.Set("Accept-Encoding", "gzip")
		req.Header.Set("User-Agent", "agent/1.0")
		resp, err := tp.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("X-Up-Hop") != "" || resp.Header.Get("X-Request-Id") != "req-1" {
			t.Errorf("%s: response headers %v", path, resp.Header)
		}
		r, _ := log.last(t)
		for _, h := range []string{"X-Hop", "Proxy-Authorization"} {
			if r.Header.Get(h) != "" {
				t.Errorf("%s: the hop-by-hop %s reached the upstream", path, h)
			}
		}
		for h, v := range map[string]string{"X-Forwarded-For": "10.0.0.1", "Anthropic-Version": "2023-06-01", "User-Agent": "agent/1.0"} {
			if r.Header.Get(h) != v {
				t.Errorf("%s: %s = %q at the upstream, want %q", path, h, r.Header.Get(h), v)
			}
		}
		wantEncoding := "gzip"
		if path == "/v1/chat/completions" {
			wantEncoding = ""
		}
		if got := r.Header.Get("Accept-Encoding"); got != wantEncoding {
			t.Errorf("%s: Accept-Encoding %q at the upstream, want %q", path, got, wantEncoding)
		}
	}
}

// TestUpstreamErrorsAndTimeouts: a non-2xx answer passes as it is; no
// response headers within --upstream-timeout is a 504.
func TestUpstreamErrorsAndTimeouts(t *testing.T) {
	errBody := []byte(`{"error":{"message":"bad key","type":"invalid_request_error"}}`)
	tp := newTestProxy(t, replay(http.StatusUnauthorized, http.Header{"Content-Type": {"application/json"}, "Www-Authenticate": {"Bearer"}}, errBody, 0, nil), nil)
	resp, body := tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
	if resp.StatusCode != http.StatusUnauthorized || !bytes.Equal(body, errBody) || resp.Header.Get("Www-Authenticate") != "Bearer" {
		t.Errorf("status %d %s %v; want the upstream's 401 as it is", resp.StatusCode, body, resp.Header)
	}

	release := make(chan struct{})
	defer close(release)
	slow := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	tp = newTestProxy(t, slow, func(c *Config) { c.UpstreamTimeout = 50 * time.Millisecond })
	resp, body = tp.post(t, "/v1/messages", requestBody("anthropic", false, true), nil)
	if resp.StatusCode != http.StatusGatewayTimeout || !bytes.Contains(body, []byte(`"type":"error"`)) {
		t.Errorf("status %d %s; want 504 in Anthropic's error shape", resp.StatusCode, body)
	}
}

// TestUnreachableUpstreamWithABody: a request with a body the upstream
// never read (it could not be reached) is a 502, on every path, and the
// client's connection goes on serving: the body is closed before the
// server reads the connection's next request (with full duplex on, it
// would otherwise read the body's connection from two goroutines and
// panic, golang/go#68560).
func TestUnreachableUpstreamWithABody(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + lis.Addr().String()
	_ = lis.Close()
	cfg := DefaultConfig()
	cfg.Upstream = closed
	p, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	srv := httptest.NewUnstartedServer(p)
	core, errLog := observer.New(zapcore.DebugLevel)
	srv.Config.ErrorLog = zap.NewStdLog(zap.New(core))
	srv.Start()
	t.Cleanup(srv.Close)

	var conns atomic.Int32
	client := srv.Client()
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if !info.Reused {
			conns.Add(1)
		}
	}}
	for i := range 6 {
		path := []string{"/v1/embeddings", "/v1/chat/completions", "/v1/messages"}[i%3]
		body := bytes.Repeat([]byte(`{"input":"hi"}`), 1+i*1000)
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, srv.URL+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !bytes.Contains(got, []byte("upstream_error")) {
			t.Errorf("%s: %d %s, want a 502 upstream_error", path, resp.StatusCode, got)
		}
	}
	for _, e := range errLog.All() {
		t.Errorf("the HTTP server logged: %s", e.Message)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 6 requests, want the first one kept", n)
	}
}

// TestPassThroughPaths: other endpoints go through as they are.
func TestPassThroughPaths(t *testing.T) {
	models := []byte(`{"object":"list","data":[{"id":"m","object":"model"}]}`)
	log := &upstreamLog{}
	tp := newTestProxy(t, jsonUpstream(models, log), nil)
	resp, err := tp.srv.Client().Get(tp.srv.URL + "/v1/models?limit=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	r, _ := log.last(t)
	if !bytes.Equal(body, models) || r.Method != http.MethodGet || r.URL.RequestURI() != "/v1/models?limit=1" {
		t.Errorf("GET /v1/models: %s; upstream got %s %s", body, r.Method, r.URL.RequestURI())
	}
}

func TestConfigValidate(t *testing.T) {
	ok := DefaultConfig()
	ok.Upstream = "http://127.0.0.1:8081"
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid configuration: %v", err)
	}
	for name, edit := range map[string]func(*Config){
		"no upstream":        func(c *Config) { c.Upstream = "" },
		"upstream scheme":    func(c *Config) { c.Upstream = "ftp://x" },
		"upstream query":     func(c *Config) { c.Upstream = "http://x/?a=1" },
		"upstream userinfo":  func(c *Config) { c.Upstream = "http://user:pw@x" },
		"listen":             func(c *Config) { c.Listen = "7701" },
		"listen exposed":     func(c *Config) { c.Listen = "0.0.0.0:7701" },
		"metrics same port":  func(c *Config) { c.MetricsListen = "127.0.0.1:7701" },
		"session header":     func(c *Config) { c.SessionHeader = "X Session" },
		"timeout":            func(c *Config) { c.UpstreamTimeout = 0 },
		"limits":             func(c *Config) { c.MaxCallBytes = 0 },
		"mistake limit":      func(c *Config) { c.MistakeLimit = 0 },
		"log format":         func(c *Config) { c.LogFormat = "xml" },
		"empty tool":         func(c *Config) { c.Tools = []string{" "} },
		"shutdown timeout":   func(c *Config) { c.ShutdownTimeout = 0 },
		"session ttl":        func(c *Config) { c.SessionTTL = 0 },
		"response limit":     func(c *Config) { c.MaxResponseBytes = -1 },
		"request limit zero": func(c *Config) { c.MaxRequestBytes = 0 },
	} {
		c := ok
		edit(&c)
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: accepted", name)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: the error quotes a password: %v", name, err)
		}
	}
}

func counterValue(c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}

func seriesCount(g prometheus.Gatherer, name string) (int, error) {
	families, err := g.Gather()
	if err != nil {
		return 0, err
	}
	for _, f := range families {
		if f.GetName() == name {
			return len(f.GetMetric()), nil
		}
	}
	return 0, nil
}

// TestFullDuplexPassThrough: a request body still arriving while the
// answer has started goes on to the upstream (the HTTP/1 server must not
// consume it when the answer's headers are written).
func TestFullDuplexPassThrough(t *testing.T) {
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		buf := make([]byte, 64)
		for {
			n, err := r.Body.Read(buf)
			if n > 0 {
				_, _ = w.Write(buf[:n])
				_ = rc.Flush()
			}
			if err != nil {
				return
			}
		}
	})
	tp := newTestProxy(t, echo, nil)
	pr, pw := io.Pipe()
	// Should the body be held up, the exchange would wait forever: the
	// deadline turns that into a failure.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, tp.srv.URL+"/v1/uploads", pr)
	go func() { _, _ = pw.Write([]byte("first;")) }()
	resp, err := tp.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make([]byte, len("first;"))
	if _, err := io.ReadFull(resp.Body, got); err != nil || string(got) != "first;" {
		t.Fatalf("echo %q, %v", got, err)
	}
	_, _ = pw.Write([]byte("second"))
	pw.Close()
	rest, err := io.ReadAll(resp.Body)
	if err != nil || string(rest) != "second" {
		t.Fatalf("the rest of the body: %q, %v; want it forwarded while the answer streams", rest, err)
	}
}
