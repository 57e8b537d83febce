package stream

import (
	"slices"
	"strings"
	"testing"
)

// depthCall writes a call with arguments args as format does, then a
// second call that must complete whatever became of the first.
func depthCall(format Format, args string) []piece {
	switch format {
	case Hermes:
		return []piece{text(`<tool_call>{"name": "w", "arguments": ` + args + `}</tool_call>
between
<tool_call>{"name": "r", "arguments": {}}</tool_call>`)}
	case Anthropic:
		return []piece{frag(0, "a", "w", args), done(0), frag(1, "b", "r", "{}"), done(1)}
	default:
		return []piece{frag(0, "a", "w", args), frag(1, "b", "r", "{}")}
	}
}

// nested returns arguments that nest objects and arrays depth levels deep,
// the arguments object being the first.
func nested(depth int) string {
	return `{"a": ` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`
}

// TestMaxJSONDepth: a call whose JSON arguments nest deeper than the limit
// is dropped with JSON_TOO_DEEP, and the next call completes, however the
// input is split.
func TestMaxJSONDepth(t *testing.T) {
	const limit = 64
	for _, format := range []Format{OpenAI, Anthropic, Hermes} {
		for _, tc := range []struct {
			depth   int
			dropped bool
		}{{limit - 1, false}, {limit, false}, {limit + 1, true}} {
			for _, n := range []int{0, 1, 7} {
				pieces := depthCall(format, nested(tc.depth))
				if n > 0 {
					pieces = resplit(pieces, func(k int) []int {
						var out []int
						for i := n; i < k; i += n {
							out = append(out, i)
						}
						return out
					})
				}
				got := feed(t, format, Options{MaxJSONDepth: limit}, pieces, false)
				var names []string
				for _, c := range got.Calls {
					names = append(names, c.Name)
				}
				want, wantErrs := []string{"w", "r"}, []string(nil)
				if tc.dropped {
					want, wantErrs = []string{"r"}, []string{CodeJSONTooDeep}
				}
				if !slices.Equal(names, want) || !slices.Equal(got.Errors, wantErrs) {
					t.Errorf("%s, depth %d, pieces of %d: calls %v errors %v, want %v %v", format, tc.depth, n, names, got.Errors, want, wantErrs)
				}
				if !tc.dropped && got.Calls[0].Text != nested(tc.depth) {
					t.Errorf("%s, depth %d: arguments %q", format, tc.depth, got.Calls[0].Text)
				}
			}
		}
	}
}

// TestMaxJSONDepthMemory feeds 1 MiB of '[' as a call's arguments: the
// parser's memory stays bounded while it skips to the call's end (for
// Hermes, a closing tag outside strings), and the stream goes on.
func TestMaxJSONDepthMemory(t *testing.T) {
	const limit, total, piece = 64, 1 << 20, 4 << 10
	deep := strings.Repeat("[", piece)
	for _, format := range []Format{OpenAI, Anthropic, Hermes} {
		var events []Event
		p, err := New(format, Options{MaxJSONDepth: limit}, func(e Event) { events = append(events, e) })
		if err != nil {
			t.Fatal(err)
		}
		write := func(s string, index int, done bool) {
			if format == Hermes {
				err = p.Text(s)
			} else {
				err = p.ToolDelta(ToolDelta{Index: index, Name: "w", Arguments: s, Done: done})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		head, tail := `{"a": `, `"</tool_call>" ]]]`
		if format == Hermes {
			// A closing tag inside a string does not end the call.
			head = `<tool_call>{"name": "w", "arguments": ` + head
			tail += ` </tool_call> after <tool_call>{"name": "r", "arguments": {}}</tool_call>`
		}
		write(head, 0, false)
		for range total / piece {
			write(deep, 0, false)
			checkDepthMemory(t, p, limit, piece)
		}
		write(tail, 0, true)
		if format != Hermes {
			write("{}", 1, true)
		}
		if err := p.End(false); err != nil {
			t.Fatal(err)
		}
		out := newCollector(t)
		for _, e := range events {
			out.event(e)
		}
		if !slices.Equal(out.out.Errors, []string{CodeJSONTooDeep}) || len(out.out.Calls) != 1 || out.out.Calls[0].Text != "{}" {
			t.Errorf("%s: errors %v, %d calls", format, out.out.Errors, len(out.out.Calls))
		}
		if format == Hermes && out.out.Text != " after " {
			t.Errorf("hermes: text %q, want the prose after the dropped call only", out.out.Text)
		}
		for _, e := range events {
			if e.Code == CodeJSONTooDeep && !strings.Contains(e.Text, "more than 64 levels") {
				t.Errorf("%s: message %q", format, e.Text)
			}
		}
	}
}

// checkDepthMemory checks that the parser holds no stack past the limit
// and, once a call is dropped, none of its input.
func checkDepthMemory(t *testing.T, p *Parser, limit, piece int) {
	t.Helper()
	if p.calls != nil {
		for i, c := range p.calls.calls {
			if len(c.scan.stack) > limit || c.dropped && c.args != nil {
				t.Fatalf("call %d holds a stack of %d and %d bytes", i, len(c.scan.stack), len(c.args))
			}
		}
		return
	}
	if n := len(p.text.call.scan.stack); n > limit+1 || len(p.text.buf) > piece {
		t.Fatalf("hermes holds a stack of %d and %d bytes", n, len(p.text.buf))
	}
}
