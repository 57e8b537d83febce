package proxy

import (
	"bytes"
	"maps"
	"net/http"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// observeCase is an upstream answer and the request it answers.
type observeCase struct {
	name, api string
	request   []byte
	upstream  func(*upstreamLog) http.HandlerFunc
	body      []byte // the upstream's answer body
	status    int
}

func observeCases(t *testing.T) []observeCase {
	var cases []observeCase
	for _, f := range loadFixtures(t) {
		body := f.JSON
		if f.SSE != nil && f.Status < 400 {
			body = f.SSE
		}
		cases = append(cases, observeCase{name: f.Name, api: f.API, request: f.Request, body: body, status: f.Status,
			upstream: func(l *upstreamLog) http.HandlerFunc { return fixtureUpstream(f, 0, l) }})
	}
	// Calls that cannot be made valid: refused without fallback.
	invalidStream := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': `, `'a.txt'}`}}}, "tool_calls")
	invalidBody := anthropicBody("Write", `{"path": 3}`, "tool_use")
	cases = append(cases,
		observeCase{name: "synthetic/invalid_stream", api: "openai", request: requestBody("openai", true, true), body: invalidStream,
			status: http.StatusOK, upstream: func(l *upstreamLog) http.HandlerFunc { return sseUpstream(invalidStream, l) }},
		observeCase{name: "synthetic/invalid_body", api: "anthropic", request: requestBody("anthropic", false, true), body: invalidBody,
			status: http.StatusOK, upstream: func(l *upstreamLog) http.HandlerFunc { return jsonUpstream(invalidBody, l) }},
	)
	return cases
}

// TestObserveMode: with --mode observe every fixture's answer, streamed or
// whole, reaches the client byte for byte as the upstream sent it, with
// its status; the calls counter counts, under mode="observe", exactly what
// enforce mode did with the same answer; and each call has one log line
// with its codes. With and without fallback (refusals).
func TestObserveMode(t *testing.T) {
	seen := map[action]bool{}
	for _, fallback := range []bool{true, false} {
		for _, c := range observeCases(t) {
			t.Run(c.name+map[bool]string{true: "/fallback", false: "/no_fallback"}[fallback], func(t *testing.T) {
				enforced, _ := runMode(t, c, ModeEnforce, fallback)
				for a := range enforced {
					seen[a] = true
				}
				observed, tp := runMode(t, c, ModeObserve, fallback)
				if !maps.Equal(observed, enforced) {
					t.Errorf("observe counted %v, enforce did %v", observed, enforced)
				}
				calls := 0.0
				for _, n := range enforced {
					calls += n
				}
				lines := 0
				for _, e := range tp.logs.FilterMessage("tool call observed: sent as written").All() {
					if e.ContextMap()["mode"] != ModeObserve || e.ContextMap()["action"] == nil {
						t.Errorf("log line without its mode or action: %v", e.ContextMap())
					}
					lines++
				}
				if float64(lines) != calls {
					t.Errorf("%d observe log lines for %v calls", lines, calls)
				}
			})
		}
	}
	// The cases hold every action that changes an answer.
	for _, a := range []action{actionUnchanged, actionRepaired, actionInvalid, actionRefused, actionTruncated} {
		if !seen[a] {
			t.Errorf("no case where enforce mode took action %s", a)
		}
	}
}

// runMode posts the case's request through a proxy in mode and returns the
// calls counted, by action; in observe mode, it checks the answer is the
// upstream's, byte for byte.
func runMode(t *testing.T, c observeCase, mode string, fallback bool) (map[action]float64, *testProxy) {
	t.Helper()
	reg := prometheus.NewRegistry()
	tp := newTestProxy(t, c.upstream(&upstreamLog{}), func(cfg *Config) { cfg.Mode, cfg.Fallback = mode, fallback },
		func(o *Options) { o.Metrics = reg })
	resp, body := tp.post(t, apiPath(c.api), c.request, nil)
	if mode == ModeObserve {
		if resp.StatusCode != c.status || !bytes.Equal(body, c.body) {
			t.Fatalf("observe: status %d, body changed: %v\n%s\nupstream's:\n%s", resp.StatusCode, !bytes.Equal(body, c.body), body, c.body)
		}
		if resp.Header.Get("X-Toolguard-Truncated-Calls") != "" {
			t.Error("observe: the answer was marked truncated")
		}
	}
	counted := map[action]float64{}
	for _, a := range actions {
		if n := counterValue(tp.metrics.cells[apiFor(c.api)][a]); n > 0 {
			counted[a] = n
		}
	}
	// The series carry the proxy's mode.
	want := mode
	if n, err := seriesCount(reg, "toolguard_proxy_calls_total"); err != nil || n != 2*len(actions) {
		t.Errorf("%d series (%v)", n, err)
	}
	if m := tp.metrics.vec.WithLabelValues(c.api, string(actionUnchanged), want); counterValue(m) != counted[actionUnchanged] {
		t.Errorf("the unchanged series under mode=%s is not the counted one", want)
	}
	return counted, tp
}

func apiFor(name string) api {
	if name == proxytest.APIs[1] {
		return apiAnthropic
	}
	return apiOpenAI
}
