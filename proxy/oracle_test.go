package proxy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/oracle"
	"github.com/toolguard/toolguard/proxy/proxytest"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// The corruption oracle (internal/oracle) through the proxy: an answer
// whose tool call a model broke reaches the client as exactly the original
// call, or is refused (strict, no fallback: a 502 or the stream's error
// event), or is passed on as written where that is itself a valid call.
// The repair engine's own results are the oracle's in repair/ and
// repair/stream/; here a silent-wrong call the proxy makes that the engine,
// given the same text, does not make fails. Run with -v for the table:
//
//	go test ./proxy/ -run TestOracleThroughProxy -v

// oracleUpstream answers every request with the body set last.
type oracleUpstream struct {
	mu   sync.Mutex
	body []byte
	sse  bool
}

func (u *oracleUpstream) set(body []byte, sse bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.body, u.sse = body, sse
}

func (u *oracleUpstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.mu.Lock()
	body, sse := u.body, u.sse
	u.mu.Unlock()
	h := http.Header{"Content-Type": {"application/json"}}
	if sse {
		h.Set("Content-Type", "text/event-stream")
	}
	replay(http.StatusOK, h, body, 0, nil)(w, r)
}

// oracleRequest declares the case's tool as a client of the API would.
func oracleRequest(api string, tool oracle.Tool, stream bool) []byte {
	def := map[string]any{"type": "function", "function": map[string]any{"name": tool.Name, "parameters": tool.Schema}}
	if api == "anthropic" {
		def = map[string]any{"name": tool.Name, "input_schema": tool.Schema}
	}
	req := map[string]any{"model": "m", "stream": stream, "max_tokens": 100,
		"messages": []any{map[string]any{"role": "user", "content": "go"}}, "tools": []any{def}}
	return []byte(mustJSON(req))
}

// chunks splits text at random places, on rune boundaries.
func chunks(text string, rng *rand.Rand) []string {
	var out []string
	for len(text) > 0 {
		n := min(1+rng.IntN(24), len(text))
		for n < len(text) && !utf8.RuneStart(text[n]) {
			n++
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

// oraclePaths are the ways a case reaches the client through the proxy.
var oraclePaths = []string{"openai", "openai-stream", "anthropic", "rescue"}

// throughProxy sends case c along path and returns whether the client got
// a usable call, its tool and arguments, and the answer's text (a rescue).
func throughProxy(t *testing.T, tp *testProxy, up *oracleUpstream, path string, c oracle.Case, rng *rand.Rand) (usable bool, tool string, args map[string]any, text string, ran bool) {
	name := c.Want.Tool.Name
	api, streamed := "openai", false
	switch path {
	case "openai":
		up.set(openAIBody(name, c.Text, "tool_calls"), false)
	case "openai-stream":
		streamed = true
		up.set(openAIStream([]synthCall{{index: 0, name: name, frags: chunks(c.Text, rng)}}, "tool_calls"), true)
	case "anthropic":
		api = "anthropic"
		input := c.Text
		if !json.Valid([]byte(input)) {
			input = mustJSON(input) // a string: what a broken server sends
		}
		up.set(anthropicBody(name, input, "tool_use"), false)
	case "rescue":
		r, ok := oracle.Render("auto", c, rng)
		if !ok {
			return false, "", nil, "", false
		}
		streamed, text = true, r.Text()
		up.set(openAIContentStream(chunks(text, rng)), true)
	}
	resp, body := tp.post(t, apiPath(api), oracleRequest(api, c.Want.Tool, streamed), nil)
	if resp.StatusCode != http.StatusOK {
		return false, "", nil, text, true
	}
	var call *proxytest.Call
	if streamed {
		s, err := proxytest.ReadStream(api, body)
		if err != nil {
			t.Fatalf("%s: a stream the client cannot read: %v\n%s", path, err, body)
		}
		if len(s.Calls) > 0 {
			call = &s.Calls[0]
		}
	} else {
		call = answerCall(t, api, body)
	}
	if call == nil || json.Unmarshal([]byte(call.Args), &args) != nil {
		// No call, or one passed on as written that is no JSON: the
		// client's parser refuses it.
		return false, "", nil, text, true
	}
	return true, call.Name, args, text, true
}

// answerCall is the first tool call of a non-streamed answer.
func answerCall(t *testing.T, api string, body []byte) *proxytest.Call {
	if api == "anthropic" {
		var m struct {
			Content []struct {
				Type, Name string
				Input      json.RawMessage
			}
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatalf("answer: %v\n%s", err, body)
		}
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				return &proxytest.Call{Name: b.Name, Args: string(b.Input)}
			}
		}
		return nil
	}
	var m struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("answer: %v\n%s", err, body)
	}
	if len(m.Choices) == 0 || len(m.Choices[0].Message.ToolCalls) == 0 {
		return nil
	}
	f := m.Choices[0].Message.ToolCalls[0].Function
	return &proxytest.Call{Name: f.Name, Args: f.Arguments}
}

// openAIContentStream is a chat completions stream of text only, in the
// pieces given.
func openAIContentStream(pieces []string) []byte {
	var b []byte
	env := `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`
	event := func(delta, fin string) {
		b = append(b, "data: "...)
		b = append(b, fmt.Appendf(nil, env, delta, fin)...)
		b = append(b, "\n\n"...)
	}
	event(`{"role":"assistant","content":""}`, "null")
	for _, p := range pieces {
		event(`{"content":`+mustJSON(p)+`}`, "null")
	}
	event(`{}`, `"stop"`)
	return append(b, "data: [DONE]\n\n"...)
}

// engineWrong reports whether the repair engine, given what the proxy was
// given (the arguments text, or for a rescue the answer's text through the
// auto stream parser), makes a silent-wrong call too.
func engineWrong(t *testing.T, reg *repair.Registry, c oracle.Case, path, text string) bool {
	tool, err := reg.Compile(repair.ToolDef{Name: c.Want.Tool.Name, Parameters: c.Want.Tool.Schema})
	if err != nil {
		t.Fatal(err)
	}
	opts := repair.Options{Tools: []*repair.Tool{tool}}
	calls := []repair.Call{{Name: c.Want.Tool.Name, Form: repair.FormText, Text: c.Text}}
	if path == "rescue" {
		calls = streamCalls(t, tool, text)
	}
	for _, call := range calls {
		res := reg.Validate(call, opts)
		if oracle.Judge(c, res.OK(), res.ToolName, res.Args) == oracle.Wrong {
			return true
		}
	}
	return false
}

// streamCalls are the complete calls the auto stream parser reads in text.
func streamCalls(t *testing.T, tool *repair.Tool, text string) []repair.Call {
	tags := stream.ToolTags{Params: map[string]bool{}}
	for spelling, canonical := range tool.ParamSpellings() {
		tags.Params[spelling] = tool.IsContentParam(canonical)
	}
	var calls []repair.Call
	p, err := stream.New(stream.Auto, stream.Options{Tools: map[string]stream.ToolTags{tool.Name(): tags}, MaxJSONDepth: repair.MaxJSONDepth}, func(e stream.Event) {
		if e.Kind == stream.EventCallClosed && !e.Truncated {
			calls = append(calls, e.Call)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Text(text); err != nil {
		t.Fatal(err)
	}
	if err := p.End(false); err != nil {
		t.Fatal(err)
	}
	return calls
}

func TestOracleThroughProxy(t *testing.T) {
	up := &oracleUpstream{}
	tp := newTestProxy(t, up, func(c *Config) { c.Strict, c.Fallback = true, false })
	reg, err := repair.NewRegistryWithoutTools()
	if err != nil {
		t.Fatal(err)
	}
	n := 40 // cases of each kind alone, per path
	if testing.Short() || oracle.Race {
		n = 10
	}
	table := oracle.Table{}
	engine := 0
	for ci, kinds := range oracle.Combos() {
		count := n
		if len(kinds) > 1 {
			count = max(1, n/8)
		}
		for i := range count {
			c, g, ok := oracle.Draw(uint64(ci)<<32|uint64(i), kinds...)
			if !ok {
				continue
			}
			for _, path := range oraclePaths {
				usable, tool, args, text, ran := throughProxy(t, tp, up, path, c, g.Rand())
				if !ran {
					continue
				}
				out := oracle.Judge(c, usable, tool, args)
				table.Add(path+":"+c.Name(), out)
				if out != oracle.Wrong {
					continue
				}
				if engineWrong(t, reg, c, path, text) {
					engine++
					continue
				}
				t.Error(oracle.Describe("proxy/"+path, c, tool, args, "the engine, given the same text, does not make this call"))
			}
		}
	}
	t.Logf("corruption oracle through the proxy:\n%s", table)
	cases, wrong := table.Total()
	t.Logf("%d cases, %d silent-wrong, all %d of them the engine's own (see repair's oracle)", cases, wrong, engine)
	// A rescue reads what the auto stream parser reads: a few valid calls
	// in some formats stay prose (see the stream oracle's auto rate).
	floors := map[string]float64{"openai": 0.95, "openai-stream": 0.95, "anthropic": 0.95, "rescue": 0.85}
	for path, floor := range floors {
		if got := table.Rate(path + ":none"); got < floor {
			t.Errorf("%s: valid calls made right at %.3f, want at least %.2f", path, got, floor)
		}
	}
}
