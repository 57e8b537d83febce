package jsonrepair

import (
	"encoding/json"
	"testing"
)

// TestCutOrForgottenBrackets: text that ends with containers open was cut
// off, or its closing brackets were forgotten. Only an end that shows a
// complete call, a complete value with only the outermost object open, is
// the forgotten brace models leave out; every other end is a cut
// (Truncated), whatever value the text shows.
func TestCutOrForgottenBrackets(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
		truncated  bool
	}{
		// Forgotten final brace: repaired.
		{"claude write, brace left out after a string", `{"file_path": "src/app.py", "content": "print(1)"`, `{"content":"print(1)","file_path":"src/app.py"}`, false},
		{"qwen todo list, brace left out after the array", `{"todos": [{"content": "ship", "status": "pending"}]`, `{"todos":[{"content":"ship","status":"pending"}]}`, false},
		{"gemini flag, brace left out after a literal", `{"path": "a.py", "recursive": true`, `{"path":"a.py","recursive":true}`, false},
		// Cut: the next character was still to come.
		{"openai after the opener", `{`, `{}`, true},
		{"codex after an array opener", `{"todos": [`, `{"todos":[]}`, true},
		{"gpt after a comma", `{"command": ["git", "status"],`, `{"command":["git","status"]}`, true},
		{"gpt after a colon", `{"command": ["git"], "timeout":`, `{"command":["git"],"timeout":null}`, true},
		{"deepseek inside a key", `{"line": 3, "cont`, `{"cont":null,"line":3}`, true},
		{"llama inside a number", `{"verbose": 5`, `{"verbose":5}`, true},
		{"openai max tokens inside a number in an array", `{"view_range": [12, 40`, `{"view_range":[12,40]}`, true},
		{"mistral inside a literal", `{"path": "a.py", "recursive": fal`, `{"path":"a.py","recursive":false}`, true},
		{"python repr inside a literal", `{'path': 'a.py', 'recursive': Fal`, `{"path":"a.py","recursive":"Fal"}`, true},
		{"kimi inside a bare word", `{"mode": fas`, `{"mode":"fas"}`, true},
		// Cut after a complete item in a nested container: later items or
		// members are as likely as the forgotten brackets.
		{"codex after an array item", `{"command": ["test"`, `{"command":["test"]}`, true},
		{"todowrite after an item's member", `{"todos": [{"content": "ship", "status": "pending"`, `{"todos":[{"content":"ship","status":"pending"}]}`, true},
		{"nested object after a member", `{"cfg": {"a": "x"}, "b": {"c": true`, `{"b":{"c":true},"cfg":{"a":"x"}}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Repair(tc.text, Options{})
			if err != nil {
				t.Fatalf("Repair(%q): %v", tc.text, err)
			}
			got, _ := json.Marshal(r.Value)
			if string(got) != tc.want || r.Truncated != tc.truncated {
				t.Errorf("Repair(%q) = %s truncated %v, want %s truncated %v", tc.text, got, r.Truncated, tc.want, tc.truncated)
			}
		})
	}
}
