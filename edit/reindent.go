package edit

import (
	"slices"
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

// guessIndent guesses the file's indentation: tabs or spaces, and how many.
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

// reindent re-indents the new text when the matched file lines and the old
// lines differ in leading whitespace: by the same shift when the difference
// is uniform (indentUniform), else line by line where an old line's
// indentation maps onto a file line's (indentMapped).
func reindent(nt string, fileLines, oldLines []string, fileStyle func() indentStyle) (string, int) {
	var fws, ows []string
	for j := range min(len(oldLines), len(fileLines)) {
		if strings.TrimSpace(oldLines[j]) == "" || strings.TrimSpace(fileLines[j]) == "" {
			continue
		}
		fws = append(fws, leadingSpace(fileLines[j]))
		ows = append(ows, leadingSpace(oldLines[j]))
	}
	if slices.Equal(fws, ows) {
		return nt, indentSame
	}
	newLines := strings.Split(nt, "\n")
	s := newShift(fws, ows, newLines, fileStyle)
	if !s.uniform(fws, ows) {
		mapIndents(newLines, fws, ows)
		return strings.Join(newLines, "\n"), indentMapped
	}
	for i, l := range newLines {
		if strings.TrimSpace(l) != "" {
			newLines[i] = s.line(l)
		}
	}
	return strings.Join(newLines, "\n"), indentUniform
}

// shift turns the old text's indentation into the file's: the old lines'
// common prefix old becomes the file lines' common prefix file, and what
// follows it is converted from one style to the other.
type shift struct {
	file, old string
	from, to  indentStyle
}

func newShift(fws, ows, newLines []string, fileStyle func() indentStyle) shift {
	s := shift{file: commonPrefix(fws), old: commonPrefix(ows)}
	var relF, relO, relN []string
	for j := range fws {
		relF = append(relF, fws[j][len(s.file):])
		relO = append(relO, ows[j][len(s.old):])
	}
	for _, l := range newLines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if w := leadingSpace(l); strings.HasPrefix(w, s.old) {
			relN = append(relN, w[len(s.old):])
		}
	}
	to, known := styleOf(append([]string{s.file}, fws...), relF)
	s.to = to.or(known, fileStyle())
	from, known := styleOf(append(append([]string{s.old}, ows...), relN...), append(relO, relN...))
	s.from = from.or(known, s.to)
	return s
}

// or completes a style inferred from too little: an unknown one is
// fallback, spaces of unknown width take fallback's width (4 if it has tabs).
func (st indentStyle) or(known bool, fallback indentStyle) indentStyle {
	if !known {
		return fallback
	}
	if !st.tabs && st.width == 0 {
		st.width = 4
		if !fallback.tabs {
			st.width = fallback.width
		}
	}
	return st
}

func (s shift) rel(r string) string {
	if s.from == s.to {
		return r
	}
	return convertRel(r, s.from, s.to)
}

// uniform reports whether every file line's indentation is its old line's
// shifted.
func (s shift) uniform(fws, ows []string) bool {
	for j := range fws {
		if s.file+s.rel(ows[j][len(s.old):]) != fws[j] {
			return false
		}
	}
	return true
}

func (s shift) line(l string) string {
	w := leadingSpace(l)
	switch {
	case strings.HasPrefix(w, s.old):
		return s.file + s.rel(w[len(s.old):]) + l[len(w):]
	case strings.HasPrefix(s.old, w):
		// Less indented than the old text's common indent: take the
		// difference off the file's.
		cut := convertRel(s.old[len(w):], s.from, s.to)
		if strings.HasSuffix(s.file, cut) {
			return s.file[:len(s.file)-len(cut)] + l[len(w):]
		}
		return l[len(w):] // further out than the file's indent goes
	}
	return l
}

// mapIndents gives each new line whose indentation is an old line's the
// matching file line's, where that mapping is consistent.
func mapIndents(newLines, fws, ows []string) {
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
