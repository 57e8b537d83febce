package contentfix

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
)

// grammarAccepts is the phrase grammar alone, without the pre-filters.
func grammarAccepts(line string, markdown bool) bool {
	t := strings.TrimSpace(line)
	return t != "" && placeholderComment(t, markdown, false)
}

// checkFilters fails when a pre-filter turns away a line the grammar
// accepts, or when the check with the filters answers otherwise.
func checkFilters(t *testing.T, line string) {
	t.Helper()
	for _, markdown := range []bool{false, true} {
		want := grammarAccepts(line, markdown)
		if want && !mayBeComment(line) {
			t.Fatalf("mayBeComment(%q) refused a placeholder", line)
		}
		tl := strings.TrimSpace(line)
		got := mayBeComment(line) && tl != "" && isPlaceholderComment(tl, markdown)
		if got != want {
			t.Fatalf("%q (markdown %v): %v with the pre-filters, %v by the grammar", line, markdown, got, want)
		}
	}
}

// TestMayBeComment: a line is turned away only when, trimmed as
// FindPlaceholder trims it, it is empty or opens with no comment marker;
// for every first byte, after every kind of blank.
func TestMayBeComment(t *testing.T) {
	blanks := []string{"", " ", "\t", "  \t", "\r", "\v\f", "\u00a0", "\u2003", "\u0085", "\u3000"}
	var lines []string
	for c := range 256 {
		for _, b := range blanks {
			lines = append(lines, b+string([]byte{byte(c)})+"x", b+string(rune(c))+"-- rest unchanged")
		}
	}
	lines = append(lines, "", "   ", "\t\t", "\u00a0# rest of the code", "x // rest of file unchanged")
	for _, l := range lines {
		tl := strings.TrimSpace(l)
		_, comment := commentBody(tl)
		if !mayBeComment(l) && tl != "" && comment {
			t.Fatalf("mayBeComment(%q) = false for a comment", l)
		}
	}
	for _, tt := range []struct {
		line string
		want bool
	}{
		{"def handler(event):", false},
		{"    return {'status': 200}", false},
		{"", false},
		{"  \t ", false},
		{"\t# variant 0", true},
		{"<!-- x -->", true},
		{"{/* x */}", true},
		{"-- rest", true},
		{"; x", true},
		{"% x", true},
		{"\u00a0# rest", true}, // a non-ASCII byte first: maybe a Unicode blank
	} {
		if got := mayBeComment(tt.line); got != tt.want {
			t.Errorf("mayBeComment(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestMayBePlaceholder: the words' pre-filter on placeholders the grammar
// accepts, in English and the other languages, and on remarks it refuses.
func TestMayBePlaceholder(t *testing.T) {
	for _, tt := range []struct {
		comment string
		want    bool
	}{
		{"// ... rest of the code unchanged ...", true},
		{"# existing code here", true},
		{"// keep existing code", true},
		{"# tests omitted for brevity", true},
		{"// ... same as before ...", true},
		{"// [code as is]", true},
		{"# Rest unchanged", true},
		{"// ... 其余代码保持不变 ...", true},
		{"// resto del código sin cambios", true},
		{"# остальной код без изменений", true},
		{"# variant 0", false},
		{"// compute the sum", false},
		{"// TODO: handle errors", false},
		{"#include <stdio.h>", false},
		{"// Write writes the file to disk", false},
	} {
		var buf [maxPhraseWords]string
		body, _ := commentBody(tt.comment)
		words, _ := phraseWords(body, &buf)
		if got := mayBePlaceholder(words); got != tt.want {
			t.Errorf("mayBePlaceholder(%q) = %v, want %v", tt.comment, got, tt.want)
		}
		checkFilters(t, tt.comment)
	}
}

// TestTriggersCoverStatus: every strong status phrase keeps a trigger
// word once the common ones are left out, so a phrase ending with it
// passes the pre-filter.
func TestTriggersCoverStatus(t *testing.T) {
	for phrase := range strongStatus {
		covered := false
		for _, w := range strings.Fields(phrase) {
			covered = covered || placeholderTriggers[w]
		}
		if !covered {
			t.Errorf("strong status %q has no trigger word", phrase)
		}
	}
}

// TestFiltersKeepEveryPlaceholder builds comments from the grammar's own
// words (fillers, modifiers, nouns, copulas, statuses, the foreign
// vocabulary) and others, decorated or not, in every comment style and
// case, and checks that the pre-filters turn away no comment the grammar
// accepts, and answer as it does on the rest.
func TestFiltersKeepEveryPlaceholder(t *testing.T) {
	var pool []string
	add := func(ws ...string) { pool = append(pool, ws...) }
	for _, f := range fillers {
		add(f...)
	}
	for _, m := range []map[string]bool{modifiers, determiners, codeNouns, copulas, strongStatus, weakStatus} {
		for k := range m {
			add(strings.Fields(k)...)
		}
	}
	for w := range foreignVocabulary {
		add(w)
	}
	add("rest", "remainder", "of", "everything", "else", "here", "etc", "brevity", "shown", "keep",
		"variant", "0", "42", "handler", "compute", "sum", "todo", "api", "client", "string", "x")
	markers := []string{"// ", "//", "# ", "-- ", "; ", "% ", "/* ", "<!-- ", "{/* ", "/// ", "#! "}
	closers := map[string]string{"/* ": " */", "<!-- ": " -->", "{/* ": " */}"}
	decorations := [][2]string{{"", ""}, {"... ", " ..."}, {"…", "…"}, {"(", ")"}, {"[", "]"}, {"【", "】"}, {"", "..."}, {"。。。", ""}}
	rng := rand.New(rand.NewPCG(34, 5))
	accepted := 0
	for range 60_000 {
		n := 1 + rng.IntN(6)
		words := make([]string, n)
		for i := range words {
			w := pool[rng.IntN(len(pool))]
			switch rng.IntN(4) {
			case 0:
				w = strings.ToUpper(w[:1]) + w[1:]
			case 1:
				w = strings.ToUpper(w)
			}
			words[i] = w
		}
		sep := " "
		if rng.IntN(8) == 0 {
			sep = ""
		}
		d := decorations[rng.IntN(len(decorations))]
		m := markers[rng.IntN(len(markers))]
		line := strings.Repeat("\t", rng.IntN(2)) + m + d[0] + strings.Join(words, sep) + d[1] + closers[m]
		if grammarAccepts(line, false) {
			accepted++
		}
		checkFilters(t, line)
	}
	// The generator must reach the grammar's accepting rules, or the check
	// above shows nothing.
	t.Logf("%d placeholders among the comments", accepted)
	if accepted < 1000 {
		t.Fatalf("only %d of the generated comments are placeholders", accepted)
	}
}

// FuzzPlaceholderFilters: on any line, the pre-filters answer as the
// grammar does.
func FuzzPlaceholderFilters(f *testing.F) {
	for _, s := range []string{
		"// ... rest of the code unchanged ...", "# existing code here", "\t# variant 0",
		"// ... 其余代码保持不变 ...", "\u00a0# rest of the file", "def f():", "<!-- rest of file unchanged -->",
		"# ... (rest of file)", "// Rest of the implementation remains the same", "# \u212Aeep existing code",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.ContainsRune(line, '\n') {
			return
		}
		checkFilters(t, line)
		if strings.IndexFunc(line, unicode.IsUpper) >= 0 {
			checkFilters(t, strings.ToLower(line))
		}
	})
}
