package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// holdHeader marks a request the fake upstream holds until released.
const holdHeader = "X-Test-Hold"

// heldUpstream answers with answer; a request marked with holdHeader
// first reports its arrival (its body read) and waits for release.
func heldUpstream(arrived chan<- struct{}, release <-chan struct{}, answer http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(holdHeader) != "" {
			_, _ = io.Copy(io.Discard, r.Body)
			arrived <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
				return
			}
		}
		answer.ServeHTTP(w, r)
	})
}

// newLimitProxy is newTestProxy whose server reports on the channel each
// request the proxy has finished with, its holdings released.
func newLimitProxy(t *testing.T, upstream http.Handler, edit func(*Config)) (*testProxy, <-chan struct{}) {
	t.Helper()
	tp := newTestProxy(t, upstream, edit)
	done := make(chan struct{}, 64)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tp.ServeHTTP(w, r)
		done <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	tp.srv = srv
	return tp, done
}

type answer struct {
	resp *http.Response
	body []byte
	err  error
}

// send is post for another goroutine than the test's.
func (tp *testProxy) send(method, path string, body []byte, header http.Header) answer {
	req, err := http.NewRequest(method, tp.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := tp.srv.Client().Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return answer{resp: resp, body: out, err: err}
}

// sendAsync sends a request marked to be held and waits until the
// upstream has it.
func (tp *testProxy) sendAsync(t *testing.T, arrived <-chan struct{}, method, path string, body []byte) <-chan answer {
	t.Helper()
	ch := make(chan answer, 1)
	go func() { ch <- tp.send(method, path, body, http.Header{holdHeader: {"1"}}) }()
	select {
	case <-arrived:
	case a := <-ch:
		t.Fatalf("the held request was answered: %v %v %s", a.err, a.resp.Status, a.body)
	}
	return ch
}

// paddedRequest is requestBody with a user message that makes it size
// bytes long.
func paddedRequest(t *testing.T, api string, stream bool, size int) []byte {
	t.Helper()
	base := len(requestBody(api, stream, true))
	req := map[string]any{"model": "test-model", "stream": stream, "tools": tools(api),
		"messages": []any{map[string]any{"role": "user", "content": "hi" + strings.Repeat("x", size-base)}}}
	b, _ := json.Marshal(req)
	if len(b) != size {
		t.Fatalf("padded request of %d bytes, want %d", len(b), size)
	}
	return b
}

// checkOverloaded checks a 503 refusal: Retry-After, the API's error
// shape, a message naming the flag.
func checkOverloaded(t *testing.T, a answer, api, flag string) {
	t.Helper()
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.resp.StatusCode != http.StatusServiceUnavailable || a.resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status %d, Retry-After %q: want 503 with Retry-After", a.resp.StatusCode, a.resp.Header.Get("Retry-After"))
	}
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.body, &e); err != nil {
		t.Fatalf("not JSON: %s", a.body)
	}
	wantType := "server_error"
	if api == "anthropic" {
		wantType = "overloaded_error"
		if e.Type != "error" {
			t.Errorf("type %q, want error: %s", e.Type, a.body)
		}
	}
	if e.Error.Type != wantType || !strings.Contains(e.Error.Message, flag) {
		t.Errorf("error %s: want type %s and a message naming %s", a.body, wantType, flag)
	}
}

// TestHeldBytesBudget: request bodies and held calls draw from one budget
// of all requests. A body that does not fit is refused with 503 before
// the upstream sees it; an answer or a streamed call that does not fit
// goes out as it came; once the holder is done, the same fit again.
func TestHeldBytesBudget(t *testing.T) {
	limits := func(c *Config) {
		c.MaxHeldBytes, c.MaxRequestBytes, c.MaxResponseBytes, c.MaxCallBytes = 16000, 12000, 4096, 4096
	}
	python := `{'path': 'a.txt', 'content': '` + strings.Repeat("y", 1500) + `'}`
	var frags []string
	for i := 0; i < len(python); i += 30 {
		frags = append(frags, python[i:min(i+30, len(python))])
	}
	for _, api := range []string{"openai", "anthropic"} {
		t.Run("request refused/"+api, func(t *testing.T) {
			arrived, release := make(chan struct{}, 1), make(chan struct{})
			log := &upstreamLog{}
			tp, done := newLimitProxy(t, heldUpstream(arrived, release, jsonUpstream([]byte(`{}`), log)), limits)
			body := paddedRequest(t, api, false, 9000)
			first := tp.sendAsync(t, arrived, http.MethodPost, apiPath(api), body)
			checkOverloaded(t, tp.send(http.MethodPost, apiPath(api), body, nil), api, "--max-held-bytes")
			<-done
			if log.count() != 0 {
				t.Errorf("the upstream got the refused request")
			}
			close(release)
			if a := <-first; a.err != nil || a.resp.StatusCode != http.StatusOK {
				t.Fatalf("the first request: %v %v", a.err, a.resp)
			}
			<-done
			if a := tp.send(http.MethodPost, apiPath(api), body, nil); a.err != nil || a.resp.StatusCode != http.StatusOK {
				t.Fatalf("after the first, a request as large: %v %v %s", a.err, a.resp, a.body)
			}
			<-done
			if n := tp.budget.Used(); n != 0 {
				t.Errorf("%d bytes still counted after every request", n)
			}
		})
		t.Run("streamed call/"+api, func(t *testing.T) {
			in := synthStream(api, []synthCall{{index: 0, name: "Write", frags: frags}}, "tool_calls")
			arrived, release := make(chan struct{}, 1), make(chan struct{})
			tp, done := newLimitProxy(t, heldUpstream(arrived, release, sseUpstream(in, nil)), limits)
			// Another request holds most of the budget: the call cannot be
			// held, so it goes as it came.
			first := tp.sendAsync(t, arrived, http.MethodPost, apiPath(api), paddedRequest(t, api, false, 11500))
			if a := tp.send(http.MethodPost, apiPath(api), requestBody(api, true, true), nil); a.err != nil || !bytes.Equal(a.body, in) {
				t.Fatalf("with the budget spent, the stream changed (%v):\n%s", a.err, a.body)
			}
			<-done
			if !strings.Contains(tp.logText(), `reason="max_held_bytes"`) {
				t.Errorf("the call given up is not logged with its reason:\n%s", tp.logText())
			}
			close(release)
			<-first
			<-done
			a := tp.send(http.MethodPost, apiPath(api), requestBody(api, true, true), nil)
			if calls, _ := clientCalls(t, api, a.body); calls[0] == nil || !sameJSON([]byte(calls[0].Args), []byte(`{"path":"a.txt","content":"`+strings.Repeat("y", 1500)+`"}`)) {
				t.Fatalf("with the budget free, the call was not repaired:\n%s", a.body)
			}
			<-done
			if n := tp.budget.Used(); n != 0 {
				t.Errorf("%d bytes still counted after every request", n)
			}
		})
	}
	t.Run("answer", func(t *testing.T) {
		in := openAIBody("Write", `{'path': 'a.txt', 'content': '`+strings.Repeat("y", 3800)+`'}`, "tool_calls")
		arrived, release := make(chan struct{}, 1), make(chan struct{})
		tp, done := newLimitProxy(t, heldUpstream(arrived, release, jsonUpstream(in, nil)), limits)
		first := tp.sendAsync(t, arrived, http.MethodPost, apiPath("openai"), paddedRequest(t, "openai", false, 11500))
		if a := tp.send(http.MethodPost, apiPath("openai"), requestBody("openai", false, true), nil); a.err != nil || !bytes.Equal(a.body, in) {
			t.Fatalf("with the budget spent, the answer changed (%v): %.200s", a.err, a.body)
		}
		<-done
		if !strings.Contains(tp.logText(), "answer passed through unrepaired: the bodies and calls held are at the budget") {
			t.Errorf("not logged:\n%s", tp.logText())
		}
		close(release)
		<-first
		<-done
		if a := tp.send(http.MethodPost, apiPath("openai"), requestBody("openai", false, true), nil); bytes.Equal(a.body, in) {
			t.Fatalf("with the budget free, the answer was not repaired")
		}
		<-done
		if n := tp.budget.Used(); n != 0 {
			t.Errorf("%d bytes still counted after every request", n)
		}
	})
}

// TestConcurrencyCap: past MaxConcurrentRequests a request of any path is
// refused with 503 in its API's shape; a place freed is taken again.
func TestConcurrencyCap(t *testing.T) {
	for _, tt := range []struct{ api, method, path string }{
		{"openai", http.MethodGet, "/v1/models"},
		{"openai", http.MethodPost, "/v1/chat/completions"},
		{"anthropic", http.MethodPost, "/v1/messages"},
	} {
		t.Run(tt.api+tt.path, func(t *testing.T) {
			arrived, release := make(chan struct{}, 2), make(chan struct{})
			log := &upstreamLog{}
			tp, done := newLimitProxy(t, heldUpstream(arrived, release, jsonUpstream([]byte(`{}`), log)),
				func(c *Config) { c.MaxConcurrentRequests = 2 })
			body := requestBody(tt.api, false, true)
			var held []<-chan answer
			for range 2 {
				held = append(held, tp.sendAsync(t, arrived, tt.method, tt.path, body))
			}
			checkOverloaded(t, tp.send(tt.method, tt.path, body, nil), tt.api, "--max-concurrent-requests")
			<-done
			if log.count() != 0 {
				t.Errorf("the upstream got the refused request")
			}
			close(release)
			for _, ch := range held {
				if a := <-ch; a.err != nil || a.resp.StatusCode != http.StatusOK {
					t.Fatalf("a request in flight: %v %v", a.err, a.resp)
				}
				<-done
			}
			if a := tp.send(tt.method, tt.path, body, nil); a.err != nil || a.resp.StatusCode != http.StatusOK {
				t.Fatalf("after the others: %v %v %s", a.err, a.resp, a.body)
			}
		})
	}
}

func TestLimitsValidate(t *testing.T) {
	for name, edit := range map[string]func(*Config){
		"budget below a request": func(c *Config) { c.MaxHeldBytes = c.MaxRequestBytes - 1 },
		"budget below an answer": func(c *Config) { c.MaxResponseBytes = c.MaxHeldBytes + 1 },
		"budget below a call":    func(c *Config) { c.MaxCallBytes = int(c.MaxHeldBytes) + 1 },
		"no concurrency":         func(c *Config) { c.MaxConcurrentRequests = 0 },
	} {
		c := DefaultConfig()
		c.Upstream = "http://127.0.0.1:8081"
		edit(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), "max") {
			t.Errorf("%s: %v does not name the setting", name, err)
		}
	}
}

// oversizedStream is a stream of two calls, the first held when an event
// of size bytes (text, one data line) comes: head is the stream up to
// that event.
func oversizedStream(api string, size int) (in []byte, head int) {
	python := `{'path': 'a.txt', 'content': '` + strings.Repeat("z", 200) + `'}`
	var frags []string
	for i := 0; i < len(python); i += 12 {
		frags = append(frags, python[i:min(i+12, len(python))])
	}
	// OpenAI's calls are interleaved (both open at the event), Anthropic's
	// one after the other (the second is after the event).
	events := proxytest.SplitEvents(synthStream(api, []synthCall{{index: 0, name: "Write", frags: frags}, {index: 1, name: "Write", frags: frags}}, "tool_calls"))
	huge := `data: {"choices":[{"index":0,"delta":{"content":"` + strings.Repeat("x", size) + `"},"finish_reason":null}]}` + "\n\n"
	if api == "anthropic" {
		huge = `event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + strings.Repeat("x", size) + `"}}` + "\n\n"
	}
	var b []byte
	for i, ev := range events {
		if i == 12 {
			head = len(b)
			b = append(b, huge...)
		}
		b = append(b, ev...)
	}
	return b, head
}

// TestOversizedEvent: an event larger than an event may be (twice
// MaxCallBytes, at least 64 KiB) is never held whole. The call held
// before it goes as it came, and from that event on the stream passes
// through unparsed, as it comes, byte for byte; the bytes held stay
// within the bound while it passes.
func TestOversizedEvent(t *testing.T) {
	const size = 1 << 20
	for _, api := range []string{"openai", "anthropic"} {
		t.Run("reader/"+api, func(t *testing.T) {
			p := fuzzProxy(t, func(c *Config) { c.MaxCallBytes = 4096 })
			rs := p.newRequest(context.Background(), apiOfName(api), requestBody(api, true, true), "")
			in, _ := oversizedStream(api, size)
			r := p.newSSEReader(rs, &piecesReader{pieces: fuzzPieces(in, []byte{255, 127})}, true)
			defer r.Close()
			var out []byte
			buf := make([]byte, 4096)
			for {
				n, err := r.Read(buf)
				out = append(out, buf[:n]...)
				if cap(r.in) > r.maxEvent+sseReadSize || r.hold.n > int64(r.maxEvent) {
					t.Fatalf("the reader holds %d bytes (counted %d) of an event; at most %d may be", cap(r.in), r.hold.n, r.maxEvent+sseReadSize)
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(out, in) {
				t.Fatalf("the stream changed: %d bytes out of %d", len(out), len(in))
			}
			held := 1 // the calls open at the event
			if api == "openai" {
				held = 2
			}
			if rs.actions[actionTooLarge] != held || len(rs.actions) != 1 {
				t.Errorf("actions %v: want the %d held calls too large, and nothing concluded after the event", rs.actions, held)
			}
		})
		t.Run("http/"+api, func(t *testing.T) {
			in, head := oversizedStream(api, size)
			cut := head + size/2 // where the upstream waits, inside the line
			gate := make(chan struct{})
			up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(in[:cut])
				_ = http.NewResponseController(w).Flush()
				select {
				case <-gate:
				case <-r.Context().Done():
					return
				}
				_, _ = w.Write(in[cut:])
			})
			tp, done := newLimitProxy(t, up, func(c *Config) { c.MaxCallBytes = 4096 })
			req := requestBody(api, true, true)
			resp, err := tp.srv.Client().Post(tp.srv.URL+apiPath(api), "application/json", bytes.NewReader(req))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			// The line's first half reaches the client while the upstream
			// has not sent its end.
			out := make([]byte, head+size/4)
			if _, err := io.ReadFull(resp.Body, out); err != nil {
				t.Fatalf("read the line's start: %v", err)
			}
			if !bytes.Equal(out, in[:len(out)]) {
				t.Fatalf("the client got other bytes than the upstream's")
			}
			if n := tp.budget.Used(); n > int64(len(req)) {
				t.Errorf("the proxy counts %d bytes held while the line passes; only the request's %d may be", n, len(req))
			}
			close(gate)
			rest, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(out, rest...), in) {
				t.Fatalf("the stream changed")
			}
			<-done
			if !strings.Contains(tp.logText(), `reason="event_too_large"`) || !strings.Contains(tp.logText(), "stream passed through unparsed") {
				t.Errorf("not logged:\n%s", tp.logText())
			}
		})
	}
}

func apiOfName(name string) api {
	if name == "anthropic" {
		return apiAnthropic
	}
	return apiOpenAI
}
