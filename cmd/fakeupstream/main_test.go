package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.uber.org/goleak"

	"github.com/toolguard/toolguard/internal/safebuf"
	"github.com/toolguard/toolguard/proxy/proxytest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const fixtures = "../../proxy/testdata"

type server struct {
	url    string
	log    *safebuf.Buffer
	client *http.Client
}

// start runs the fake upstream on 127.0.0.1:0 until the test ends.
func start(t *testing.T, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	logs := &safebuf.Buffer{}
	addrc := make(chan net.Addr, 1)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--listen", "127.0.0.1:0", "--fixtures", fixtures}, args...), logs, func(a net.Addr) { addrc <- a })
	}()
	var addr net.Addr
	select {
	case addr = <-addrc:
	case code := <-done:
		cancel()
		t.Fatalf("fakeupstream exited with %d:\n%s", code, logs)
	case <-time.After(2 * time.Minute):
		cancel()
		t.Fatal("fakeupstream did not start")
	}
	if !isLoopback(addr) {
		t.Errorf("listening on %s, want loopback", addr)
	}
	s := &server{url: "http://" + addr.String(), log: logs, client: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(func() {
		s.client.CloseIdleConnections()
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("fakeupstream exited with %d", code)
			}
		case <-time.After(2 * time.Minute):
			t.Error("fakeupstream did not stop")
		}
		if t.Failed() {
			t.Logf("server log:\n%s", logs)
		}
	})
	return s
}

func (s *server) post(t *testing.T, path string, body []byte, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func fixture(t *testing.T, name, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name, file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var endpoint = map[string]string{"openai": "/v1/chat/completions", "anthropic": "/v1/messages"}

// TestReplay is the demo path: a fixture request posted as is (its model
// names the scenario) comes back as the fixture bytes, streamed or not.
func TestReplay(t *testing.T) {
	s := start(t, "--delay", "1ms", "--split")
	for _, tc := range []struct {
		scenario, file, contentType string
	}{
		{"openai/python_dict_todowrite", "response.sse", "text/event-stream; charset=utf-8"},
		{"anthropic/python_dict_todowrite", "response.sse", "text/event-stream; charset=utf-8"},
		{"openai/crlf_framing", "response.sse", "text/event-stream; charset=utf-8"},
		{"openai/python_dict_nonstream", "response.json", "application/json"},
		{"anthropic/valid_nonstream", "response.json", "application/json"},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			api, _, _ := strings.Cut(tc.scenario, "/")
			resp := s.post(t, endpoint[api], fixture(t, tc.scenario, "request.json"))
			got := readAll(t, resp)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, got)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tc.contentType {
				t.Errorf("Content-Type %q, want %q", ct, tc.contentType)
			}
			if sc := resp.Header.Get("X-Fake-Scenario"); sc != tc.scenario {
				t.Errorf("X-Fake-Scenario %q, want %q", sc, tc.scenario)
			}
			if want := fixture(t, tc.scenario, tc.file); !bytes.Equal(got, want) {
				t.Errorf("body differs from %s/%s:\n got %q\nwant %q", tc.scenario, tc.file, got, want)
			}
		})
	}
	if !strings.Contains(s.log.String(), "POST /v1/chat/completions scenario=openai/python_dict_todowrite (model) stream=true") {
		t.Errorf("no request line in the log:\n%s", s.log)
	}
}

// TestStreamIsIncremental checks the events really go out one by one: with
// an hour between events, the first arrives; a stream written only at its
// end would hold it for hours. The wait is only a hang guard.
func TestStreamIsIncremental(t *testing.T) {
	s := start(t)
	req, err := http.NewRequest(http.MethodPost, s.url+"/v1/messages", bytes.NewReader(fixture(t, "anthropic/python_dict_todowrite", "request.json")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Fake-Delay", "1h")
	type first struct {
		line string
		err  error
	}
	got := make(chan first, 1)
	go func() {
		resp, err := s.client.Do(req)
		if err != nil {
			got <- first{err: err}
			return
		}
		// Closing the body ends the hour-long stream.
		defer resp.Body.Close()
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		got <- first{line, err}
	}()
	select {
	case f := <-got:
		if f.err != nil {
			t.Fatal(f.err)
		}
		if f.line != "event: message_start\n" {
			t.Errorf("first line %q", f.line)
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("no first event after 3 minutes of an hour-long stream: the stream is not flushed per event")
	}
}

// TestEveryScenario replays every fixture byte for byte, chosen by header,
// streamed or not as its request says, with its status.
func TestEveryScenario(t *testing.T) {
	s := start(t)
	for _, name := range scenarioNames(t) {
		t.Run(name, func(t *testing.T) {
			api, short, _ := strings.Cut(name, "/")
			var exp proxytest.Expectation
			if err := json.Unmarshal(fixture(t, name, "expect.json"), &exp); err != nil {
				t.Fatal(err)
			}
			file, status := "response.json", http.StatusOK
			if exp.Stream {
				file = "response.sse"
			}
			if exp.UpstreamStatus != 0 {
				file, status = "response.json", exp.UpstreamStatus
			}
			// Another scenario's model, to show the header wins.
			body := []byte(`{"model":"no_tool_calls","stream":` + fmt.Sprint(exp.Stream) + `}`)
			resp := s.post(t, endpoint[api], body, "X-Fake-Scenario", short, "X-Fake-Split", "true")
			got := readAll(t, resp)
			if resp.StatusCode != status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, got)
			}
			if want := fixture(t, name, file); !bytes.Equal(got, want) {
				t.Errorf("body differs from %s", file)
			}
		})
	}
}

func TestScenarioChoice(t *testing.T) {
	s := start(t, "--scenario", "valid_nonstream")
	nonStream := []byte(`{"model":"whatever","stream":false}`)
	for _, tc := range []struct {
		name, path string
		body       []byte
		header     []string
		status     int
		want       string // scenario served, or a fragment of the error
	}{
		{"flag", "/v1/chat/completions", nonStream, nil, 200, "openai/valid_nonstream"},
		{"flag on the other API", "/v1/messages", nonStream, nil, 200, "anthropic/valid_nonstream"},
		{"header over flag", "/v1/chat/completions", []byte(`{"model":"x","stream":true}`), []string{"X-Fake-Scenario", "no_tool_calls"}, 200, "openai/no_tool_calls"},
		{"full name", "/v1/messages", []byte(`{"stream":true}`), []string{"X-Fake-Scenario", "anthropic/no_tool_calls"}, 200, "anthropic/no_tool_calls"},
		{"wrong API", "/v1/messages", nonStream, []string{"X-Fake-Scenario", "openai/valid_nonstream"}, 400, "is not a anthropic scenario"},
		{"unknown", "/v1/chat/completions", nonStream, []string{"X-Fake-Scenario", "nope"}, 404, `no openai scenario "nope" (from the header)`},
		{"streamed only", "/v1/chat/completions", nonStream, []string{"X-Fake-Scenario", "no_tool_calls"}, 400, "has no non-streamed response"},
		{"non-streamed only", "/v1/chat/completions", []byte(`{"stream":true}`), nil, 400, "has no streamed response"},
		{"not JSON", "/v1/chat/completions", []byte(`{"model":`), nil, 400, "not JSON"},
		{"bad delay", "/v1/chat/completions", nonStream, []string{"X-Fake-Delay", "soon"}, 400, "X-Fake-Delay"},
		{"unknown path", "/v1/completions", nonStream, nil, 404, "fakeupstream serves"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := s.post(t, tc.path, tc.body, tc.header...)
			got := readAll(t, resp)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, got)
			}
			if tc.status == 200 {
				if sc := resp.Header.Get("X-Fake-Scenario"); sc != tc.want {
					t.Errorf("served %q, want %q", sc, tc.want)
				}
				return
			}
			// Errors come in the API's own shape.
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(got, &e); err != nil || e.Error.Message == "" {
				t.Errorf("error body %s: %v", got, err)
			}
			if !strings.Contains(e.Error.Message, tc.want) {
				t.Errorf("error %q does not say %q", e.Error.Message, tc.want)
			}
			if (tc.path == "/v1/messages") != (e.Type == "error") {
				t.Errorf("error body %s is not in the %s shape", got, tc.path)
			}
		})
	}
	resp, err := s.client.Get(s.url + "/v1/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: status %d, want 405", resp.StatusCode)
	}
}

func TestUpstreamErrorHeaders(t *testing.T) {
	s := start(t)
	resp := s.post(t, "/v1/chat/completions", fixture(t, "openai/rate_limited", "request.json"))
	readAll(t, resp)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "3" {
		t.Errorf("status %d, retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// TestAbortAfter: the upstream drops the connection mid-stream.
func TestAbortAfter(t *testing.T) {
	s := start(t)
	resp := s.post(t, "/v1/chat/completions", fixture(t, "openai/python_dict_todowrite", "request.json"), "X-Fake-Abort-After", "3")
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("read the whole body (%d bytes) from an aborted stream", len(got))
	}
	want := proxytest.SplitEvents(fixture(t, "openai/python_dict_todowrite", "response.sse"))
	if !bytes.Equal(got, bytes.Join(want[:3], nil)) {
		t.Errorf("got %q before the drop, want the first 3 events", got)
	}
}

// TestClientGone: a client leaving mid-stream ends the handler at once.
func TestClientGone(t *testing.T) {
	s := start(t)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url+"/v1/messages",
		bytes.NewReader(fixture(t, "anthropic/split_every_byte", "request.json")))
	req.Header.Set("X-Fake-Delay", "20ms")
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(s.log.String(), "client gone") {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not notice the client leaving:\n%s", s.log)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestMissingFixtures(t *testing.T) {
	abs, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run(context.Background(), []string{"--fixtures", filepath.Join(t.TempDir(), "nope")}, &out, nil); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(out.String(), "not found") {
		t.Errorf("message %q", out.String())
	}

	out.Reset()
	t.Chdir(t.TempDir())
	if code := run(context.Background(), nil, &out, nil); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(out.String(), "pass --fixtures DIR") {
		t.Errorf("message %q", out.String())
	}

	out.Reset()
	empty := t.TempDir()
	if code := run(context.Background(), []string{"--fixtures", empty}, &out, nil); code != 2 || !strings.Contains(out.String(), "no scenarios") {
		t.Errorf("exit %d, message %q", code, out.String())
	}

	out.Reset()
	if code := run(context.Background(), []string{"--fixtures", abs, "--scenario", "nope"}, &out, nil); code != 2 || !strings.Contains(out.String(), "no such scenario") {
		t.Errorf("exit %d, message %q", code, out.String())
	}
}

func TestFindFixturesFromSubdirectory(t *testing.T) {
	abs, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	// The test runs in cmd/fakeupstream: the default search walks up.
	got, err := findFixtures("")
	if err != nil {
		t.Fatal(err)
	}
	if got != abs {
		t.Errorf("found %s, want %s", got, abs)
	}
}

func TestSplitRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	b := []byte(strings.Repeat("données ", 50))
	pieces := splitRandom(b, rng)
	if !bytes.Equal(bytes.Join(pieces, nil), b) || len(pieces) < len(b)/8 {
		t.Errorf("splitRandom: %d pieces", len(pieces))
	}
}

// ---------------------------------------------------------------------------
// The fixtures themselves: each scenario must say what it means. The calls
// are rebuilt from the upstream bytes and compared with expect.json, and the
// expected arguments are validated against the schema the request declared.

func scenarioNames(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, api := range []string{"openai", "anthropic"} {
		entries, err := os.ReadDir(filepath.Join(fixtures, api))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, api+"/"+e.Name())
			}
		}
	}
	if len(out) < 20 {
		t.Fatalf("only %d scenarios", len(out))
	}
	return out
}

func TestFixtures(t *testing.T) {
	for _, name := range scenarioNames(t) {
		t.Run(name, func(t *testing.T) { checkScenario(t, name) })
	}
}

func checkScenario(t *testing.T, name string) {
	api, short, _ := strings.Cut(name, "/")
	var exp proxytest.Expectation
	dec := json.NewDecoder(bytes.NewReader(fixture(t, name, "expect.json")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&exp); err != nil {
		t.Fatalf("expect.json: %v", err)
	}
	if exp.Scenario != name || exp.API != api || exp.Checks == "" {
		t.Errorf("expect.json names %q/%q, checks %q", exp.Scenario, exp.API, exp.Checks)
	}
	schemas := checkRequest(t, name, short, api, exp)
	calls, reason := upstreamCalls(t, name, api, exp)
	wantReason := exp.FinishReason
	if api == "anthropic" {
		wantReason = exp.StopReason
	}
	if reason != wantReason {
		t.Errorf("upstream ends with %q, expect.json says %q", reason, wantReason)
	}
	if len(calls) != len(exp.Calls) {
		t.Fatalf("upstream has %d calls, expect.json %d", len(calls), len(exp.Calls))
	}
	for i := range exp.Calls {
		checkExpectedCall(t, i, calls[i], exp, schemas)
	}
}

// checkRequest checks request.json against the scenario and returns the
// schemas of the tools it declares.
func checkRequest(t *testing.T, name, short, api string, exp proxytest.Expectation) map[string]*jsonschema.Schema {
	t.Helper()
	var req struct {
		Model  string            `json:"model"`
		Stream *bool             `json:"stream"`
		Tools  []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(fixture(t, name, "request.json"), &req); err != nil {
		t.Fatalf("request.json: %v", err)
	}
	if req.Model != short {
		t.Errorf("request model %q, want the scenario name %q", req.Model, short)
	}
	if req.Stream == nil || *req.Stream != exp.Stream {
		t.Errorf("request stream %v, expect.json says %v", req.Stream, exp.Stream)
	}
	return declaredTools(t, api, req.Tools)
}

// upstreamCalls rebuilds the calls of the upstream's answer, and its
// finish or stop reason.
func upstreamCalls(t *testing.T, name, api string, exp proxytest.Expectation) ([]proxytest.Call, string) {
	t.Helper()
	_, errSSE := os.Stat(filepath.Join(fixtures, name, "response.sse"))
	_, errJSON := os.Stat(filepath.Join(fixtures, name, "response.json"))
	if (errSSE == nil) == (errJSON == nil) {
		t.Fatalf("want exactly one of response.sse and response.json")
	}
	switch {
	case exp.UpstreamStatus != 0:
		if errJSON != nil || exp.UpstreamStatus < 400 {
			t.Fatalf("upstream_status %d needs a response.json error", exp.UpstreamStatus)
		}
		if !json.Valid(fixture(t, name, "response.json")) {
			t.Error("response.json is not JSON")
		}
		var up struct {
			Status int `json:"status"`
		}
		if err := json.Unmarshal(fixture(t, name, "upstream.json"), &up); err != nil || up.Status != exp.UpstreamStatus {
			t.Errorf("upstream.json status %d (%v), want %d", up.Status, err, exp.UpstreamStatus)
		}
		return nil, ""
	case exp.Stream:
		if errSSE != nil {
			t.Fatal("a streamed scenario needs response.sse")
		}
		return parseSSE(t, api, fixture(t, name, "response.sse"))
	}
	if errJSON != nil {
		t.Fatal("a non-streamed scenario needs response.json")
	}
	if api == "openai" {
		return parseOpenAIJSON(t, fixture(t, name, "response.json"))
	}
	return parseAnthropicJSON(t, fixture(t, name, "response.json"))
}

// checkExpectedCall checks the ith call of expect.json against the
// upstream's call u and the schema of the tool it names.
func checkExpectedCall(t *testing.T, i int, u proxytest.Call, exp proxytest.Expectation, schemas map[string]*jsonschema.Schema) {
	t.Helper()
	c := exp.Calls[i]
	if u.Index != c.Index || u.ID != c.ID || u.Name != c.UpstreamName || u.Args != c.UpstreamArguments {
		t.Errorf("call %d: upstream %+v, expect.json index %d id %s name %s args %q", i, u, c.Index, c.ID, c.UpstreamName, c.UpstreamArguments)
	}
	sch := schemas[c.Name]
	if sch == nil {
		t.Errorf("call %d: %q is not a tool the request declared", i, c.Name)
		return
	}
	upstreamValid := validates(sch, c.UpstreamArguments) == nil
	switch {
	case c.Truncated:
		if c.Unchanged || c.Arguments != nil {
			t.Errorf("call %d: truncated with arguments or unchanged", i)
		}
		if json.Valid([]byte(c.UpstreamArguments)) {
			t.Errorf("call %d: truncated, yet its arguments are complete JSON", i)
		}
	case c.Unchanged:
		if !upstreamValid {
			t.Errorf("call %d: unchanged, yet its arguments do not validate: %v", i, validates(sch, c.UpstreamArguments))
		}
		if !sameJSON(c.UpstreamArguments, string(c.Arguments)) {
			t.Errorf("call %d: unchanged, yet arguments %s differ from %s", i, c.Arguments, c.UpstreamArguments)
		}
	default:
		if upstreamValid && c.Name == c.UpstreamName {
			t.Errorf("call %d: nothing to repair", i)
		}
	}
	if !c.Truncated {
		if err := validates(sch, string(c.Arguments)); err != nil {
			t.Errorf("call %d: expected arguments do not validate against %s: %v", i, c.Name, err)
		}
	}
	if exp.ByteIdentical && (!c.Unchanged || c.Name != c.UpstreamName) {
		t.Errorf("call %d: byte_identical, yet the call changes", i)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func declaredTools(t *testing.T, api string, tools []json.RawMessage) map[string]*jsonschema.Schema {
	t.Helper()
	if len(tools) == 0 {
		t.Fatal("the request declares no tools")
	}
	out := map[string]*jsonschema.Schema{}
	for _, raw := range tools {
		var name string
		var params json.RawMessage
		if api == "openai" {
			var td struct {
				Type     string `json:"type"`
				Function struct {
					Name       string          `json:"name"`
					Parameters json.RawMessage `json:"parameters"`
				} `json:"function"`
			}
			if err := json.Unmarshal(raw, &td); err != nil || td.Type != "function" {
				t.Fatalf("tool %s: %v", raw, err)
			}
			name, params = td.Function.Name, td.Function.Parameters
		} else {
			var td struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			}
			if err := json.Unmarshal(raw, &td); err != nil {
				t.Fatalf("tool %s: %v", raw, err)
			}
			name, params = td.Name, td.InputSchema
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
		if err != nil {
			t.Fatalf("tool %s: %v", name, err)
		}
		c := jsonschema.NewCompiler()
		url := "fixture:///tools/" + name + ".json"
		if err := c.AddResource(url, doc); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			t.Fatalf("tool %s: %v", name, err)
		}
		out[name] = sch
	}
	return out
}

func validates(sch *jsonschema.Schema, args string) error {
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		return err
	}
	return sch.Validate(v)
}

// parseSSE reads a streamed answer strictly (proxytest.ReadStream): events
// as the API sends them, one data line each, ending as the API ends them.
func parseSSE(t *testing.T, api string, body []byte) ([]proxytest.Call, string) {
	t.Helper()
	s, err := proxytest.ReadStream(api, body)
	if err != nil {
		t.Fatal(err)
	}
	if s.MultiLine > 0 {
		t.Fatalf("%d events have several data lines", s.MultiLine)
	}
	if want := map[string][]string{"openai": {"[DONE]"}, "anthropic": {"message_stop", "error"}}[api]; !slices.Contains(want, s.End) {
		t.Errorf("the stream ends with %q, want one of %q", s.End, want)
	}
	return s.Calls, s.Reason
}

func parseOpenAIJSON(t *testing.T, body []byte) ([]proxytest.Call, string) {
	t.Helper()
	var r struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string `json:"id"`
					Type     string `json:"type"`
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Object != "chat.completion" || len(r.Choices) != 1 {
		t.Fatalf("response.json: %v, object %q", err, r.Object)
	}
	var out []proxytest.Call
	for i, tc := range r.Choices[0].Message.ToolCalls {
		out = append(out, proxytest.Call{Index: i, ID: tc.ID, Name: tc.Function.Name, Args: tc.Function.Arguments})
	}
	return out, r.Choices[0].FinishReason
}

func parseAnthropicJSON(t *testing.T, body []byte) ([]proxytest.Call, string) {
	t.Helper()
	var r struct {
		Type    string `json:"type"`
		Content []struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
	}
	if err := json.Unmarshal(body, &r); err != nil || r.Type != "message" {
		t.Fatalf("response.json: %v, type %q", err, r.Type)
	}
	var out []proxytest.Call
	for i, b := range r.Content {
		if b.Type == "tool_use" {
			out = append(out, proxytest.Call{Index: i, ID: b.ID, Name: b.Name, Args: string(b.Input)})
		}
	}
	return out, r.StopReason
}

// TestFixtureTraps makes sure the scenarios keep the hard cases the issue
// names, so that a regenerated fixture cannot quietly lose one.
func TestFixtureTraps(t *testing.T) {
	sse := func(name string) string { return string(fixture(t, name, "response.sse")) }
	for _, api := range []string{"openai", "anthropic"} {
		// Arguments split after a backslash and inside a surrogate pair.
		u := sse(api + "/unicode_escape_split")
		for _, frag := range []string{`"\\"`, `"u00"`, `"\\ude"`} {
			if !strings.Contains(u, frag) {
				t.Errorf("%s/unicode_escape_split: no fragment %s", api, frag)
			}
		}
		// One byte per event: a fragment that is a lone escaped quote.
		if !strings.Contains(sse(api+"/split_every_byte"), `"\""`) {
			t.Errorf("%s/split_every_byte: no one-byte fragment", api)
		}
	}
	if !strings.Contains(sse("openai/crlf_framing"), "\r\n\r\n: ping") {
		t.Error("openai/crlf_framing: no CRLF comment event")
	}
	if !strings.Contains(sse("openai/two_calls_interleaved"), `{"index":0,"function":{"arguments":`) ||
		!slices.ContainsFunc(strings.Split(sse("openai/two_calls_interleaved"), "\n"), func(l string) bool {
			return strings.Contains(l, `{"index":0,"function"`) && strings.Contains(l, `{"index":1,"function"`)
		}) {
		t.Error("openai/two_calls_interleaved: no delta carrying both calls")
	}
}
