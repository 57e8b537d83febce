package proxy

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
)

// TestReplay: a recorded exchange is judged with the proxy's readers, its
// API named or read from the answer; a replayer judges every call, past
// one enforce mode would refuse.
func TestReplay(t *testing.T) {
	bad := synthCall{index: 0, name: "Write", frags: []string{`{"path": 3}`}}
	python := synthCall{index: 1, name: "write", frags: []string{`{'path': 'a.txt', `, `'content': 'hi'}`}}
	repaired := CallReport{Tool: "Write", Index: 1, Action: "repaired", Repairs: []string{"PYTHON_LITERAL", "TOOL_ALIAS"},
		NameWritten: "write", Arguments: `{'path': 'a.txt', 'content': 'hi'}`, Repaired: []byte(`{"content":"hi","path":"a.txt"}`)}
	invalid := CallReport{Tool: "Write", Action: "invalid", Repairs: []string{"TYPE_COERCED"}, Violations: []string{"MISSING_REQUIRED"},
		NameWritten: "Write", Arguments: `{"path": 3}`}
	tests := []struct {
		name string
		ex   Exchange
		want []CallReport
	}{
		{"openai stream, API read", Exchange{Request: requestBody("openai", true, true),
			Response: openAIStream([]synthCall{bad, python}, "tool_calls"), Stream: true},
			[]CallReport{invalid, repaired}},
		{"anthropic stream, API read", Exchange{Request: requestBody("anthropic", true, true),
			Response: anthropicStream([]synthCall{bad, python}, "tool_use", true), Stream: true},
			[]CallReport{invalid, repaired}},
		{"openai body, API named", Exchange{API: "openai", Request: requestBody("openai", false, true),
			Response: openAIBody("Write", `{"path": 3}`, "tool_calls")},
			[]CallReport{invalid}},
		{"anthropic body", Exchange{Request: requestBody("anthropic", false, true),
			Response: anthropicBody("write", `{"path": "a.txt", "content": "hi"}`, "tool_use")},
			[]CallReport{{Tool: "Write", Index: 1, Action: "repaired", Repairs: []string{"TOOL_ALIAS"}, NameWritten: "write",
				Arguments: `{"path": "a.txt", "content": "hi"}`}}},
		{"error answer", Exchange{Request: requestBody("openai", false, true), Response: []byte(`{"error": {"message": "no"}}`)}, nil},
		{"no tools declared", Exchange{Request: requestBody("openai", false, false),
			Response: openAIBody("Write", `{"path": 3}`, "tool_calls")}, nil},
	}
	cfg := DefaultConfig()
	cfg.Fallback = false // a replayer judges past a refusal all the same
	p, err := NewReplayer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Replay(context.Background(), tt.ex)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tt.want {
				w := &tt.want[i]
				w.API, w.Model, w.Stream = map[bool]string{true: "anthropic", false: "openai"}[isAnthropic(tt.ex)], "test-model", tt.ex.Stream
				if w.Action == "invalid" {
					w.Action = "refused" // fallback off
				}
			}
			for i := range got {
				// A refusal's feedback names what is wrong; its wording is
				// the repair package's (tested there).
				if refused := got[i].Action == "refused"; refused != strings.Contains(got[i].Feedback, `Missing required parameter "content"`) {
					t.Errorf("call %d (%s): feedback %q", i, got[i].Action, got[i].Feedback)
				}
				got[i].Feedback = ""
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %s\nwant %s", fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", tt.want))
			}
		})
	}
}

func isAnthropic(ex Exchange) bool {
	a, _ := exchangeAPI(ex)
	return a == apiAnthropic
}

func TestReplayCall(t *testing.T) {
	p, err := NewReplayer(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	tools, err := p.Compile([]repair.ToolDef{{Name: "Write", Parameters: map[string]any{"type": "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}}})
	if err != nil {
		t.Fatal(err)
	}
	r, ok := p.ReplayCall(context.Background(), "m", "Write", `{"path": 1}`, tools)
	want := CallReport{API: "openai", Model: "m", Tool: "Write", Action: "repaired", Repairs: []string{"TYPE_COERCED"},
		NameWritten: "Write", Arguments: `{"path": 1}`, Repaired: []byte(`{"path":"1"}`)}
	if !ok || !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v, %v; want %+v", r, ok, want)
	}
	if _, ok := p.ReplayCall(context.Background(), "m", "Bash", `{}`, tools); ok {
		t.Error("a tool not given was judged")
	}
	if _, err := p.Compile([]repair.ToolDef{{Name: "x", Parameters: map[string]any{"type": 3}}}); err == nil {
		t.Error("a broken schema compiled")
	}
}
