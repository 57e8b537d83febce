package contentfix

import (
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonesc"
)

// DecodeHTMLEntities decodes one level of HTML entities for models that
// emit them in code: not Claude, nor in markup files, where they are meant.
// Only a few names, with their semicolon: the whole HTML table would turn
// "?a=1&copy=2" into "?a=1©=2".
func DecodeHTMLEntities(content, modelID, path string) (string, bool) {
	if strings.Contains(strings.ToLower(modelID), "claude") || isMarkupPath(path) {
		return content, false
	}
	amp := strings.IndexByte(content, '&')
	if amp < 0 {
		return content, false
	}
	var b strings.Builder
	changed := false
	last := 0
	for i := amp; i < len(content); {
		if content[i] != '&' {
			i++
			continue
		}
		dec, n := entityAt(content[i:])
		if n == 0 {
			i++
			continue
		}
		if !changed {
			b.Grow(len(content))
			changed = true
		}
		b.WriteString(content[last:i])
		b.WriteString(dec)
		i += n
		last = i
	}
	if !changed {
		return content, false
	}
	b.WriteString(content[last:])
	return b.String(), true
}

var namedEntities = []struct{ name, text string }{
	{"&lt;", "<"},
	{"&gt;", ">"},
	{"&amp;", "&"},
	{"&quot;", `"`},
	{"&apos;", "'"},
	{"&nbsp;", "\u00a0"},
}

// entityAt decodes the entity at the start of s, returning its text and
// length (0: none).
func entityAt(s string) (string, int) {
	for _, e := range namedEntities {
		if strings.HasPrefix(s, e.name) {
			return e.text, len(e.name)
		}
	}
	if len(s) < 4 || s[1] != '#' {
		return "", 0
	}
	i, base := 2, rune(10)
	if s[2] == 'x' || s[2] == 'X' {
		i, base = 3, 16
	}
	start := i
	var r rune
	for i < len(s) && i-start < 8 {
		var v byte
		var ok bool
		if base == 16 {
			v, ok = jsonesc.HexDigit(s[i])
		} else if isDigit(s[i]) {
			v, ok = s[i]-'0', true
		}
		if !ok {
			break
		}
		r = r*base + rune(v)
		i++
	}
	if i == start || i >= len(s) || s[i] != ';' || r == 0 || !utf8.ValidRune(r) {
		return "", 0
	}
	return string(r), i + 1
}
