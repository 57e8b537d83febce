package stream

import (
	"slices"
	"strings"
	"testing"
)

// testBudget is a Budget that records its peak and fails the test on a
// release of more than was drawn.
type testBudget struct {
	t                 testing.TB
	limit, used, peak int
}

func (b *testBudget) Grow(n int) bool {
	if n <= 0 {
		b.t.Errorf("Grow(%d)", n)
	}
	if b.used+n > b.limit {
		return false
	}
	b.used += n
	b.peak = max(b.peak, b.used)
	return true
}

func (b *testBudget) Release(n int) {
	if n <= 0 || n > b.used {
		b.t.Errorf("Release(%d) with %d drawn", n, b.used)
	}
	b.used -= n
}

func TestBudget(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	xmlCall := func(n int) string {
		return "<write_to_file><path>a</path><content>" + x(n) + "</content></write_to_file>"
	}
	tests := []struct {
		name   string
		format Format
		pieces []piece
		want   []string // error codes
		calls  int
	}{
		{"xml calls one after another", XMLTags, []piece{text(xmlCall(30) + "\nbetween\n" + xmlCall(30))}, nil, 2},
		{"xml call past the budget, then one within", XMLTags, []piece{text(xmlCall(150) + " after " + xmlCall(10))}, []string{CodeCallTooLarge}, 1},
		{"openai calls open together", OpenAI, []piece{frag(0, "a", "w", `{"c": "`+x(60)+`"}`), frag(1, "b", "w", `{"c": "`+x(60)+`"}`), frag(2, "c", "r", `{}`)},
			[]string{CodeCallTooLarge}, 2},
		{"anthropic calls closed in turn", Anthropic, []piece{frag(0, "a", "w", `{"c": "`+x(60)+`"}`), done(0), frag(1, "b", "w", `{"c": "`+x(60)+`"}`), done(1)}, nil, 2},
		{"hermes call past the budget", Hermes, []piece{text(`<tool_call>{"name": "w", "arguments": {"c": "` + x(150) + `"}}</tool_call> after`)}, []string{CodeCallTooLarge}, 0},
		{"qwen call past the budget", QwenXML, []piece{text("<function=w><parameter=c>" + x(150) + "</parameter></function>")}, []string{CodeCallTooLarge}, 0},
		{"minimax call within the budget", MiniMax, []piece{text(`<minimax:tool_call><invoke name="w"><parameter name="c">` + x(1) + `</parameter></invoke></minimax:tool_call>`)}, nil, 1},
	}
	for _, tt := range tests {
		for _, split := range []string{"whole", "bytes"} {
			t.Run(tt.name+"/"+split, func(t *testing.T) {
				pieces := tt.pieces
				if split == "bytes" {
					pieces = resplit(pieces, func(n int) []int {
						out := make([]int, n)
						for i := range out {
							out[i] = i
						}
						return out
					})
				}
				b := &testBudget{t: t, limit: 100}
				got := feed(t, tt.format, Options{Tools: xmlTools, Budget: b}, pieces, false)
				if !slices.Equal(got.Errors, tt.want) || len(got.Calls) != tt.calls {
					t.Errorf("errors %v and %d calls, want %v and %d", got.Errors, len(got.Calls), tt.want, tt.calls)
				}
				if b.peak > b.limit || tt.calls > 0 && b.peak == 0 {
					t.Errorf("peak %d drawn of %d", b.peak, b.limit)
				}
				if b.used != 0 {
					t.Errorf("%d bytes still drawn after End", b.used)
				}
			})
		}
	}
}

// TestBudgetShared checks that parsers sharing a budget hold at most its
// bytes together, and that a call refused for want of it fits once another
// parser's call has closed.
func TestBudgetShared(t *testing.T) {
	b := &testBudget{t: t, limit: 100}
	var codes []string
	var msg string
	record := func(e Event) {
		if e.Kind == EventError {
			codes, msg = append(codes, e.Code), e.Text
		}
	}
	a, err := New(OpenAI, Options{Budget: b}, record)
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(XMLTags, Options{Tools: xmlTools, Budget: b}, record)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.ToolDelta(ToolDelta{Index: 0, Name: "w", Arguments: `{"c": "` + strings.Repeat("x", 70)}))
	must(other.Text("<write_to_file><path>a</path><content>" + strings.Repeat("y", 40)))
	if !slices.Equal(codes, []string{CodeCallTooLarge}) || !strings.Contains(msg, "in use") {
		t.Fatalf("errors %v (%q), want the budget's CALL_TOO_LARGE", codes, msg)
	}
	must(a.End(false))
	if b.used != 0 {
		t.Fatalf("%d bytes drawn after the first parser ended", b.used)
	}
	must(other.Text("</content></write_to_file><write_to_file><path>b</path><content>" + strings.Repeat("y", 40)))
	must(other.End(false))
	if len(codes) != 1 || b.used != 0 {
		t.Errorf("errors %v and %d bytes drawn after the second call", codes, b.used)
	}
}

// TestBudgetHeldWhileWaiting checks that a closed call waiting for the
// end of its line keeps its bytes drawn from the shared budget, so closing
// calls without ending the response does not hold memory beyond it, and
// that the response's end gives them back.
func TestBudgetHeldWhileWaiting(t *testing.T) {
	b := &testBudget{t: t, limit: 150}
	var codes []string
	record := func(e Event) {
		if e.Kind == EventError {
			codes = append(codes, e.Code)
		}
	}
	waiting, err := New(XMLTags, Options{Tools: xmlTools, Budget: b}, record)
	if err != nil {
		t.Fatal(err)
	}
	call := "<write_to_file><path>a</path><content>" + strings.Repeat("x", 40) + "</content></write_to_file>"
	if err := waiting.Text(call); err != nil {
		t.Fatal(err)
	}
	if b.used < len(call) {
		t.Fatalf("%d bytes drawn while a %d-byte call waits", b.used, len(call))
	}
	other, err := New(XMLTags, Options{Tools: xmlTools, Budget: b}, record)
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Text(call); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(codes, []string{CodeCallTooLarge}) {
		t.Fatalf("errors %v, want the budget's CALL_TOO_LARGE for the second call", codes)
	}
	if err := waiting.End(false); err != nil {
		t.Fatal(err)
	}
	if err := other.End(false); err != nil {
		t.Fatal(err)
	}
	if b.used != 0 {
		t.Errorf("%d bytes still drawn after End", b.used)
	}
}
