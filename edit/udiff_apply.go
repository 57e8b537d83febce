package edit

import (
	"fmt"
	"strings"
)

// hunkHints follows a unified diff's line numbers across the hunks applied
// before: the header's old start line, moved by the lines that applied
// hunks above it added or removed, as git's "+l" would say.
type hunkHints struct {
	done  []hunkShift // applied hunks with a start line, in order
	shift int         // their summed delta
	last  int         // the greatest start line among them
}

type hunkShift struct{ start, delta int }

// hint is chunk c's start line in the current text, 0 for none.
func (h *hunkHints) hint(c PatchChunk) int {
	if c.StartLine <= 0 {
		return 0
	}
	if c.StartLine > h.last {
		return c.StartLine + h.shift // in order, as git writes them
	}
	at := c.StartLine
	for _, s := range h.done {
		if s.start < c.StartLine {
			at += s.delta
		}
	}
	return max(at, 1)
}

func (h *hunkHints) applied(c PatchChunk) {
	if !c.Unified || c.StartLine <= 0 {
		return
	}
	s := hunkShift{c.StartLine, len(c.NewLines) - len(c.OldLines)}
	h.done = append(h.done, s)
	h.shift += s.delta
	h.last = max(h.last, s.start)
}

// applyHunk applies one hunk of a unified diff: its old lines looked up by
// the ladder, its start line choosing among several matches of one rung
// (Edit.StartLine). When the start line does not decide and an earlier hunk
// applied, the first match after it is taken: a diff's hunks come in the
// file's order, as apply_patch's chunks do.
func (d *doc) applyHunk(c PatchChunk, hint, cursor int, placed bool, opts MatchOptions) (string, EditResult, applied) {
	if len(c.OldLines) == 0 {
		return d.fillEmpty(c)
	}
	e := chunkEdit(c)
	e.StartLine = hint
	if e.OldText == e.NewText {
		return d.newlineOnly(c, e, opts)
	}
	out, r, ap := applyScoped(d, e, opts, scope{eof: c.EndOfFile})
	if r.Status == StatusAmbiguous && placed {
		if out2, r2, ap2 := applyScoped(d, e, opts, scope{from: cursor, preferFirst: true, eof: c.EndOfFile}); r2.Status == StatusApplied {
			out, r, ap = out2, r2, ap2
		}
	}
	if r.Status == StatusApplied && (c.NoNewlineOld || c.NoNewlineNew) {
		end := ap.spans[0][0] + len(ap.repls[0])
		if strings.Trim(out[end:], "\r\n") == "" { // the hunk ends the file
			out = finalNewline(out, !c.NoNewlineNew)
		}
	}
	return out, r, ap
}

// fillEmpty applies a hunk with no old lines ("@@ -0,0 +1,n @@"), which
// only an empty file takes: in another, nothing shows where its lines go.
func (d *doc) fillEmpty(c PatchChunk) (string, EditResult, applied) {
	if strings.TrimSpace(d.n) != "" {
		return d.orig, EditResult{Status: StatusNotFound, Hint: fmt.Sprintf(
			"The hunk has no context or removed line: its header \"@@ -0,0\" says the file is empty, but it has %d lines. "+
				"Give two or three unchanged lines from around the place as context (' ').", len(d.lineIndex()))}, applied{}
	}
	out, r, ap := d.insertLines(-1, c.NewLines)
	if c.NoNewlineNew {
		out = finalNewline(out, false)
	}
	return out, r, ap
}

// newlineOnly applies a hunk whose lines stay and whose "\ No newline at
// end of file" markers differ: only the file's final newline changes, and
// its lines must end the file.
func (d *doc) newlineOnly(c PatchChunk, e Edit, opts MatchOptions) (string, EditResult, applied) {
	if c.NoNewlineOld == c.NoNewlineNew {
		return d.orig, EditResult{Status: StatusNoOp}, applied{}
	}
	q := newQuery(e.OldText)
	for _, m := range d.locate(q, opts, scope{eof: true}, maxListed, true).matches {
		if !d.atEOF(m) {
			continue
		}
		out := finalNewline(d.orig, !c.NoNewlineNew)
		line, col := d.lineCol(m.start)
		r := EditResult{Status: StatusApplied, Strategy: StrategyExact, Similarity: 1, Line: line, Column: col}
		if out == d.orig {
			r.Status = StatusAlreadyApplied
			r.Hint = fmt.Sprintf("The file's end, line %d, already reads as the hunk says; nothing changed.", line)
		}
		o := d.origOff(m.start)
		return out, r, applied{spans: [][2]int{{o, len(d.orig)}}, repls: []string{out[o:]}, nextLin: len(d.lineIndex())}
	}
	r := d.notFound(q, Edit{OldText: e.OldText}, opts)
	r.Hint = "The hunk only changes the final newline (\"\\ No newline at end of file\"), so its lines must end the file, and they do not. " + r.Hint
	return d.orig, r, applied{}
}

// finalNewline gives a non-empty text a final line break (CRLF when its
// last one is) or takes it away.
func finalNewline(s string, want bool) string {
	if want {
		return withFinalNewline(s)
	}
	if t, ok := strings.CutSuffix(s, "\r\n"); ok {
		return t
	}
	return strings.TrimSuffix(s, "\n")
}

// UnifiedDeletes checks a unified diff's deletion of a file against its
// content: the hunks' removed lines must be the whole file, matched on an
// equality rung (a file is not deleted on a resemblance). It returns each
// hunk's result and, when they all applied, the lines left over ("" when
// none): the file has more than the diff removes.
func UnifiedDeletes(content string, chunks []PatchChunk, opts MatchOptions) ([]EditResult, string) {
	if len(chunks) == 0 {
		if strings.TrimSpace(content) != "" {
			return nil, content
		}
		return nil, ""
	}
	out, results, err := ApplyChunks(content, chunks, opts)
	if err != nil {
		return nil, content
	}
	for i, r := range results {
		switch r.Strategy {
		case StrategyExact, StrategyTrimEnd, StrategyTrim, StrategyIndent, StrategyUnicode:
			continue
		}
		if r.Status == StatusApplied {
			results[i] = EditResult{Status: StatusNotFound, Similarity: r.Similarity, Line: r.Line, Column: r.Column, Hint: fmt.Sprintf(
				"The removed lines only resemble lines %d and on (%s match, similarity %.2f): a file is deleted only when the diff removes its exact lines.", r.Line, r.Strategy, r.Similarity)}
		}
	}
	return results, strings.TrimSpace(out)
}
