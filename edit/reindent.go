package edit

import (
	"strings"
)

type indentStyle struct {
	tabs  bool
	width int // spaces per level when !tabs
}

const (
	indentSame = iota
	indentUniform
	indentMapped
)

// indentStyle guesses the file's indentation: tabs or spaces, and how many.
func (d *doc) guessIndent() indentStyle {
	if d.styleSet {
		return d.style
	}
	d.styleSet = true
	L := d.lineIndex()
	tabs, spaces := 0, 0
	deltas := map[int]int{}
	prev := -1
	for i := 0; i < len(L) && i < 5000; i++ {
		t := d.text(i)
		if strings.TrimSpace(t) == "" {
			continue
		}
		ws := leadingSpace(t)
		switch {
		case ws == "":
			prev = 0
		case ws[0] == '\t':
			tabs++
			prev = -1
		case strings.Contains(ws, "\t"):
			spaces++
			prev = -1
		default:
			spaces++
			if prev >= 0 && len(ws) > prev {
				deltas[len(ws)-prev]++
			}
			prev = len(ws)
		}
	}
	st := indentStyle{tabs: tabs > spaces, width: 4}
	best := 0
	for w, c := range deltas {
		if w >= 2 && w <= 8 && (c > best || (c == best && w < st.width)) {
			st.width, best = w, c
		}
	}
	d.style = st
	return st
}

// reindent re-indents the new text when the matched file lines and the
// old lines differ in leading whitespace. When the difference is a uniform
// shift (a common prefix swapped, and possibly tabs for spaces or another
// indent width), every new line is shifted the same way (indentUniform).
// Otherwise the new lines whose indentation equals an old line's take the
// matching file line's (indentMapped).
func reindent(nt string, fileLines, oldLines []string, fileStyle func() indentStyle) (string, int) {
	var fws, ows []string
	for j := range oldLines {
		if j >= len(fileLines) {
			break
		}
		if strings.TrimSpace(oldLines[j]) == "" || strings.TrimSpace(fileLines[j]) == "" {
			continue
		}
		fws = append(fws, leadingSpace(fileLines[j]))
		ows = append(ows, leadingSpace(oldLines[j]))
	}
	same := true
	for j := range fws {
		if fws[j] != ows[j] {
			same = false
			break
		}
	}
	if same {
		return nt, indentSame
	}
	newLines := strings.Split(nt, "\n")
	P, Q := commonPrefix(fws), commonPrefix(ows)

	// Styles of both sides.
	var fromS, toS indentStyle
	var fromKnown, toKnown bool
	var relF, relO, relN []string
	for j := range fws {
		relF = append(relF, fws[j][len(P):])
		relO = append(relO, ows[j][len(Q):])
	}
	for _, l := range newLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if w := leadingSpace(l); strings.HasPrefix(w, Q) {
			relN = append(relN, w[len(Q):])
		}
	}
	toS, toKnown = styleOf(append([]string{P}, fws...), relF)
	if fs := fileStyle(); !toKnown {
		toS = fs
	} else if !toS.tabs && toS.width == 0 {
		toS.width = 4
		if !fs.tabs {
			toS.width = fs.width
		}
	}
	fromS, fromKnown = styleOf(append(append([]string{Q}, ows...), relN...), append(relO, relN...))
	if !fromKnown {
		fromS = toS
	} else if !fromS.tabs && fromS.width == 0 {
		fromS.width = 4
		if !toS.tabs {
			fromS.width = toS.width
		}
	}
	convert := fromS != toS
	conv := func(rel string) string {
		if !convert {
			return rel
		}
		return convertRel(rel, fromS, toS)
	}
	uniform := true
	for j := range fws {
		if P+conv(relO[j]) != fws[j] {
			uniform = false
			break
		}
	}
	if uniform {
		for i, l := range newLines {
			if strings.TrimSpace(l) == "" {
				continue
			}
			w := leadingSpace(l)
			switch {
			case strings.HasPrefix(w, Q):
				newLines[i] = P + conv(w[len(Q):]) + l[len(w):]
			case strings.HasPrefix(Q, w):
				// Less indented than the old text's common indent: take the
				// difference off the file's.
				cut := convertRel(Q[len(w):], fromS, toS)
				if strings.HasSuffix(P, cut) {
					newLines[i] = P[:len(P)-len(cut)] + l[len(w):]
				} else {
					newLines[i] = l[len(w):] // further out than the file's indent goes
				}
			}
		}
		return strings.Join(newLines, "\n"), indentUniform
	}
	// Per-indent map, where it is consistent.
	mp := map[string]string{}
	bad := map[string]bool{}
	for j := range fws {
		if v, ok := mp[ows[j]]; ok && v != fws[j] {
			bad[ows[j]] = true
		}
		mp[ows[j]] = fws[j]
	}
	for i, l := range newLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		w := leadingSpace(l)
		if v, ok := mp[w]; ok && !bad[w] {
			newLines[i] = v + l[len(w):]
		}
	}
	return strings.Join(newLines, "\n"), indentMapped
}

// styleOf infers an indentation style from whitespace prefixes; rels give
// the width (the gcd of their space counts).
func styleOf(all, rels []string) (indentStyle, bool) {
	tabs, spaces := false, false
	for _, w := range all {
		if strings.Contains(w, "\t") {
			tabs = true
		}
		if strings.Contains(w, " ") {
			spaces = true
		}
	}
	if tabs {
		return indentStyle{tabs: true}, true
	}
	if !spaces {
		return indentStyle{}, false
	}
	g := 0
	for _, r := range rels {
		if n := strings.Count(r, " "); n > 0 {
			g = gcd(g, n)
		}
	}
	return indentStyle{width: g}, true // width 0: spaces, width unknown
}

func convertRel(rel string, from, to indentStyle) string {
	if rel == "" {
		return ""
	}
	tabs := strings.Count(rel, "\t")
	spaces := len(rel) - tabs
	levels, rem := tabs, spaces
	if !from.tabs && from.width > 0 {
		levels += spaces / from.width
		rem = spaces % from.width
	}
	if to.tabs {
		return strings.Repeat("\t", levels) + strings.Repeat(" ", rem)
	}
	w := to.width
	if w <= 0 {
		w = 4
	}
	return strings.Repeat(" ", levels*w+rem)
}

func leadingSpace(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

func commonPrefix(ss []string) string {
	if len(ss) == 0 {
		return ""
	}
	p := ss[0]
	for _, s := range ss[1:] {
		i := 0
		for i < len(p) && i < len(s) && p[i] == s[i] {
			i++
		}
		p = p[:i]
	}
	return p
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
