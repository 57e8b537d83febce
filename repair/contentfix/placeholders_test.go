package contentfix

import (
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestPhraseWords: the words are what lower-casing the text and splitting
// it at every rune that is no letter or digit gives, for every rune up to
// U+3000 inside, between and around words, and a text of more words than a
// phrase has is refused.
func TestPhraseWords(t *testing.T) {
	samples := []string{
		"", "   ", " Rest of the CODE ... unchanged ", "İstanbul ΣΑΣ ǅ ﬁx Ⅻ ⓐ", "其余代码保持不变",
		"a b c d e f g h i j k l m n", "a b c d e f g h i j k l m n o", "x1_y2-z3", "...",
	}
	for r := rune(0); r < 0x3000; r++ {
		samples = append(samples, "ab"+string(r)+"Cd "+string(r)+"x"+string(r))
	}
	for _, s := range samples {
		want := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		var buf [maxPhraseWords]string
		got, ok := phraseWords(s, &buf)
		if len(want) > maxPhraseWords {
			if ok {
				t.Fatalf("%q: %d words accepted", s, len(want))
			}
			continue
		}
		if !ok || !slices.Equal(got, want) {
			t.Fatalf("%q: %q, want %q", s, got, want)
		}
	}
}

// BenchmarkFindPlaceholder scans a real Go file, this package's own, with a
// comment every few lines: the cost a write of source code pays.
func BenchmarkFindPlaceholder(b *testing.B) {
	src, err := os.ReadFile("placeholders.go")
	if err != nil {
		b.Fatal(err)
	}
	content := string(src)
	if _, _, found := FindPlaceholder(content, "placeholders.go"); found {
		b.Fatal("a placeholder in placeholders.go")
	}
	b.SetBytes(int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		FindPlaceholder(content, "placeholders.go")
	}
}
