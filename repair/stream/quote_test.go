package stream

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestQuotedCalls checks that markup a response only quotes is text in
// every format, byte for byte and however the response is split: inside a
// code fence, inline code or a blockquote, or followed by prose on its line.
func TestQuotedCalls(t *testing.T) {
	calls := map[Format]string{
		XMLTags:     "<write_to_file><path>a.txt</path><content>x</content></write_to_file>",
		Hermes:      `<tool_call>{"name": "write_to_file", "arguments": {"path": "a.txt", "content": "x"}}</tool_call>`,
		QwenXML:     "<tool_call>\n<function=write_to_file>\n<parameter=path>a.txt</parameter>\n<parameter=content>x</parameter>\n</function>\n</tool_call>",
		MiniMax:     `<minimax:tool_call><invoke name="write_to_file"><parameter name="path">a.txt</parameter></invoke></minimax:tool_call>`,
		ClaudeXML:   `<function_calls><invoke name="write_to_file"><parameter name="path">a.txt</parameter></invoke></function_calls>`,
		GLM45:       "<tool_call>write_to_file<arg_key>path</arg_key><arg_value>a.txt</arg_value></tool_call>",
		Harmony:     `<|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>{"path": "a.txt"}<|call|>`,
		DeepSeekV31: `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_to_file<｜tool▁sep｜>{"path": "a.txt"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`,
		KimiK2:      `<|tool_calls_section_begin|><|tool_call_begin|>functions.write_to_file:0<|tool_call_argument_begin|>{"path": "a.txt"}<|tool_call_end|><|tool_calls_section_end|>`,
		Mistral:     `[TOOL_CALLS][{"name": "write_to_file", "arguments": {"path": "a.txt"}}]`,
	}
	quotes := map[string]func(call string) string{
		"fenced": func(c string) string {
			return "The document contains this example:\n```\n" + c + "\n```\nI did not run it."
		},
		"fenced with a tilde":  func(c string) string { return "Example:\n~~~xml\n" + c + "\n~~~" },
		"fenced, never closed": func(c string) string { return "Example:\n```\n" + c },
		"inline code":          func(c string) string { return "The README says `" + c + "` should be run." },
		"blockquote":           func(c string) string { return "The issue says:\n> " + c + "\n\nI will not." },
		"in a sentence": func(c string) string {
			return "The README asks me to run " + c + " but that looks malicious, so I will NOT do it."
		},
		"a sentence that starts with it": func(c string) string { return c + " is what the page asks for; I won't." },
	}
	for format, call := range calls {
		for name, quote := range quotes {
			if format == Mistral && name == "a sentence that starts with it" {
				continue // [TOOL_CALLS] then prose is Mistral's own text after its calls
			}
			in := quote(call)
			for _, n := range []int{0, 1, 5} {
				pieces := []piece{text(in)}
				if n > 0 {
					pieces = resplit(pieces, everyN(n))
				}
				for _, f := range []Format{format, Auto} {
					got := feed(t, f, Options{Tools: xmlTools, MaxCallBytes: 1 << 20}, pieces, false)
					if len(got.Calls) != 0 || got.Text != in {
						t.Errorf("%s (%s), %s, pieces of %d: calls %v, text %q; want no call and the text as written", f, format, name, n, got.Calls, got.Text)
					}
				}
			}
		}
	}
}

// TestCallsAfterProse checks that calls the way templates really write them
// still parse: after prose on the same line or the line before, and with
// prose on a later line.
func TestCallsAfterProse(t *testing.T) {
	tests := []struct {
		name, in string
		format   Format
		text     string
	}{
		{"xml tags right after a sentence", "Adding it.<write_to_file><path>b.txt</path><content>hi</content></write_to_file>", XMLTags, "Adding it."},
		{"hermes on its own line", "I'll write it.\n<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>\n", Hermes, "I'll write it.\n"},
		{"deepseek right after prose", "Done.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>", DeepSeekV31, "Done."},
		{"a closed fence before the call", "```go\nx := 1\n```\n<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>", Hermes, "```go\nx := 1\n```\n"},
		{"inline code closed before the call", "Run `go test`, then:\n<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>", Hermes, "Run `go test`, then:\n"},
		{"prose on a later line", "<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>\nThat writes it.", Hermes, "\nThat writes it."},
		{"a blockquote ended by a blank line", "> note\n\n<tool_call>{\"name\": \"w\", \"arguments\": {}}</tool_call>", Hermes, "> note\n\n"},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 3} {
			pieces := []piece{text(tt.in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, tt.format, Options{Tools: xmlTools}, pieces, false)
			if len(got.Calls) != 1 || got.Text != tt.text || len(got.Errors) != 0 {
				t.Errorf("%s, pieces of %d: calls %v, text %q, errors %v; want one call and text %q", tt.name, n, got.Calls, got.Text, got.Errors, tt.text)
			}
		}
	}
}

// TestQuotedCallReported checks what a consumer sees of a call that prose
// followed: its start, then CALL_QUOTED, never its close.
func TestQuotedCallReported(t *testing.T) {
	var kinds []EventKind
	var codes []string
	p, err := New(Hermes, Options{}, func(e Event) {
		kinds = append(kinds, e.Kind)
		if e.Kind == EventError {
			codes = append(codes, e.Code)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	in := `Run <tool_call>{"name": "w", "arguments": {"c": "x"}}</tool_call> now.`
	for i := range len(in) {
		_ = p.Text(in[i : i+1])
	}
	_ = p.End(false)
	for _, k := range kinds {
		if k == EventCallClosed {
			t.Fatalf("a quoted call closed: %v", kinds)
		}
	}
	if strings.Join(codes, ",") != CodeCallQuoted {
		t.Errorf("errors %v, want [%s]", codes, CodeCallQuoted)
	}
}

func everyN(n int) func(k int) []int {
	return func(k int) []int {
		var out []int
		for i := n; i < k; i += n {
			out = append(out, i)
		}
		return out
	}
}

// TestHarmonyCallWithoutItsStop: servers take <|call|> for a stop token and
// keep it, so a gpt-oss call whose arguments are complete when the response
// ends is the whole call, not a truncated one; a body cut short still is.
func TestHarmonyCallWithoutItsStop(t *testing.T) {
	head := "<|channel|>analysis<|message|>Need to write.<|end|><|start|>assistant<|channel|>commentary to=functions.write_to_file <|constrain|>json<|message|>"
	tests := []struct {
		name, in  string
		truncated bool
	}{
		{"gpt-oss via vllm, <|call|> swallowed", head + `{"path": "a.txt", "content": "hi"}`, false},
		{"gpt-oss cut inside its arguments", head + `{"path": "a.txt", "content": "h`, true},
	}
	for _, tt := range tests {
		for _, f := range []Format{Harmony, Auto} {
			for _, n := range []int{0, 1, 7} {
				pieces := []piece{text(tt.in)}
				if n > 0 {
					pieces = resplit(pieces, everyN(n))
				}
				got := feed(t, f, Options{Tools: xmlTools}, pieces, false)
				if len(got.Calls) != 1 || got.Calls[0].Truncated != tt.truncated || got.Calls[0].Name != "write_to_file" {
					t.Errorf("%s, %s, pieces of %d: calls %+v, want one, truncated %v", tt.name, f, n, got.Calls, tt.truncated)
				}
			}
		}
	}
}

// TestKimiSpaceAfterCallBegin: Kimi K2 may put a newline or spaces between
// <|tool_call_begin|> and the call's id; the call is still read, not leaked
// into the text.
func TestKimiSpaceAfterCallBegin(t *testing.T) {
	in := "Reading it.<|tool_calls_section_begin|><|tool_call_begin|>\n  functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"a.py\"}<|tool_call_end|><|tool_calls_section_end|>"
	for _, f := range []Format{KimiK2, Auto} {
		for _, n := range []int{0, 1, 5} {
			pieces := []piece{text(in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, f, Options{Tools: xmlTools}, pieces, false)
			if len(got.Calls) != 1 || got.Calls[0].Name != "read_file" || got.Calls[0].Truncated || got.Text != "Reading it." {
				t.Errorf("%s, pieces of %d: text %q, calls %+v", f, n, got.Text, got.Calls)
			}
		}
	}
}

// TestHermesBareObject: a Hermes response that is one bare call object, its
// <tool_call> tags dropped by the server, is the call; an object after
// prose, or of another shape, stays text.
func TestHermesBareObject(t *testing.T) {
	tests := []struct {
		name, in, text string
		calls          int
	}{
		{"qwen2.5 call without its tags", "\n{\"name\": \"write_to_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"hi\"}}\n", "", 1},
		{"an object after prose", "Here: {\"name\": \"write_to_file\", \"arguments\": {}}", "Here: {\"name\": \"write_to_file\", \"arguments\": {}}", 0},
		{"an object of another shape", "{\"a\": 1}", "{\"a\": 1}", 0},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 6} {
			pieces := []piece{text(tt.in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, Hermes, Options{Tools: xmlTools}, pieces, false)
			if len(got.Calls) != tt.calls || got.Text != tt.text || tt.calls == 1 && (got.Calls[0].Name != "write_to_file" || got.Calls[0].Truncated) {
				t.Errorf("%s, pieces of %d: text %q, calls %+v", tt.name, n, got.Text, got.Calls)
			}
		}
	}
}

// TestPythonicStartAfterProse: Llama 4 writes <|python_start|> after a
// sentence; the list after it is read, and a quoted token stays text.
func TestPythonicStartAfterProse(t *testing.T) {
	tests := []struct {
		name, in, text string
		calls          int
	}{
		{"llama 4 after a sentence", "I'll read it.<|python_start|>[read_file(path='a.py')]<|python_end|>", "I'll read it.", 1},
		{"the token quoted in inline code", "Lists open with `<|python_start|>[read_file(path='a.py')]` here.", "Lists open with `<|python_start|>[read_file(path='a.py')]` here.", 0},
	}
	for _, tt := range tests {
		for _, n := range []int{0, 1, 4} {
			pieces := []piece{text(tt.in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, Pythonic, Options{Tools: xmlTools}, pieces, false)
			if len(got.Calls) != tt.calls || got.Text != tt.text || tt.calls == 1 && got.Calls[0].Name != "read_file" {
				t.Errorf("%s, pieces of %d: text %q, calls %+v", tt.name, n, got.Text, got.Calls)
			}
		}
	}
}

// TestQwenMissingParameterClose: qwen3-coder leaves out </parameter> before
// </function></tool_call>; the two closing tags prove the value complete, as
// vLLM reads it, so the call is whole and says what was inferred.
func TestQwenMissingParameterClose(t *testing.T) {
	in := "<tool_call>\n<function=write_to_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nhello\n</function>\n</tool_call>"
	for _, f := range []Format{QwenXML, Auto} {
		for _, n := range []int{0, 1, 7} {
			pieces := []piece{text(in)}
			if n > 0 {
				pieces = resplit(pieces, everyN(n))
			}
			got := feed(t, f, Options{Tools: xmlTools}, pieces, false)
			if len(got.Calls) != 1 || got.Calls[0].Truncated || got.Calls[0].Params["content"] != "hello" || got.Calls[0].Params["path"] != "a.txt" ||
				len(got.Calls[0].Repairs) != 1 || got.Calls[0].Repairs[0].Code != repair.CodeXMLRepaired {
				t.Errorf("%s, pieces of %d: calls %+v", f, n, got.Calls)
			}
		}
	}
}
