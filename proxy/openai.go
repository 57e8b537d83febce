package proxy

import (
	"bytes"

	"github.com/toolguard/toolguard/repair/stream"
)

// OpenAI chat completion chunks.

// openAIChunk is what the proxy reads of a chunk; its slices are reused.
type openAIChunk struct {
	choices []openAIChoice
	calls   []openAIToolCall
}

type openAIChoice struct {
	index  int
	finish []byte // nil when null or absent
}

type openAIToolCall struct {
	choice     int // index of the choice
	index      int
	name, args span // end 0 when absent (or not a string)
}

// parse reads a chunk's choices and tool call deltas.
func (c *openAIChunk) parse(data []byte) bool {
	c.choices, c.calls = c.choices[:0], c.calls[:0]
	top := skipSpace(data, 0)
	end := members(data, top, func(key []byte, v int) int {
		if string(key) != "choices" {
			return skipValue(data, v)
		}
		if data[v] == 'n' {
			return skipValue(data, v) // null
		}
		return elements(data, v, func(_, v int) int {
			ch := openAIChoice{}
			first := len(c.calls)
			end := members(data, v, func(key []byte, v int) int {
				switch string(key) {
				case "index":
					n, end := intAt(data, v)
					ch.index = n
					return end
				case "finish_reason":
					s, end, ok := stringAt(data, v)
					if ok {
						ch.finish, _ = appendUnquoted(nil, data[s.start:s.end])
					}
					return end
				case "delta":
					return members(data, v, func(key []byte, v int) int {
						if string(key) != "tool_calls" || data[v] == 'n' {
							return skipValue(data, v)
						}
						return elements(data, v, func(_, v int) int {
							tc := openAIToolCall{}
							end := members(data, v, func(key []byte, v int) int {
								switch string(key) {
								case "index":
									n, end := intAt(data, v)
									tc.index = n
									return end
								case "function":
									if data[v] == 'n' {
										return skipValue(data, v)
									}
									return members(data, v, func(key []byte, v int) int {
										switch string(key) {
										case "name":
											s, end, ok := stringAt(data, v)
											if ok {
												tc.name = s
											}
											return end
										case "arguments":
											s, end, ok := stringAt(data, v)
											if ok {
												tc.args = s
											}
											return end
										}
										return skipValue(data, v)
									})
								}
								return skipValue(data, v)
							})
							c.calls = append(c.calls, tc)
							return end
						})
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
		})
	})
	return end >= 0
}

var (
	markToolCalls    = []byte(`"tool_calls"`)
	markFinishReason = []byte(`"finish_reason"`)
	markDone         = []byte("[DONE]")
)

// openAIFixer follows a chat completions stream.
type openAIFixer struct{ *fixer }

func (f openAIFixer) event(raw []byte) {
	if f.halt {
		return
	}
	data, _, single, ok := eventData(raw)
	if !ok {
		f.pass(raw)
		return
	}
	if bytes.Equal(bytes.TrimSpace(data), markDone) {
		// The end: calls still open are complete (OpenAI marks no call's
		// end), as the stream parser concludes them.
		f.finish(all, never)
		f.pass(raw)
		f.drain()
		return
	}
	chunk := &f.oa
	if sp, ok := f.tmpl.match(data, single); ok {
		// The same chunk as the last one but for its argument fragment.
		chunk.choices = append(chunk.choices[:0], openAIChoice{index: f.tmpl.key.choice})
		chunk.calls = append(chunk.calls[:0], openAIToolCall{choice: f.tmpl.key.choice, index: f.tmpl.key.index, args: sp})
	} else {
		calls := bytes.Contains(data, markToolCalls)
		if !calls && (f.open == 0 || !bytes.Contains(data, markFinishReason)) {
			f.pass(raw)
			return
		}
		if !chunk.parse(data) {
			f.pass(raw)
			return
		}
		f.tmpl.valid = false
		if len(chunk.calls) == 1 && len(chunk.choices) == 1 && chunk.choices[0].finish == nil && single {
			if tc := chunk.calls[0]; tc.name.end == 0 && tc.args.end > 0 {
				f.tmpl.set(data, tc.args, callKey{tc.choice, tc.index})
			}
		}
	}
	ev := f.enqueue(raw)
	for _, tc := range chunk.calls {
		key := callKey{tc.choice, tc.index}
		c := f.calls[key]
		if c == nil {
			c = f.newCall(key)
		}
		switch c.state {
		case statePassing:
			continue
		case stateDone:
			if tc.args.end > 0 {
				frag, _ := appendUnquoted(nil, data[tc.args.start:tc.args.end])
				f.late(c, ev, tc.args, frag)
			}
			continue
		}
		if tc.name.end == 0 && tc.args.end == 0 {
			continue
		}
		if tc.name.end > 0 && c.state == stateDeciding {
			// Some servers repeat the whole name on every fragment.
			if n, _ := appendUnquoted(nil, data[tc.name.start:tc.name.end]); string(n) != string(c.name) {
				c.name = append(c.name, n...)
			}
		}
		fresh := 0
		if tc.args.end > 0 {
			before := len(c.args)
			c.args, _ = appendUnquoted(c.args, data[tc.args.start:tc.args.end])
			fresh = len(c.args) - before
		}
		f.fragment(c, fragment{ev: ev, name: tc.name, args: tc.args})
		if c.state == stateDeciding && fresh > 0 {
			f.decide(c)
		} else {
			f.advance(c)
		}
	}
	for _, ch := range chunk.choices {
		if len(ch.finish) > 0 {
			choice := ch.index
			length := stream.IsLengthLimit(string(ch.finish))
			f.finish(func(k callKey) bool { return k.choice == choice }, func(*streamCall) bool { return length })
		}
	}
	f.drain()
}
