package edit

import (
	"cmp"
	"slices"
	"strings"
)

type indentStyle struct {
	tabs  bool
	width int // spaces per level when !tabs
}

// indentPair is one line's indentation in a source frame and in the file.
type indentPair struct{ src, file string }

// indentMap maps a source frame's depths onto the file's, shallowest first.
type indentMap struct {
	src, dst []string
	from, to indentStyle
}

// newIndentMap builds the map the pairs state, if it is one: each source
// indentation one file indentation, both ordered by depth the same way.
func newIndentMap(ps []indentPair) (indentMap, bool) {
	var m indentMap
	if len(ps) == 0 {
		return m, false
	}
	seen := map[string]string{}
	for _, p := range ps {
		if f, ok := seen[p.src]; ok {
			if f != p.file {
				return m, false
			}
			continue
		}
		seen[p.src] = p.file
		m.src = append(m.src, p.src)
	}
	slices.SortFunc(m.src, func(a, b string) int { return cmp.Compare(len(a), len(b)) })
	for _, s := range m.src {
		m.dst = append(m.dst, seen[s])
	}
	return m, isChain(m.src) && isChain(m.dst)
}

// units sets the units the map converts between: from and the file's
// (target(from)); none when the source shows no unit of its own (a line
// aligned under a parenthesis gives it width 1) and its depths differ by the
// same white space on both sides: a plain shift.
func (m *indentMap) units(from indentStyle, target func(indentStyle) indentStyle) {
	m.from, m.to = from, target(from)
	if len(m.src) < 2 || (from.width > 1 && m.to.width > 1) {
		return // two units known: a plain shift between them is a coincidence
	}
	for k := range m.src {
		if m.dst[k][len(m.dst[0]):] != m.src[k][len(m.src[0]):] {
			return
		}
	}
	m.to = m.from
}

// uniform reports whether the map is a shift: every file depth the
// shallowest one plus the source's difference in the file's unit.
func (m indentMap) uniform() bool {
	for k := range m.src {
		if m.dst[k] != m.dst[0]+convertRel(m.src[k][len(m.src[0]):], m.from, m.to) {
			return false
		}
	}
	return true
}

// place maps indentation w: the file indentation of the deepest source one
// it extends, plus the rest in the file's unit; one shallower than all of
// them takes the difference off, if the file's indentation has it.
func (m indentMap) place(w string) (string, bool) {
	k := -1
	for i, s := range m.src {
		if s == w {
			return m.dst[i], true
		}
		if strings.HasPrefix(w, s) {
			k = i
		}
	}
	if k >= 0 {
		return m.dst[k] + convertRel(w[len(m.src[k]):], m.from, m.to), true
	}
	if !strings.HasPrefix(m.src[0], w) {
		return "", false
	}
	cut := convertRel(m.src[0][len(w):], m.from, m.to)
	if strings.HasSuffix(m.dst[0], cut) {
		return m.dst[0][:len(m.dst[0])-len(cut)], true
	}
	return "", false // further out than the file's indentation goes
}

// isChain reports whether distinct indentations, shortest first, each
// extend the one before: depths that can be ordered.
func isChain(ws []string) bool {
	for k := 1; k < len(ws); k++ {
		if len(ws[k]) == len(ws[k-1]) || !strings.HasPrefix(ws[k], ws[k-1]) {
			return false
		}
	}
	return true
}

// sameOrder reports whether two parallel lists of indentations order their
// lines by depth alike: equal stays equal, deeper stays deeper.
func sameOrder(src, dst []string) bool {
	var ps []indentPair
	back := map[string]string{}
	for k := range src {
		if s, ok := back[dst[k]]; ok && s != src[k] {
			return false
		}
		back[dst[k]] = src[k]
		ps = append(ps, indentPair{src[k], dst[k]})
	}
	if len(ps) == 0 {
		return true
	}
	_, ok := newIndentMap(ps)
	return ok
}

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
	st := indentStyle{tabs: tabs > spaces} // width 0: no evidence
	best := 0
	for w, c := range deltas {
		if w >= 2 && w <= 8 && (c > best || (c == best && w < st.width) || st.width == 0) {
			st.width, best = w, c
		}
	}
	d.style = st
	return st
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
	if rel == "" || from == to {
		return rel
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

func firstNonBlank(lines []string) int {
	for i, l := range lines {
		if !isBlank(l) {
			return i
		}
	}
	return -1
}

// indentsOf lists the indentation of the non-blank lines.
func indentsOf(lines []string) []string {
	var ws []string
	for _, l := range lines {
		if !isBlank(l) {
			ws = append(ws, leadingSpace(l))
		}
	}
	return ws
}

func indentSet(lines []string) map[string]bool {
	s := map[string]bool{}
	for _, w := range indentsOf(lines) {
		s[w] = true
	}
	return s
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
