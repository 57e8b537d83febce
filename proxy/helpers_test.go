package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// loadFixtures reads the scenarios of proxy/testdata (see its README);
// each must say what the proxy must make of it.
func loadFixtures(t *testing.T) []*proxytest.Scenario {
	t.Helper()
	all, err := proxytest.Load("testdata")
	if err != nil {
		t.Fatalf("fixtures: %v", err)
	}
	for _, f := range all {
		if f.Expect == nil {
			t.Fatalf("%s: no expect.json", f.Name)
		}
	}
	return all
}

// upstreamLog records what the fake upstream received.
type upstreamLog struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   [][]byte
}

func (l *upstreamLog) add(r *http.Request, body []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.requests = append(l.requests, r)
	l.bodies = append(l.bodies, body)
}

func (l *upstreamLog) last(t *testing.T) (*http.Request, []byte) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.requests) == 0 {
		t.Fatal("the upstream got no request")
	}
	return l.requests[len(l.requests)-1], l.bodies[len(l.bodies)-1]
}

func (l *upstreamLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.requests)
}

// replay is a fake upstream answering every request with body, written in
// pieces of piece bytes (0: whole), each flushed.
func replay(status int, header http.Header, body []byte, piece int, log *upstreamLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, _ := io.ReadAll(r.Body)
		if log != nil {
			log.add(r, in)
		}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		if piece <= 0 {
			_, _ = w.Write(body)
			return
		}
		rc := http.NewResponseController(w)
		for i := 0; i < len(body); i += piece {
			if _, err := w.Write(body[i:min(i+piece, len(body))]); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}
}

// fixtureUpstream is a fake upstream replaying f.
func fixtureUpstream(f *proxytest.Scenario, piece int, log *upstreamLog) http.HandlerFunc {
	h := http.Header{}
	body := f.JSON
	if f.SSE != nil && f.Status < 400 {
		body = f.SSE
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
	} else {
		h.Set("Content-Type", "application/json")
	}
	for k, v := range f.Headers {
		h.Set(k, v)
	}
	return replay(f.Status, h, body, piece, log)
}

// testProxy is a proxy in front of an upstream, both on loopback, with
// its log captured.
type testProxy struct {
	*Proxy
	srv      *httptest.Server
	upstream *httptest.Server
	logs     *observer.ObservedLogs
}

func newTestProxy(t *testing.T, upstream http.Handler, edit func(*Config), opts ...func(*Options)) *testProxy {
	t.Helper()
	up := httptest.NewServer(upstream)
	t.Cleanup(up.Close)
	cfg := DefaultConfig()
	cfg.Upstream = up.URL
	if edit != nil {
		edit(&cfg)
	}
	core, logs := observer.New(zapcore.DebugLevel)
	o := Options{Log: zap.New(core)}
	for _, f := range opts {
		f(&o)
	}
	p, err := New(cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return &testProxy{Proxy: p, srv: srv, upstream: up, logs: logs}
}

// post sends body to the proxy and returns the answer, read whole.
func (tp *testProxy) post(t *testing.T, path string, body []byte, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, tp.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := tp.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	return resp, out
}

// logText is every captured log entry, message and fields, as text.
func (tp *testProxy) logText() string {
	var b strings.Builder
	for _, e := range tp.logs.All() {
		b.WriteString(e.Message)
		for k, v := range e.ContextMap() {
			b.WriteString(" " + k + "=")
			raw, _ := json.Marshal(v)
			b.Write(raw)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// eventJSON returns the data of an event, its data lines joined.
func eventJSON(ev []byte) []byte {
	var parts [][]byte
	for _, line := range bytes.FieldsFunc(ev, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			parts = append(parts, bytes.TrimPrefix(v, []byte(" ")))
		}
	}
	return bytes.Join(parts, []byte("\n"))
}

// clientCalls reads a stream as a strict client does: the calls, by
// index, and the finish (OpenAI) or stop (Anthropic) reason.
func clientCalls(t *testing.T, api string, body []byte) (map[int]*proxytest.Call, string) {
	t.Helper()
	s, err := proxytest.ReadStream(api, body)
	if err != nil {
		t.Fatalf("a stream the client cannot read: %v\n%s", err, body)
	}
	calls := map[int]*proxytest.Call{}
	for i := range s.Calls {
		calls[s.Calls[i].Index] = &s.Calls[i]
	}
	return calls, s.Reason
}

// isCallEvent reports an event that carries a tool call's name or
// argument text: the only events the proxy may change.
func isCallEvent(ev []byte) bool {
	data := eventJSON(ev)
	return bytes.Contains(data, []byte(`"tool_calls"`)) || bytes.Contains(data, []byte(`"input_json_delta"`)) ||
		bytes.Contains(data, []byte(`"tool_use"`)) && bytes.Contains(data, []byte(`"content_block_start"`))
}

// otherEvents returns the events that are neither call events nor the
// proxy's comments.
func otherEvents(body []byte) []string {
	var out []string
	for _, ev := range proxytest.SplitEvents(body) {
		if isCallEvent(ev) || bytes.HasPrefix(ev, []byte(": toolguard:")) {
			continue
		}
		out = append(out, string(ev))
	}
	return out
}

// sameJSON reports whether two texts hold the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
