package repair

import (
	"testing"
)

func TestSplitTemplateTokens(t *testing.T) {
	tests := []struct {
		name, base, tokens string
		ok                 bool
	}{
		{"create_event<|channel|>analysis", "create_event", "<|channel|>analysis", true},
		{"create_event <|constrain|>json", "create_event", "<|constrain|>json", true},
		{"read_file<|call|>", "read_file", "<|call|>", true},
		{"a<|im_end|><|im_start|>assistant", "a", "<|im_end|><|im_start|>assistant", true},
		{"create_event", "", "", false},
		{"<|channel|>analysis", "", "<|channel|>analysis", false},
		{"  <|channel|>analysis", "", "<|channel|>analysis", false},
		{"create_event<|channel", "", "", false},
		{"create_event<||>x", "", "", false},
		{"create_event<|chan nel|>x", "", "", false},
		{"a<b|c|>d", "", "", false},
	}
	for _, tt := range tests {
		base, tokens, ok := splitTemplateTokens(tt.name)
		if ok != tt.ok || ok && (base != tt.base || tokens != tt.tokens) {
			t.Errorf("splitTemplateTokens(%q) = %q, %q, %v; want %q, %q, %v", tt.name, base, tokens, ok, tt.base, tt.tokens, tt.ok)
		}
	}
}

// TestTemplateTokensInToolName: gpt-oss served by ollama leaks its harmony
// tokens into the tool name; the declared tool before them is the one meant.
func TestTemplateTokensInToolName(t *testing.T) {
	reg := mustRegistry(t)
	event, err := reg.Compile(ToolDef{Name: "create_event", Parameters: map[string]any{
		"type":       "object",
		"properties": map[string]any{"title": map[string]any{"type": "string"}, "start": map[string]any{"type": "string"}},
		"required":   []any{"title", "start"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	const args = `{"title":"Standup","start":"2026-11-27T09:00"}`
	tests := []struct {
		name    string
		call    Call
		tool    string
		repairs []Repair
		unknown bool
	}{
		{
			name:    "gpt-oss via ollama: <|channel|>analysis",
			call:    Call{Name: "create_event<|channel|>analysis", Form: FormText, Text: args},
			tool:    "create_event",
			repairs: []Repair{{Code: CodeToolAlias, Detail: `removed the chat-template tokens "<|channel|>analysis" glued to the tool name "create_event"`}},
		},
		{
			name:    "gpt-oss: <|constrain|>json",
			call:    Call{Name: "create_event<|constrain|>json", Form: FormText, Text: args},
			tool:    "create_event",
			repairs: []Repair{{Code: CodeToolAlias, Detail: `removed the chat-template tokens "<|constrain|>json" glued to the tool name "create_event"`}},
		},
		{
			name:    "gpt-oss: an alias before the tokens",
			call:    Call{Name: "Write<|channel|>commentary", Form: FormText, Text: `{"path":"a.txt","content":"x"}`},
			tool:    "write_to_file",
			repairs: []Repair{{Code: CodeToolAlias, Detail: `removed the chat-template tokens "<|channel|>commentary" glued to the tool name "Write", which is "write_to_file"`}},
		},
		{
			name:    "a role name is no tool",
			call:    Call{Name: "assistant<|channel|>analysis", Form: FormText, Text: args},
			tool:    "assistant<|channel|>analysis",
			unknown: true,
		},
		{
			name:    "only tokens",
			call:    Call{Name: "<|channel|>create_event", Form: FormText, Text: args},
			tool:    "<|channel|>create_event",
			unknown: true,
		},
		{
			name:    "no special token",
			call:    Call{Name: "create_event<channel>analysis", Form: FormText, Text: args},
			tool:    "create_event<channel>analysis",
			unknown: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := reg.Validate(tt.call, Options{Tools: []*Tool{event}})
			if res.ToolName != tt.tool {
				t.Errorf("tool %q, want %q", res.ToolName, tt.tool)
			}
			if tt.unknown {
				if !res.Has(CodeUnknownTool) || len(res.Repairs) != 0 {
					t.Errorf("repairs %+v violations %+v, want UNKNOWN_TOOL only", res.Repairs, res.Violations)
				}
				return
			}
			if !res.OK() || len(res.Repairs) != len(tt.repairs) {
				t.Fatalf("ok=%v repairs %+v violations %+v, want repairs %+v", res.OK(), res.Repairs, res.Violations, tt.repairs)
			}
			for i, r := range res.Repairs {
				if r != tt.repairs[i] {
					t.Errorf("repair %d = %+v, want %+v", i, r, tt.repairs[i])
				}
			}
		})
	}
}

// TestNameNoise: what servers leave around a tool's name (the functions.
// namespace, an end-of-text </s>, DeepSeek's full-width tokens) comes off
// when the rest names a tool; a name that is only noise names none.
func TestNameNoise(t *testing.T) {
	reg := mustRegistry(t)
	tests := []struct{ name, want string }{
		{"functions.write_to_file", "write_to_file"},
		{"write_to_file</s>", "write_to_file"},
		{"edit<｜tool▁sep｜>", "edit"},
		{"functions.Write", "write_to_file"},
		{"functions.", ""},
		{"</s>", ""},
		{"functions.no_such_tool", ""},
	}
	for _, tt := range tests {
		got, _ := reg.Resolve(tt.name, nil)
		name := ""
		if got != nil {
			name = got.Name()
		}
		if name != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.name, name, tt.want)
		}
	}
}
