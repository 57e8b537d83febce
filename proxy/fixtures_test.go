package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// TestFixtures replays every scenario of proxy/testdata through the proxy,
// from a fake upstream on loopback, and checks what the client gets against
// the scenario's expect.json: repaired calls as the expected arguments,
// unchanged ones and truncated ones byte for byte (truncated never
// completed, and marked), names as the request declared them, ids and
// reasons unchanged, every other event byte for byte, byte-identical
// bodies byte for byte, errors passed through. Streams are replayed whole
// and one byte per write: the client must get the same bytes either way.
func TestFixtures(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			pieces := []int{0, 7}
			if f.SSE != nil {
				pieces = []int{0, 1}
			}
			var first []byte
			for _, piece := range pieces {
				log := &upstreamLog{}
				tp := newTestProxy(t, fixtureUpstream(f, piece, log), nil)
				header := http.Header{"Authorization": {"Bearer sk-fixture-key"}, "X-Api-Key": {"sk-ant-fixture-key"}}
				resp, body := tp.post(t, f.Path(), f.Request, header)
				// The request reached the upstream unchanged.
				r, sent := log.last(t)
				if !bytes.Equal(sent, f.Request) || r.URL.Path != f.Path() ||
					r.Header.Get("Authorization") != "Bearer sk-fixture-key" || r.Header.Get("X-Api-Key") != "sk-ant-fixture-key" {
					t.Fatalf("the upstream got %s %s (auth %q, key %q), body changed: %v", r.Method, r.URL.Path,
						r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), !bytes.Equal(sent, f.Request))
				}
				if strings.Contains(tp.logText(), "fixture-key") {
					t.Fatalf("a key was logged:\n%s", tp.logText())
				}
				if first == nil {
					first = body
				} else if !bytes.Equal(body, first) {
					t.Fatalf("written %d bytes at a time, the upstream's answer came out differently:\n%s\nwhole:\n%s", piece, body, first)
				}
				checkFixture(t, f, resp, body)
			}
		})
	}
}

func checkFixture(t *testing.T, f *proxytest.Scenario, resp *http.Response, body []byte) {
	t.Helper()
	e := f.Expect
	if e.UpstreamStatus != 0 {
		if resp.StatusCode != e.UpstreamStatus || !bytes.Equal(body, f.JSON) {
			t.Fatalf("status %d, body %s; want the upstream's %d and its body", resp.StatusCode, body, e.UpstreamStatus)
		}
		for k, v := range f.Headers {
			if resp.Header.Get(k) != v {
				t.Errorf("header %s = %q, want the upstream's %q", k, resp.Header.Get(k), v)
			}
		}
		return
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	upstream := f.SSE
	if upstream == nil {
		upstream = f.JSON
	}
	if e.ByteIdentical && !bytes.Equal(body, upstream) {
		t.Fatalf("the body changed; want it byte for byte:\n got %q\nwant %q", body, upstream)
	}
	if f.SSE == nil {
		checkBody(t, f, body)
		return
	}
	// Every event that carries no call passes byte for byte, in order.
	if got, want := otherEvents(body), otherEvents(upstream); !reflect.DeepEqual(got, want) {
		t.Fatalf("the events without calls changed:\n got %q\nwant %q", got, want)
	}
	if n, m := len(proxytest.SplitEvents(body))-strings.Count(string(body), ": toolguard:"), len(proxytest.SplitEvents(upstream)); n != m {
		t.Errorf("%d events came out, %d went in", n, m)
	}
	calls, reason := clientCalls(t, f.API, body)
	if want := e.FinishReason + e.StopReason; reason != want {
		t.Errorf("finish/stop reason %q, want %q", reason, want)
	}
	if len(calls) != len(e.Calls) {
		t.Errorf("%d calls came out, want %d", len(calls), len(e.Calls))
	}
	for _, want := range e.Calls {
		got := calls[want.Index]
		if got == nil {
			t.Errorf("call %d is missing", want.Index)
			continue
		}
		checkCall(t, want.Index, got.ID, got.Name, got.Args, want.ID, want.Name, want.UpstreamArguments, want.Arguments, want.Unchanged, want.Truncated)
		marked := strings.Contains(string(body), fmt.Sprintf(": toolguard: call %d truncated, not repaired", want.Index))
		if marked != want.Truncated {
			t.Errorf("call %d: marked truncated %v, want %v", want.Index, marked, want.Truncated)
		}
	}
}

func checkCall(t *testing.T, index int, id, name, args, wantID, wantName, upstreamArgs string, wantArgs json.RawMessage, unchanged, truncated bool) {
	t.Helper()
	if id != wantID {
		t.Errorf("call %d: id %q, want %q", index, id, wantID)
	}
	if name != wantName {
		t.Errorf("call %d: name %q, want %q", index, name, wantName)
	}
	switch {
	case truncated:
		if args != upstreamArgs || json.Valid([]byte(args)) {
			t.Errorf("call %d (truncated): arguments %q; want the upstream's, never completed: %q", index, args, upstreamArgs)
		}
	case unchanged:
		if args != upstreamArgs {
			t.Errorf("call %d: arguments %q; want them unchanged: %q", index, args, upstreamArgs)
		}
	default:
		if !sameJSON([]byte(args), wantArgs) {
			t.Errorf("call %d: arguments %s, want %s", index, args, wantArgs)
		}
	}
}

// checkBody checks a non-streamed answer: each call, and every other value
// unchanged.
func checkBody(t *testing.T, f *proxytest.Scenario, body []byte) {
	t.Helper()
	var got, in map[string]any
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("the body is not JSON: %v\n%s", err, body)
	}
	if err := json.Unmarshal(f.JSON, &in); err != nil {
		t.Fatal(err)
	}
	// block returns the call object at an index: OpenAI's function, or
	// Anthropic's content block.
	block := func(doc map[string]any, i int) map[string]any {
		if f.API == "anthropic" {
			return doc["content"].([]any)[i].(map[string]any)
		}
		msg := doc["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)
		tc := msg["tool_calls"].([]any)[i].(map[string]any)
		tc["function"].(map[string]any)["id"] = tc["id"] // compared with the function
		return tc["function"].(map[string]any)
	}
	for _, want := range f.Expect.Calls {
		b, orig := block(got, want.Index), block(in, want.Index)
		var args string
		if f.API == "anthropic" {
			raw, _ := json.Marshal(b["input"])
			args = string(raw)
			if want.Unchanged || want.Truncated {
				// The input object's bytes: compare its value.
				if !sameJSON(raw, []byte(want.UpstreamArguments)) {
					t.Errorf("call %d: input %s, want it unchanged: %s", want.Index, raw, want.UpstreamArguments)
				}
				args = want.UpstreamArguments
			}
			delete(b, "input")
			delete(orig, "input")
		} else {
			args, _ = b["arguments"].(string)
			delete(b, "arguments")
			delete(orig, "arguments")
		}
		id, _ := b["id"].(string)
		name, _ := b["name"].(string)
		checkCall(t, want.Index, id, name, args, want.ID, want.Name, want.UpstreamArguments, want.Arguments, want.Unchanged, want.Truncated)
		delete(b, "name")
		delete(orig, "name")
	}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("values outside the calls changed:\n got %v\nwant %v", got, in)
	}
}
