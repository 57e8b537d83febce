package guard

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
)

// editBatch is what the report of an edit call needs beyond its results.
type editBatch struct{ partial, dryRun bool }

// maxReportedFiles bounds the written files a report names.
const maxReportedFiles = 5

// editFeedback replaces the feedback of an edit call that was carried out in
// part or not at all: the model must learn which edits were written, or
// that none was, before it decides what to send again.
func editFeedback(res *repair.Result, ex *Execution) {
	if ex.batch == nil || res.OK() || (len(ex.Edits) == 0 && !ex.Applied) {
		return
	}
	m := repair.Mistakes{Consecutive: ex.Mistakes.Consecutive, Limit: ex.Mistakes.Limit}
	ex.Feedback = repair.FeedbackOutcome(res, m, editReport(res.ToolName, ex))
}

// editReport says what an edit call did: a verdict line (applied N of M,
// the files written or "nothing was written") and each edit's status.
func editReport(tool string, ex *Execution) string {
	ok := 0
	for _, e := range ex.Edits {
		if !failed(e.Status) {
			ok++
		}
	}
	n := len(ex.Edits)
	var written []string
	if ex.Applied {
		for _, c := range ex.Changes {
			if c.Kind != ChangeUnchanged {
				written = append(written, c.Path)
			}
		}
	}
	counts := fmt.Sprintf("applied %d of %d edits", ok, n)
	var b strings.Builder
	switch {
	case len(written) > 0 && ok < n:
		fmt.Fprintf(&b, "Error: the %s tool call was carried out only in part: %s, and %s. "+
			"The failed edits changed nothing: correct them and send only those again.", tool, counts, wroteFiles(written))
	case len(written) > 0:
		fmt.Fprintf(&b, "Error: the %s tool call was carried out (%s, and %s), but see the problems below.", tool, counts, wroteFiles(written))
	case ok == 0 && n == 1:
		fmt.Fprintf(&b, "Error: the %s tool call was not carried out, and nothing was written: its edit failed.", tool)
	case ok == 0 && n > 1:
		fmt.Fprintf(&b, "Error: the %s tool call was not carried out, and nothing was written: none of its %d edits applied.", tool, n)
	case ex.batch.dryRun && ok < n:
		fmt.Fprintf(&b, "Error: the %s tool call (a dry run) would have %s; nothing was written.", tool, counts)
	case ex.batch.partial && ok < n:
		fmt.Fprintf(&b, "Error: the %s tool call %s, and nothing was written.", tool, counts)
	case ok < n:
		fmt.Fprintf(&b, "Error: the %s tool call was not carried out, and nothing was written: %d of %d edits failed, "+
			"and a batch is applied whole or not at all. The edits that would apply are fine: "+
			"send the whole batch again with the failed ones corrected.", tool, n-ok, n)
	default:
		fmt.Fprintf(&b, "Error: the %s tool call was not carried out, and nothing was written; see the problems below.", tool)
	}
	b.WriteString("\n")
	if n == 1 {
		return b.String() // the problems below say the rest
	}
	verb := "would apply"
	if ex.Applied {
		verb = "applied"
	}
	unit := "edit"
	if tool == "apply_patch" {
		unit = "chunk"
	}
	for i, e := range ex.Edits {
		line := fmt.Sprintf("- %s %d (%s): %s\n", unit, e.Index+1, e.Path, editStatus(e, verb))
		if b.Len()+len(line) > repair.MaxOutcomeBytes-80 {
			fmt.Fprintf(&b, "- … and %d more edits: see the edit results.\n", n-i)
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func failed(s edit.Status) bool {
	return s == edit.StatusNotFound || s == edit.StatusAmbiguous
}

// editStatus is one edit's status in a few words; the problems that follow
// the report carry the hints.
func editStatus(e EditOutcome, verb string) string {
	switch e.Status {
	case edit.StatusApplied:
		s := fmt.Sprintf("%s at line %d", verb, e.Line)
		if e.Strategy != edit.StrategyExact && e.Strategy != "" {
			s += fmt.Sprintf(" (%s match, similarity %.2f)", e.Strategy, e.Similarity)
		}
		return s
	case edit.StatusAlreadyApplied:
		return fmt.Sprintf("already applied (line %d), nothing to change", e.Line)
	case edit.StatusNotFound:
		return "NOT FOUND, not applied (see below)"
	case edit.StatusAmbiguous:
		return fmt.Sprintf("AMBIGUOUS, %d matches, not applied (see below)", len(e.Matches))
	case edit.StatusNoOp:
		return "no change: the old and new text are the same"
	}
	return string(e.Status)
}

// wroteFiles names the files written, the first few of many.
func wroteFiles(paths []string) string {
	if len(paths) == 1 {
		return paths[0] + " was written"
	}
	if len(paths) > maxReportedFiles {
		return fmt.Sprintf("%d files were written (%s, …)", len(paths), strings.Join(paths[:maxReportedFiles], ", "))
	}
	return "the files " + strings.Join(paths, ", ") + " were written"
}
