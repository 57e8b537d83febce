package edit

import (
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The edit engine replaces one span of a file's text with another. It works
// on strings only and never touches the file system.
//
// An edit's old text is looked up with a ladder of strategies; the first rung
// that finds the text wins, and the result names it:
//
//	EXACT         byte for byte (line endings aside: a CRLF file matches LF
//	              old text, and the old text's final newline also matches the
//	              end of a file that has none)
//	TRIM_END      whole lines, trailing whitespace ignored
//	TRIM          whole lines, surrounding whitespace ignored
//	INDENT        as TRIM, where the old text's indentation differs from the
//	              file's by a uniform shift (the model dropped or changed the
//	              common indent, or wrote spaces for tabs): the replacement is
//	              re-indented in the file's own style. INDENT is found by the
//	              same comparison as TRIM (it can only match what TRIM
//	              matches); the result says INDENT whenever the shift was
//	              uniform and the replacement was re-indented.
//	UNICODE       curly quotes, dashes, non-breaking and other spaces,
//	              zero-width characters and the ellipsis normalised, first as a
//	              substring, then as whole trimmed lines
//	BLOCK_ANCHOR  three lines or more: first and last lines equal (trimmed,
//	              whitespace collapsed), the lines between similar enough
//	              (FuzzyThreshold-0.2, at least 0.5)
//	FUZZY         a window of as many lines as the old text whose similarity
//	              reaches FuzzyThreshold
//
// Only the matched span changes. Every byte outside it stays as it was, the
// BOM and the presence or absence of a final newline included. The new text is
// inserted literally ($1 and $& stay as written) with its line endings
// converted to the matched region's, and, for whole-line matches whose
// indentation differed, re-indented. A match found after Unicode
// normalisation replaces the matched span with the new text exactly as given;
// the text around it keeps its own characters.
//
// Similarity is 1 - d/m over whitespace-collapsed, Unicode-normalised lines,
// where d is the sum of the Levenshtein distances of the paired lines and m
// the larger of the two texts' lengths.

// Edit is one replacement of OldText by NewText.
type Edit struct {
	OldText    string
	NewText    string
	ReplaceAll bool
}

// Status is the outcome of an edit.
type Status string

// Edit outcomes.
const (
	// StatusApplied: the old text was found and replaced.
	StatusApplied Status = "APPLIED"
	// StatusAlreadyApplied: the old text is absent (by every rung) while the
	// new text is present, or the replacement changed nothing. A success;
	// the content is unchanged.
	StatusAlreadyApplied Status = "ALREADY_APPLIED"
	// StatusNotFound: the old text is not in the content. Hint shows the
	// closest region.
	StatusNotFound Status = "NOT_FOUND"
	// StatusAmbiguous: the old text matches more than once. Matches lists
	// the start line of every match.
	StatusAmbiguous Status = "AMBIGUOUS"
	// StatusNoOp: the old text equals the new text.
	StatusNoOp Status = "NO_OP"
)

// Strategy is the rung of the matching ladder that found the old text.
type Strategy string

// Matching strategies, in ladder order.
const (
	StrategyExact       Strategy = "EXACT"
	StrategyTrimEnd     Strategy = "TRIM_END"
	StrategyTrim        Strategy = "TRIM"
	StrategyUnicode     Strategy = "UNICODE"
	StrategyIndent      Strategy = "INDENT"
	StrategyBlockAnchor Strategy = "BLOCK_ANCHOR"
	StrategyFuzzy       Strategy = "FUZZY"
)

// EditResult reports one edit.
type EditResult struct {
	Status   Status
	Strategy Strategy // the rung that found the old text (or, for ALREADY_APPLIED, the new text)
	// Similarity of the match, 0..1: 1 for the equality rungs, the measured
	// similarity for BLOCK_ANCHOR and FUZZY, and for NOT_FOUND the
	// similarity of the closest region.
	Similarity float64
	// Line and Column (1-based; the column counts characters) of the match
	// start; for ALREADY_APPLIED, where the new text is. Zero for NOT_FOUND.
	Line, Column int
	// Matches holds the 1-based start line of every match when AMBIGUOUS,
	// and of every replaced match when ReplaceAll replaced more than one.
	Matches []int
	// Hint is for the model: for NOT_FOUND the closest region, line-numbered
	// ("  12 | code") with its similarity; for AMBIGUOUS the matching lines.
	// At most MaxHintLines lines and about 2 KB.
	Hint string
}

// MatchOptions tunes the matcher. The zero value means the defaults.
type MatchOptions struct {
	// FuzzyThreshold is the similarity a FUZZY match needs (default 0.9).
	// BLOCK_ANCHOR needs FuzzyThreshold-0.2 (at least 0.5) on the lines
	// between its anchors.
	FuzzyThreshold float64
	// MaxHintLines caps the lines a hint shows (default 20).
	MaxHintLines int
}

// Matcher defaults and limits.
const (
	DefaultFuzzyThreshold = 0.9
	DefaultMaxHintLines   = 20

	edMaxHintBytes   = 2048
	edMaxHintLineLen = 160
	edDistinctiveNew = 16      // non-space characters a new text needs to count as present inside a line
	edMaxListed      = 1000    // matches collected when ambiguity is all that matters
	edMaxFuzzyEvals  = 4000    // windows whose similarity is computed, per search
	edMaxFuzzyCells  = 8 << 20 // Levenshtein cells computed, per search
	edMaxHintCells   = 2 << 20 // the same, looking for a NOT_FOUND's closest region
	edMaxFuzzyLines  = 2000    // old texts longer than this skip BLOCK_ANCHOR and FUZZY
)

func (o MatchOptions) withDefaults() MatchOptions {
	if o.FuzzyThreshold <= 0 || math.IsNaN(o.FuzzyThreshold) {
		o.FuzzyThreshold = DefaultFuzzyThreshold
	}
	if o.FuzzyThreshold > 1 {
		o.FuzzyThreshold = 1
	}
	if o.MaxHintLines <= 0 {
		o.MaxHintLines = DefaultMaxHintLines
	}
	return o
}

func (o MatchOptions) anchorThreshold() float64 {
	return math.Max(0.5, o.FuzzyThreshold-0.2)
}

// ApplyEdit applies one edit to content and returns the new content and the
// outcome. When the edit does not apply (NOT_FOUND, AMBIGUOUS), or changes
// nothing (ALREADY_APPLIED, NO_OP), content is returned unchanged.
//
// Decisions:
//   - ReplaceAll replaces every match found by the winning rung when that rung
//     is an equality rung (EXACT, TRIM_END, TRIM, INDENT, UNICODE);
//     overlapping matches are taken left to right. The similarity rungs
//     (BLOCK_ANCHOR, FUZZY) never replace more than one span: several
//     candidates there are AMBIGUOUS even with ReplaceAll.
//   - Empty old text: on empty content (a BOM alone counts as empty) the new
//     text is inserted (APPLIED, EXACT, line 1); on any other content the
//     edit is NOT_FOUND with a hint to include the surrounding lines (a whole
//     file is replaced by writing it, not by an edit).
//   - An edit whose old text is still present is applied even if the new
//     text also appears elsewhere; ALREADY_APPLIED needs the old text absent
//     by every rung and the new text present by an equality rung, covering
//     whole lines unless it has 16 non-space characters or more (a short new
//     text such as "}" or "x" found inside some line proves nothing). A
//     blank new text is never "present".
//   - A FUZZY match is ambiguous when another window, not overlapping it,
//     also reaches the threshold with a distance at most 1.5 times the
//     best's plus 2 characters. BLOCK_ANCHOR is ambiguous when several
//     anchored blocks pass.
func ApplyEdit(content string, e Edit, opts MatchOptions) (string, EditResult) {
	out, r, _ := applyEditScoped(newEdDoc(content), e, opts.withDefaults(), edScope{})
	return out, r
}

// ApplyEdits applies edits in order, each to the content the previous ones
// produced. A failed edit leaves the content unchanged for the next ones;
// the caller decides whether a batch with failures is kept.
func ApplyEdits(content string, edits []Edit, opts MatchOptions) (string, []EditResult) {
	opts = opts.withDefaults()
	results := make([]EditResult, len(edits))
	d := newEdDoc(content)
	for i, e := range edits {
		out, r, _ := applyEditScoped(d, e, opts, edScope{})
		results[i] = r
		if out != content {
			content = out
			d = newEdDoc(content)
		}
	}
	return content, results
}

// edScope narrows a search: used by ApplyChunks.
type edScope struct {
	from        int  // first line (0-based) a match may start on
	preferFirst bool // take the first match instead of reporting ambiguity
	eof         bool // prefer matches that end at the end of the file
}

// edApplied describes a successful replacement, for callers that need the
// spans (tests, ApplyChunks).
type edApplied struct {
	spans   [][2]int // original byte offsets of the replaced spans
	repls   []string // what replaced them
	nextLin int      // 0-based line just after the (first) replacement, in the new content
}

func applyEditScoped(d *edDoc, e Edit, opts MatchOptions, sc edScope) (string, EditResult, edApplied) {
	content := d.orig
	if e.OldText == e.NewText {
		return content, EditResult{Status: StatusNoOp}, edApplied{}
	}
	if e.OldText == "" {
		if d.n == "" {
			out := content[:d.bom] + e.NewText
			return out, EditResult{Status: StatusApplied, Strategy: StrategyExact, Similarity: 1, Line: 1, Column: 1},
				edApplied{spans: [][2]int{{d.bom, d.bom}}, repls: []string{e.NewText}, nextLin: strings.Count(e.NewText, "\n")}
		}
		return content, EditResult{Status: StatusNotFound, Hint: "The old text is empty, so there is nothing to locate. " +
			"Give the exact lines to replace, including a few unchanged lines around the change; " +
			"to replace the whole file, write the file instead."}, edApplied{}
	}
	q := newEdQuery(e.OldText)
	limit := edMaxListed
	if e.ReplaceAll {
		limit = -1
	}
	found := d.locate(q, opts, sc, limit, false)
	if len(found.matches) == 0 {
		return content, d.notFound(q, e, opts), edApplied{}
	}
	ms := found.matches
	if sc.eof {
		var atEnd []edMatch
		for _, m := range ms {
			if d.atEOF(m) {
				atEnd = append(atEnd, m)
			}
		}
		if len(atEnd) > 0 {
			ms = atEnd
		}
	}
	similarityRung := found.strategy == StrategyBlockAnchor || found.strategy == StrategyFuzzy
	switch {
	case len(ms) == 1:
	case sc.preferFirst:
		ms = ms[:1]
	case e.ReplaceAll && !similarityRung:
		ms = edNonOverlapping(ms)
	default:
		return content, d.ambiguous(found.strategy, ms, opts), edApplied{}
	}

	// Build the result: replacements in order of position.
	var b strings.Builder
	b.Grow(len(content) + len(ms)*len(e.NewText))
	prev := 0
	strategy := found.strategy
	var spans [][2]int
	var repls []string
	var firstEnd int
	for i, m := range ms {
		repl, st := d.replacement(m, q, e.NewText, found.strategy)
		if i == 0 {
			strategy = st
		}
		os, oe := d.origOff(m.start), d.origOff(m.end)
		b.WriteString(content[prev:os])
		b.WriteString(repl)
		if i == 0 {
			firstEnd = b.Len()
		}
		prev = oe
		spans = append(spans, [2]int{os, oe})
		repls = append(repls, repl)
	}
	b.WriteString(content[prev:])
	out := b.String()

	m0 := ms[0]
	line, col := d.lineCol(m0.start)
	r := EditResult{Status: StatusApplied, Strategy: strategy, Similarity: m0.sim, Line: line, Column: col}
	if len(ms) > 1 {
		r.Matches = d.lineNumbers(ms)
	}
	if out == content {
		r.Status = StatusAlreadyApplied
		r.Hint = fmt.Sprintf("The text at line %d already reads as the new text; nothing changed.", line)
	}
	// The line where the text after the replacement starts (a replacement
	// that ends mid-line leaves the next chunk that line).
	next := strings.Count(out[:firstEnd], "\n")
	return out, r, edApplied{spans: spans, repls: repls, nextLin: next}
}

// notFound builds the NOT_FOUND or ALREADY_APPLIED result.
func (d *edDoc) notFound(q *edQuery, e Edit, opts MatchOptions) EditResult {
	if strings.TrimSpace(e.NewText) != "" {
		nq := newEdQuery(e.NewText)
		distinctive := edNonSpace(e.NewText) >= edDistinctiveNew
		f := d.locate(nq, opts, edScope{}, edMaxListed, true)
		for _, m := range f.matches {
			if !distinctive && !d.lineAligned(m) {
				continue // a short new text inside a line proves nothing
			}
			line, col := d.lineCol(m.start)
			return EditResult{Status: StatusAlreadyApplied, Strategy: f.strategy, Similarity: 1, Line: line, Column: col,
				Hint: fmt.Sprintf("The old text is not in the file but the new text already is, at line %d: the edit looks applied already.", line)}
		}
	}
	r := EditResult{Status: StatusNotFound}
	fk := d.fuzzyKeys()
	k := len(q.lines)
	switch {
	case d.n == "":
		r.Hint = "The file is empty."
	case k > len(fk):
		r.Hint = fmt.Sprintf("The old text has %d lines but the file only %d.", k, len(fk))
	default:
		ws := edScanWindows(fk, q.fuzzyKeys(), 0, 0, true)
		if len(ws) == 0 {
			r.Hint = "No region of the file resembles the old text."
			break
		}
		w := ws[0]
		r.Similarity = edRound(w.sim)
		r.Hint = fmt.Sprintf("closest region: lines %d-%d (similarity %.2f)\n%s",
			w.first+1, w.first+k, w.sim, d.numbered([]int{w.first}, k, opts.MaxHintLines))
	}
	return r
}

// lineAligned tells whether m covers whole lines: it starts at a line's
// start or indentation and ends at a line's end or trailing whitespace.
func (d *edDoc) lineAligned(m edMatch) bool {
	if m.lineBased {
		return true
	}
	ls := strings.LastIndexByte(d.n[:m.start], '\n') + 1
	if strings.TrimSpace(d.n[ls:m.start]) != "" {
		return false
	}
	if m.end > m.start && d.n[m.end-1] == '\n' {
		return true
	}
	rest := d.n[m.end:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest) == ""
}

func edNonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

func (d *edDoc) ambiguous(st Strategy, ms []edMatch, opts MatchOptions) EditResult {
	ms = append([]edMatch(nil), ms...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	r := EditResult{Status: StatusAmbiguous, Strategy: st, Matches: d.lineNumbers(ms)}
	firsts := make([]int, 0, len(ms))
	for i, m := range ms {
		if i == 0 || r.Matches[i] != r.Matches[i-1] {
			firsts = append(firsts, r.Matches[i]-1)
		}
		if r.Similarity < m.sim {
			r.Similarity = m.sim
		}
	}
	more := ""
	if len(ms) >= edMaxListed {
		more = " or more"
	}
	r.Hint = fmt.Sprintf("%d%s matches (%s) at lines %s\n%s", len(ms), more, st, edJoinInts(r.Matches, 30),
		d.numbered(firsts, 1, opts.MaxHintLines-1))
	return r
}

// ---------------------------------------------------------------------------
// Documents and queries

// edDoc is a content prepared for matching: n is the content without its BOM
// and with CRLF turned into LF; offsets into n map back to the content.
type edDoc struct {
	orig    string
	bom     int
	n       string
	crs     []int // positions in n of the '\n's that were "\r\n"
	finalNL bool

	lines    []edLine
	keys     map[int][]string
	hashes   map[int][]uint64
	fkeys    []string
	uni      *edMap
	uniDone  bool
	styleSet bool
	style    edIndentStyle
}

type edLine struct{ start, end int } // in n; end excludes the '\n'

const edBOM = "\uFEFF"

func newEdDoc(content string) *edDoc {
	d := &edDoc{orig: content}
	s := content
	if strings.HasPrefix(s, edBOM) {
		d.bom = len(edBOM)
		s = s[d.bom:]
	}
	if strings.Contains(s, "\r\n") {
		var b strings.Builder
		b.Grow(len(s))
		for {
			i := strings.Index(s, "\r\n")
			if i < 0 {
				b.WriteString(s)
				break
			}
			b.WriteString(s[:i])
			d.crs = append(d.crs, b.Len())
			b.WriteByte('\n')
			s = s[i+2:]
		}
		s = b.String()
	}
	d.n = s
	d.finalNL = strings.HasSuffix(s, "\n")
	return d
}

// origOff maps an offset in n to an offset in the original content.
func (d *edDoc) origOff(t int) int {
	return d.bom + t + sort.SearchInts(d.crs, t)
}

func (d *edDoc) isCR(p int) bool {
	i := sort.SearchInts(d.crs, p)
	return i < len(d.crs) && d.crs[i] == p
}

func (d *edDoc) lineIndex() []edLine {
	if d.lines != nil || d.n == "" {
		return d.lines
	}
	n := d.n
	L := make([]edLine, 0, strings.Count(n, "\n")+1)
	for start := 0; start < len(n); {
		j := strings.IndexByte(n[start:], '\n')
		if j < 0 {
			L = append(L, edLine{start, len(n)})
			break
		}
		L = append(L, edLine{start, start + j})
		start += j + 1
	}
	d.lines = L
	return L
}

func (d *edDoc) text(i int) string {
	l := d.lines[i]
	return d.n[l.start:l.end]
}

// lineCol returns the 1-based line and column (in characters) of offset t in n.
func (d *edDoc) lineCol(t int) (int, int) {
	if t > len(d.n) {
		t = len(d.n)
	}
	line := strings.Count(d.n[:t], "\n") + 1
	ls := strings.LastIndexByte(d.n[:t], '\n') + 1
	return line, utf8.RuneCountInString(d.n[ls:t]) + 1
}

// lineNumbers returns the 1-based line of each match's start, counting
// newlines once through the content.
func (d *edDoc) lineNumbers(ms []edMatch) []int {
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ms[order[a]].start < ms[order[b]].start })
	out := make([]int, len(ms))
	line, pos := 1, 0
	for _, i := range order {
		t := min(ms[i].start, len(d.n))
		line += strings.Count(d.n[pos:t], "\n")
		pos = t
		out[i] = line
	}
	return out
}

// Key kinds for whole-line comparison.
const (
	edKeyTrimEnd = iota
	edKeyTrim
	edKeyUnicode
)

func edKey(kind int, s string) string {
	switch kind {
	case edKeyTrimEnd:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case edKeyTrim:
		return strings.TrimSpace(s)
	default:
		u, _, _ := edUnorm(strings.TrimSpace(s), false)
		return strings.TrimSpace(u)
	}
}

func (d *edDoc) lineKeys(kind int) []string {
	if ks, ok := d.keys[kind]; ok {
		return ks
	}
	L := d.lineIndex()
	ks := make([]string, len(L))
	for i := range L {
		ks[i] = edKey(kind, d.text(i))
	}
	if d.keys == nil {
		d.keys = map[int][]string{}
	}
	d.keys[kind] = ks
	return ks
}

// fuzzyKeys are the lines trimmed, Unicode-normalised, whitespace collapsed.
func (d *edDoc) fuzzyKeys() []string {
	if d.fkeys == nil {
		L := d.lineIndex()
		d.fkeys = make([]string, len(L))
		for i := range L {
			d.fkeys[i] = edFuzzyKey(d.text(i))
		}
	}
	return d.fkeys
}

func edFuzzyKey(s string) string {
	s, _, _ = edUnorm(strings.TrimSpace(s), false)
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

// edQuery is an old (or new) text prepared for matching.
type edQuery struct {
	text  string   // CRLF → LF, leading BOM dropped
	lines []string // text split into lines; a final newline adds no line
	nl    bool     // text ends with a newline
	keys  map[int][]string
	fkeys []string
}

func newEdQuery(s string) *edQuery {
	s = strings.TrimPrefix(edNormNL(s), edBOM)
	q := &edQuery{text: s}
	if s == "" {
		return q
	}
	body := s
	if strings.HasSuffix(body, "\n") {
		q.nl = true
		body = body[:len(body)-1]
	}
	q.lines = strings.Split(body, "\n")
	return q
}

func (q *edQuery) lineKeys(kind int) []string {
	if ks, ok := q.keys[kind]; ok {
		return ks
	}
	ks := make([]string, len(q.lines))
	for i, l := range q.lines {
		ks[i] = edKey(kind, l)
	}
	if q.keys == nil {
		q.keys = map[int][]string{}
	}
	q.keys[kind] = ks
	return ks
}

func (q *edQuery) fuzzyKeys() []string {
	if q.fkeys == nil {
		q.fkeys = make([]string, len(q.lines))
		for i, l := range q.lines {
			q.fkeys[i] = edFuzzyKey(l)
		}
	}
	return q.fkeys
}

func edNormNL(s string) string {
	if strings.Contains(s, "\r\n") {
		return strings.ReplaceAll(s, "\r\n", "\n")
	}
	return s
}

// ---------------------------------------------------------------------------
// The ladder

type edMatch struct {
	start, end  int // offsets in n
	lineBased   bool
	first, cnt  int // matched lines, when lineBased
	sim         float64
	indentCheck bool // the rung compared lines ignoring leading whitespace
}

type edFound struct {
	strategy Strategy
	matches  []edMatch
}

// locate runs the ladder. presence stops after the equality rungs (used to
// decide ALREADY_APPLIED). limit caps the matches collected (-1: all).
func (d *edDoc) locate(q *edQuery, opts MatchOptions, sc edScope, limit int, presence bool) edFound {
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
		return edFound{StrategyExact, ms}
	}
	if len(q.lines) == 0 {
		return edFound{}
	}
	if ms := d.lineRung(q, sc.from, edKeyTrimEnd, limit); len(ms) > 0 {
		return edFound{StrategyTrimEnd, ms}
	}
	if ms := d.lineRung(q, sc.from, edKeyTrim, limit); len(ms) > 0 {
		for i := range ms {
			ms[i].indentCheck = true
		}
		return edFound{StrategyTrim, ms}
	}
	if ms := d.unicodeSubstring(q, from, limit); len(ms) > 0 {
		return edFound{StrategyUnicode, ms}
	}
	if ms := d.lineRung(q, sc.from, edKeyUnicode, limit); len(ms) > 0 {
		for i := range ms {
			ms[i].indentCheck = true
		}
		return edFound{StrategyUnicode, ms}
	}
	if presence || len(q.lines) > edMaxFuzzyLines {
		return edFound{}
	}
	if ms := d.blockAnchor(q, sc.from, opts); len(ms) > 0 {
		return edFound{StrategyBlockAnchor, ms}
	}
	if ms := d.fuzzy(q, sc.from, opts); len(ms) > 0 {
		return edFound{StrategyFuzzy, ms}
	}
	return edFound{}
}

// exact finds every occurrence of old in n at or after from (overlapping
// ones included), plus the old text whose final newline stands for the end
// of a file that has none.
func (d *edDoc) exact(old string, from, limit int) []edMatch {
	if old == "" || from > len(d.n) {
		return nil
	}
	var ms []edMatch
	for i := from; i <= len(d.n); {
		j := strings.Index(d.n[i:], old)
		if j < 0 {
			break
		}
		ms = append(ms, edMatch{start: i + j, end: i + j + len(old), sim: 1})
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
			ms = append(ms, edMatch{start: start, end: len(d.n), sim: 1})
		}
	}
	return ms
}

// lineRung matches the old text's lines against whole lines of the file by
// the given key. A rolling hash over the line keys finds the candidates in
// O(lines), each then verified.
func (d *edDoc) lineRung(q *edQuery, from, kind, limit int) []edMatch {
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
		target = target*edHashBase + maphash.String(edSeed, ok[j])
		h = h*edHashBase + hf[from+j]
		if j > 0 {
			pow *= edHashBase
		}
	}
	var ms []edMatch
	for i := from; ; i++ {
		if h == target {
			match := true
			for j := 0; j < k; j++ {
				if fk[i+j] != ok[j] {
					match = false
					break
				}
			}
			if match {
				ms = append(ms, d.lineSpan(i, k, q.nl, 1))
				if limit >= 0 && len(ms) >= limit {
					break
				}
			}
		}
		if i+k >= len(L) {
			break
		}
		h = (h-hf[i]*pow)*edHashBase + hf[i+k]
	}
	return ms
}

var edSeed = maphash.MakeSeed()

const edHashBase = 1099511628211

func (d *edDoc) lineHashes(kind int) []uint64 {
	if hs, ok := d.hashes[kind]; ok {
		return hs
	}
	ks := d.lineKeys(kind)
	hs := make([]uint64, len(ks))
	for i, k := range ks {
		hs[i] = maphash.String(edSeed, k)
	}
	if d.hashes == nil {
		d.hashes = map[int][]uint64{}
	}
	d.hashes[kind] = hs
	return hs
}

func (d *edDoc) lineSpan(first, k int, nl bool, sim float64) edMatch {
	L := d.lines
	m := edMatch{start: L[first].start, end: L[first+k-1].end, lineBased: true, first: first, cnt: k, sim: sim}
	if nl && m.end < len(d.n) {
		m.end++ // the old text's final newline is the last line's
	}
	return m
}

func (d *edDoc) atEOF(m edMatch) bool {
	return m.end == len(d.n) || (m.end == len(d.n)-1 && d.finalNL)
}

// unicodeSubstring looks for the normalised old text in the normalised file.
func (d *edDoc) unicodeSubstring(q *edQuery, from, limit int) []edMatch {
	if !d.uniDone {
		d.uniDone = true
		u, bps, changed := edUnorm(d.n, true)
		if changed {
			d.uni = &edMap{s: u, bps: bps}
		}
	}
	uo, _, changedOld := edUnorm(q.text, false)
	if uo == "" || (d.uni == nil && !changedOld) {
		return nil // nothing normalised: the exact rung already looked
	}
	hay := d.n
	toN := func(t int) int { return t }
	if d.uni != nil {
		hay = d.uni.s
		toN = d.uni.toOrig
	}
	var ms []edMatch
	for i := 0; i <= len(hay); {
		j := strings.Index(hay[i:], uo)
		if j < 0 {
			break
		}
		s, e := toN(i+j), toN(i+j+len(uo))
		if s >= from && d.runeBoundary(s) && d.runeBoundary(e) && e > s {
			ms = append(ms, edMatch{start: s, end: e, sim: 1})
			if limit >= 0 && len(ms) >= limit {
				break
			}
		}
		_, size := utf8.DecodeRuneInString(hay[i+j:])
		i += j + max(size, 1)
	}
	return ms
}

func (d *edDoc) runeBoundary(t int) bool {
	return t <= 0 || t >= len(d.n) || utf8.RuneStart(d.n[t])
}

// blockAnchor: three lines or more whose first and last lines equal the
// file's, the lines between similar enough.
func (d *edDoc) blockAnchor(q *edQuery, from int, opts MatchOptions) []edMatch {
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
	var ms []edMatch
	var lev edLev
	evals := 0
	for i := max(from, 0); i+k <= len(fk); i++ {
		if fk[i] != a0 || fk[i+k-1] != a1 {
			continue
		}
		fMid, lenBound := 0, 0
		for j, s := range fk[i+1 : i+k-1] {
			fMid += len(s)
			lenBound += edAbs(len(s) - len(ok[1+j]))
		}
		D := max(fMid, oMid)
		budget := int(math.Floor((1-thr)*float64(D) + 1e-9))
		if lenBound > budget {
			continue // the lines' lengths alone differ too much
		}
		if evals++; evals > edMaxFuzzyEvals || lev.cells > lev.limit() {
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
		m := d.lineSpan(i, k, q.nl, edRound(sim))
		m.indentCheck = true
		ms = append(ms, m)
	}
	return ms
}

// fuzzy slides a window of the old text's line count over the file and
// keeps the best window at or above the threshold, plus those that make it
// ambiguous: windows not overlapping it whose distance is at most 1.5 times
// the best's plus 2.
func (d *edDoc) fuzzy(q *edQuery, from int, opts MatchOptions) []edMatch {
	ws := edScanWindows(d.fuzzyKeys(), q.fuzzyKeys(), max(from, 0), opts.FuzzyThreshold, false)
	if len(ws) == 0 {
		return nil
	}
	k := len(q.lines)
	best := ws[0]
	out := []edWin{best}
	for _, w := range ws[1:] {
		if !edCloseTo(w.dist, best.dist) {
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
	ms := make([]edMatch, len(out))
	for i, w := range out {
		ms[i] = d.lineSpan(w.first, k, q.nl, edRound(w.sim))
		ms[i].indentCheck = true
	}
	return ms
}

// edCloseTo: a window at distance d competes with the best, at distance best.
func edCloseTo(d, best int) bool { return 2*d <= 3*best+4 }

func edNonOverlapping(ms []edMatch) []edMatch {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].start < ms[j].start })
	var out []edMatch
	end := -1
	for _, m := range ms {
		if m.start >= end {
			out = append(out, m)
			end = m.end
		}
	}
	return out
}

// ---------------------------------------------------------------------------
// Replacement

// replacement returns the text that replaces m, and the strategy to report.
func (d *edDoc) replacement(m edMatch, q *edQuery, newText string, st Strategy) (string, Strategy) {
	nt := edNormNL(newText)
	if m.lineBased && m.indentCheck {
		fileLines := make([]string, m.cnt)
		for j := range fileLines {
			fileLines[j] = d.text(m.first + j)
		}
		var mode int
		nt, mode = edReindent(nt, fileLines, q.lines, d.indentStyle)
		if st == StrategyTrim && mode == edIndentUniform {
			st = StrategyIndent
		}
	}
	// Keep the presence or absence of the final newline.
	if m.end == len(d.n) {
		if d.finalNL {
			if !strings.HasSuffix(nt, "\n") {
				atLineStart := m.start == 0 || d.n[m.start-1] == '\n'
				if nt != "" || !atLineStart {
					nt += "\n"
				}
			}
		} else {
			nt = strings.TrimRight(nt, "\n")
		}
	}
	if d.crlfFor(m) {
		nt = strings.ReplaceAll(nt, "\n", "\r\n")
	}
	return nt, st
}

// crlfFor tells whether the replacement of m gets CRLF line endings: those of
// the matched region, or of the line it sits on.
func (d *edDoc) crlfFor(m edMatch) bool {
	if len(d.crs) == 0 {
		return false
	}
	if total := strings.Count(d.n[m.start:m.end], "\n"); total > 0 {
		cr := sort.SearchInts(d.crs, m.end) - sort.SearchInts(d.crs, m.start)
		return cr*2 >= total
	}
	if j := strings.IndexByte(d.n[m.end:], '\n'); j >= 0 {
		return d.isCR(m.end + j)
	}
	if i := strings.LastIndexByte(d.n[:m.start], '\n'); i >= 0 {
		return d.isCR(i)
	}
	return false
}

// ---------------------------------------------------------------------------
// Indentation

type edIndentStyle struct {
	tabs  bool
	width int // spaces per level when !tabs
}

const (
	edIndentSame = iota
	edIndentUniform
	edIndentMapped
)

// indentStyle guesses the file's indentation: tabs or spaces, and how many.
func (d *edDoc) indentStyle() edIndentStyle {
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
		ws := edLead(t)
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
	st := edIndentStyle{tabs: tabs > spaces, width: 4}
	best := 0
	for w, c := range deltas {
		if w >= 2 && w <= 8 && (c > best || (c == best && w < st.width)) {
			st.width, best = w, c
		}
	}
	d.style = st
	return st
}

// edReindent re-indents the new text when the matched file lines and the
// old lines differ in leading whitespace. When the difference is a uniform
// shift (a common prefix swapped, and possibly tabs for spaces or another
// indent width), every new line is shifted the same way (edIndentUniform).
// Otherwise the new lines whose indentation equals an old line's take the
// matching file line's (edIndentMapped).
func edReindent(nt string, fileLines, oldLines []string, fileStyle func() edIndentStyle) (string, int) {
	var fws, ows []string
	for j := range oldLines {
		if j >= len(fileLines) {
			break
		}
		if strings.TrimSpace(oldLines[j]) == "" || strings.TrimSpace(fileLines[j]) == "" {
			continue
		}
		fws = append(fws, edLead(fileLines[j]))
		ows = append(ows, edLead(oldLines[j]))
	}
	same := true
	for j := range fws {
		if fws[j] != ows[j] {
			same = false
			break
		}
	}
	if same {
		return nt, edIndentSame
	}
	newLines := strings.Split(nt, "\n")
	P, Q := edLCP(fws), edLCP(ows)

	// Styles of both sides.
	var fromS, toS edIndentStyle
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
		if w := edLead(l); strings.HasPrefix(w, Q) {
			relN = append(relN, w[len(Q):])
		}
	}
	toS, toKnown = edStyleOf(append([]string{P}, fws...), relF)
	if fs := fileStyle(); !toKnown {
		toS = fs
	} else if !toS.tabs && toS.width == 0 {
		toS.width = 4
		if !fs.tabs {
			toS.width = fs.width
		}
	}
	fromS, fromKnown = edStyleOf(append(append([]string{Q}, ows...), relN...), append(relO, relN...))
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
		return edConvertRel(rel, fromS, toS)
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
			w := edLead(l)
			switch {
			case strings.HasPrefix(w, Q):
				newLines[i] = P + conv(w[len(Q):]) + l[len(w):]
			case strings.HasPrefix(Q, w):
				// Less indented than the old text's common indent: take the
				// difference off the file's.
				cut := edConvertRel(Q[len(w):], fromS, toS)
				if strings.HasSuffix(P, cut) {
					newLines[i] = P[:len(P)-len(cut)] + l[len(w):]
				} else {
					newLines[i] = l[len(w):] // further out than the file's indent goes
				}
			}
		}
		return strings.Join(newLines, "\n"), edIndentUniform
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
		w := edLead(l)
		if v, ok := mp[w]; ok && !bad[w] {
			newLines[i] = v + l[len(w):]
		}
	}
	return strings.Join(newLines, "\n"), edIndentMapped
}

// edStyleOf infers an indentation style from whitespace prefixes; rels give
// the width (the gcd of their space counts).
func edStyleOf(all, rels []string) (edIndentStyle, bool) {
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
		return edIndentStyle{tabs: true}, true
	}
	if !spaces {
		return edIndentStyle{}, false
	}
	g := 0
	for _, r := range rels {
		if n := strings.Count(r, " "); n > 0 {
			g = edGCD(g, n)
		}
	}
	return edIndentStyle{width: g}, true // width 0: spaces, width unknown
}

func edConvertRel(rel string, from, to edIndentStyle) string {
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

func edLead(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[:i]
}

func edLCP(ss []string) string {
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

func edGCD(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ---------------------------------------------------------------------------
// Unicode normalisation

// edMap maps offsets of a normalised string back to the string it came from.
type edMap struct {
	s   string
	bps []edBP
}

// edBP: from offset t on (in the normalised string), add delta.
type edBP struct{ t, delta int }

func (m *edMap) toOrig(t int) int {
	i := sort.Search(len(m.bps), func(i int) bool { return m.bps[i].t > t })
	if i == 0 {
		return t
	}
	return t + m.bps[i-1].delta
}

// edUnorm folds typographic punctuation and odd spaces to ASCII: curly
// quotes, primes, dashes and the minus sign, non-breaking and other spaces,
// zero-width characters (dropped), the ellipsis. It reports whether anything
// changed, and with withMap the breakpoints to map offsets back.
func edUnorm(s string, withMap bool) (string, []edBP, bool) {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf {
		i++
	}
	if i == len(s) {
		return s, nil, false
	}
	var b strings.Builder
	var bps []edBP
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
		rep, ok := edUniRepl(r)
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
				bps = append(bps, edBP{t: b.Len(), delta: delta})
			}
		}
	}
	if !changed {
		return s, nil, false
	}
	return b.String(), bps, true
}

func edUniRepl(r rune) (string, bool) {
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

// ---------------------------------------------------------------------------
// Similarity

type edWin struct {
	first int
	sim   float64
	dist  int
}

// edScanWindows scores windows of len(ok) lines of fk starting at or after
// from. A character histogram, kept as the window slides, bounds each
// window's similarity from above in O(1) per character; only windows whose
// bound reaches the bar get their line-by-line Levenshtein distance
// computed, best bound first, with a distance budget. Work is capped
// (edMaxFuzzyEvals windows, edMaxFuzzyCells cells; edMaxHintCells with
// bestOnly).
//
// With bestOnly it returns the single most similar window (at least minSim);
// otherwise every window at or above minSim that may matter: those whose
// distance is close to the best's (edCloseTo). Results are sorted by
// similarity, then position.
func edScanWindows(fk, ok []string, from int, minSim float64, bestOnly bool) []edWin {
	n, k := len(fk), len(ok)
	if k == 0 || from < 0 || n-from < k {
		return nil
	}
	var diff [256]int32
	lenO := 0
	for _, s := range ok {
		for i := 0; i < len(s); i++ {
			diff[s[i]]--
		}
		lenO += len(s)
	}
	l1 := lenO
	lenW := 0
	add := func(s string, sign int32) {
		for i := 0; i < len(s); i++ {
			c := s[i]
			old := diff[c]
			nw := old + sign
			diff[c] = nw
			l1 += edAbs32(nw) - edAbs32(old)
		}
	}
	for j := from; j < from+k; j++ {
		add(fk[j], 1)
		lenW += len(fk[j])
	}
	nw := n - from - k + 1
	ubs := make([]float64, nw)
	dens := make([]int32, nw)
	for i := 0; ; i++ {
		D := max(lenW, lenO)
		lb := (l1 + edAbs(lenW-lenO) + 1) / 2
		ub := 1.0
		if D > 0 {
			ub = 1 - float64(lb)/float64(D)
		}
		ubs[i], dens[i] = ub, int32(D)
		if i+1 >= nw {
			break
		}
		s, e := fk[from+i], fk[from+i+k]
		add(s, -1)
		add(e, 1)
		lenW += len(e) - len(s)
	}
	cands := make([]int32, 0, 64)
	for i, ub := range ubs {
		if ub >= minSim-1e-12 {
			cands = append(cands, int32(i))
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return ubs[cands[a]] > ubs[cands[b]] })

	var lev edLev
	if bestOnly {
		lev.maxCells = edMaxHintCells
	}
	var res []edWin
	best, bestDist := -1.0, -1
	for n, c := range cands {
		ub := ubs[c]
		need := minSim
		if bestOnly && best >= 0 {
			if ub <= best {
				break
			}
			need = math.Max(need, best)
		}
		if ub < need-1e-12 {
			break
		}
		if n >= edMaxFuzzyEvals || lev.cells > lev.limit() {
			break
		}
		D := int(dens[c])
		i := from + int(c)
		budget := int(math.Floor((1-need)*float64(D) + 1e-9))
		if !bestOnly && bestDist >= 0 {
			// Only a window close to the best (or better) matters now.
			budget = min(budget, (3*bestDist+4)/2)
			if lb := int(math.Ceil((1-ub)*float64(D) - 1e-9)); lb > budget {
				continue
			}
		}
		dist, okd := lev.window(fk[i:i+k], ok, budget)
		if !okd {
			continue
		}
		sim := 1.0
		if D > 0 {
			sim = 1 - float64(dist)/float64(D)
		} else if dist > 0 {
			sim = 0
		}
		if sim < minSim-1e-12 {
			continue
		}
		if sim > best {
			best = sim
		}
		if bestDist < 0 || dist < bestDist {
			bestDist = dist
		}
		res = append(res, edWin{i, sim, dist})
	}
	sort.SliceStable(res, func(a, b int) bool {
		if res[a].sim != res[b].sim {
			return res[a].sim > res[b].sim
		}
		return res[a].first < res[b].first
	})
	if bestOnly && len(res) > 1 {
		res = res[:1]
	}
	return res
}

// edLev computes bounded Levenshtein distances, reusing its rows, within
// a budget of cells (maxCells, default edMaxFuzzyCells).
type edLev struct {
	row      []int
	cells    int
	maxCells int
}

func (l *edLev) limit() int {
	if l.maxCells > 0 {
		return l.maxCells
	}
	return edMaxFuzzyCells
}

// window sums the distances of paired lines; false when over budget.
func (l *edLev) window(a, b []string, budget int) (int, bool) {
	total := 0
	for j := range a {
		if a[j] == b[j] {
			continue
		}
		d := l.dist(a[j], b[j], budget-total)
		total += d
		if total > budget {
			return total, false
		}
	}
	return total, true
}

// dist returns the Levenshtein distance of a and b (bytes) if it is at most
// limit, and some value above limit otherwise.
func (l *edLev) dist(a, b string, limit int) int {
	if limit < 0 {
		return 1
	}
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(a) == 0 || len(b) == 0 {
		return max(len(a), len(b))
	}
	if edAbs(len(a)-len(b)) > limit {
		return limit + 1
	}
	la, lb := len(a), len(b)
	if l.cells+la*min(lb, 2*limit+1) > l.limit() {
		l.cells = l.limit() + 1 // out of work: too different, as far as we will look
		return limit + 1
	}
	big := limit + 1
	if cap(l.row) < 2*(lb+1) {
		l.row = make([]int, 2*(lb+1))
	}
	prev, cur := l.row[:lb+1], l.row[lb+1:2*(lb+1)]
	for j := 0; j <= lb; j++ {
		if j <= limit {
			prev[j] = j
		} else {
			prev[j] = big
		}
	}
	for i := 1; i <= la; i++ {
		lo, hi := max(1, i-limit), min(lb, i+limit)
		if lo > hi {
			return big
		}
		if lo == 1 {
			if i <= limit {
				cur[0] = i
			} else {
				cur[0] = big
			}
		} else {
			cur[lo-1] = big
		}
		rowMin := big
		ai := a[i-1]
		for j := lo; j <= hi; j++ {
			v := prev[j-1]
			if ai != b[j-1] {
				v++
			}
			if x := prev[j] + 1; x < v {
				v = x
			}
			if x := cur[j-1] + 1; x < v {
				v = x
			}
			if v > big {
				v = big
			}
			cur[j] = v
			if v < rowMin {
				rowMin = v
			}
		}
		l.cells += hi - lo + 1
		if hi < lb {
			cur[hi+1] = big
		}
		if rowMin > limit {
			return big
		}
		prev, cur = cur, prev
	}
	return prev[lb]
}

// ---------------------------------------------------------------------------
// Hints and small helpers

// numbered prints, for each first line (0-based), count lines of the file
// numbered "  12 | code", within maxLines lines and about 2 KB.
func (d *edDoc) numbered(firsts []int, count, maxLines int) string {
	L := d.lineIndex()
	if maxLines < 1 {
		maxLines = 1
	}
	last := 0
	for _, f := range firsts {
		last = max(last, f+count)
	}
	width := max(4, len(strconv.Itoa(last)))
	var b strings.Builder
	lines := 0
	for fi, f := range firsts {
		for i := f; i < f+count && i < len(L); i++ {
			if lines >= maxLines || b.Len() > edMaxHintBytes {
				rest := f + count - i
				for _, g := range firsts[fi+1:] {
					rest += min(count, len(L)-g)
				}
				fmt.Fprintf(&b, "%*s | … (%d more lines)\n", width, "", rest)
				return strings.TrimSuffix(b.String(), "\n")
			}
			t := d.text(i)
			if len(t) > edMaxHintLineLen {
				cut := edMaxHintLineLen
				for cut > 0 && !utf8.RuneStart(t[cut]) {
					cut--
				}
				t = t[:cut] + "…"
			}
			fmt.Fprintf(&b, "%*d | %s\n", width, i+1, t)
			lines++
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func edJoinInts(xs []int, max int) string {
	var b strings.Builder
	for i, x := range xs {
		if i == max {
			fmt.Fprintf(&b, ", … (%d more)", len(xs)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

func edRound(x float64) float64 { return math.Round(x*10000) / 10000 }

func edAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func edAbs32(x int32) int {
	if x < 0 {
		return int(-x)
	}
	return int(x)
}
