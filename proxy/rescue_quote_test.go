package proxy

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/proxy/proxytest"
)

// quotedTexts are answers that only quote a call to the declared Write
// tool, in the formats models write calls in: none is a call to rescue.
func quotedTexts() map[string]string {
	calls := map[string]string{
		"hermes":   `<tool_call>{"name": "Write", "arguments": {"path": "a.txt", "content": "x"}}</tool_call>`,
		"qwen":     "<tool_call>\n<function=Write>\n<parameter=path>a.txt</parameter>\n<parameter=content>x</parameter>\n</function>\n</tool_call>",
		"harmony":  `<|start|>assistant<|channel|>commentary to=functions.Write <|constrain|>json<|message|>{"path": "a.txt", "content": "x"}<|call|>`,
		"mistral":  `[TOOL_CALLS][{"name": "Write", "arguments": {"path": "a.txt", "content": "x"}}]`,
		"minimax":  `<minimax:tool_call><invoke name="Write"><parameter name="path">a.txt</parameter><parameter name="content">x</parameter></invoke></minimax:tool_call>`,
		"deepseek": `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>Write<｜tool▁sep｜>{"path": "a.txt", "content": "x"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
	}
	out := map[string]string{}
	for format, c := range calls {
		out[format+" fenced"] = "The document contains this example:\n```\n" + c + "\n```\nI did not run it."
		out[format+" inline code"] = "The page says `" + c + "`."
		out[format+" in a sentence"] = "The README asks me to run " + c + " but that looks malicious, so I will NOT do it."
		out[format+" after a sentence"] = "I will not run " + c
		out[format+" in a blockquote"] = "The issue says:\n> " + c + "\n\nI ignored it."
	}
	return out
}

// TestRescueQuotedNonStreamed: an answer that only quotes a call comes byte
// for byte, through OpenAI and Anthropic.
func TestRescueQuotedNonStreamed(t *testing.T) {
	for name, text := range quotedTexts() {
		for _, api := range []string{"openai", "anthropic"} {
			t.Run(api+"/"+name, func(t *testing.T) {
				in := openAITextBody(text, "stop")
				if api == "anthropic" {
					in = anthropicTextBody(text)
				}
				tp := newTestProxy(t, jsonUpstream(in, nil), nil)
				resp, body := tp.post(t, apiPath(api), requestBody(api, false, true), nil)
				if resp.StatusCode != http.StatusOK || !bytes.Equal(body, in) {
					t.Fatalf("status %d\n got %s\nwant %s", resp.StatusCode, body, in)
				}
				if strings.Contains(tp.logText(), "tool call rescued") {
					t.Errorf("a quoted call was rescued:\n%s", tp.logText())
				}
			})
		}
	}
}

// TestRescueQuotedStreamed: however it is split, an answer that only
// quotes a call comes as the same text, with no call and its own finish.
func TestRescueQuotedStreamed(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	for name, text := range quotedTexts() {
		for i, deltas := range splits(text, rng)[:2] {
			for _, api := range []string{"openai", "anthropic"} {
				t.Run(fmt.Sprintf("%s/%s/%d", api, name, i), func(t *testing.T) {
					in, reason := openAITextStream(deltas, "stop"), "stop"
					if api == "anthropic" {
						in, reason = anthropicTextStream(deltas, false), "end_turn"
					}
					tp := newTestProxy(t, sseUpstream(in, nil), nil)
					_, body := tp.post(t, apiPath(api), requestBody(api, true, true), nil)
					s, err := proxytest.ReadStream(api, body)
					if err != nil {
						t.Fatalf("%v\n%s", err, body)
					}
					if s.Text != text || len(s.Calls) != 0 || s.Reason != reason {
						t.Fatalf("text %q, calls %v, reason %q; want the text as it came\n%s", s.Text, s.Calls, s.Reason, body)
					}
				})
			}
		}
	}
}

// TestRescueObserved: in observe mode an answer with a call to rescue goes
// out byte for byte, streamed or not, and the call it would have rescued is
// logged and counted.
func TestRescueObserved(t *testing.T) {
	for _, api := range []string{"openai", "anthropic"} {
		for _, streamed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/streamed=%v", api, streamed), func(t *testing.T) {
				deltas := []string{qwenContent[:9], qwenContent[9:40], qwenContent[40:]}
				var in []byte
				var up http.HandlerFunc
				switch {
				case api == "openai" && streamed:
					in = openAITextStream(deltas, "stop")
				case api == "anthropic" && streamed:
					in = anthropicTextStream(deltas, false)
				case api == "openai":
					in = openAITextBody(qwenContent, "stop")
				default:
					in = anthropicTextBody(qwenContent)
				}
				up = jsonUpstream(in, nil)
				if streamed {
					up = sseUpstream(in, nil)
				}
				tp := newTestProxy(t, up, func(c *Config) { c.Mode = ModeObserve })
				_, body := tp.post(t, apiPath(api), requestBody(api, streamed, true), nil)
				if !bytes.Equal(body, in) {
					t.Fatalf("observe mode changed the answer:\n got %s\nwant %s", body, in)
				}
				if n := strings.Count(tp.logText(), "would be rescued from the text"); n != 1 {
					t.Errorf("%d would-be rescues logged, want 1:\n%s", n, tp.logText())
				}
				if strings.Contains(tp.logText(), "tool call rescued from the text") {
					t.Errorf("observe mode rescued:\n%s", tp.logText())
				}
			})
		}
	}
}
