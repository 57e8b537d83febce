package syntax

import (
	"bytes"
	"context"
)

// Comparison is a change's check: the file before and after, and the
// errors the change added.
type Comparison struct {
	Before, After Result
	// Added are the errors of After the change added (Added's rule).
	Added []Error
	// NowParses: the file had syntax errors before and has none after.
	NowParses bool
}

// Compare checks a file before and after a change (before nil: the change
// creates it) and says what the change did to its syntax. Each check has
// its own bounds; a side that was not checked adds nothing.
func Compare(ctx context.Context, p string, before, after []byte, lim Limits) Comparison {
	return CompareWith(before, after, func(src []byte) Result { return Check(ctx, p, src, lim) })
}

// CompareWith is Compare with the check of each side given: a caller that
// keeps the results of earlier checks passes one that looks there first.
// check is called for after, then, when after was checked, for before.
func CompareWith(before, after []byte, check func(src []byte) Result) Comparison {
	var c Comparison
	c.After = check(after)
	if !c.After.Checked {
		return c
	}
	if before != nil {
		c.Before = check(before)
		if !c.Before.Checked {
			return c // nothing to compare with: the change is given the benefit of the doubt
		}
	}
	c.Added = Added(before, after, c.Before.Errors, c.After.Errors)
	c.NowParses = len(c.Before.Errors) > 0 && len(c.After.Errors) == 0
	return c
}

// Added returns the errors of after (errsAfter) that the change from
// before to after added. The rule, pragmatic and documented in
// docs/syntax-check.md: an error after is "the same" as one before when
// the messages are equal and the lines correspond through the change,
// and then it is not added. Lines correspond when both lie in the lines
// the change left alone (the common first lines keep their number, the
// common last lines shift by the lines the change added or removed), or
// when both lie in the lines the change replaced. Each error before
// answers for one error after at most. Columns are not compared: a column
// moves within a line the change replaced, and that line is matched as a
// whole.
func Added(before, after []byte, errsBefore, errsAfter []Error) []Error {
	if len(errsAfter) == 0 {
		return nil
	}
	s := newShift(before, after)
	used := make([]bool, len(errsBefore))
	var added []Error
	for _, a := range errsAfter {
		want := s.beforeLine(a.Line)
		found := false
		for i, b := range errsBefore {
			if !used[i] && b.Message == a.Message && s.sameLine(want, b.Line) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			added = append(added, a)
		}
	}
	return added
}

// shift maps the lines of a changed file to those of the file before: the
// change replaced lines prefix+1 .. beforeN-suffix of before by lines
// prefix+1 .. afterN-suffix of after.
type shift struct {
	prefix, suffix, beforeN, afterN int
}

// changed stands for a line inside the lines the change replaced.
const changed = -1

func newShift(before, after []byte) shift {
	bl, al := bytes.SplitAfter(before, []byte("\n")), bytes.SplitAfter(after, []byte("\n"))
	s := shift{beforeN: len(bl), afterN: len(al)}
	for s.prefix < len(bl) && s.prefix < len(al) && bytes.Equal(bl[s.prefix], al[s.prefix]) {
		s.prefix++
	}
	for s.suffix < len(bl)-s.prefix && s.suffix < len(al)-s.prefix &&
		bytes.Equal(bl[len(bl)-1-s.suffix], al[len(al)-1-s.suffix]) {
		s.suffix++
	}
	return s
}

// beforeLine is the line of before that line n of after was, or changed.
// Lines past the end (an error at the end of the file) follow the last.
func (s shift) beforeLine(n int) int {
	switch {
	case n <= s.prefix:
		return n
	case n > s.afterN-s.suffix:
		return n - (s.afterN - s.beforeN)
	}
	return changed
}

// sameLine: line b of before is where an error at want (beforeLine's) was.
func (s shift) sameLine(want, b int) bool {
	if want != changed {
		return want == b
	}
	return b > s.prefix && b <= s.beforeN-s.suffix
}
