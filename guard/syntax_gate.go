package guard

import (
	"fmt"

	"github.com/toolguard/toolguard/edit"
)

// The loose rungs of the edit ladder (BLOCK_ANCHOR, FUZZY, re-indentation)
// and the decoding of an edit's escapes are guesses. In every mode but off,
// the syntax check weighs them before they are applied: a guess that adds
// a syntax error where the edit as sent would not is refused, NOT_FOUND
// with the reason, in report mode as in refuse mode (a guess that breaks
// the file is no reading of the model's edit to report). edit/gate.go has
// the rule; docs/syntax-check.md.

// matchFor is the ladder's options for an edit of the file at path (the
// path it will be written at: a moved file's new one), the syntax check
// its gate.
func (g *Guard) matchFor(path string) edit.MatchOptions {
	o := g.match
	if g.syntaxMode != SyntaxOff {
		o.Check = g.syntaxGate(path)
	}
	return o
}

// syntaxGate weighs a guess's text against the text before it: ok when it
// adds no syntax error (or the file is not checked), else what it would
// leave, worded as the report words it.
func (g *Guard) syntaxGate(path string) edit.CheckFunc {
	return func(before, after string) (bool, string) {
		added, c := g.syntaxAdded(path, []byte(before), []byte(after))
		if len(added) == 0 {
			return true, ""
		}
		e := added[0]
		return false, fmt.Sprintf("%s at line %d (the %s parser: %s)", syntaxProblem(e.Message), e.Line, c.After.Lang, e.Message)
	}
}

// gateDecoded weighs an edit applied only once its escapes were decoded:
// as sent, it was not found, so the file unchanged is its exact reading,
// and a decoded edit that breaks the file is refused.
func gateDecoded(opts edit.MatchOptions, content, out string, r edit.EditResult) (edit.EditResult, bool) {
	if opts.Check == nil || out == content {
		return r, true
	}
	ok, why := opts.Check(content, out)
	if ok {
		return r, true
	}
	return edit.EditResult{Status: edit.StatusNotFound, Line: r.Line, Column: r.Column, Gated: r.Strategy, Hint: fmt.Sprintf(
		"The old text matches line %d only with its \\n read as line breaks, but the edit so decoded would leave %s. "+
			"Refused: resend old_text exactly as in the file and new_text with real line breaks.", r.Line, why)}, false
}

// checkPath is the path op's file is checked at: where it is written.
func (op *fileOp) checkPath() string {
	if op.moveRel != "" {
		return op.moveRel
	}
	return op.rel
}
