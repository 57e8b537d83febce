package edit

import (
	"fmt"
	"strings"
)

// The gate. BLOCK_ANCHOR and FUZZY matches, and a new text re-indented into
// the file's indentation, are guesses the ladder makes on evidence. A
// caller that can tell a broken file from a sound one (the guard, by a
// syntax check) passes MatchOptions.Check, and a guess that would break the
// file where the exact reading of the edit would not is refused: NOT_FOUND,
// EditResult.Gated naming the rung, the reason in the hint.
//
// The exact reading is the edit as the model sent it:
//   - the new text, as sent, at the place an equality rung found (EXACT,
//     TRIM_END, TRIM, UNICODE: the old text is there once whitespace or
//     typography is set aside), when the guess was only the re-indentation;
//   - the file unchanged, when only a similarity rung (BLOCK_ANCHOR, FUZZY)
//     found the old text: the file holds no exact reading of it.
//
// A guess is refused when Check finds it breaks the file (adds an error to
// the text before the edit) and the exact reading does not. When the exact
// reading breaks it too, the breakage is the new text's, not the guess's:
// the guess is applied, and the caller's own check of the change reports it.
//
// The gate refuses, it never chooses: a refused guess does not let the
// ladder go on to a looser rung (weaker evidence for the same text) nor
// pick, among near matches, the one that parses (parsing is no evidence
// of the place meant). A caller that looks again elsewhere after a
// NOT_FOUND (apply_patch's chunk, past the cursor then in the whole file)
// still does: a stricter match found there wins, a guess there is gated
// again.

// CheckFunc weighs a guess: before and after are the whole text without
// and with it. ok false refuses it; why names what it would leave in the
// file, as "an unclosed `(` at line 45 (…)".
type CheckFunc func(before, after string) (ok bool, why string)

// guess is what replace guessed, for the gate.
type guess struct {
	similarity bool     // a similarity rung found the old text
	reindented bool     // a new text was re-indented
	st         Strategy // the rung reported
	first      match    // the first match, for the hint
	spans      [][2]int // the replaced spans, original offsets
	literal    []string // the new text as sent for each span
}

// gate weighs out, the text the guess g makes, with opts.Check; ok false
// comes with the NOT_FOUND that refuses it.
func (d *doc) gate(g guess, out string, opts MatchOptions) (EditResult, bool) {
	ok, why := opts.Check(d.orig, out)
	if ok {
		return EditResult{}, true
	}
	if !g.similarity {
		if lok, _ := opts.Check(d.orig, d.literalOut(g)); !lok {
			return EditResult{}, true // the new text as sent breaks it too
		}
	}
	m := g.first
	line, col := d.lineCol(m.start)
	first, cnt := line, 1
	if m.lineBased {
		first, cnt = m.first+1, m.cnt
	}
	var what, fix string
	if g.similarity {
		what = fmt.Sprintf("The closest match (%s, lines %d-%d, similarity %.2f) would leave %s", g.st, first, first+cnt-1, m.sim, why)
		fix = "resend old_text exactly as in the file"
	} else {
		what = fmt.Sprintf("The old text matches lines %d-%d (%s) once indentation is ignored, but the new text re-indented to those lines would leave %s; as sent it would not",
			first, first+cnt-1, g.st, why)
		fix = "resend old_text with these lines' exact indentation and new_text indented as it must stand in the file"
	}
	return EditResult{Status: StatusNotFound, Similarity: m.sim, Line: line, Column: col, Gated: g.st,
		Hint: fmt.Sprintf("%s. Refused: %s.\n%s", what, fix, d.numbered([]int{first - 1}, cnt, opts.MaxHintLines))}, false
}

// literalOut is the text with each replaced span given the new text as
// sent.
func (d *doc) literalOut(g guess) string {
	var b strings.Builder
	prev := 0
	for i, sp := range g.spans {
		b.WriteString(d.orig[prev:sp[0]])
		b.WriteString(g.literal[i])
		prev = sp[1]
	}
	b.WriteString(d.orig[prev:])
	return b.String()
}
