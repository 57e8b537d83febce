package proxytest

import (
	"bytes"
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
