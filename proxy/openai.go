package proxy

import (
	"bytes"
	"encoding/json"

	"github.com/toolguard/toolguard/repair/stream"
)

// openAIChunk is what the proxy reads of a chat completion chunk; its
// slices are reused.
type openAIChunk struct {
	choices []openAIChoice
	calls   []openAIToolCall
	done    bool // [DONE], not a chunk
}

type openAIChoice struct {
	index  int
	finish []byte // nil when null or absent
}

type openAIToolCall struct {
	choice     int
	index      int
	name, args span // end 0 when absent (or not a string)
}

// parse reads a chunk's choices and tool call deltas.
func (c *openAIChunk) parse(data []byte) bool {
	c.choices, c.calls, c.done = c.choices[:0], c.calls[:0], false
	end := members(data, skipSpace(data, 0), func(key []byte, v int) int {
		if string(key) != "choices" || data[v] == 'n' {
			return skipValue(data, v)
		}
		return elements(data, v, func(_, v int) int { return c.parseChoice(data, v) })
	})
	return end >= 0
}

func (c *openAIChunk) parseChoice(data []byte, v int) int {
	ch := openAIChoice{}
	first := len(c.calls)
	end := members(data, v, func(key []byte, v int) int {
		switch string(key) {
		case "index":
			return readInt(data, v, &ch.index)
		case "finish_reason":
			return readText(data, v, &ch.finish)
		case "delta":
			return members(data, v, func(key []byte, v int) int {
				if string(key) != "tool_calls" || data[v] == 'n' {
					return skipValue(data, v)
				}
				return elements(data, v, func(_, v int) int { return c.parseToolCall(data, v) })
			})
		}
		return skipValue(data, v)
	})
	// The choice's index may come after its delta.
	for i := first; i < len(c.calls); i++ {
		c.calls[i].choice = ch.index
	}
	c.choices = append(c.choices, ch)
	return end
}

func (c *openAIChunk) parseToolCall(data []byte, v int) int {
	tc := openAIToolCall{}
	end := members(data, v, func(key []byte, v int) int {
		switch string(key) {
		case "index":
			return readInt(data, v, &tc.index)
		case "function":
			if data[v] == 'n' {
				return skipValue(data, v)
			}
			return members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "name":
					return readString(data, v, &tc.name)
				case "arguments":
					return readString(data, v, &tc.args)
				}
				return skipValue(data, v)
			})
		}
		return skipValue(data, v)
	})
	c.calls = append(c.calls, tc)
	return end
}

var (
	markToolCalls    = []byte(`"tool_calls"`)
	markFinishReason = []byte(`"finish_reason"`)
	markDone         = []byte("[DONE]")
)

// openAIFixer follows a chat completions stream.
type openAIFixer struct{ *fixer }

func (f openAIFixer) event(raw []byte) { f.fixer.event(raw, f) }

func (f openAIFixer) read(data []byte) reading {
	if bytes.Equal(bytes.TrimSpace(data), markDone) {
		f.oa.done = true
		return readMarker
	}
	if !bytes.Contains(data, markToolCalls) && (f.open == 0 || !bytes.Contains(data, markFinishReason)) {
		return readNone
	}
	if !f.oa.parse(data) {
		return readNone
	}
	return readJSON
}

func (f openAIFixer) readFragment(s span, key callKey) {
	chunk := &f.oa
	chunk.choices = append(chunk.choices[:0], openAIChoice{index: key.choice})
	chunk.calls = append(chunk.calls[:0], openAIToolCall{choice: key.choice, index: key.index, args: s})
	chunk.done = false
}

func (f openAIFixer) fragmentOnly() (span, callKey, bool) {
	chunk := &f.oa
	if len(chunk.calls) != 1 || len(chunk.choices) != 1 || chunk.choices[0].finish != nil {
		return span{}, callKey{}, false
	}
	tc := chunk.calls[0]
	return tc.args, callKey{tc.choice, tc.index}, tc.name.end == 0 && tc.args.end > 0
}

func (f openAIFixer) handle(raw, data []byte) bool {
	if f.oa.done {
		// Calls still open are complete: OpenAI marks no call's end.
		f.finish(all, never)
		f.pass(raw)
		return true
	}
	ev := f.enqueue(raw)
	for _, tc := range f.oa.calls {
		f.toolCall(ev, data, tc)
	}
	for _, ch := range f.oa.choices {
		if len(ch.finish) > 0 {
			choice := ch.index
			length := stream.IsLengthLimit(string(ch.finish))
			f.finish(func(k callKey) bool { return k.choice == choice }, func(*streamCall) bool { return length })
		}
	}
	return true
}

// toolCall follows a tool call delta of the chunk queued at ev.
func (f openAIFixer) toolCall(ev int, data []byte, tc openAIToolCall) {
	key := callKey{tc.choice, tc.index}
	c := f.call(key)
	if c == nil {
		c = f.newCall(key)
	}
	switch {
	case c.state == statePassing:
		return
	case c.state == stateDone:
		if tc.args.end > 0 {
			f.late(c, ev, data, tc.args)
		}
		return
	case tc.name.end == 0 && tc.args.end == 0:
		return
	}
	if tc.name.end > 0 && c.state == stateDeciding {
		// Some servers repeat the whole name on every fragment.
		if n, _ := appendUnquoted(nil, data[tc.name.start:tc.name.end]); string(n) != string(c.name) {
			c.name = append(c.name, n...)
		}
	}
	fresh := 0
	if tc.args.end > 0 {
		fresh = f.appendArgs(c, data[tc.args.start:tc.args.end])
	}
	f.fragment(c, fragment{ev: ev, name: tc.name, args: tc.args})
	if c.state == stateDeciding && fresh > 0 {
		f.decide(c)
	} else {
		f.advance(c)
	}
}

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

// openAIBodyCalls returns the calls of a chat completion.
func openAIBodyCalls(body []byte) []bodyCall {
	var r openAIResponse
	if !bytes.Contains(body, markToolCalls) || json.Unmarshal(body, &r) != nil {
		return nil
	}
	var out []bodyCall
	for k, ch := range r.Choices {
		calls := ch.Message.ToolCalls
		for m, tc := range calls {
			function := []any{"choices", k, "message", "tool_calls", m, "function"}
			out = append(out, bodyCall{
				index: m, name: tc.Function.Name, args: tc.Function.Arguments,
				// With a length limit, the last call is the one cut off.
				truncated: stream.IsLengthLimit(ch.FinishReason) && m == len(calls)-1,
				argsPath:  append(function[:6:6], "arguments"), namePath: append(function[:6:6], "name"),
				argsString: true,
			})
		}
	}
	return out
}
