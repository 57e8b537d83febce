package jsonrepair

import (
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestRunStopperEnd: the word-at-a-time search finds the same end as the
// byte table, from every start, for each closing quote, on text dense in
// stop bytes and bytes next to them (borrows between bytes).
func TestRunStopperEnd(t *testing.T) {
	alphabet := []byte("ab \x1f\x20\x7f\x80\xff\\,}]\"'`\x00{[-+!#|~=^\x0c\x3c\x5e" + "é")
	r := rand.New(rand.NewPCG(7, 11))
	for _, close := range []byte{'"', '\'', '`', 0} {
		runs := newRunStopper(close)
		for range 2000 {
			b := make([]byte, r.IntN(40))
			for i := range b {
				if r.IntN(3) == 0 {
					b[i] = alphabet[r.IntN(len(alphabet))]
				} else {
					b[i] = 'a' + byte(r.IntN(26))
				}
			}
			s := string(b)
			for from := range len(s) {
				want := from
				for want < len(s) && !runs.stop[s[want]] {
					want++
				}
				if got := runs.end(s, from); got != want {
					t.Fatalf("close %q, %q from %d: end %d, want %d", close, s, from, got, want)
				}
			}
		}
	}
}

// TestQuoteRunes: every non-ASCII closing quote is one isQuoteRune lets
// plainRunes stop at.
func TestQuoteRunes(t *testing.T) {
	for _, open := range []rune{'"', '\'', '`', '\u201c', '\u201d', '\u201e', '\u2018', '\u2019'} {
		closers, ok := openQuote(open)
		if !ok {
			t.Fatalf("%q opens no string", open)
		}
		for _, r := range closers {
			if r >= utf8.RuneSelf && !isQuoteRune(r) {
				t.Errorf("closer %q of %q is not a quote rune", r, open)
			}
		}
	}
}

// TestStringBuffersLinear: the bytes a repair allocates stay in
// proportion to the text, whether it holds one large string that must be
// rebuilt (handed over as the value without a copy) or many (sharing one
// buffer), and the values are right.
func TestStringBuffersLinear(t *testing.T) {
	line := `x := "a\tb"\n` // in a Python string, escapes to rebuild
	many := "['" + strings.Repeat(strings.Repeat(line, 40)+"', '", 4000) + "end']"
	one := "{'content': '" + strings.Repeat(line, 200_000) + "', 'path': 'a\\tb'}"
	for name, text := range map[string]string{"many strings": many, "one large string": one} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r, err := Repair(text, Options{})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(text)); got > 4 {
			t.Errorf("%s: allocated %.1f times the text's %d bytes", name, got, len(text))
		}
		want := strings.Repeat("x := \"a\tb\"\n", 40)
		switch v := r.Value.(type) {
		case []any:
			if len(v) != 4001 || v[0] != want || v[3999] != want || v[4000] != "end" {
				t.Errorf("%s: %d items, first %.20q", name, len(v), v[0])
			}
		case map[string]any:
			if v["content"] != strings.Repeat("x := \"a\tb\"\n", 200_000) || v["path"] != "a\tb" {
				t.Errorf("%s: content of %d bytes, path %q", name, len(v["content"].(string)), v["path"])
			}
		default:
			t.Errorf("%s: %T", name, r.Value)
		}
	}
}

// bracketsTrimmed is what onlyBrackets answers, written as it reads.
func bracketsTrimmed(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool { return isSpaceRune(r) || r == '}' || r == ']' || r == '`' }) == ""
}

// TestOnlyBrackets: onlyBrackets answers as trimming the brackets, space
// and backticks would, on each byte and rune alone and among brackets.
func TestOnlyBrackets(t *testing.T) {
	var cases []string
	for c := range 256 {
		cases = append(cases, string([]byte{byte(c)}), "} "+string([]byte{byte(c)})+"]", string(rune(c)))
	}
	for _, r := range []rune{'\u00a0', '\u180e', '\u2000', '\u200a', '\u200b', '\u202f', '\u205f', '\u3000', '\ufeff', '\u2028', 'é', utf8.RuneError} {
		cases = append(cases, string(r), "]"+string(r)+"}`", string(r)+"x")
	}
	cases = append(cases, "", "}}]` \t\r\n", "} \xe3\x80", "]\xff")
	for _, s := range cases {
		if got, want := onlyBrackets(s), bracketsTrimmed(s); got != want {
			t.Errorf("onlyBrackets(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzOnlyBrackets(f *testing.F) {
	for _, s := range []string{"", "}", "} ]\u3000`", "}a", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := onlyBrackets(s), bracketsTrimmed(s); got != want {
			t.Errorf("onlyBrackets(%q) = %v, want %v", s, got, want)
		}
	})
}

// FuzzIsJSONNumber holds isJSONNumber to json.Unmarshal into a json.Number,
// which it replaced.
func FuzzIsJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "1.", ".5", "-", "1e5", "1E+5", "1e", "2.0e-3", "+1", "1.5.2", "null", `"12"`, " 1", "1-2", "00", "-01.0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n json.Number
		want := s != "" && json.Unmarshal([]byte(s), &n) == nil
		if got := isJSONNumber(s); got != want {
			t.Fatalf("isJSONNumber(%q) = %v, json.Unmarshal reads it: %v", s, got, want)
		}
	})
}
