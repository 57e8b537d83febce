package edit

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Key kinds for whole-line comparison.
const (
	keyTrimEnd = iota
	keyTrim
	keyUnicode
)

func lineKey(kind int, s string) string {
	switch kind {
	case keyTrimEnd:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case keyTrim:
		return strings.TrimSpace(s)
	default:
		u, _, _ := normalize(strings.TrimSpace(s), false)
		return strings.TrimSpace(u)
	}
}

// keyCache holds the keys of a text's lines, each kind computed once.
type keyCache struct {
	keys  map[int][]string
	fkeys []string
}

func (c *keyCache) lineKeys(kind, n int, line func(int) string) []string {
	if ks, ok := c.keys[kind]; ok {
		return ks
	}
	ks := make([]string, n)
	for i := range ks {
		ks[i] = lineKey(kind, line(i))
	}
	if c.keys == nil {
		c.keys = map[int][]string{}
	}
	c.keys[kind] = ks
	return ks
}

// fuzzyKeys are the lines trimmed, Unicode-normalised, whitespace collapsed.
func (c *keyCache) fuzzyKeys(n int, line func(int) string) []string {
	if c.fkeys == nil {
		c.fkeys = make([]string, n)
		for i := range c.fkeys {
			c.fkeys[i] = fuzzyKey(line(i))
		}
	}
	return c.fkeys
}

func (d *doc) lineKeys(kind int) []string {
	return d.cache.lineKeys(kind, len(d.lineIndex()), d.text)
}

func (d *doc) fuzzyKeys() []string {
	return d.cache.fuzzyKeys(len(d.lineIndex()), d.text)
}

func (q *query) line(i int) string { return q.lines[i] }

func (q *query) nonBlankLines() int {
	n := 0
	for _, l := range q.lines {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func (q *query) lineKeys(kind int) []string { return q.cache.lineKeys(kind, len(q.lines), q.line) }

func (q *query) fuzzyKeys() []string { return q.cache.fuzzyKeys(len(q.lines), q.line) }

func fuzzyKey(s string) string {
	s, _, _ = normalize(strings.TrimSpace(s), false)
	s = strings.TrimSpace(s)
	// Collapse runs of whitespace; allocate only when there is one.
	need := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\v' || c == '\f' || c == '\r' || (c == ' ' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t')) {
			need = true
			break
		}
	}
	if !need {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

type match struct {
	start, end  int // offsets in n
	lineBased   bool
	first, cnt  int // matched lines, when lineBased
	sim         float64
	indentCheck bool // the rung compared lines ignoring leading whitespace
}

type located struct {
	strategy Strategy
	matches  []match
}

// locate runs the ladder. presence stops after the equality rungs (used to
// decide ALREADY_APPLIED). limit caps the matches collected (-1: all).
func (d *doc) locate(q *query, opts MatchOptions, sc scope, limit int, presence bool) located {
	from := 0
	if sc.from > 0 {
		L := d.lineIndex()
		if sc.from >= len(L) {
			from = len(d.n)
		} else {
			from = L[sc.from].start
		}
	}
	if ms := d.exact(q.text, from, limit); len(ms) > 0 {
		return located{StrategyExact, ms}
	}
	if len(q.lines) == 0 {
		return located{}
	}
	if ms := d.lineRung(q, sc.from, keyTrimEnd, limit); len(ms) > 0 {
		return located{StrategyTrimEnd, ms}
	}
	if ms := d.lineRung(q, sc.from, keyTrim, limit); len(ms) > 0 {
		for i := range ms {
			ms[i].indentCheck = true
		}
		return located{StrategyTrim, ms}
	}
	if ms := d.unicodeSubstring(q, from, limit); len(ms) > 0 {
		return located{StrategyUnicode, ms}
	}
	if ms := d.lineRung(q, sc.from, keyUnicode, limit); len(ms) > 0 {
		for i := range ms {
			ms[i].indentCheck = true
		}
		return located{StrategyUnicode, ms}
	}
	if presence || len(q.lines) > maxFuzzyLines {
		return located{}
	}
	if ms := d.blockAnchor(q, sc.from, opts); len(ms) > 0 {
		return located{StrategyBlockAnchor, ms}
	}
	// One line has no context to confirm a near miss: "2.5.0" for
	// "2.6.0" is another line, not a typo. It is NOT_FOUND, with the
	// closest line in the hint.
	if q.nonBlankLines() < 2 {
		return located{}
	}
	if ms := d.fuzzy(q, sc.from, opts); len(ms) > 0 {
		return located{StrategyFuzzy, ms}
	}
	return located{}
}

// exact finds every occurrence of old in n at or after from (overlapping
// ones included), plus the old text whose final newline stands for the end
// of a file that has none.
func (d *doc) exact(old string, from, limit int) []match {
	if old == "" || from > len(d.n) {
		return nil
	}
	var ms []match
	for i := from; i <= len(d.n); {
		j := strings.Index(d.n[i:], old)
		if j < 0 {
			break
		}
		ms = append(ms, match{start: i + j, end: i + j + len(old), sim: 1})
		if limit >= 0 && len(ms) >= limit {
			return ms
		}
		// Step one character: overlapping occurrences count for ambiguity.
		_, size := utf8.DecodeRuneInString(d.n[i+j:])
		i += j + max(size, 1)
	}
	if !d.finalNL && len(old) > 1 && strings.HasSuffix(old, "\n") {
		o := old[:len(old)-1]
		if start := len(d.n) - len(o); start >= from && strings.HasSuffix(d.n, o) {
			ms = append(ms, match{start: start, end: len(d.n), sim: 1})
		}
	}
	return ms
}

// lineRung matches the old text's lines against whole lines of the file by
// the given key. A rolling hash over the line keys finds the candidates in
// O(lines), each then verified.
func (d *doc) lineRung(q *query, from, kind, limit int) []match {
	L := d.lineIndex()
	k := len(q.lines)
	from = max(from, 0)
	if k == 0 || len(L)-from < k {
		return nil
	}
	fk, hf := d.lineKeys(kind), d.lineHashes(kind)
	ok := q.lineKeys(kind)
	var target, h, pow uint64 = 0, 0, 1
	for j := 0; j < k; j++ {
		target = target*hashBase + maphash.String(hashSeed, ok[j])
		h = h*hashBase + hf[from+j]
		if j > 0 {
			pow *= hashBase
		}
	}
	var ms []match
	for i := from; ; i++ {
		if h == target {
			same := true
			for j := 0; j < k; j++ {
				if fk[i+j] != ok[j] {
					same = false
					break
				}
			}
			if same {
				ms = append(ms, d.lineSpan(i, k, q.nl, 1))
				if limit >= 0 && len(ms) >= limit {
					break
				}
			}
		}
		if i+k >= len(L) {
			break
		}
		h = (h-hf[i]*pow)*hashBase + hf[i+k]
	}
	return ms
}

var hashSeed = maphash.MakeSeed()

const hashBase = 1099511628211

func (d *doc) lineHashes(kind int) []uint64 {
	if hs, ok := d.hashes[kind]; ok {
		return hs
	}
	ks := d.lineKeys(kind)
	hs := make([]uint64, len(ks))
	for i, k := range ks {
		hs[i] = maphash.String(hashSeed, k)
	}
	if d.hashes == nil {
		d.hashes = map[int][]uint64{}
	}
	d.hashes[kind] = hs
	return hs
}

func (d *doc) lineSpan(first, k int, nl bool, sim float64) match {
	L := d.lines
	m := match{start: L[first].start, end: L[first+k-1].end, lineBased: true, first: first, cnt: k, sim: sim}
	if nl && m.end < len(d.n) {
		m.end++ // the old text's final newline is the last line's
	}
	return m
}

// unicodeSubstring looks for the normalised old text in the normalised file.
func (d *doc) unicodeSubstring(q *query, from, limit int) []match {
	if !d.uniDone {
		d.uniDone = true
		u, bps, changed := normalize(d.n, true)
		if changed {
			d.uni = &offsetMap{s: u, bps: bps}
		}
	}
	uo, _, changedOld := normalize(q.text, false)
	if uo == "" || (d.uni == nil && !changedOld) {
		return nil // nothing normalised: the exact rung already looked
	}
	hay := d.n
	toN := func(t int) int { return t }
	if d.uni != nil {
		hay = d.uni.s
		toN = d.uni.toOrig
	}
	var ms []match
	for i := 0; i <= len(hay); {
		j := strings.Index(hay[i:], uo)
		if j < 0 {
			break
		}
		s, e := toN(i+j), toN(i+j+len(uo))
		if s >= from && d.runeBoundary(s) && d.runeBoundary(e) && e > s {
			ms = append(ms, match{start: s, end: e, sim: 1})
			if limit >= 0 && len(ms) >= limit {
				break
			}
		}
		_, size := utf8.DecodeRuneInString(hay[i+j:])
		i += j + max(size, 1)
	}
	return ms
}

func (d *doc) runeBoundary(t int) bool {
	return t <= 0 || t >= len(d.n) || utf8.RuneStart(d.n[t])
}

// blockAnchor: three lines or more whose first and last lines equal the
// file's, the lines between similar enough.
func (d *doc) blockAnchor(q *query, from int, opts MatchOptions) []match {
	k := len(q.lines)
	if k < 3 {
		return nil
	}
	fk := d.fuzzyKeys()
	ok := q.fuzzyKeys()
	a0, a1 := ok[0], ok[k-1]
	if a0 == "" || a1 == "" || max(len(a0), len(a1)) < 4 {
		return nil // anchors like "{" and "}" prove nothing
	}
	thr := opts.anchorThreshold()
	oMid, oAll := 0, len(a0)+len(a1)
	for _, s := range ok[1 : k-1] {
		oMid += len(s)
	}
	oAll += oMid
	var ms []match
	var lev levenshtein
	evals := 0
	for i := max(from, 0); i+k <= len(fk); i++ {
		if fk[i] != a0 || fk[i+k-1] != a1 {
			continue
		}
		fMid, lenBound := 0, 0
		for j, s := range fk[i+1 : i+k-1] {
			fMid += len(s)
			lenBound += abs(len(s) - len(ok[1+j]))
		}
		D := max(fMid, oMid)
		budget := int(math.Floor((1-thr)*float64(D) + 1e-9))
		if lenBound > budget {
			continue // the lines' lengths alone differ too much
		}
		if evals++; evals > maxFuzzyEvals || lev.cells > lev.limit() {
			break
		}
		dist, okd := lev.window(fk[i+1:i+k-1], ok[1:k-1], budget)
		if !okd {
			continue
		}
		all := max(fMid+len(a0)+len(a1), oAll)
		sim := 1.0
		if all > 0 {
			sim = 1 - float64(dist)/float64(all)
		}
		m := d.lineSpan(i, k, q.nl, round4(sim))
		m.indentCheck = true
		ms = append(ms, m)
	}
	return ms
}

// fuzzy returns the best window at the threshold or above, and the windows
// not overlapping it whose distance is close to its, which make it ambiguous.
func (d *doc) fuzzy(q *query, from int, opts MatchOptions) []match {
	ws := scanWindows(d.fuzzyKeys(), q.fuzzyKeys(), max(from, 0), opts.FuzzyThreshold, false)
	if len(ws) == 0 {
		return nil
	}
	k := len(q.lines)
	best := ws[0]
	out := []window{best}
	for _, w := range ws[1:] {
		if !closeTo(w.dist, best.dist) {
			continue
		}
		overlaps := false
		for _, o := range out {
			if w.first < o.first+k && o.first < w.first+k {
				overlaps = true
				break
			}
		}
		if !overlaps {
			out = append(out, w)
		}
	}
	ms := make([]match, len(out))
	for i, w := range out {
		ms[i] = d.lineSpan(w.first, k, q.nl, round4(w.sim))
		ms[i].indentCheck = true
	}
	return ms
}

// closeTo: a window at distance d competes with the best, at distance best.
func closeTo(d, best int) bool { return 2*d <= 3*best+4 }

func nonOverlapping(ms []match) []match {
	slices.SortStableFunc(ms, func(a, b match) int { return cmp.Compare(a.start, b.start) })
	var out []match
	end := -1
	for _, m := range ms {
		if m.start >= end {
			out = append(out, m)
			end = m.end
		}
	}
	return out
}
