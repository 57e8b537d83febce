package proxy

import (
	"encoding/json"
	"strings"
)

// bodyCall is a call of a non-streamed answer and the paths to its values.
type bodyCall struct {
	index              int
	name               string
	args               json.RawMessage
	truncated          bool
	argsPath, namePath []any
	argsString         bool // the arguments are a JSON string holding them (OpenAI)
}

// bodyResult is what fixBody made of a body.
type bodyResult struct {
	body      []byte
	refused   string // the error to send instead, when a call was refused
	truncated int    // calls sent as written because they were cut off
}

// fixBody concludes the calls of a non-streamed answer; a body with nothing
// to change is sent byte for byte.
func (p *Proxy) fixBody(rs *request, body []byte) bodyResult {
	res := bodyResult{body: body}
	calls := openAIBodyCalls(body)
	if rs.api == apiAnthropic {
		calls = anthropicBodyCalls(body)
	}
	var edits []edit
	for _, c := range calls {
		d, ok := p.concludeBodyCall(rs, c)
		if !ok {
			continue
		}
		switch d.action {
		case actionRefused:
			res.refused = d.message
			return res
		case actionTruncated:
			res.truncated++
		case actionRepaired:
			edits = c.appendEdits(edits, body, d)
		}
	}
	res.body = applyEdits(body, edits)
	return res
}

// concludeBodyCall concludes a call; ok is false when it is no target
// tool's or has no arguments.
func (p *Proxy) concludeBodyCall(rs *request, c bodyCall) (d decision, ok bool) {
	tool := p.target(rs, c.name)
	if tool == nil {
		return decision{}, false
	}
	text := string(c.args)
	if len(c.args) > 0 && c.args[0] == '"' {
		var s string
		if json.Unmarshal(c.args, &s) == nil {
			text = s
		}
	}
	if strings.TrimSpace(text) == "" || text == "null" {
		return decision{}, false
	}
	return p.conclude(rs, callInfo{index: c.index, name: c.name, text: text, tool: tool, truncated: c.truncated}), true
}

// appendEdits appends the edits that send the call as d repaired it.
func (c bodyCall) appendEdits(edits []edit, body []byte, d decision) []edit {
	add := func(text []byte, path ...any) {
		if s, e, ok := valueAt(body, path...); ok {
			edits = append(edits, edit{start: s, end: e, text: text})
		}
	}
	if d.args != nil {
		if c.argsString {
			add(jsonString(string(d.args)), c.argsPath...)
		} else {
			add(d.args, c.argsPath...)
		}
	}
	if d.name != "" {
		add(jsonString(d.name), c.namePath...)
	}
	return edits
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
