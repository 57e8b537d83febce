package contentfix

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FindPlaceholder reports the first line that is a comment standing for
// code left out ("// ... rest of the code unchanged ...", "// ...",
// "// ... 其余代码保持不变 ..."). Only whole-line comments whose whole text is
// such a phrase count: "# rest api client" and Python's `...` are not
// placeholders. path is the file written: in Markdown a bare "// ..." is an
// example's elision, not the file's.
func FindPlaceholder(content, path string) (line int, text string, ok bool) {
	return findPlaceholder(content, path, nil)
}

// FindNewPlaceholder is FindPlaceholder for an edit's new text: a
// placeholder line that the old text holds too is the file's own comment,
// kept by the edit, not code left out.
func FindNewPlaceholder(oldText, newText, path string) (line int, text string, ok bool) {
	if oldText == "" {
		return findPlaceholder(newText, path, nil)
	}
	old := make(map[string]bool)
	for l := range strings.SplitSeq(oldText, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			old[t] = true
		}
	}
	return findPlaceholder(newText, path, old)
}

func findPlaceholder(content, path string, kept map[string]bool) (int, string, bool) {
	markdown := isMarkdownPath(path)
	rest := content
	for n := 1; ; n++ {
		// The line's end by IndexByte, not strings.Cut: Cut's general
		// search costs a call more per line, and a file has many.
		end := strings.IndexByte(rest, '\n')
		l := rest
		if end >= 0 {
			l = rest[:end]
		}
		if mayBeComment(l) {
			if t := strings.TrimSpace(l); t != "" && !kept[t] && isPlaceholderComment(t, markdown) {
				return n, t, true
			}
		}
		if end < 0 {
			return 0, "", false
		}
		rest = rest[end+1:]
	}
}

// mayBeComment is false for a line that cannot be a comment once trimmed:
// its first byte after ASCII blanks opens none of commentBody's markers.
// Most lines of code are such, and skip the trimming and the grammar; a
// line starting with a non-ASCII byte (maybe a Unicode space that
// TrimSpace removes) goes on.
func mayBeComment(l string) bool {
	for i := 0; i < len(l); i++ {
		switch c := l[i]; c {
		case ' ', '\t', '\n', '\r', '\v', '\f':
			continue
		case '<', '{', '/', '-', '#', ';', '%':
			return true
		default:
			return c >= utf8.RuneSelf
		}
	}
	return false
}

// isPlaceholderComment applies FindPlaceholder's rule to a trimmed line.
func isPlaceholderComment(t string, markdown bool) bool {
	return placeholderComment(t, markdown, true)
}

// placeholderComment is isPlaceholderComment with the words' pre-filter
// or without it: its tests compare the two. (A bool, not the filter as a
// function, which would move the words' array to the heap.)
func placeholderComment(t string, markdown, filtered bool) bool {
	body, ok := commentBody(t)
	if !ok {
		return false
	}
	if isBareEllipsis(body) {
		return !markdown
	}
	var buf [maxPhraseWords]string
	words, ok := phraseWords(body, &buf)
	if !ok || filtered && !mayBePlaceholder(words) {
		return false
	}
	decorated := isDecorated(body)
	return placeholderWords(words, decorated) || foreignPlaceholder(words, decorated)
}

// maxPhraseWords is the most words a placeholder phrase has, in any
// language: a longer comment is a remark.
const maxPhraseWords = 14

// phraseWords splits a comment's text into its lower-cased words (runs of
// letters and digits) in buf; false when there are more than
// maxPhraseWords. Most comments are remarks, and this runs on every
// comment line of every file written, so it allocates only for a word
// with capitals.
func phraseWords(body string, buf *[maxPhraseWords]string) ([]string, bool) {
	words, start := buf[:0], -1
	for i := 0; i <= len(body); {
		word, size := false, 1
		if i < len(body) {
			if c := body[i]; c < utf8.RuneSelf {
				word = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
			} else {
				var r rune
				r, size = utf8.DecodeRuneInString(body[i:])
				word = unicode.IsLetter(r) || unicode.IsDigit(r)
			}
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			if len(words) == maxPhraseWords {
				return nil, false
			}
			words, start = append(words, strings.ToLower(body[start:i])), -1
		}
		i += size
	}
	return words, true
}

// isBareEllipsis reports a comment that is nothing but an ellipsis.
func isBareEllipsis(body string) bool {
	b := strings.TrimSpace(body)
	return (strings.Contains(b, "...") || strings.Contains(b, "…")) && strings.Trim(b, ".…") == ""
}

// isDecorated reports an ellipsis, or brackets around the whole phrase:
// what makes a short comment a stand-in rather than a remark.
func isDecorated(body string) bool {
	if strings.Contains(body, "...") || strings.Contains(body, "…") || strings.Contains(body, "。。。") {
		return true
	}
	core := strings.Trim(body, " \t.…:-*。：")
	for _, br := range [][2]string{{"(", ")"}, {"[", "]"}, {"（", "）"}, {"【", "】"}, {"「", "」"}} {
		if len(core) > len(br[0]) && strings.HasPrefix(core, br[0]) && strings.HasSuffix(core, br[1]) {
			return true
		}
	}
	return false
}

func commentBody(t string) (string, bool) {
	switch {
	case strings.HasPrefix(t, "<!--"):
		return strings.TrimSuffix(t[4:], "-->"), true
	case strings.HasPrefix(t, "{/*"):
		return strings.TrimSuffix(strings.TrimSuffix(t[3:], "}"), "*/"), true
	case strings.HasPrefix(t, "/*"):
		return strings.TrimSuffix(strings.TrimLeft(t[2:], "*!"), "*/"), true
	case strings.HasPrefix(t, "//"):
		return strings.TrimLeft(t, "/!"), true
	case strings.HasPrefix(t, "--"):
		return strings.TrimLeft(t, "-"), true
	case strings.HasPrefix(t, "#"):
		return strings.TrimLeft(t, "#"), true
	case strings.HasPrefix(t, ";"):
		return strings.TrimLeft(t, ";"), true
	case strings.HasPrefix(t, "%"):
		return strings.TrimLeft(t, "%"), true
	}
	return "", false
}

func wordSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

var (
	fillers = [][]string{
		{"and", "the"}, {"keep", "the"}, {"all", "the"}, {"plus", "the"},
		{"the"}, {"keep"}, {"and"}, {"plus"}, {"all"}, {"insert"}, {"your"}, {"with"},
	}
	modifiers = wordSet("existing", "previous", "remaining", "original", "other",
		"unchanged", "earlier", "prior", "old", "omitted", "same")
	determiners = wordSet("the", "this", "that", "your", "my", "our", "its")
	codeNouns   = wordSet("code", "file", "files", "function", "functions", "method", "methods",
		"class", "classes", "implementation", "implementations", "logic", "content", "contents",
		"query", "queries", "component", "components", "module", "modules", "import", "imports",
		"line", "lines", "body", "section", "sections", "script", "handler", "handlers",
		"helper", "helpers", "definition", "definitions", "markup", "html", "css", "style", "styles",
		"template", "templates", "test", "tests", "program", "source", "config", "configuration",
		"route", "routes", "endpoints", "declarations", "statements", "stuff")
	copulas = wordSet("is", "are", "remains", "remain", "stays", "stay", "left", "kept",
		"goes", "was", "were", "be")
	strongStatus = wordSet("unchanged", "the same", "same", "same as before", "as before",
		"the same as before", "omitted", "omitted for brevity", "for brevity", "not shown",
		"as is", "untouched", "unmodified", "not modified", "not changed", "no changes",
		"preserved", "identical", "elided", "unchanged as before", "unchanged from before")
	weakStatus = wordSet("here", "below", "above", "continues", "follows", "etc",
		"continues below", "follows below")
	// longestStatus is the length of the longest status phrase.
	longestStatus = max(longestKey(strongStatus), longestKey(weakStatus))
)

func longestKey(m map[string]bool) int {
	n := 0
	for k := range m {
		n = max(n, len(k))
	}
	return n
}

// How strongly the words ending a phrase say the code is unchanged.
const (
	statusNone   = iota // not a status
	statusEmpty         // no words
	statusWeak          // "here", "goes here", "below"...
	statusStrong        // "unchanged", "remains the same", "omitted"...
)

// status classifies the words ending a phrase, after an optional copula.
func status(w []string) int {
	if len(w) == 0 {
		return statusEmpty
	}
	if len(w) > 1 && (w[len(w)-1] == "here" || w[len(w)-1] == "etc") {
		w = w[:len(w)-1]
	}
	if copulas[w[0]] {
		if len(w) == 1 {
			switch w[0] {
			case "remains", "remain", "stays", "stay":
				return statusStrong
			}
			return statusNone
		}
		w = w[1:]
	}
	// Joined on the stack, and only as long as a status phrase can be.
	var buf [64]byte
	s := buf[:0]
	for i, x := range w {
		if i > 0 {
			s = append(s, ' ')
		}
		if s = append(s, x...); len(s) > longestStatus {
			return statusNone
		}
	}
	switch {
	case strongStatus[string(s)]:
		return statusStrong
	case weakStatus[string(s)]:
		return statusWeak
	}
	return statusNone
}

func hasPrefixWords(w []string, p ...string) bool {
	return len(w) >= len(p) && slices.Equal(w[:len(p)], p)
}

func anyCodeNoun(w []string) bool {
	return slices.ContainsFunc(w, func(x string) bool { return codeNouns[x] })
}

// placeholderWords applies the phrase grammar to a comment's lower-cased words.
func placeholderWords(w []string, decorated bool) bool {
	if len(w) == 0 || len(w) > maxPhraseWords {
		return false
	}
	w, keep := trimFiller(w)
	switch {
	case hasPrefixWords(w, "rest", "of") || hasPrefixWords(w, "remainder", "of"):
		return restOf(w[2:], decorated)
	case w[0] == "rest":
		return restAlone(w[1:], decorated)
	case hasPrefixWords(w, "everything", "else"):
		return restAlone(w[2:], decorated)
	case modifiers[w[0]] && modifiedNoun(w, decorated, keep):
		return true
	}
	return nounStatus(w, decorated) || statusAlone(w, decorated)
}

func trimFiller(w []string) (rest []string, keep bool) {
	for _, f := range fillers {
		if len(w) > len(f) && hasPrefixWords(w, f...) {
			return w[len(f):], f[0] == "keep"
		}
	}
	return w, false
}

// restOf reads what follows "rest of": up to three words holding a code
// noun, or any when decorated, then a status or nothing.
func restOf(w []string, decorated bool) bool {
	i := 0
	if i < len(w) && determiners[w[i]] {
		i++
	}
	for m := 0; m <= 3 && i+m <= len(w); m++ {
		if status(w[i+m:]) != statusNone && (anyCodeNoun(w[i:i+m]) || decorated) {
			return true
		}
	}
	return false
}

// restAlone reads what follows "rest": a strong status, or a weak one or
// nothing when decorated ("... rest ...").
func restAlone(w []string, decorated bool) bool {
	switch status(w) {
	case statusStrong:
		return true
	case statusWeak, statusEmpty:
		return decorated
	}
	return false
}

// modifiedNoun reads a modifier and words ending with a code noun, then a
// status ("existing code here"); nothing only when decorated or after
// "keep", as a bare "# Existing code" is a Markdown heading.
func modifiedNoun(w []string, decorated, keep bool) bool {
	for m := 1; m <= 3 && 1+m <= len(w); m++ {
		if !codeNouns[w[m]] {
			continue
		}
		switch status(w[1+m:]) {
		case statusStrong:
			return true
		case statusWeak:
			if w[0] != "other" || decorated {
				return true
			}
		case statusEmpty:
			if decorated || (keep && w[0] == "existing") {
				return true
			}
		}
	}
	return false
}

// nounStatus reads words ending with a code noun, then a strong status,
// decorated or saying the code was left out ("# tests omitted for brevity").
func nounStatus(w []string, decorated bool) bool {
	for m := 1; m <= 3 && m <= len(w); m++ {
		if codeNouns[w[m-1]] && status(w[m:]) == statusStrong && (decorated || saysOmitted(w[m:])) {
			return true
		}
	}
	return false
}

// statusAlone reads a strong status, decorated or "for brevity".
func statusAlone(w []string, decorated bool) bool {
	return status(w) == statusStrong && (decorated || slices.Contains(w, "brevity"))
}

func saysOmitted(w []string) bool {
	return slices.ContainsFunc(w, func(x string) bool {
		return x == "omitted" || x == "brevity" || x == "shown" || x == "elided"
	})
}
