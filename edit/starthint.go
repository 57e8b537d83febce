package edit

import (
	"fmt"
	"strings"
)

// A start-line hint (Edit.StartLine) chooses among several matches that the
// same rung found: the one starting on the hinted line, else the only one
// within hintWindow lines of it, the window Roo Code searches around its
// ":start_line:". Anything else stays AMBIGUOUS: a line number the model may
// have miscounted is evidence enough to pick between candidates near it,
// not to pick a far one.
const hintWindow = 40

// atHint narrows ms by the hint; ok is false when it cannot decide.
func (d *doc) atHint(ms []match, hint int) ([]match, bool) {
	var at, near []match
	for _, m := range ms {
		line, _ := d.lineCol(m.start)
		if line == hint {
			at = append(at, m)
		}
		if abs(line-hint) <= hintWindow {
			near = append(near, m)
		}
	}
	switch {
	case len(at) == 1:
		return at, true
	case len(at) == 0 && len(near) == 1:
		return near, true
	}
	return ms, false
}

// hintNote tells the model why its start line did not decide.
func hintNote(hint int) string {
	return fmt.Sprintf(" The start line %d given with it matches none of them alone (the one starting on that line, or the only one within %d lines of it, would be taken): give the exact start line, or more lines around the change.", hint, hintWindow)
}

// LineMap follows line numbers of a text across one edit of it: lines
// before the changed region keep their number, lines after it move by the
// lines the edit added or removed, lines inside it stay as they were.
type LineMap struct {
	from, to, delta int // the changed region of the old text: lines from..to-1 (1-based)
}

// NewLineMap compares a text before and after one edit.
func NewLineMap(before, after string) LineMap {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	p := 0
	for p < len(b) && p < len(a) && b[p] == a[p] {
		p++
	}
	s := 0
	for s < len(b)-p && s < len(a)-p && b[len(b)-1-s] == a[len(a)-1-s] {
		s++
	}
	return LineMap{from: p + 1, to: len(b) - s + 1, delta: len(a) - len(b)}
}

// Line maps a 1-based line of the old text to the new one.
func (m LineMap) Line(l int) int {
	if l >= m.to && l > 0 {
		return l + m.delta
	}
	return l
}
