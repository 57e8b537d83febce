package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
)

// rescueBody rescues the calls left in the text of a non-streamed answer
// (rescue.go); an answer with none to rescue is sent byte for byte.
func (p *Proxy) rescueBody(rs *request, body []byte) []byte {
	if !p.rescuing() && !p.observingRescue() || len(rs.tools) == 0 {
		return body
	}
	if !p.enforce() {
		// Observe mode: the rescue records what it would do, and the
		// answer goes out as it came.
		if rs.api == apiAnthropic {
			p.rescueAnthropicBody(rs, body)
		} else {
			p.rescueOpenAIBody(rs, body)
		}
		return body
	}
	if rs.api == apiAnthropic {
		return p.rescueAnthropicBody(rs, body)
	}
	return p.rescueOpenAIBody(rs, body)
}

// openAIRescued is a rescued call as a chat completion's message holds it.
type openAIRescued struct {
	Index    *int   `json:"index,omitempty"` // in a stream's delta
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func openAICall(c *rescuedCall, index *int) openAIRescued {
	out := openAIRescued{Index: index, ID: c.id, Type: "function"}
	out.Function.Name, out.Function.Arguments = c.name, string(c.args)
	return out
}

// marshalNoEscape encodes v leaving <, > and & as they are.
func marshalNoEscape(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // only values of this package's own types
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// rescueOpenAIBody rescues a chat completion's choices whose message has
// content and no tool calls: the content keeps the prose (null when none is
// left), tool_calls gets the calls, and finish_reason "stop" becomes
// "tool_calls", as the API sends a message with calls.
func (p *Proxy) rescueOpenAIBody(rs *request, body []byte) []byte {
	var r struct {
		Choices []struct {
			FinishReason *string `json:"finish_reason"`
			Message      struct {
				Content   *string         `json:"content"`
				ToolCalls json.RawMessage `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &r) != nil {
		return body
	}
	var edits []edit
	for k, ch := range r.Choices {
		if ch.Message.Content == nil || hasCalls(ch.Message.ToolCalls) {
			continue
		}
		pieces, ok := p.rescueText(rs, *ch.Message.Content, 0)
		cs, ce, found := valueAt(body, "choices", k, "message", "content")
		if !ok || !found {
			continue
		}
		var text strings.Builder
		var calls []openAIRescued
		for _, pc := range pieces {
			if pc.call == nil {
				text.WriteString(pc.text)
			} else {
				calls = append(calls, openAICall(pc.call, nil))
			}
		}
		content := []byte("null")
		if text.Len() > 0 {
			content = jsonString(text.String())
		}
		callsJSON := marshalNoEscape(calls)
		if ts, te, ok := valueAt(body, "choices", k, "message", "tool_calls"); ok {
			edits = append(edits, edit{start: ts, end: te, text: callsJSON})
		} else {
			content = append(append(content, `,"tool_calls":`...), callsJSON...)
		}
		edits = append(edits, edit{start: cs, end: ce, text: content})
		if ch.FinishReason != nil && *ch.FinishReason == "stop" {
			if fs, fe, ok := valueAt(body, "choices", k, "finish_reason"); ok {
				edits = append(edits, edit{start: fs, end: fe, text: []byte(`"tool_calls"`)})
			}
		}
	}
	return applyEdits(body, edits)
}

// hasCalls reports a tool_calls value that holds calls.
func hasCalls(v json.RawMessage) bool {
	s := string(bytes.TrimSpace(v))
	return s != "" && s != "null" && s != "[]"
}

// rescueAnthropicBody rescues a message's text blocks: each becomes its
// prose in text blocks and its calls in tool_use blocks, in place, and
// stop_reason "end_turn" becomes "tool_use".
func (p *Proxy) rescueAnthropicBody(rs *request, body []byte) []byte {
	var r struct {
		Content    []json.RawMessage `json:"content"`
		StopReason *string           `json:"stop_reason"`
	}
	if json.Unmarshal(body, &r) != nil {
		return body
	}
	var blocks []any
	rescued := false
	for _, raw := range r.Content {
		var b struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(raw, &b) != nil || b.Type != "text" || b.Text == nil {
			blocks = append(blocks, raw)
			continue
		}
		pieces, ok := p.rescueText(rs, *b.Text, len(blocks))
		if !ok {
			blocks = append(blocks, raw)
			continue
		}
		rescued = true
		blocks = append(blocks, anthropicBlocks(pieces)...)
	}
	cs, ce, ok := valueAt(body, "content")
	if !rescued || !ok {
		return body
	}
	edits := []edit{{start: cs, end: ce, text: marshalNoEscape(blocks)}}
	if r.StopReason != nil && *r.StopReason == "end_turn" {
		if ss, se, ok := valueAt(body, "stop_reason"); ok {
			edits = append(edits, edit{start: ss, end: se, text: []byte(`"tool_use"`)})
		}
	}
	return applyEdits(body, edits)
}

type anthropicText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// anthropicBlocks are the content blocks of a rescued text.
func anthropicBlocks(pieces []rescuePiece) []any {
	var out []any
	for _, pc := range pieces {
		if pc.call == nil {
			out = append(out, anthropicText{Type: "text", Text: pc.text})
		} else {
			out = append(out, anthropicToolUse{Type: "tool_use", ID: pc.call.id, Name: pc.call.name, Input: pc.call.args})
		}
	}
	return out
}
