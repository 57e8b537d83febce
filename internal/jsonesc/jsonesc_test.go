package jsonesc

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestUnicode(t *testing.T) {
	tests := []struct {
		in string
		r  rune
		n  int
	}{
		{`\u00e9`, 'é', 6},
		{`\u00E9x`, 'é', 6},
		{`\ud83d\ude00`, '😀', 12},
		{`\uD83D\uDE00`, '😀', 12},
		{`\ud83d`, 0xD83D, 6},
		{`\ud83dx\ude00`, 0xD83D, 6},
		{`\ud83d\u0041`, 0xD83D, 6},
		{`\ude00\ud83d`, 0xDE00, 6},
		{`\u12`, 0, 0},
		{`\u12g4`, 0, 0},
		{`\x1234`, 0, 0},
		{``, 0, 0},
	}
	for _, tt := range tests {
		if r, n := Unicode(tt.in); r != tt.r || n != tt.n {
			t.Errorf("Unicode(%q) = %U, %d; want %U, %d", tt.in, r, n, tt.r, tt.n)
		}
		if r, n := Unicode([]byte(tt.in)); r != tt.r || n != tt.n {
			t.Errorf("Unicode([]byte(%q)) = %U, %d; want %U, %d", tt.in, r, n, tt.r, tt.n)
		}
	}
}

func TestPartial(t *testing.T) {
	for in, want := range map[string]bool{
		"": true, `\`: true, `\u`: true, `\u0`: true, `\u00e`: true,
		`\u00e9`: false, `\x`: false, `\u0g`: false, `x`: false, `\u00e9\`: false,
	} {
		if got := Partial(in); got != want {
			t.Errorf("Partial(%q) = %v, want %v", in, got, want)
		}
	}
}

// FuzzUnicode checks Unicode against encoding/json, which turns a lone
// surrogate into U+FFFD.
func FuzzUnicode(f *testing.F) {
	for _, s := range []string{`\u0041`, `\ud83d\ude00`, `\ud83d\u0041`, `\ude00`, `\uFFFF`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, n := Unicode(s)
		if n == 0 {
			return
		}
		var want string
		if err := json.Unmarshal([]byte(`"`+s[:n]+`"`), &want); err != nil {
			t.Fatalf("encoding/json rejects %q: %v", s[:n], err)
		}
		if got := string(utf8.AppendRune(nil, r)); got != want {
			t.Fatalf("Unicode(%q) = %q, encoding/json %q", s, got, want)
		}
	})
}
