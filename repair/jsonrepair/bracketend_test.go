package jsonrepair

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestForgottenQuoteBeforeBrackets: a string with no closing quote of its
// own ends before the closing brackets that end the text only where the
// text before them balances its brackets in every reading of its quotes:
// counted raw, and with each quote kind's spans skipped, since a bracket
// inside the content's own string literal or comment is no block's. One left open
// in some reading means the bracket may be content, the text cut off; one
// closed unopened means the string may have ended there.
func TestForgottenQuoteBeforeBrackets(t *testing.T) {
	const truncated, ambiguous = "truncated", "ambiguous"
	tests := []struct {
		name, text string
		want       string
	}{
		{"a url", `{"url": "https://x.org/a}`, `{"url":"https://x.org/a"}`},
		{"a bracket the content's first character", `{"path": "a.go", "content": "}`, truncated},
		{"a bracket after space only", `{"content": "\n  ]}`, truncated},
		{"balanced code", `{"content": "if (a) {\n  b()\n}\n}`, `{"content":"if (a) {\n  b()\n}"}`},
		{"a block left open", `{"content": "if (a) {\n  b()\n}`, truncated},
		{"a brace in a code string closes no block", `{"path": "a.rs", "content": "fn main() {\n    println!(\"{}\", \"brace } quote \\\" end\");\n}`, truncated},
		{"a brace in a single-quoted code string", `{"content": "if (a) {\n  s = '}';\n}`, truncated},
		{"a brace in a template literal", "{\"content\": \"if (a) {\\n  s = `}`;\\n}", truncated},
		{"a brace in a line comment", `{"content": "if (a) {\n  // }\n  b()\n}`, truncated},
		{"a brace in a shell comment", `{"content": "f() {\n  # }\n  g\n}`, truncated},
		{"an opening brace in a code string", `{"content": "s = \"{\"; t }; u}`, ambiguous},
		{"brackets balanced inside and out of a string", `{"content": "x = \"{a}\" + f(1)}`, `{"content":"x = \"{a}\" + f(1)"}`},
		{"an apostrophe in prose", `{"msg": "it's {fine} now}`, `{"msg":"it's {fine} now"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Repair(tc.text, Options{})
			switch tc.want {
			case ambiguous:
				if !errors.Is(err, ErrAmbiguousQuote) {
					t.Fatalf("err = %v (value %v, truncated %v), want ErrAmbiguousQuote", err, r.Value, r.Truncated)
				}
				return
			case truncated:
				if err != nil || !r.Truncated {
					t.Fatalf("err = %v, value %v, truncated %v; want truncated", err, r.Value, r.Truncated)
				}
				return
			}
			if err != nil || r.Truncated {
				t.Fatalf("err = %v, truncated %v", err, r.Truncated)
			}
			if got, _ := json.Marshal(r.Value); string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
