package edit

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// offsetMap maps offsets of a normalised string back to the string it came from.
type offsetMap struct {
	s   string
	bps []breakpoint
}

// breakpoint: from offset t on (in the normalised string), add delta.
type breakpoint struct{ t, delta int }

func (m *offsetMap) toOrig(t int) int {
	i := sort.Search(len(m.bps), func(i int) bool { return m.bps[i].t > t })
	if i == 0 {
		return t
	}
	return t + m.bps[i-1].delta
}

// normalize folds typographic punctuation and odd spaces to ASCII: curly
// quotes, primes, dashes and the minus sign, non-breaking and other spaces,
// zero-width characters (dropped), the ellipsis. It reports whether anything
// changed, and with withMap the breakpoints to map offsets back.
func normalize(s string, withMap bool) (string, []breakpoint, bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s, nil, false
	}
	var b strings.Builder
	var bps []breakpoint
	changed := false
	delta := 0
	b.Grow(len(s))
	b.WriteString(s[:i])
	for i < len(s) {
		if s[i] < utf8.RuneSelf {
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		rep, ok := asciiFor(r)
		if !ok {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		changed = true
		b.WriteString(rep)
		i += size
		if size != len(rep) {
			delta += size - len(rep)
			if withMap {
				bps = append(bps, breakpoint{t: b.Len(), delta: delta})
			}
		}
	}
	if !changed {
		return s, nil, false
	}
	return b.String(), bps, true
}

func asciiFor(r rune) (string, bool) {
	switch r {
	case '\u00A0', '\u1680', '\u202F', '\u205F', '\u3000':
		return " ", true
	case '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF', '\u00AD':
		return "", true
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u2035':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u2036':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\uFE58', '\uFE63', '\uFF0D':
		return "-", true
	case '\u2026':
		return "...", true
	}
	if r >= '\u2000' && r <= '\u200A' {
		return " ", true
	}
	return "", false
}
