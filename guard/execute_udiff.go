package guard

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
)

// advice is what to do instead, in the words of the patch's format:
// apply_patch's own, or a unified diff's.
func (op *fileOp) advice(patch, unified string) string {
	if op.unified {
		return unified
	}
	return patch
}

// unifiedDelete checks a unified diff's deletion against the file: its
// removed lines must be the file's, exactly (edit.UnifiedDeletes), or the
// file would lose lines the model has not seen.
func (g *Guard) unifiedDelete(res *repair.Result, op *fileOp, ex *Execution) bool {
	results, left := edit.UnifiedDeletes(op.old, op.chunks, g.match)
	ok := true
	for i, r := range results {
		ok = g.recordEdit(res, ex, EditOutcome{Index: i, Path: op.rel, EditResult: r}, op.param) && ok
	}
	if ok && left != "" {
		res.Violate(CodeEditNotFound, op.param, fmt.Sprintf(
			"The diff deletes %s (\"+++ /dev/null\"), but its removed lines are not the whole file: %d lines would be lost unseen, such as %q. "+
				"Remove every line of the file ('-'), or diff against its content to change it.",
			op.rel, edit.LineCount(left), firstLine(left)))
		ok = false
	}
	return ok
}

// firstLine is a text's first line, cut to 80 bytes.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimRight(s, "\r")
	if len(s) > 80 {
		cut := 80
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
