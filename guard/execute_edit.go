package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/contentfix"
	"github.com/toolguard/toolguard/workspace"
)

var editTools = []string{"edit", "multi_edit", "replace_in_file", "apply_patch",
	"create_directory", "move_file", "delete_file", "insert_text", "undo_edit"}

// fileOp is everything one call does to one file.
type fileOp struct {
	param string // the parameter the path came from, for violations
	path  string // as the model wrote it
	rel   string
	at    workspace.Resolved // rel, for OpenLocked
	edits []indexedEdit
	// Patch operations (apply_patch); zero for plain edits.
	kind         edit.OpKind
	content      string // Add
	chunks       []edit.PatchChunk
	unmarked     bool // the patch had neither Begin nor End Patch (edit.CheckUnmarked)
	unified      bool // the patch was a unified diff
	moveTo       string
	moveRel      string
	old, updated string
	existed      bool
	oldHash      string
	// file is rel held from its read to its write: walked, read and hashed
	// once, compared once at the commit.
	file heldFile
	// insert is insert_text's: the text and the line it goes after.
	insert *insertion
	// skip marks an operation that cannot be carried out at all; with
	// partial, the rest of the batch goes ahead.
	skip bool
}

type indexedEdit struct {
	index int
	param string // where the edit's old text came from ("edits/2/old_text")
	edit  edit.Edit
	// expected is the edit's expected_replacements, 0 when not given.
	expected int
}

type insertion struct {
	line int
	text string
}

// ExecuteEdit validates an edit call and applies every edit, exact match
// first, then the fuzzy ladder. Nothing is written unless every edit applies
// (or req.Partial). Failed edits are violations with the closest region;
// the feedback says which edits were written (execute_report.go). The
// verdict is not OK while any edit failed, even when others were written.
func (g *Guard) ExecuteEdit(ctx context.Context, req ExecuteRequest) (*Execution, error) {
	return g.execute(ctx, req, editTools, g.edit)
}

func (g *Guard) edit(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution) error {
	switch res.ToolName {
	case "create_directory", "move_file", "delete_file":
		return g.changePath(ctx, ws, req, res, ex)
	case "undo_edit":
		return g.undo(ctx, ws, req, res, ex)
	}
	ex.batch = &editBatch{partial: req.Partial, dryRun: req.DryRun}
	ops := planEdits(res)
	if !res.OK() {
		return nil
	}
	var rels []string
	for _, op := range ops {
		r, ok := resolve(ws, res, op.param, op.path)
		if !ok {
			continue
		}
		op.at, op.rel = r, r.Rel()
		rels = append(rels, op.rel)
		if op.moveTo != "" {
			if to, ok := resolve(ws, res, op.param, op.moveTo); ok {
				op.moveRel = to.Rel()
				rels = append(rels, op.moveRel)
			}
		}
	}
	if !res.OK() {
		return nil
	}
	unlock, err := ws.Lock(rels...)
	if err != nil {
		return err
	}
	defer unlock()
	defer closeFiles(slices.Clone(ops)) // before unlock; skipped ops are dropped from ops below

	failed := false
	for _, op := range ops {
		ok, err := openOp(ws, res, op)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if req.ExpectedSHA256 != "" && len(ops) == 1 && !strings.EqualFold(req.ExpectedSHA256, op.oldHash) {
			return &FileChangedError{Path: op.rel, Expected: req.ExpectedSHA256, Actual: op.oldHash}
		}
		if !g.applyOp(res, op, ex) {
			failed = true
		}
	}
	if failed && !req.Partial {
		g.checkAnswer(res, ex)
		return nil // all-or-nothing: nothing written, the violations say why
	}
	ops = slices.DeleteFunc(ops, func(op *fileOp) bool { return op.skip })
	if g.checkOpsSyntax(res, ops, ex) {
		g.checkAnswer(res, ex)
		return nil // refuse mode: nothing written, SYNTAX_ERROR says why
	}
	diffs := make([]edit.Diff, 0, len(ops))
	for _, op := range ops {
		diffs = append(diffs, op.diff())
		ex.Changes = append(ex.Changes, op.change())
	}
	ex.Diff, ex.DiffElided = joinDiffs(diffs...)
	if !g.checkAnswer(res, ex) || req.DryRun {
		return nil
	}
	if err := g.commit(ws, res, ops, ex); err != nil || !ex.Applied {
		return err
	}
	g.rememberOps(ctx, req, ws, ops)
	return nil
}

// heldFile is a file held for its write (*workspace.File; tests inject failures).
type heldFile interface {
	Write(data []byte) error
	Close()
}

// openOp opens and reads op's file under the batch's lock; a missing file
// is no error, a refused one a violation (ok false).
func openOp(ws *workspace.Workspace, res *repair.Result, op *fileOp) (ok bool, err error) {
	f, err := ws.OpenLocked(op.at)
	switch {
	case err == nil:
		op.file, op.old, op.existed, op.oldHash = f, string(f.Data()), f.Info().Exists, f.Info().SHA256
		return true, nil
	case workspace.IsCode(err, workspace.CodeConflict):
		return false, &FileChangedError{Path: op.rel, Expected: "(as opened)", Actual: "(changed while being read)"}
	}
	var we *workspace.Error
	if errors.As(err, &we) {
		res.Violate(violationCode(err), op.param, err.Error())
		return false, nil
	}
	return false, fmt.Errorf("read %s: %w", op.rel, err)
}

func closeFiles(ops []*fileOp) {
	for _, op := range ops {
		if op.file != nil {
			op.file.Close()
		}
	}
}

// applyOp computes one file's new content and reports whether every edit
// succeeded.
func (g *Guard) applyOp(res *repair.Result, op *fileOp, ex *Execution) bool {
	switch op.kind {
	case edit.OpAdd:
		if op.existed {
			res.Violate(CodeFileExists, op.param, fmt.Sprintf("%s already exists; %s.", op.rel, op.advice(
				"use an Update File hunk to change it", `a diff from "--- /dev/null" creates a file: diff against its content to change it`)))
			op.skip = true
			return false
		}
		op.updated = op.content
		return true
	case edit.OpDelete:
		if !op.existed {
			res.Violate(CodeFileNotFound, op.param, fmt.Sprintf("%s does not exist, so it cannot be deleted.", op.rel))
			op.skip = true
			return false
		}
		if op.unified && !g.unifiedDelete(res, op, ex) {
			op.skip = true
			return false
		}
		op.updated = ""
		return true
	case edit.OpUpdate:
		if !op.existed {
			res.Violate(CodeFileNotFound, op.param, fmt.Sprintf("%s does not exist; %s.", op.rel, op.advice(
				"use an Add File hunk to create it", `to create it, diff from "--- /dev/null"`)))
			op.skip = true
			return false
		}
		updated, results, err := edit.ApplyChunks(op.old, op.chunks, g.matchFor(op.checkPath()))
		if err != nil {
			res.Violate(repair.CodeInvalidValue, op.param, fmt.Sprintf("The patch for %s does not apply: %v.", op.rel, err))
			op.skip = true
			return false
		}
		ok := true
		for i, r := range results {
			ok = g.recordEdit(res, ex, EditOutcome{Index: i, Path: op.rel, EditResult: r}, op.param) && ok
		}
		if _, why, whole := edit.CheckUnmarked(op.chunks, results); op.unmarked && ok && !whole {
			res.Violate(repair.CodeTruncated, op.param, fmt.Sprintf("The patch is incomplete: %s: %s.", op.rel, why))
			ok = false
		}
		if ok {
			op.updated = updated
		} else {
			op.updated = op.old
		}
		return ok
	}
	if op.insert != nil {
		return insertOp(res, op)
	}
	if !op.existed {
		res.Violate(CodeFileNotFound, op.param, fmt.Sprintf("%s does not exist. Create it with write_to_file, or check the path.", op.rel))
		for _, e := range op.edits {
			ex.Edits = append(ex.Edits, EditOutcome{Index: e.index, Path: op.rel, EditResult: edit.EditResult{Status: edit.StatusNotFound, Hint: "the file does not exist"}})
		}
		op.skip = true
		return false
	}
	content, ok := op.old, true
	var moved []edit.LineMap // applied edits, to follow later start lines (Roo's :start_line:)
	opts := g.matchFor(op.checkPath())
	for _, e := range op.edits {
		for _, m := range moved {
			e.edit.StartLine = m.Line(e.edit.StartLine)
		}
		out, r := edit.ApplyEdit(content, e.edit, opts)
		if r.Status == edit.StatusNotFound {
			if out2, r2, detail, tried := retryDecoded(content, e.edit, opts); tried {
				out, r = out2, r2
				if detail != "" {
					res.AddRepair(repair.CodeEscapesDecoded, e.param, fmt.Sprintf("edit %d: %s", e.index+1, detail))
				}
			}
		}
		if e.expected > 0 && !expectedCount(res, op.rel, e, r) {
			ok = false
			ex.Edits = append(ex.Edits, EditOutcome{Index: e.index, Path: op.rel, EditResult: r})
			continue
		}
		if g.recordEdit(res, ex, EditOutcome{Index: e.index, Path: op.rel, EditResult: r}, e.param) {
			if out != content && hasStartLine(op.edits) {
				moved = append(moved, edit.NewLineMap(content, out))
			}
			content = out
		} else {
			ok = false
		}
	}
	op.updated = content
	return ok
}

// retryDecoded retries an edit whose old text was not found, with its
// escapes decoded (\n written as two characters). The evidence is the old
// text matching, once decoded, on an equality rung: a fuzzy rung would find
// something close to almost any text. tried is false when the retry found
// nothing; otherwise the result replaces the first one, and detail is the
// ESCAPES_DECODED repair ("" when the edit was refused).
func retryDecoded(content string, e edit.Edit, opts edit.MatchOptions) (out string, r edit.EditResult, detail string, tried bool) {
	oldDec := contentfix.DecodeEscapesPlain(e.OldText)
	if oldDec == e.OldText {
		return "", edit.EditResult{}, "", false
	}
	newText, kept, refusal := decodeNewText(e.NewText)
	try := edit.Edit{OldText: oldDec, NewText: newText, ReplaceAll: e.ReplaceAll, StartLine: e.StartLine}
	if refusal != "" {
		try.NewText = e.NewText
	}
	out, r = edit.ApplyEdit(content, try, opts)
	switch {
	case r.Gated != "" && equalityRung(r.Gated):
		return content, r, "", true // the decoded text's re-indentation, refused by the syntax check
	case !equalityRung(r.Strategy):
		return "", edit.EditResult{}, "", false
	case r.Status == edit.StatusAlreadyApplied && !strictlyEscaped(e.OldText):
		// Old text absent even decoded: only text escaped beyond doubt may
		// count the decoded new text as already there.
		return "", edit.EditResult{}, "", false
	case r.Status != edit.StatusApplied && r.Status != edit.StatusAlreadyApplied:
		return "", edit.EditResult{}, "", false
	case refusal != "":
		return content, edit.EditResult{Status: edit.StatusNotFound, Line: r.Line, Column: r.Column, Hint: fmt.Sprintf(
			"The old text matches line %d only with its \\n read as line breaks, but %s, so it cannot be decoded safely. "+
				"Send old_text and new_text again with real line breaks.", r.Line, refusal)}, "", true
	}
	if gated, ok := gateDecoded(opts, content, out, r); !ok {
		return content, gated, "", true
	}
	detail = fmt.Sprintf(`old_text and new_text decoded (\n, \t, \" written as two characters): the old text matched line %d only once decoded`, r.Line)
	if kept {
		detail = fmt.Sprintf(`old_text decoded (\n, \t, \" written as two characters): it matched line %d only once decoded; new_text, which has real line breaks, was kept as given`, r.Line)
	}
	return out, r, detail, true
}

// decodeNewText decodes the new text of an edit whose old text matched only
// once decoded. Without a real line break it was written as the old text
// was and is decoded, unless a \n sits in a string literal (print("a\n")):
// decoding would break the literal, keeping it would mix two conventions.
// With real line breaks it is kept (its \n in literals are the language's),
// unless it also has a \n outside any literal: which is meant is unknown.
func decodeNewText(s string) (text string, kept bool, refusal string) {
	dec := contentfix.DecodeEscapesPlain(s)
	if dec == s {
		return s, false, ""
	}
	structural, quoted := contentfix.EscapedNewlines(s)
	// A final line break is layout (every SEARCH/REPLACE block has one).
	breaks := strings.ContainsAny(strings.TrimRight(s, "\r\n"), "\r\n")
	switch {
	case !breaks && quoted > 0:
		return s, false, `the new text has a \n inside a string literal, which may be the language's own escape`
	case !breaks:
		return dec, false, ""
	case structural > 0:
		return s, true, `the new text mixes real line breaks with \n written as two characters outside string literals`
	}
	return s, true, ""
}

// strictlyEscaped applies the write content's strict test to an edit text.
func strictlyEscaped(s string) bool {
	_, ok := contentfix.DecodeEscapes(s)
	return ok
}

func equalityRung(st edit.Strategy) bool {
	switch st {
	case edit.StrategyExact, edit.StrategyTrimEnd, edit.StrategyTrim, edit.StrategyIndent, edit.StrategyUnicode:
		return true
	}
	return false
}

// recordEdit adds an edit's outcome, and a violation when it failed.
func (g *Guard) recordEdit(res *repair.Result, ex *Execution, o EditOutcome, param string) bool {
	ex.Edits = append(ex.Edits, o)
	switch o.Status {
	case edit.StatusNotFound:
		msg := fmt.Sprintf("Edit %d: the old text was not found in %s.", o.Index+1, o.Path)
		if o.Unplaced || o.Gated != "" {
			msg = fmt.Sprintf("Edit %d: the old text was not applied to %s:", o.Index+1, o.Path)
		}
		if o.Hint != "" {
			msg += "\n" + o.Hint
		}
		res.Violate(CodeEditNotFound, param, msg+"\nRe-read the file and copy the old text exactly, without line numbers.")
		return false
	case edit.StatusAmbiguous:
		res.Violate(CodeEditAmbiguous, param, fmt.Sprintf("Edit %d: the old text occurs %d times in %s (lines %s). Include more surrounding lines so it is unique, or set replace_all.",
			o.Index+1, len(o.Matches), o.Path, joinInts(o.Matches)))
		return false
	}
	return true
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// diff is the operation's unified diff, its headers naming /dev/null for
// a file created or deleted and both paths for a file moved.
func (op *fileOp) diff() edit.Diff {
	from, to := op.rel, op.rel
	switch {
	case !op.existed:
		from = ""
	case op.kind == edit.OpDelete:
		to = ""
	case op.moveRel != "":
		to = op.moveRel
	}
	return edit.Unified(from, to, op.old, op.updated)
}

func (op *fileOp) change() FileChange {
	c := FileChange{Path: op.rel, PreviousSHA256: op.oldHash, Size: len(op.updated)}
	switch {
	case op.kind == edit.OpDelete:
		c.Kind, c.Size = ChangeDeleted, 0
		return c
	case op.moveRel != "" && op.moveRel != op.rel:
		c.Kind, c.MovedTo = ChangeMoved, op.moveRel
	case !op.existed:
		c.Kind = ChangeCreated
	case op.updated == op.old:
		c.Kind = ChangeUnchanged
	default:
		c.Kind = ChangeModified
	}
	c.SHA256 = workspace.SHA256Hex([]byte(op.updated))
	return c
}

// fileWriter is what commit needs of a workspace (tests inject failures).
type fileWriter interface {
	WriteFile(p string, data []byte, opts workspace.WriteOptions) (workspace.WriteResult, error)
	Remove(p string) error
}

// commit writes every changed file atomically, through the file held since
// its read, which compares it once with the file read; if one fails, those
// written are put back. If that fails too, the error wraps neither cause: it must
// not pass for a failure that left the files unchanged.
func (g *Guard) commit(ws fileWriter, res *repair.Result, ops []*fileOp, ex *Execution) error {
	var done []*fileOp
	rollback := func() error {
		ex.Applied = false // everything written is put back
		var errs []error
		for _, op := range slices.Backward(done) {
			if op.existed {
				_, err := ws.WriteFile(op.rel, []byte(op.old), workspace.WriteOptions{})
				errs = append(errs, err)
			} else {
				errs = append(errs, ws.Remove(op.rel))
			}
			if op.moveRel != "" && op.moveRel != op.rel {
				errs = append(errs, ws.Remove(op.moveRel))
			}
		}
		return errors.Join(errs...)
	}
	for _, op := range ops {
		var err error
		switch {
		case op.kind == edit.OpDelete:
			err = ws.Remove(op.rel)
		case op.moveRel != "" && op.moveRel != op.rel:
			if _, err = ws.WriteFile(op.moveRel, []byte(op.updated), workspace.WriteOptions{}); err == nil {
				ex.written += int64(len(op.updated))
				err = ws.Remove(op.rel)
			}
		case op.updated == op.old && op.existed:
			continue
		default:
			if err = op.file.Write([]byte(op.updated)); err == nil {
				ex.written += int64(len(op.updated))
			}
		}
		if err != nil {
			if rerr := rollback(); rerr != nil {
				return fmt.Errorf("write %s: %v; putting back the files already written failed, so the batch is half-applied: %v", op.rel, err, rerr)
			}
			return g.fileError(res, op.param, op.rel, err)
		}
		done = append(done, op)
		ex.Applied = true
	}
	return nil
}

// planEdits turns a validated edit call into file operations, in call
// order, merging edits of one file. Parse errors of diffs and patches
// become violations.
func planEdits(res *repair.Result) []*fileOp {
	args := res.Args
	byPath := map[string]*fileOp{}
	var ops []*fileOp
	opFor := func(path, param string) *fileOp {
		if op := byPath[path]; op != nil {
			return op
		}
		op := &fileOp{path: path, param: param}
		byPath[path] = op
		ops = append(ops, op)
		return op
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	switch res.ToolName {
	case "edit":
		op := opFor(str(args, "path"), "path")
		replaceAll, _ := args["replace_all"].(bool)
		expected, _ := intArg(args["expected_replacements"])
		op.edits = append(op.edits, indexedEdit{index: 0, param: "old_text", expected: expected,
			edit: edit.Edit{OldText: str(args, "old_text"), NewText: str(args, "new_text"), ReplaceAll: replaceAll || expected > 1}})
	case "insert_text":
		line, _ := intArg(args["insert_line"])
		opFor(str(args, "path"), "path").insert = &insertion{line: line, text: str(args, "new_text")}
	case "multi_edit":
		top := str(args, "path")
		items, _ := args["edits"].([]any)
		for i, it := range items {
			m, _ := it.(map[string]any)
			path, param := str(m, "path"), fmt.Sprintf("edits/%d/path", i)
			if path == "" {
				path, param = top, "path"
			}
			if path == "" {
				res.Violate(repair.CodeMissingRequired, fmt.Sprintf("edits/%d/path", i), fmt.Sprintf("Edit %d names no file: give it a path, or give multi_edit a top-level path.", i+1))
				continue
			}
			replaceAll, _ := m["replace_all"].(bool)
			opFor(path, param).edits = append(opFor(path, param).edits, indexedEdit{index: i, param: fmt.Sprintf("edits/%d/old_text", i),
				edit: edit.Edit{OldText: str(m, "old_text"), NewText: str(m, "new_text"), ReplaceAll: replaceAll}})
		}
	case "replace_in_file":
		edits, err := edit.ParseSearchReplace(str(args, "diff"))
		if err != nil {
			repair.ViolateSearchReplace(res, "diff", err)
			return nil
		}
		op := opFor(str(args, "path"), "path")
		for i, e := range edits {
			op.edits = append(op.edits, indexedEdit{index: i, param: "diff", edit: e})
		}
	case "apply_patch":
		patch, err := edit.ParsePatch(str(args, "patch"))
		if err != nil && edit.LooksLikeUnifiedDiff(str(args, "patch")) {
			repair.ViolateUnifiedDiff(res, "patch", err)
			return nil
		}
		if errors.Is(err, edit.ErrTruncated) {
			res.Violate(repair.CodeTruncated, "patch", fmt.Sprintf("The patch is incomplete: %v.", err))
			return nil
		}
		if err != nil {
			res.Violate(repair.CodeInvalidValue, "patch", fmt.Sprintf("The patch cannot be read: %v.", err))
			return nil
		}
		for _, p := range patch.Ops {
			if byPath[p.Path] != nil {
				res.Violate(repair.CodeInvalidValue, "patch", fmt.Sprintf("The patch changes %s twice; give each file one hunk.", p.Path))
				return nil
			}
			op := opFor(p.Path, "patch")
			op.kind, op.content, op.chunks, op.moveTo, op.unmarked = p.Kind, p.Content, p.Chunks, p.MoveTo, patch.Unmarked
			op.unified = patch.Unified
		}
	}
	return ops
}

// hasStartLine reports whether an edit of the file carries a start line.
func hasStartLine(edits []indexedEdit) bool {
	return slices.ContainsFunc(edits, func(e indexedEdit) bool { return e.edit.StartLine > 0 })
}

// expectedCount checks an edit's expected_replacements against the
// occurrences found (Gemini CLI's replace): a different count is refused
// with the actual one.
func expectedCount(res *repair.Result, rel string, e indexedEdit, r edit.EditResult) bool {
	found := 0
	switch r.Status {
	case edit.StatusApplied:
		found = max(len(r.Matches), 1)
	case edit.StatusAmbiguous:
		found = len(r.Matches)
	case edit.StatusNotFound, edit.StatusAlreadyApplied:
		return true // the edit's own verdict says it better
	}
	if found == e.expected {
		return true
	}
	res.Violate(CodeEditCount, "expected_replacements", fmt.Sprintf(
		"Expected %d occurrence(s) of old_text in %s but found %d; nothing was replaced. Set expected_replacements to %d to replace them all, or add surrounding lines to old_text to pick the ones meant.",
		e.expected, rel, found, found))
	return false
}

// insertOp computes insert_text's content: the text as whole lines after
// the line given, in the file's line endings.
func insertOp(res *repair.Result, op *fileOp) bool {
	if !op.existed {
		res.Violate(CodeFileNotFound, op.param, fmt.Sprintf("%s does not exist. Create it with write_to_file, or check the path.", op.rel))
		op.skip = true
		return false
	}
	out, ok := edit.InsertAfter(op.old, op.insert.line, op.insert.text)
	if !ok {
		res.Violate(repair.CodeInvalidValue, "insert_line", fmt.Sprintf(
			"Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d].", op.insert.line, edit.LineCount(op.old)))
		op.skip = true
		return false
	}
	op.updated = out
	return true
}
