package proxy

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolguard/toolguard/repair/stream"
)

// Non-streamed answers: the whole body is read (up to MaxResponseBytes),
// each call of a target tool concluded, and the values that change are
// replaced in place. A body with nothing to change is sent as it came,
// byte for byte.

type openAIResponse struct {
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			ToolCalls []struct {
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

type anthropicResponse struct {
	StopReason string `json:"stop_reason"`
	Content    []struct {
		Type  string          `json:"type"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"content"`
}

// bodyResult is what fixBody made of a body.
type bodyResult struct {
	body []byte
	// refused is the error to send instead, when a call was refused.
	refused string
	// truncated counts the calls sent as written because they were cut
	// off.
	truncated int
}

// fixBody concludes the calls of a non-streamed answer.
func (p *Proxy) fixBody(rs *request, body []byte) bodyResult {
	res := bodyResult{body: body}
	var edits []edit
	add := func(text []byte, path ...any) {
		if s, e, ok := valueAt(body, path...); ok {
			edits = append(edits, edit{start: s, end: e, text: text})
		}
	}
	// one concludes a call; false stops at a refusal.
	one := func(index int, name string, args json.RawMessage, truncated bool, argsPath, namePath []any, asString bool) bool {
		tool := p.target(rs, name)
		if tool == nil {
			return true
		}
		text := string(args)
		if len(args) > 0 && args[0] == '"' {
			var s string
			if json.Unmarshal(args, &s) == nil {
				text = s
			}
		}
		if strings.TrimSpace(text) == "" || text == "null" {
			return true // no arguments written: nothing to judge
		}
		d := p.conclude(rs, callInfo{index: index, name: name, text: text, tool: tool, truncated: truncated})
		switch d.action {
		case actionRefused:
			res.refused = d.message
			return false
		case actionTruncated:
			res.truncated++
		case actionRepaired:
			if d.args != nil {
				if asString {
					add(jsonString(string(d.args)), argsPath...)
				} else {
					add(d.args, argsPath...)
				}
			}
			if d.name != "" {
				add(jsonString(d.name), namePath...)
			}
		}
		return true
	}
	switch rs.api {
	case apiOpenAI:
		if !bytes.Contains(body, markToolCalls) {
			return res
		}
		var r openAIResponse
		if json.Unmarshal(body, &r) != nil {
			return res
		}
		for k, ch := range r.Choices {
			calls := ch.Message.ToolCalls
			for m, tc := range calls {
				// With a length limit, the last call is the one cut off.
				truncated := stream.IsLengthLimit(ch.FinishReason) && m == len(calls)-1
				base := []any{"choices", k, "message", "tool_calls", m, "function"}
				if !one(m, tc.Function.Name, tc.Function.Arguments, truncated,
					append(base[:6:6], "arguments"), append(base[:6:6], "name"), true) {
					return res
				}
			}
		}
	case apiAnthropic:
		if !bytes.Contains(body, markToolUse) {
			return res
		}
		var r anthropicResponse
		if json.Unmarshal(body, &r) != nil {
			return res
		}
		for k, b := range r.Content {
			if b.Type != "tool_use" {
				continue
			}
			truncated := stream.IsLengthLimit(r.StopReason) && k == len(r.Content)-1
			if !one(k, b.Name, b.Input, truncated, []any{"content", k, "input"}, []any{"content", k, "name"}, false) {
				return res
			}
		}
	}
	res.body = applyEdits(body, edits)
	return res
}

// errorBody is an error answer in the API's own shape.
func errorBody(a api, errType, message string) []byte {
	var v any
	if a == apiAnthropic {
		v = map[string]any{"type": "error", "error": map[string]string{"type": errType, "message": message}}
	} else {
		v = map[string]any{"error": map[string]any{"type": errType, "code": nil, "message": message}}
	}
	b, _ := json.Marshal(v)
	return b
}
