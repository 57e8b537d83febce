package jsonrepair

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestRunStopperEnd: the word-at-a-time search finds the same end as the
// byte table, from every start, for each closing quote, on text dense in
// stop bytes and bytes next to them (borrows between bytes).
func TestRunStopperEnd(t *testing.T) {
	alphabet := []byte("ab \x1f\x20\x7f\x80\xff\\,}]\"'`\x00{[-+!#" + "é")
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
