package edit

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// notFound builds the NOT_FOUND or ALREADY_APPLIED result.
func (d *doc) notFound(q *query, e Edit, opts MatchOptions) EditResult {
	if strings.TrimSpace(e.NewText) != "" {
		nq := newQuery(e.NewText)
		distinctive := nonSpace(e.NewText) >= distinctiveNew
		f := d.locate(nq, opts, scope{}, maxListed, true)
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
		r.Hint = fmt.Sprintf("The old text has %d lines but the file only %d:\n%s", k, len(fk), d.numbered([]int{0}, len(fk), opts.MaxHintLines))
	default:
		ws := scanWindows(fk, q.fuzzyKeys(), 0, 0, true)
		if len(ws) == 0 || ws[0].sim < minHintSimilarity {
			if len(ws) > 0 {
				r.Similarity = round4(ws[0].sim)
			}
			r.Hint = d.nothingSimilar(r.Similarity, opts.MaxHintLines)
			break
		}
		w := ws[0]
		r.Similarity = round4(w.sim)
		r.Hint = fmt.Sprintf("closest region: lines %d-%d (similarity %.2f)\n%s",
			w.first+1, w.first+k, w.sim, d.numbered([]int{w.first}, k, opts.MaxHintLines))
	}
	return r
}

// minHintSimilarity is the similarity below which the closest region is
// noise: unrelated code of the same language scores 0.1 to 0.35.
const minHintSimilarity = 0.4

// nothingSimilar is the hint when no region resembles the old text: the
// file's outline, or its first lines, so the model sees what the file holds.
func (d *doc) nothingSimilar(sim float64, maxLines int) string {
	L := d.lineIndex()
	head := fmt.Sprintf("Nothing similar to the old text was found in the file (best similarity %.2f): "+
		"the old text may come from another file or an older version of this one. ", sim)
	if len(L) <= maxLines {
		return head + fmt.Sprintf("The file has %d lines:\n%s", len(L), d.numbered([]int{0}, len(L), maxLines))
	}
	if firsts := d.outline(); len(firsts) >= 2 {
		return head + fmt.Sprintf("Its outline (the %d lines that start at the margin, of %d):\n%s",
			len(firsts), len(L), d.numbered(firsts, 1, maxLines))
	}
	return head + fmt.Sprintf("Its first lines (of %d):\n%s", len(L), d.numbered([]int{0}, len(L), maxLines))
}

// outline returns the lines (0-based) that start at the margin and are
// neither comments nor closing brackets: in most languages the package,
// imports and definitions. Nil when such lines are not the minority of the
// file's non-blank lines (prose, data), where an outline shows no structure.
func (d *doc) outline() []int {
	L := d.lineIndex()
	var out []int
	nonBlank := 0
	for i := range L {
		t := d.text(i)
		if strings.TrimSpace(t) == "" {
			continue
		}
		nonBlank++
		if t[0] == ' ' || t[0] == '\t' || commentOrCloser(t) {
			continue
		}
		out = append(out, i)
	}
	if len(out)*2 > nonBlank {
		return nil
	}
	return out
}

// commentOrCloser reports a line that opens a comment or holds only
// closing brackets and separators ("}", "});", "end").
func commentOrCloser(t string) bool {
	t = strings.TrimSpace(t)
	for _, p := range []string{"//", "/*", "*", "# ", "--", ";", "<!--"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == "#" || t == "end" || strings.Trim(t, "})]>;,") == ""
}

// lineAligned tells whether m covers whole lines: it starts at a line's
// start or indentation and ends at a line's end or trailing whitespace.
func (d *doc) lineAligned(m match) bool {
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

func nonSpace(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}

func (d *doc) ambiguous(st Strategy, ms []match, opts MatchOptions) EditResult {
	ms = append([]match(nil), ms...)
	slices.SortStableFunc(ms, func(a, b match) int { return cmp.Compare(a.start, b.start) })
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
	if len(ms) >= maxListed {
		more = " or more"
	}
	r.Hint = fmt.Sprintf("%d%s matches (%s) at lines %s\n%s", len(ms), more, st, joinInts(r.Matches, 30),
		d.numbered(firsts, 1, opts.MaxHintLines-1))
	return r
}

// numbered prints, for each first line (0-based), count lines of the file
// numbered "  12 | code", within maxLines lines and about 2 KB.
func (d *doc) numbered(firsts []int, count, maxLines int) string {
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
			if lines >= maxLines || b.Len() > maxHintBytes {
				rest := f + count - i
				for _, g := range firsts[fi+1:] {
					rest += min(count, len(L)-g)
				}
				fmt.Fprintf(&b, "%*s | … (%d more lines)\n", width, "", rest)
				return strings.TrimSuffix(b.String(), "\n")
			}
			t := d.text(i)
			if len(t) > maxHintLineLen {
				cut := maxHintLineLen
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

func joinInts(xs []int, max int) string {
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
