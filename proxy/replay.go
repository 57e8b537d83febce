package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// CallReport is what the proxy decided for one call of a target tool.
type CallReport struct {
	API    string // "openai" or "anthropic"
	Model  string // the request's model
	Tool   string // the declared tool the call resolved to
	Index  int    // the call's index in its answer
	Stream bool
	// Action is what enforce mode does with the call: unchanged, repaired,
	// invalid (sent as written: fallback), refused, truncated or too_large.
	Action string
	// Repairs and Violations are the verdict's codes, each once.
	Repairs, Violations []string
	// NameWritten and Arguments are the call as the model wrote it;
	// Repaired, the arguments sent instead when they changed.
	NameWritten, Arguments string
	Repaired               []byte
	// Feedback is what the verdict tells the model (a session's first
	// mistake: no count behind it).
	Feedback string
}

func (p *Proxy) report(rs *request, c callInfo, v *guard.Verdict, d decision) {
	if rs.report == nil {
		return
	}
	r := CallReport{
		API: rs.api.String(), Model: rs.model, Tool: c.tool.Name(), Index: c.index, Stream: c.streamed,
		Action: string(d.action), NameWritten: c.name, Arguments: c.text, Repaired: d.args,
	}
	if v != nil {
		r.Repairs, r.Violations, r.Feedback = repairCodes(v.Repairs), v.ViolationCodes(), v.Feedback
	}
	rs.report(r)
}

// NewReplayer builds a proxy that judges recorded traffic (Replay,
// ReplayCall) and serves nothing: observe mode, no upstream, no metrics.
// Every other setting (Tools, Strict, Fallback, the size limits) is cfg's.
func NewReplayer(cfg Config) (*Proxy, error) {
	cfg.Mode = ModeObserve
	cfg.Record = ""                 // judging recorded traffic records none
	cfg.AllowUnauthenticated = true // it listens nowhere
	if cfg.Upstream == "" {
		cfg.Upstream = "http://replay.invalid" // never dialled
	}
	return New(cfg, Options{})
}

// Exchange is one recorded request and its answer.
type Exchange struct {
	// API is "openai" (chat completions) or "anthropic" (messages); empty
	// reads it from the answer's shape.
	API string
	// Request is the request body; Response the answer's body: a JSON
	// document, or the text of a server-sent event stream when Stream.
	Request, Response []byte
	Stream            bool
}

// Replay runs a recorded exchange through the proxy's own reading of
// requests, bodies and streams, as the answer would have gone through it,
// and returns what it decided for each call of a target tool. Nothing is
// counted in a session. A proxy in enforce mode stops at a refused call,
// as a client would see it; NewReplayer's judges every call.
func (p *Proxy) Replay(ctx context.Context, ex Exchange) ([]CallReport, error) {
	a, err := exchangeAPI(ex)
	if err != nil || a == 0 {
		return nil, err
	}
	rs := p.newRequest(ctx, a, ex.Request, "")
	if !rs.repairs {
		return nil, nil
	}
	var out []CallReport
	rs.report = func(r CallReport) { out = append(out, r) }
	if !ex.Stream {
		p.fixBody(rs, ex.Response)
		return out, nil
	}
	r := p.newSSEReader(rs, io.NopCloser(bytes.NewReader(ex.Response)), false)
	defer func() { _ = r.Close() }()
	if _, err := io.Copy(io.Discard, r); err != nil {
		return out, fmt.Errorf("replay the stream: %w", err)
	}
	return out, nil
}

// exchangeAPI is the exchange's API, named or read from the answer: an
// Anthropic message (or its stream's message_start) has type "message".
// An error answer, which holds no call, is 0 without an error.
func exchangeAPI(ex Exchange) (api, error) {
	switch ex.API {
	case "openai":
		return apiOpenAI, nil
	case "anthropic":
		return apiAnthropic, nil
	case "":
	default:
		return 0, fmt.Errorf("api %q: want openai or anthropic", ex.API)
	}
	if ex.Stream {
		if bytes.Contains(ex.Response, []byte("message_start")) || bytes.Contains(ex.Response, []byte("content_block_")) {
			return apiAnthropic, nil
		}
		return apiOpenAI, nil
	}
	var shape struct {
		Type    string          `json:"type"`
		Choices json.RawMessage `json:"choices"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(ex.Response, &shape); err != nil {
		return 0, fmt.Errorf("read the answer: %w", err)
	}
	switch {
	case shape.Error != nil:
		return 0, nil
	case shape.Choices != nil:
		return apiOpenAI, nil
	case shape.Type == "message":
		return apiAnthropic, nil
	}
	return 0, errors.New("the answer is neither a chat completion (choices) nor a message (type \"message\")")
}

// Compile compiles tool definitions for ReplayCall, once for many calls.
func (p *Proxy) Compile(defs []repair.ToolDef) ([]*repair.Tool, error) {
	tools := make([]*repair.Tool, 0, len(defs))
	for _, d := range defs {
		t, err := p.guard.CompileTool(d)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", d.Name, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// ReplayCall judges one call, its arguments as the model wrote them,
// against tools as if a request had declared them; ok is false when the
// name is none of the target tools'.
func (p *Proxy) ReplayCall(ctx context.Context, model, name, arguments string, tools []*repair.Tool) (r CallReport, ok bool) {
	rs := &request{ctx: ctx, api: apiOpenAI, tools: tools, model: model, log: p.log, actions: map[action]int{}}
	tool := p.target(rs, name)
	if tool == nil {
		return CallReport{}, false
	}
	rs.report = func(cr CallReport) { r = cr }
	p.conclude(rs, callInfo{name: name, text: arguments, tool: tool})
	return r, true
}
