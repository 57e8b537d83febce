// Package edit is toolguard's edit engine: it replaces one span of a text by
// another, parses SEARCH/REPLACE blocks and apply_patch texts, and writes
// unified diffs. Text in, text out: it touches no file.
//
// An edit's old text is looked up by a ladder of rungs; the first that finds it wins:
//
//	EXACT         byte for byte, line endings aside
//	TRIM_END      whole lines, trailing whitespace ignored
//	TRIM          whole lines, surrounding whitespace ignored
//	INDENT        TRIM, the indentation shifted uniformly (another base, tabs for spaces, 2 for 4)
//	UNICODE       typographic quotes, dashes, spaces and zero-width characters folded, as text, then as lines
//	BLOCK_ANCHOR  three lines or more: first and last equal, the lines between similar enough
//	FUZZY         a window of as many lines whose similarity reaches FuzzyThreshold
//
// Where a rung ignored indentation, the new text is re-indented by the rule
// in reindent.go, or the edit refused when the evidence leaves it unclear.
// Only the matched span changes; the BOM, the final newline or its absence and
// every byte around the span stay. The new text goes in literally, with the
// matched lines' own line endings when it has as many lines, else the matched
// region's dominant one. Similarity is 1 - d/m over normalised lines:
// d the summed Levenshtein distances of paired lines, m the longer text's length.
package edit

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Edit is one replacement of OldText by NewText.
type Edit struct {
	OldText    string
	NewText    string
	ReplaceAll bool
	// StartLine is a hint (1-based, 0 for none): the file's line where the
	// old text starts, as Roo's ":start_line:" gives it. It only chooses
	// among several matches of the same rung (hint.go's atHint); a single
	// match is taken wherever it is, and the hint is never written.
	StartLine int
}

// Status is the outcome of an edit.
type Status string

// Edit outcomes.
const (
	StatusApplied Status = "APPLIED"
	// StatusAlreadyApplied: the old text is absent and the new text present,
	// or the replacement changed nothing. A success.
	StatusAlreadyApplied Status = "ALREADY_APPLIED"
	// StatusNotFound: Hint shows the closest region.
	StatusNotFound Status = "NOT_FOUND"
	// StatusAmbiguous: Matches lists the start line of every match.
	StatusAmbiguous Status = "AMBIGUOUS"
	StatusNoOp      Status = "NO_OP"
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
	// Similarity is 1 for the equality rungs; for NOT_FOUND, the closest region's.
	Similarity float64
	// Line and Column (1-based, in characters) of the match start, or of the
	// new text for ALREADY_APPLIED.
	Line, Column int
	// Matches holds the start line of every match when AMBIGUOUS, and of
	// every replaced one when ReplaceAll replaced several.
	Matches []int
	// Hint is for the model: the closest region (NOT_FOUND) or the matching
	// lines (AMBIGUOUS), numbered, within MaxHintLines lines and about 2 KB.
	Hint string
	// Unplaced marks a NOT_FOUND whose old text was found with its
	// indentation ignored but whose new text could not be placed.
	Unplaced bool
	// Gated names the rung whose guess MatchOptions.Check refused (a
	// NOT_FOUND, gate.go); empty otherwise.
	Gated Strategy
}

// MatchOptions tunes the matcher. The zero value means the defaults.
type MatchOptions struct {
	// FuzzyThreshold is the similarity a FUZZY match needs (default 0.9);
	// BLOCK_ANCHOR needs 0.2 less (at least 0.5) between its anchors.
	FuzzyThreshold float64
	// MaxHintLines caps the lines a hint shows (default 20).
	MaxHintLines int
	// Check, when set, weighs the ladder's guesses (BLOCK_ANCHOR and
	// FUZZY matches, re-indented new texts) before they are applied;
	// gate.go. Nil applies them on the ladder's evidence alone.
	Check CheckFunc
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
// outcome; content comes back unchanged unless the status is APPLIED.
//
// ReplaceAll replaces every match of an equality rung; several candidates of
// BLOCK_ANCHOR or FUZZY stay AMBIGUOUS, as a guess must not be multiplied.
// Empty old text only fills an empty file: a whole file is written, not edited.
// ALREADY_APPLIED needs the old text absent by every rung and the new text
// present on whole lines, or with 16 non-space characters: a "}" inside a line proves nothing.
func ApplyEdit(content string, e Edit, opts MatchOptions) (string, EditResult) {
	out, r, _ := applyScoped(newDoc(content), e, opts.withDefaults(), scope{})
	return out, r
}

// ApplyEdits applies edits in order, each to the previous one's result; a
// failed edit changes nothing, and the caller decides whether to keep the batch.
func ApplyEdits(content string, edits []Edit, opts MatchOptions) (string, []EditResult) {
	opts = opts.withDefaults()
	results := make([]EditResult, len(edits))
	d := newDoc(content)
	var moved []LineMap // the applied edits, to follow the later ones' start lines
	hints := slices.ContainsFunc(edits, func(e Edit) bool { return e.StartLine > 0 })
	for i, e := range edits {
		for _, m := range moved {
			e.StartLine = m.Line(e.StartLine)
		}
		out, r, _ := applyScoped(d, e, opts, scope{})
		results[i] = r
		if out != content {
			if hints {
				moved = append(moved, NewLineMap(content, out))
			}
			content = out
			d = newDoc(content)
		}
	}
	return content, results
}

// scope narrows a search, for ApplyChunks.
type scope struct {
	from        int  // first line (0-based) a match may start on
	preferFirst bool // take the first match instead of reporting ambiguity
	eof         bool // prefer matches that end at the end of the file
}

// applied describes a successful replacement.
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
		e2, ok := withoutLeadingBlank(e)
		if !ok {
			return content, d.notFound(q, e, opts), applied{}
		}
		q2 := newQuery(e2.OldText)
		f2 := d.locate(q2, opts, sc, limit, false)
		// The blank line stood for a line's end: what follows starts a line.
		f2.matches = slices.DeleteFunc(f2.matches, func(m match) bool { return !d.startsLine(m) })
		if len(f2.matches) == 0 {
			return content, d.notFound(q, e, opts), applied{}
		}
		e, q, found = e2, q2, f2
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
	hinted := len(ms) > 1 && e.StartLine > 0 && !e.ReplaceAll && !sc.preferFirst
	if hinted {
		if at, ok := d.atHint(ms, e.StartLine); ok {
			ms, hinted = at, false
		}
	}
	switch {
	case len(ms) == 1:
	case sc.preferFirst:
		ms = ms[:1]
	case e.ReplaceAll && !similarityRung:
		ms = nonOverlapping(ms)
	default:
		r := d.ambiguous(found.strategy, ms, opts)
		if hinted {
			r.Hint += hintNote(e.StartLine)
		}
		return content, r, applied{}
	}

	return d.replace(ms, q, e.NewText, found.strategy, opts)
}

// withoutLeadingBlank drops the empty first line of an old text, and of the
// new text when it has one too. A model that copies lines from the end of
// the previous line's newline, as an exact match allows, writes one: once the
// indentation is off too, it stands for no blank line of the file.
func withoutLeadingBlank(e Edit) (Edit, bool) {
	old := normNL(e.OldText)
	if !strings.HasPrefix(old, "\n") || strings.TrimSpace(old) == "" {
		return e, false
	}
	e.OldText = old[1:]
	e.NewText = strings.TrimPrefix(normNL(e.NewText), "\n")
	return e, true
}

// fromIndent widens a match that starts right after a line's indentation to
// the whole lines, when either text has several lines or the new one is
// indented: its lines must be placed relative to that indentation, which the
// old text left out.
func (d *doc) fromIndent(m match, newText string) (match, bool) {
	ls := strings.LastIndexByte(d.n[:m.start], '\n') + 1
	several := func(s string) bool { return strings.Contains(strings.TrimRight(s, " \t\r\n"), "\n") }
	if m.lineBased || ls == m.start || !d.startsLine(m) || (!several(newText) && !several(d.n[m.start:m.end]) && leadingSpace(newText) == "") {
		return m, false
	}
	cnt := strings.Count(d.n[ls:m.end], "\n")
	if d.n[m.end-1] != '\n' {
		cnt++ // the last line, in part
	}
	d.lineIndex() // the lines are read next
	first := strings.Count(d.n[:ls], "\n")
	m.start, m.lineBased, m.indentCheck, m.first, m.cnt = ls, true, true, first, cnt
	return m, true
}

// startsLine tells whether m starts a line or the text after its indentation.
func (d *doc) startsLine(m match) bool {
	ls := strings.LastIndexByte(d.n[:m.start], '\n') + 1
	return m.lineBased || leadingSpace(d.n[ls:m.start]) == d.n[ls:m.start]
}

// replace replaces the matches, in order of position.
func (d *doc) replace(ms []match, q *query, newText string, strategy Strategy, opts MatchOptions) (string, EditResult, applied) {
	content := d.orig
	var b strings.Builder
	b.Grow(len(content) + len(ms)*len(newText))
	prev := 0
	reported := strategy
	var spans [][2]int
	var repls []string
	var firstEnd int
	var g guess // what the ladder guessed, for opts.Check
	for i, m := range ms {
		if w, ok := d.fromIndent(m, newText); ok && d.origOff(w.start) >= prev {
			m = w
		}
		repl, st, refusal, literal := d.replacement(m, q, newText, strategy)
		if refusal != "" {
			return content, d.unplaced(m, strategy, refusal, opts), applied{}
		}
		if i == 0 {
			reported = st
			g.first = m
		}
		g.literal = append(g.literal, literal)
		g.reindented = g.reindented || literal != repl
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
	r := EditResult{Status: StatusApplied, Strategy: reported, Similarity: m0.sim, Line: line, Column: col}
	if len(ms) > 1 {
		r.Matches = d.lineNumbers(ms)
	}
	if out == content {
		r.Status = StatusAlreadyApplied
		r.Hint = fmt.Sprintf("The text at line %d already reads as the new text; nothing changed.", line)
	} else if g.similarity = strategy == StrategyBlockAnchor || strategy == StrategyFuzzy; opts.Check != nil && (g.similarity || g.reindented) {
		g.spans, g.st = spans, reported
		if refused, ok := d.gate(g, out, opts); !ok {
			return content, refused, applied{}
		}
	}
	// A replacement that ends mid-line leaves the next chunk that line.
	next := strings.Count(out[:firstEnd], "\n")
	return out, r, applied{spans: spans, repls: repls, nextLin: next}
}

// replacement returns the text that replaces m and the strategy to report,
// or why the new text's indentation cannot be placed; literal is the new
// text placed as sent, without re-indentation (the same text when none
// was needed).
func (d *doc) replacement(m match, q *query, newText string, st Strategy) (repl string, _ Strategy, refusal, literal string) {
	nt := normNL(newText)
	literal = d.placed(m, nt)
	if m.lineBased && m.indentCheck {
		fileLines := make([]string, m.cnt)
		for j := range fileLines {
			fileLines[j] = d.text(m.first + j)
		}
		r := reindent(nt, fileLines, q.lines, d.guessIndent)
		if r.refusal != "" {
			return "", st, r.refusal, ""
		}
		if st == StrategyTrim && r.uniform {
			st = StrategyIndent
		}
		if r.text != nt {
			return d.placed(m, r.text), st, "", literal
		}
	}
	return literal, st, "", literal
}

// placed is the new text nt as it replaces m: with the file's final
// newline kept present or absent, and the matched lines' line endings.
func (d *doc) placed(m match, nt string) string {
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
	return d.withEndings(m, nt)
}

// unplaced is the NOT_FOUND of an old text found only with its indentation
// ignored whose new text cannot be placed in the file's indentation: the
// model is shown the region and asked for the exact text, not guessed for.
func (d *doc) unplaced(m match, st Strategy, why string, opts MatchOptions) EditResult {
	line, col := d.lineCol(m.start)
	found := fmt.Sprintf("matches lines %d-%d (%s) once indentation is ignored", m.first+1, m.first+m.cnt, st)
	if st == StrategyBlockAnchor || st == StrategyFuzzy {
		found = fmt.Sprintf("resembles lines %d-%d (%s, similarity %.2f)", m.first+1, m.first+m.cnt, st, m.sim)
	}
	return EditResult{Status: StatusNotFound, Similarity: m.sim, Line: line, Column: col, Unplaced: true,
		Hint: fmt.Sprintf("the old text %s, but the new text's indentation cannot be placed with certainty: %s. "+
			"Send the old text with these lines' exact indentation and the new text indented as it must stand in the file.\n%s",
			found, why, d.numbered([]int{m.first}, m.cnt, opts.MaxHintLines))}
}
