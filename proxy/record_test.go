package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readRecords reads a record file's lines; every line must be one whole
// record.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []record
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s: a line that is not a record: %v\n%s", path, err, sc.Bytes())
		}
		out = append(out, r)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("%s does not end with a whole line", path)
	}
	return out
}

func compact(t *testing.T, b []byte) string {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	return out.String()
}

// TestRecordFixtures: every fixture goes through a recording proxy. An
// exchange the proxy judges (declared tools, a 2xx answer) is recorded
// once, with the request and the upstream's answer as they were sent
// (before any repair), so eval's reading of the record (Replay) decides
// for each call what the proxy decided live. Nothing else is recorded.
func TestRecordFixtures(t *testing.T) {
	for _, f := range loadFixtures(t) {
		t.Run(f.Name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			tp := newTestProxy(t, fixtureUpstream(f, 7, nil), func(c *Config) { c.Record, c.Rescue = path, false })
			tp.post(t, f.Path(), f.Request, nil)
			var live []string
			for _, e := range tp.logs.FilterMessageSnippet("tool call ").All() {
				if a, ok := e.ContextMap()["action"]; ok {
					live = append(live, fmt.Sprint(a))
				}
			}
			recs := readRecords(t, path)
			judged := tp.newRequest(context.Background(), apiOf(f.API), f.Request, "").repairs && f.Status < 300
			if !judged {
				if len(recs) != 0 {
					t.Fatalf("recorded an exchange the proxy does not judge: %+v", recs)
				}
				return
			}
			if len(recs) != 1 {
				t.Fatalf("%d records, want 1", len(recs))
			}
			r := recs[0]
			if r.API != f.API || r.Path != f.Path() || r.Status != f.Status || r.Time == "" {
				t.Errorf("record api %q path %q status %d time %q", r.API, r.Path, r.Status, r.Time)
			}
			if got, want := string(r.Request), compact(t, f.Request); got != want {
				t.Errorf("request\n got %s\nwant %s", got, want)
			}
			streamed := f.SSE != nil
			if streamed {
				var s string
				if err := json.Unmarshal(r.Response, &s); err != nil || s != string(f.SSE) {
					t.Errorf("the stream is not recorded byte for byte (%v):\n%s", err, r.Response)
				}
			} else if got, want := string(r.Response), compact(t, f.JSON); got != want {
				t.Errorf("answer\n got %s\nwant %s", got, want)
			}
			rp, err := NewReplayer(DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			defer rp.Close()
			resp := []byte(r.Response)
			if streamed {
				resp = f.SSE
			}
			reports, err := rp.Replay(context.Background(), Exchange{API: r.API, Request: r.Request, Response: resp, Stream: streamed})
			if err != nil {
				t.Fatal(err)
			}
			var replayed []string
			for _, c := range reports {
				replayed = append(replayed, c.Action)
			}
			if !slices.Equal(replayed, live) {
				t.Errorf("the record replays as %v, the proxy did %v", replayed, live)
			}
		})
	}
}

func apiOf(name string) api {
	if name == "anthropic" {
		return apiAnthropic
	}
	return apiOpenAI
}

// TestRecordRedacts: API keys in any credential header, the configured
// headers, and key query parameters never reach the record, nor does a
// key pasted into a prompt; other headers are kept, the session too.
func TestRecordRedacts(t *testing.T) {
	const (
		bearer = "sk-proj-BEARER0123456789"
		xkey   = "sk-ant-XKEY0123456789"
		qkey   = "AIzaQUERY0123456789"
		tenant = "tenant-secret-42"
	)
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	tp := newTestProxy(t, sseUpstream(sseOf("openai", "Write", `{"path":"a","content":"x"}`), nil), func(c *Config) {
		c.Record, c.RecordRedactHeaders = path, []string{"x-tenant"}
	})
	body := bytes.Replace(requestBody("openai", true, true), []byte(`"hi"`), []byte(`"my key is `+bearer+`"`), 1)
	tp.post(t, "/v1/chat/completions?key="+qkey, body, http.Header{
		"Authorization":      {"Bearer " + bearer},
		"X-Api-Key":          {xkey},
		"X-Tenant":           {tenant},
		"User-Agent":         {"agent/1.0"},
		DefaultSessionHeader: {"task-7"},
	})
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{bearer, xkey, qkey, tenant} {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("the record holds %q:\n%s", secret, data)
		}
	}
	recs := readRecords(t, path)
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	h := recs[0].Headers
	for _, name := range []string{"Authorization", "X-Api-Key", "X-Tenant"} {
		if h[name] != redacted {
			t.Errorf("header %s recorded as %q", name, h[name])
		}
	}
	if h["User-Agent"] != "agent/1.0" || recs[0].Session != "task-7" || recs[0].Path != "/v1/chat/completions" {
		t.Errorf("headers %v, session %q, path %q", h, recs[0].Session, recs[0].Path)
	}
	if !strings.Contains(string(recs[0].Request), "my key is "+redacted) {
		t.Errorf("the key in the prompt is not redacted: %s", recs[0].Request)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record file mode %v (%v), want 0600", fi.Mode(), err)
	}
}

// sseOf is an upstream stream of one call, written as given.
func sseOf(api, name, args string) []byte {
	if api == "anthropic" {
		return fmt.Appendf(nil, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\n\n"+
			"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":%s,\"input\":{}}}\n\n"+
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%s}}\n\n"+
			"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"+
			"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n", mustJSON(name), mustJSON(args))
	}
	return fmt.Appendf(nil, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":%s,\"arguments\":%s}}]},\"finish_reason\":null}]}\n\n"+
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n", mustJSON(name), mustJSON(args))
}

// TestRecordRotates: past --record-max-bytes the file moves to FILE.1
// (FILE.1 to FILE.2, ...), at most --record-files are kept, no file grows
// past the limit, and every line stays whole.
func TestRecordRotates(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rec.jsonl")
	probe := filepath.Join(dir, "probe.jsonl") // the size of one record
	newTestProxy(t, sseUpstream(sseOf("openai", "Write", `{"path":"a","content":"x"}`), nil), func(c *Config) { c.Record = probe }).
		post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
	size := len(mustRead(t, probe))
	for _, keep := range []int{0, 2} {
		t.Run(fmt.Sprint("keep ", keep), func(t *testing.T) {
			tp := newTestProxy(t, sseUpstream(sseOf("openai", "Write", `{"path":"a","content":"x"}`), nil), func(c *Config) {
				c.Record, c.RecordMaxBytes, c.RecordFiles = path, int64(2*size+size/2), keep
			})
			const n = 9 // two records a file: five files written, the last holding one
			for range n {
				tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
			}
			total := 0
			files := []string{path}
			for i := 1; i <= keep; i++ {
				files = append(files, fmt.Sprintf("%s.%d", path, i))
			}
			for _, f := range files {
				fi, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Size() > int64(2*size+size/2) {
					t.Errorf("%s is %d bytes, past the limit", f, fi.Size())
				}
				total += len(readRecords(t, f))
			}
			if want := 1 + 2*keep; total != want {
				t.Errorf("%d records kept in %v, want %d", total, files, want)
			}
			if _, err := os.Stat(fmt.Sprintf("%s.%d", path, keep+1)); !os.IsNotExist(err) {
				t.Errorf("more than %d rotated files: %v", keep, err)
			}
			for _, f := range files {
				_ = os.Remove(f)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRecordBounded: an exchange past the bounds is not recorded, and its
// answer reaches the client as it would unrecorded (the copy's memory is
// not the repair's).
func TestRecordBounded(t *testing.T) {
	big := sseOf("openai", "Write", `{"path":"a","content":"`+strings.Repeat("x", 8<<10)+`"}`)
	for _, tt := range []struct {
		name, why string
		edit      func(*Config)
	}{
		{"record past --record-max-bytes", "larger than --record-max-bytes", func(c *Config) { c.RecordMaxBytes = 4 << 10 }},
		// Quotes, escaped in the stream and again in the record, make the
		// record twice the stream: the estimate lets it through, the
		// record's own size does not.
		{"escaped record past --record-max-bytes", "more than --record-max-bytes", func(c *Config) { c.RecordMaxBytes = 24 << 10 }},
		{"stream past --max-response-bytes", "larger than the response limit", func(c *Config) { c.MaxResponseBytes = 4 << 10 }},
		{"copy past --max-held-bytes", "at their budget", func(c *Config) {
			c.MaxRequestBytes, c.MaxResponseBytes, c.MaxCallBytes, c.MaxHeldBytes = 10<<10, 10<<10, 10<<10, 10<<10
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			in := big
			if strings.HasPrefix(tt.name, "escaped") {
				in = sseOf("openai", "Write", `{"path":"a","content":"`+strings.Repeat(`\"`, 4<<10)+`"}`)
			}
			tp := newTestProxy(t, sseUpstream(in, nil), func(c *Config) { c.Record = path; tt.edit(c) })
			plain := newTestProxy(t, sseUpstream(in, nil), tt.edit)
			_, got := tp.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
			_, want := plain.post(t, "/v1/chat/completions", requestBody("openai", true, true), nil)
			if !bytes.Equal(got, want) {
				t.Errorf("recording changed the answer")
			}
			if recs := readRecords(t, path); len(recs) != 0 {
				t.Errorf("%d records, want none", len(recs))
			}
			if !strings.Contains(tp.logText(), "exchange not recorded") || !strings.Contains(tp.logText(), tt.why) {
				t.Errorf("the skipped record is not logged:\n%s", tp.logText())
			}
			if n, r := tp.budget.Used(), tp.rec.budget.Used(); n != 0 || r != 0 {
				t.Errorf("%d bytes still held, %d by the recording", n, r)
			}
		})
	}
}

// TestRecordConfig: recording is off by default, and its settings are
// checked.
func TestRecordConfig(t *testing.T) {
	if c := DefaultConfig(); c.Record != "" {
		t.Errorf("recording is on by default: %q", c.Record)
	}
	for _, tt := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.RecordMaxBytes = 10 }, "record: max bytes"},
		{func(c *Config) { c.RecordFiles = -1 }, "record: max bytes"},
		{func(c *Config) { c.RecordRedactHeaders = []string{"Bad Header"} }, `"Bad Header" is not an HTTP header name`},
	} {
		c := DefaultConfig()
		c.Upstream = "http://127.0.0.1:1"
		tt.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate() = %v, want %q", err, tt.want)
		}
	}
	c := DefaultConfig()
	c.Upstream, c.Record = "http://127.0.0.1:1", filepath.Join(t.TempDir(), "no", "such", "dir", "rec.jsonl")
	if _, err := New(c, Options{}); err == nil || !strings.Contains(err.Error(), "record file") {
		t.Errorf("New with a record file that cannot be created: %v", err)
	}
}

// FuzzAppendJSONString: the stream's encoding in a record is valid JSON
// and reads back as encoding/json's encoding of the same bytes does.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"", "data: {\"a\":\"b\\\\n\"}\n\n", "\x00\x1f\x7f é 😀 \u2028", "\xff\xfe bad \xc3", "</>&"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		got := appendJSONString([]byte("x"), s)
		if got[0] != 'x' || !json.Valid(got[1:]) {
			t.Fatalf("not JSON: %q", got)
		}
		if n := escapedLen(s); n != len(got)-1 {
			t.Fatalf("escapedLen %d, the encoding is %d bytes", n, len(got)-1)
		}
		var a, b string
		want, _ := json.Marshal(string(s))
		if err := json.Unmarshal(got[1:], &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Fatalf("reads as %q, encoding/json's as %q", a, b)
		}
	})
}
