package proxytest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSplitEvents(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"data: a\n\ndata: b\n\ndata: [DONE]\n\n", []string{"data: a\n\n", "data: b\n\n", "data: [DONE]\n\n"}},
		{"data: a\r\n\r\n: ping\r\n\r\ndata: [DONE]\r\n\r\n", []string{"data: a\r\n\r\n", ": ping\r\n\r\n", "data: [DONE]\r\n\r\n"}},
		{"event: x\ndata: y\n\nevent: z\rdata: w\r\rtail", []string{"event: x\ndata: y\n\n", "event: z\rdata: w\r\r", "tail"}},
		{"", nil},
		{"\n\n\n", []string{"\n", "\n", "\n"}},
		{"\r\ndata: a\n\n", []string{"\r\n", "data: a\n\n"}},
	} {
		var got []string
		for _, ev := range SplitEvents([]byte(tt.in)) {
			got = append(got, string(ev))
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("SplitEvents(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestLoad reads the proxy's own fixtures: every scenario with its
// expectation, streamed or not as the expectation says.
func TestLoad(t *testing.T) {
	all, err := Load("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 20 {
		t.Fatalf("%d scenarios, want the 20 or more of proxy/testdata", len(all))
	}
	apis := map[string]int{}
	for _, s := range all {
		apis[s.API]++
		if s.Expect == nil || s.Expect.Scenario != s.Name || s.Name != s.API+"/"+s.Short {
			t.Errorf("%s: expectation %+v", s.Name, s.Expect)
			continue
		}
		if streamed := s.Expect.Stream && s.Expect.UpstreamStatus == 0; streamed != (s.SSE != nil) {
			t.Errorf("%s: stream %v, response.sse present %v", s.Name, s.Expect.Stream, s.SSE != nil)
		}
		if s.Expect.UpstreamStatus != 0 && s.Status != s.Expect.UpstreamStatus {
			t.Errorf("%s: status %d, expect.json says %d", s.Name, s.Status, s.Expect.UpstreamStatus)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(s.Request), []byte("{")) {
			t.Errorf("%s: request.json is not an object", s.Name)
		}
	}
	if apis["openai"] == 0 || apis["anthropic"] == 0 {
		t.Errorf("scenarios by API: %v", apis)
	}
}

// TestLoadErrors: a directory that cannot be a scenario is named in the
// error.
func TestLoadErrors(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"empty", nil, "no scenarios"},
		{"no request", map[string]string{"openai/a/response.sse": "data: x\n\n"}, "openai/a: no request.json"},
		{"no response", map[string]string{"openai/a/request.json": "{}"}, "neither response.sse nor response.json"},
		{"error without body", map[string]string{"anthropic/b/request.json": "{}", "anthropic/b/response.sse": "x", "anthropic/b/upstream.json": `{"status": 529}`}, "an error status needs a response.json"},
		{"unknown expectation", map[string]string{"openai/a/request.json": "{}", "openai/a/response.json": "{}", "openai/a/expect.json": `{"stream": false, "surprise": 1}`}, `unknown field "surprise"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tt.files {
				path := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Load: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestReadStream(t *testing.T) {
	const (
		oaOpen  = `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c0","function":{"name":"Write","arguments":"{\"a\""}}]},"finish_reason":null}]}` + "\n\n"
		oaFrag  = `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":": 1}"}}]},"finish_reason":null}]}` + "\n\n"
		oaEnd   = `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\ndata: [DONE]\n\n"
		anStart = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n"
		anBlock = "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\",\"input\":{}}}\n\n" +
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n"
		anStop = "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n" +
			"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n" +
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	)
	for _, tt := range []struct {
		name, api, body string
		want            string // call 0 (or 1), reason, end, multi-line events; or the error
	}{
		{"openai", "openai", oaOpen + ": comment\n\n" + oaFrag + oaEnd, `{0 c0 Write {"a": 1}} "tool_calls" "[DONE]" 0`},
		{"openai crlf", "openai", strings.ReplaceAll(oaOpen+oaFrag+oaEnd, "\n", "\r\n"), `{0 c0 Write {"a": 1}} "tool_calls" "[DONE]" 0`},
		{"several data lines", "openai", strings.ReplaceAll(oaOpen, `"choices":`, "\"choices\":\ndata: "), `{0 c0 Write {"a"} "" "" 1`},
		{"openai error", "openai", oaOpen + `data: {"error":{"message":"no"}}` + "\n\n", `{0 c0 Write {"a"} "" "error" 0`},
		{"anthropic", "anthropic", anStart + anBlock + anStop, `{1 t1 Write {}} "tool_use" "message_stop" 0`},
		{"anthropic cut off", "anthropic", anStart + anBlock, `{1 t1 Write {}} "" "" 0`},
		{"named twice", "openai", oaOpen + oaOpen, "event 1: call 0 named twice"},
		{"no name", "openai", oaFrag, "event 0: call 0 opens without id and name"},
		{"after the end", "openai", oaEnd + oaFrag, "event 2: an event after [DONE]"},
		{"not a chunk", "openai", `data: {"choices":[]}` + "\n\n", `event 0: object ""`},
		{"no blank line", "openai", strings.TrimSuffix(oaOpen, "\n"), "does not end with a blank line"},
		{"block not open", "anthropic", anStart + anStop, "event 1: content_block_stop for block 1, not open"},
		{"block started twice", "anthropic", anStart + anBlock + anBlock, "event 3: block 1 started twice"},
		{"start not first", "anthropic", anStart + anStart, "event 1: message_start after other events"},
		{"unknown event", "anthropic", "event: surprise\ndata: {\"type\":\"surprise\"}\n\n", `event 0: unknown type "surprise"`},
		{"event and type differ", "anthropic", "event: ping\ndata: {\"type\":\"message_stop\"}\n\n", `carries type "message_stop"`},
		{"no events", "anthropic", ": just a comment\n\n", "no events"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadStream(tt.api, []byte(tt.body))
			var got string
			if err != nil {
				got = err.Error()
			} else {
				c := s.Call(0)
				if c == nil {
					c = s.Call(1)
				}
				got = fmt.Sprintf("%v %q %q %d", *c, s.Reason, s.End, s.MultiLine)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
