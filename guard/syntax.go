package guard

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/syntax"
)

// A write or an edit is checked for syntax before it is committed, the
// file before and after (syntax.Compare): a change that adds a syntax
// error is reported (SyntaxReport: written, and the model is told) or
// refused (SyntaxRefuse: nothing written, a SYNTAX_ERROR violation, a
// mistake). A file the check does not cover, too large or too slow to
// parse, is "not checked", never a failure. docs/syntax-check.md.

// The modes of Config.SyntaxCheck; empty is SyntaxReport.
const (
	SyntaxReport = "report"
	SyntaxRefuse = "refuse"
	SyntaxOff    = "off"
)

// CodeSyntaxError is the violation of a change refused for the syntax
// errors it added (refuse mode).
const CodeSyntaxError = "SYNTAX_ERROR"

// SyntaxOutcome is what a change did to a file's syntax (the metric's
// outcome label).
type SyntaxOutcome string

const (
	// SyntaxClean: the file parses after the change.
	SyntaxClean SyntaxOutcome = "clean"
	// SyntaxAdded: the change added syntax errors.
	SyntaxAdded SyntaxOutcome = "added"
	// SyntaxStillBroken: the file had errors before and the change added none.
	SyntaxStillBroken SyntaxOutcome = "still_broken"
	// SyntaxNowParses: the file had errors before and has none after.
	SyntaxNowParses SyntaxOutcome = "now_parses"
	// SyntaxNotChecked: a language the check knows, but the file was not
	// checked (over a bound, or this build has no parser for it).
	SyntaxNotChecked SyntaxOutcome = "not_checked"
)

// SyntaxOutcomes lists the outcomes (the metric's label values).
var SyntaxOutcomes = []SyntaxOutcome{SyntaxClean, SyntaxAdded, SyntaxStillBroken, SyntaxNowParses, SyntaxNotChecked}

// SyntaxCheck is one changed file's check; files of no known language
// have none.
type SyntaxCheck struct {
	Path    string
	Lang    string
	Outcome SyntaxOutcome
	// Reason says why the file was not checked.
	Reason string
	// Errors are those the change added (the first maxSyntaxFindings of
	// Added).
	Errors []SyntaxFinding
	Added  int

	created, hadErrors bool // for the message
}

// SyntaxFinding is one syntax error a change added.
type SyntaxFinding struct {
	Path    string
	Line    int
	Column  int // 0: the parser gives none
	Message string
	// Lines are the file's lines around the error after the change,
	// numbered as a read shows them.
	Lines string
	// Edit is the index of the edit it is laid to (the last applied edit
	// of the file at or above its line), -1 for a write or a patch's new
	// file.
	Edit     int
	editPath string // the path of that edit's result (a moved file's old one)
}

// Bounds of what a check reports: its answer stays small.
const (
	maxSyntaxFindings = 5
	syntaxContext     = 2   // lines shown above the error
	maxSyntaxLine     = 160 // bytes of one line shown
)

// SyntaxLimits are the bounds of one check, from the configuration.
func (c Config) SyntaxLimits() syntax.Limits {
	l := syntax.DefaultLimits
	if c.SyntaxMaxBytes > 0 {
		l.MaxBytes = int(c.SyntaxMaxBytes)
	}
	if c.SyntaxTimeout > 0 {
		l.Timeout = c.SyntaxTimeout
	}
	return l
}

func validSyntaxMode(m string) bool {
	return m == "" || m == SyntaxReport || m == SyntaxRefuse || m == SyntaxOff
}

// syntaxAdded checks a change of the file at path and returns the errors it
// added (none in off mode); before nil means the change creates the file.
// It is what the edit ladder may call to weigh a guess.
func (g *Guard) syntaxAdded(path string, before, after []byte) ([]syntax.Error, syntax.Comparison) {
	if g.syntaxMode == SyntaxOff {
		return nil, syntax.Comparison{}
	}
	return g.compareCached(path, before, after)
}

// checkSyntax checks one file's change and records it in ex; with edits
// (the file's outcomes), each finding is laid to the edit that made it.
// It returns the check, nil when the file's kind has no check.
func (g *Guard) checkSyntax(ex *Execution, path string, before, after []byte, edits []EditOutcome) *SyntaxCheck {
	if g.syntaxMode == SyntaxOff {
		return nil
	}
	_, c := g.syntaxAdded(path, before, after)
	if c.After.Lang == "" {
		return nil
	}
	sc := SyntaxCheck{Path: path, Lang: c.After.Lang, Added: len(c.Added), created: before == nil, hadErrors: len(c.Before.Errors) > 0}
	switch {
	case !c.After.Checked:
		sc.Outcome, sc.Reason = SyntaxNotChecked, c.After.Reason
	case before != nil && !c.Before.Checked:
		sc.Outcome, sc.Reason = SyntaxNotChecked, "the file before the change was not checked: "+c.Before.Reason
	case len(c.Added) > 0:
		sc.Outcome = SyntaxAdded
	case c.NowParses:
		sc.Outcome = SyntaxNowParses
	case len(c.After.Errors) > 0:
		sc.Outcome = SyntaxStillBroken
	default:
		sc.Outcome = SyntaxClean
	}
	for _, e := range c.Added[:min(len(c.Added), maxSyntaxFindings)] {
		f := SyntaxFinding{Path: path, Line: e.Line, Column: e.Column, Message: e.Message,
			Lines: numberedLines(after, e.Line), Edit: layEdit(edits, e.Line)}
		if len(edits) > 0 {
			f.editPath = edits[0].Path
		}
		sc.Errors = append(sc.Errors, f)
	}
	ex.Syntax = append(ex.Syntax, sc)
	return &ex.Syntax[len(ex.Syntax)-1]
}

// layEdit is the index of the applied edit at or above line (the first
// applied one when none is), -1 without edits.
func layEdit(edits []EditOutcome, line int) int {
	best, bestLine := -1, 0
	for _, e := range edits {
		if e.Status != edit.StatusApplied {
			continue
		}
		if best == -1 || (e.Line <= line && e.Line >= bestLine) {
			best, bestLine = e.Index, e.Line
		}
	}
	return best
}

// refuseSyntax makes a check that added errors a SYNTAX_ERROR violation on
// param (refuse mode); it reports whether it did.
func (g *Guard) refuseSyntax(res *repair.Result, param, tool string, sc *SyntaxCheck) bool {
	if g.syntaxMode != SyntaxRefuse || sc == nil || sc.Outcome != SyntaxAdded {
		return false
	}
	res.Violate(CodeSyntaxError, param, syntaxMessage(tool, sc, ". Nothing was written: send the change again so that the file still parses. It would read"))
	return true
}

// reportSyntax gives a usable call's execution, in report mode, the
// feedback that tells the model the syntax errors it added (a usable call
// has no other).
func reportSyntax(res *repair.Result, ex *Execution) {
	if res.OK() {
		ex.Feedback = syntaxFeedback(ex, res.ToolName)
	}
}

// syntaxFeedback tells the model, in report mode, the errors its change
// added to files that were written all the same.
func syntaxFeedback(ex *Execution, tool string) string {
	var b strings.Builder
	for i := range ex.Syntax {
		sc := &ex.Syntax[i]
		if sc.Outcome != SyntaxAdded {
			continue
		}
		if b.Len() == 0 {
			fmt.Fprintf(&b, "The %s tool call was carried out, but it broke the syntax of the code:\n", tool)
		}
		if b.Len() > repair.MaxOutcomeBytes {
			b.WriteString("… and more files: see the syntax checks of the answer.\n")
			break
		}
		b.WriteString(syntaxMessage(tool, sc, "") + "\n")
	}
	if b.Len() > 0 {
		b.WriteString("Fix it with another edit before you go on.\n")
	}
	return b.String()
}

// syntaxMessage words a check's first added error from the parser's
// message: "your edit at line 42 left an unclosed `(` (a.go:42:9: expected
// ')', found newline); the file parsed cleanly before", tail, then the
// lines.
func syntaxMessage(tool string, sc *SyntaxCheck, tail string) string {
	e := sc.Errors[0]
	what := "your write"
	if tool != "write_to_file" {
		what = fmt.Sprintf("your edit at line %d", e.Line)
	}
	where := fmt.Sprintf("%s:%d", sc.Path, e.Line)
	if e.Column > 0 {
		where += fmt.Sprintf(":%d", e.Column)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s left %s in %s (%s, the %s parser: %s)", what, syntaxProblem(e.Message), sc.Path, where, sc.Lang, e.Message)
	switch {
	case sc.hadErrors:
		b.WriteString("; the file had syntax errors before, but not this one")
	case sc.created:
		b.WriteString("; the file is new")
	default:
		b.WriteString("; the file parsed cleanly before")
	}
	if n := sc.Added; n > 1 {
		fmt.Fprintf(&b, " (%d errors added; the first is shown)", n)
	}
	b.WriteString(tail + ":\n" + e.Lines)
	out := b.String()
	return strings.ToUpper(out[:1]) + out[1:]
}

// expectedCloser finds a closing bracket the parser expected: Go's
// "expected ')'", esbuild's `Expected "}"`.
var expectedCloser = regexp.MustCompile("(?i)expected ['\"`]?([)\\]}])['\"`]?")

// missingComma is Go's word for a list left open at a line's end: "missing
// ',' before newline in argument list" is a call's unclosed `(`.
var missingComma = regexp.MustCompile(`missing ',' before newline in (argument|parameter|composite)`)

// syntaxProblem names the problem in a few words: an unclosed bracket when
// the parser expected its closer, else a syntax error.
func syntaxProblem(msg string) string {
	if m := expectedCloser.FindStringSubmatch(msg); m != nil {
		open := map[string]string{")": "(", "]": "[", "}": "{"}[m[1]]
		return "an unclosed `" + open + "`"
	}
	if m := missingComma.FindStringSubmatch(msg); m != nil {
		return "an unclosed `" + map[string]string{"argument": "(", "parameter": "(", "composite": "{"}[m[1]] + "`"
	}
	return "a syntax error"
}

// numberedLines are the lines of src from syntaxContext above line to the
// one below, numbered as read_file numbers them, the error's marked.
func numberedLines(src []byte, line int) string {
	if line <= 0 {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if line > len(lines) {
		line = len(lines)
	}
	var b strings.Builder
	for n := max(1, line-syntaxContext); n <= min(len(lines), line+1); n++ {
		text := strings.TrimRight(lines[n-1], "\r")
		if len(text) > maxSyntaxLine {
			text = cutAtRune(text, maxSyntaxLine) + "…"
		}
		mark := " "
		if n == line {
			mark = ">"
		}
		fmt.Fprintf(&b, "%s%5d | %s\n", mark, n, text)
	}
	return b.String()
}

// syntaxSize bounds what the checks add to an answer: each finding in the
// execution, in its edit's result and in the feedback.
func syntaxSize(ex *Execution) int {
	n := 0
	for _, sc := range ex.Syntax {
		n += len(sc.Path) + len(sc.Reason) + 64
		for _, e := range sc.Errors {
			n += 3 * (len(e.Path) + len(e.Message) + len(e.Lines) + 160)
		}
	}
	return n
}

// checkOpsSyntax checks each file an edit call changes, as it will be
// written (a moved file under its new name; a deleted one not at all), and
// reports whether refuse mode refuses the call: then nothing is written,
// partial or not.
func (g *Guard) checkOpsSyntax(res *repair.Result, ops []*fileOp, ex *Execution) bool {
	refused := false
	for _, op := range ops {
		if op.kind == edit.OpDelete || (op.existed && op.updated == op.old) {
			continue
		}
		path := op.rel
		if op.moveRel != "" {
			path = op.moveRel
		}
		var before []byte
		if op.existed {
			before = []byte(op.old)
		}
		var edits []EditOutcome
		for _, e := range ex.Edits {
			if e.Path == op.rel {
				edits = append(edits, e)
			}
		}
		sc := g.checkSyntax(ex, path, before, []byte(op.updated), edits)
		refused = g.refuseSyntax(res, op.param, res.ToolName, sc) || refused
	}
	return refused
}

// EditSyntax returns the syntax errors laid to an edit's result.
func (ex *Execution) EditSyntax(o EditOutcome) []SyntaxFinding {
	var out []SyntaxFinding
	for _, sc := range ex.Syntax {
		for _, e := range sc.Errors {
			if e.Edit == o.Index && e.Edit >= 0 && e.editPath == o.Path {
				out = append(out, e)
			}
		}
	}
	return out
}
