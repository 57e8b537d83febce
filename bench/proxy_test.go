package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/toolguard/toolguard/proxy"
)

// The proxy's overhead (issue 8): a 1 MB write call streamed as OpenAI
// chat-completion chunks of 16-byte argument fragments (about 80,000
// events, 20 MB of SSE), from a fake upstream on loopback to a client that
// reads it all, two ways in the same run:
//
//   - passthrough: the same stream through httputil.ReverseProxy, a plain
//     loopback HTTP hop that looks at nothing;
//   - proxy: through toolguard's proxy, which splits the stream into
//     events, follows the call's fragments, holds them until the
//     arguments' JSON closes, then validates the call against the
//     request's declared tool and releases it.
//
// proxy_vs_passthrough is the ratio of the two (target ≤ 1.5), and
// round_ratio_p50 the median of the ratios of each round's two fetches;
// cpu_ratio compares the CPU time the two sides' fetches took.
// Two calls: valid JSON (released as it came) and a Python dict
// (repaired, its events rewritten). Two upstreams: one that flushes every
// event, as a model server does while it generates, and one that writes
// the stream in bulk, the worst case for the proxy's share of the time.

// proxyArgs is a write call of about size bytes of arguments: valid JSON,
// or with Python-style single-quoted keys.
func proxyArgs(size int, python bool) string {
	args := writeArgs(size)
	if !python {
		return args
	}
	var v struct{ Path, Content string }
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		panic(err)
	}
	content, _ := json.Marshal(v.Content)
	return "{'path': '" + v.Path + "', 'content': " + string(content) + "}"
}

// openAIEvents streams args as chat-completion chunks of n-byte fragments
// (cut at character boundaries).
func openAIEvents(args string, n int) []byte {
	var b bytes.Buffer
	env := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1750000000,"model":"qwen3-coder","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`
	event := func(delta, finish string) { fmt.Fprintf(&b, "data: "+env+"\n\n", delta, finish) }
	event(`{"role":"assistant","content":""}`, "null")
	event(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"Write","arguments":""}}]}`, "null")
	for i := 0; i < len(args); {
		j := min(i+n, len(args))
		for j < len(args) && !utf8.RuneStart(args[j]) {
			j++
		}
		frag, _ := json.Marshal(args[i:j])
		event(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(frag)+`}}]}`, "null")
		i = j
	}
	event(`{}`, `"tool_calls"`)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}

// proxyRequest declares the Write tool the call is checked against.
var proxyRequest = []byte(`{"model":"qwen3-coder","stream":true,"messages":[{"role":"user","content":"write it"}],"tools":[{"type":"function","function":{"name":"Write","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}]}`)

// sseServer replays body: each event flushed, or in bulk.
func sseServer(b *testing.B, body []byte, flushEach bool) *httptest.Server {
	var events [][]byte
	for rest := body; len(rest) > 0; {
		i := bytes.Index(rest, []byte("\n\n")) + 2
		events = append(events, rest[:i])
		rest = rest[i:]
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		if !flushEach {
			_, _ = w.Write(body)
			return
		}
		rc := http.NewResponseController(w)
		for _, ev := range events {
			if _, err := w.Write(ev); err != nil {
				return
			}
			_ = rc.Flush()
		}
	}))
	b.Cleanup(srv.Close)
	return srv
}

// fetch posts the request to base and returns the answer.
func fetch(client *http.Client, base string) ([]byte, error) {
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(proxyRequest))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

// drain posts the request to base and reads the answer, as a client that
// handles each piece as it comes.
func drain(client *http.Client, base string) error {
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(proxyRequest))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

// streamedArgs rebuilds the call's arguments from a stream.
func streamedArgs(body []byte) (string, error) {
	var args strings.Builder
	for _, ev := range bytes.Split(body, []byte("\n\n")) {
		data, ok := bytes.CutPrefix(ev, []byte("data: "))
		if !ok || string(data) == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct {
				Delta struct {
					ToolCalls []struct {
						Function struct{ Arguments string } `json:"function"`
					} `json:"tool_calls"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(data, &c); err != nil {
			return "", err
		}
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				args.WriteString(tc.Function.Arguments)
			}
		}
	}
	return args.String(), nil
}

func BenchmarkProxyVsPassThrough(b *testing.B) {
	for _, call := range []struct {
		name   string
		python bool
	}{{"valid", false}, {"python", true}} {
		args := proxyArgs(1<<20, call.python)
		body := openAIEvents(args, deltaBytes)
		for _, up := range []struct {
			name      string
			flushEach bool
		}{{"flush-each-event", true}, {"bulk", false}} {
			b.Run(call.name+"/"+up.name, func(b *testing.B) {
				upstream := sseServer(b, body, up.flushEach)
				target, _ := url.Parse(upstream.URL)
				rp := httputil.NewSingleHostReverseProxy(target)
				transport := http.DefaultTransport.(*http.Transport).Clone()
				b.Cleanup(transport.CloseIdleConnections)
				rp.Transport = transport
				plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					// As the proxy does: without it the HTTP/1 server
					// closes the request body under the transport when
					// the answer starts, which now and then tears the
					// upstream request down mid-answer.
					_ = http.NewResponseController(w).EnableFullDuplex()
					rp.ServeHTTP(w, r)
				}))
				b.Cleanup(plain.Close)
				cfg := proxy.DefaultConfig()
				cfg.Upstream = upstream.URL
				p, err := proxy.New(cfg, proxy.Options{})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { _ = p.Close() })
				tg := httptest.NewServer(p)
				b.Cleanup(tg.Close)

				// Both hops hand on the same call: as it came, or repaired.
				plainOut, err := fetch(plain.Client(), plain.URL)
				if err != nil || !bytes.Equal(plainOut, body) {
					b.Fatalf("passthrough changed the stream (%v)", err)
				}
				tgOut, err := fetch(tg.Client(), tg.URL)
				if err != nil {
					b.Fatal(err)
				}
				got, err := streamedArgs(tgOut)
				if err != nil {
					b.Fatal(err)
				}
				var want struct{ Path, Content string }
				_ = json.Unmarshal([]byte(writeArgs(1<<20)), &want)
				var gotArgs struct{ Path, Content string }
				if json.Unmarshal([]byte(got), &gotArgs) != nil || gotArgs != want || !call.python && got != args {
					b.Fatalf("the proxy did not hand on the call (%d bytes of arguments)", len(got))
				}

				sides := []struct {
					name   string
					client *http.Client
					base   string
					ns     float64
					cpu    float64
				}{
					{name: "passthrough", client: plain.Client(), base: plain.URL},
					{name: "proxy", client: tg.Client(), base: tg.URL},
				}
				iter := 0
				var ratios []float64 // of each round, the two fetched back to back
				for b.Loop() {
					var round [2]float64
					for k := range sides {
						i := (k + iter) % len(sides)
						s := &sides[i]
						start, cpu := time.Now(), cpuTime()
						if err := drain(s.client, s.base); err != nil {
							b.Fatalf("%s: %v", s.name, err)
						}
						round[i] = float64(time.Since(start))
						s.ns += round[i]
						s.cpu += float64(cpuTime() - cpu)
					}
					ratios = append(ratios, round[1]/round[0])
					iter++
				}
				it := float64(iter)
				for _, s := range sides {
					b.ReportMetric(s.ns/it/1e6, s.name+"-ms")
				}
				b.ReportMetric(sides[1].ns/sides[0].ns, "proxy_vs_passthrough")
				// The median of the rounds' ratios: a round slowed by other
				// work on the machine weighs no more than another.
				slices.Sort(ratios)
				b.ReportMetric(ratios[len(ratios)/2], "round_ratio_p50")
				// The CPU of each side's fetches (upstream, hop and client,
				// all in this process), which other work on the machine
				// changes far less than the time.
				b.ReportMetric(sides[1].cpu/sides[0].cpu, "cpu_ratio")
				b.ReportMetric(float64(len(body))/(1<<20), "sse-MB")
			})
		}
	}
}
