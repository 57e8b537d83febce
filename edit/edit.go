package edit

import (
	"fmt"
	"math"
	"strings"
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

	maxHintBytes   = 2048
	maxHintLineLen = 160
	distinctiveNew = 16      // non-space characters a new text needs to count as present inside a line
	maxListed      = 1000    // matches collected when ambiguity is all that matters
	maxFuzzyEvals  = 4000    // windows whose similarity is computed, per search
	maxFuzzyCells  = 8 << 20 // Levenshtein cells computed, per search
	maxHintCells   = 2 << 20 // the same, looking for a NOT_FOUND's closest region
	maxFuzzyLines  = 2000    // old texts longer than this skip BLOCK_ANCHOR and FUZZY
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
	out, r, _ := applyScoped(newDoc(content), e, opts.withDefaults(), scope{})
	return out, r
}

// ApplyEdits applies edits in order, each to the content the previous ones
// produced. A failed edit leaves the content unchanged for the next ones;
// the caller decides whether a batch with failures is kept.
func ApplyEdits(content string, edits []Edit, opts MatchOptions) (string, []EditResult) {
	opts = opts.withDefaults()
	results := make([]EditResult, len(edits))
	d := newDoc(content)
	for i, e := range edits {
		out, r, _ := applyScoped(d, e, opts, scope{})
		results[i] = r
		if out != content {
			content = out
			d = newDoc(content)
		}
	}
	return content, results
}

// scope narrows a search: used by ApplyChunks.
type scope struct {
	from        int  // first line (0-based) a match may start on
	preferFirst bool // take the first match instead of reporting ambiguity
	eof         bool // prefer matches that end at the end of the file
}

// applied describes a successful replacement, for callers that need the
// spans (tests, ApplyChunks).
type applied struct {
	spans   [][2]int // original byte offsets of the replaced spans
	repls   []string // what replaced them
	nextLin int      // 0-based line just after the (first) replacement, in the new content
}

func applyScoped(d *doc, e Edit, opts MatchOptions, sc scope) (string, EditResult, applied) {
	content := d.orig
	if e.OldText == e.NewText {
		return content, EditResult{Status: StatusNoOp}, applied{}
	}
	if e.OldText == "" {
		if d.n == "" {
			out := content[:d.bom] + e.NewText
			return out, EditResult{Status: StatusApplied, Strategy: StrategyExact, Similarity: 1, Line: 1, Column: 1},
				applied{spans: [][2]int{{d.bom, d.bom}}, repls: []string{e.NewText}, nextLin: strings.Count(e.NewText, "\n")}
		}
		return content, EditResult{Status: StatusNotFound, Hint: "The old text is empty, so there is nothing to locate. " +
			"Give the exact lines to replace, including a few unchanged lines around the change; " +
			"to replace the whole file, write the file instead."}, applied{}
	}
	q := newQuery(e.OldText)
	limit := maxListed
	if e.ReplaceAll {
		limit = -1
	}
	found := d.locate(q, opts, sc, limit, false)
	if len(found.matches) == 0 {
		return content, d.notFound(q, e, opts), applied{}
	}
	ms := found.matches
	if sc.eof {
		var atEnd []match
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
		ms = nonOverlapping(ms)
	default:
		return content, d.ambiguous(found.strategy, ms, opts), applied{}
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
	return out, r, applied{spans: spans, repls: repls, nextLin: next}
}

// replacement returns the text that replaces m, and the strategy to report.
func (d *doc) replacement(m match, q *query, newText string, st Strategy) (string, Strategy) {
	nt := normNL(newText)
	if m.lineBased && m.indentCheck {
		fileLines := make([]string, m.cnt)
		for j := range fileLines {
			fileLines[j] = d.text(m.first + j)
		}
		var mode int
		nt, mode = reindent(nt, fileLines, q.lines, d.guessIndent)
		if st == StrategyTrim && mode == indentUniform {
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
