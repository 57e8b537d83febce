package jsonrepair

import "testing"

// TestStrayWords: a bare word after a JSON value, with no comma before it,
// could be a value the model meant or junk it wrote; either reading may
// be wrong, so the text is refused (ErrStrayText). Bare words that are the
// values themselves are read as before.
func TestStrayWords(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // "" when refused
	}{
		{"todowrite number then a word", `{"todos": [{"limit": 1454 oops}]}`, ""},
		{"gpt literal then a word in a list", `["x", false oops, "y"]`, ""},
		{"gemini null then a word in a list", `[null extra, {"a": 1}]`, ""},
		{"qwen string then a line of prose in a list", "[\"x\"\nDone.]", ""},
		{"deepseek number then a line of prose", "{\"verbose\": 579\nDone.}", ""},
		{"llama number then a remark in parentheses", `{"limit": 1708 (see above)}`, ""},
		{"mistral literal then a word as a value", `{"recursive": true oops}`, ""},
		// Bare words that are the values.
		{"unquoted words as a value", `{"key": value with spaces}`, `{"key":"value with spaces"}`},
		{"list of bare words on lines", "{\"array\": [\na\nb\n]}", `{"array":["a","b"]}`},
		{"members without commas", "{\"a\": 1\n\"b\": 2}", `{"a":1,"b":2}`},
		{"bare keys without commas", "{a: 1\nb: true}", `{"a":1,"b":true}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRepair(t, tc.text, Options{}, tc.want, ErrStrayText)
		})
	}
}
