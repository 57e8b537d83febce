package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// Violation codes of undo_edit.
const (
	// CodeNoHistory: no change of the file is held for the session.
	CodeNoHistory = "NO_HISTORY"
	// CodeFileChanged: the file is not as the change left it.
	CodeFileChanged = "FILE_CHANGED"
)

// historyKey names a path in the history: its workspace and its path.
func (g *Guard) historyKey(req ExecuteRequest, rel string) string {
	name := req.Workspace
	if name == "" {
		name = g.defaultWorkspace
	}
	return name + ":" + rel
}

// remember records a change the session made, for undo_edit; a store that
// fails loses the undo, never the change.
func (g *Guard) remember(ctx context.Context, req ExecuteRequest, _ *workspace.Workspace, c session.Change) {
	if g.history == nil || req.NoSession || req.SessionID == "" {
		return
	}
	c.Path = g.historyKey(req, c.Path)
	if err := g.history.Push(ctx, req.SessionID, c); err != nil {
		g.log.Warn("undo history not recorded", zap.String("path", c.Path), zap.Error(err))
	}
}

// rememberOps records an edit batch's changes; a file an apply_patch moved
// cannot be undone (undo it with the inverse move and an edit), and both its
// paths say so.
func (g *Guard) rememberOps(ctx context.Context, req ExecuteRequest, ws *workspace.Workspace, ops []*fileOp) {
	for _, op := range ops {
		switch {
		case op.moveRel != "" && op.moveRel != op.rel:
			why := fmt.Sprintf("an apply_patch moved %s to %s, and a move made by a patch is not undoable; "+
				"move it back with move_file and edit it instead", op.rel, op.moveRel)
			g.remember(ctx, req, ws, session.Change{Path: op.rel, NotUndoable: why})
			g.remember(ctx, req, ws, session.Change{Path: op.moveRel, NotUndoable: why})
		case op.kind == edit.OpDelete:
			g.remember(ctx, req, ws, session.Change{Path: op.rel, Existed: true, Before: []byte(op.old)})
		case op.existed && op.updated == op.old:
		default:
			g.remember(ctx, req, ws, session.Change{Path: op.rel, Existed: op.existed, Before: []byte(op.old),
				AfterSHA256: workspace.SHA256Hex([]byte(op.updated))})
		}
	}
}

// undo carries out undo_edit: the session's last change of the path is
// reversed if the path is as that change left it.
func (g *Guard) undo(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution) error {
	p, _ := res.Args["path"].(string)
	rel, err := ws.ResolvePath(p)
	if err != nil {
		return g.fileError(res, "path", p, err)
	}
	if g.history == nil || req.NoSession || req.SessionID == "" {
		res.Violate(CodeNoHistory, "path", "undo_edit needs a session: changes are recorded per session id, and this call has none.")
		return nil
	}
	// The change is looked up under the lock of its paths: two undos at
	// once take back two changes, the newest first, never one twice.
	c, unlock, err := g.lockedLast(ctx, ws, req, rel)
	if unlock != nil {
		defer unlock()
	}
	switch {
	case errors.Is(err, session.ErrNoHistory):
		res.Violate(CodeNoHistory, "path", fmt.Sprintf("No edit history found for %s: this session made no change to it that can be undone.", rel))
		return nil
	case errors.Is(err, session.ErrForgotten):
		res.Violate(CodeNoHistory, "path", fmt.Sprintf("The last change to %s can no longer be undone: %s. Read the file and edit it instead.",
			rel, strings.TrimPrefix(err.Error(), session.ErrForgotten.Error()+": ")))
		return nil
	case err != nil:
		return err
	case c.NotUndoable != "":
		res.Violate(CodeNoHistory, "path", fmt.Sprintf("The last change to %s cannot be undone: %s.", rel, c.NotUndoable))
		return nil
	}
	if c.MovedFrom != "" {
		err = g.undoMove(ws, req, res, ex, rel, c)
	} else {
		err = g.undoContent(ws, req, res, ex, rel, c)
	}
	if err != nil || !ex.Applied {
		return err
	}
	return g.history.Drop(ctx, req.SessionID, c)
}

// lockedLast locks rel, and the path a move came from, and returns the
// session's last change of rel as it stands under that lock. unlock is nil
// when nothing is held.
func (g *Guard) lockedLast(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, rel string) (session.Change, func(), error) {
	key := g.historyKey(req, rel)
	rels := []string{rel}
	for range 3 {
		unlock, err := ws.Lock(rels...)
		if err != nil {
			return session.Change{}, nil, err
		}
		c, err := g.history.Last(ctx, req.SessionID, key)
		switch {
		case errors.Is(err, session.ErrNoHistory) || errors.Is(err, session.ErrForgotten):
			return c, unlock, err
		case err != nil:
			unlock()
			return c, nil, fmt.Errorf("undo history: %w", err)
		case c.MovedFrom == "" || len(rels) == 2 && rels[1] == c.MovedFrom:
			return c, unlock, nil
		}
		// A move: its source is locked too, and the change looked up again.
		unlock()
		rels = []string{rel, c.MovedFrom}
	}
	return session.Change{}, nil, &workspace.LockTimeoutError{Path: rel}
}

// undoContent puts back a file's content before the change, or removes the
// file the change created.
func (g *Guard) undoContent(ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution, rel string, c session.Change) error {
	cur, info, err := ws.ReadFile(rel)
	if err != nil && !workspace.IsCode(err, workspace.CodeNotFound) {
		return g.fileError(res, "path", rel, err)
	}
	if info.SHA256 != c.AfterSHA256 {
		res.Violate(CodeFileChanged, "path", fmt.Sprintf("%s changed since this session's last change to it (%s now, %s as the change left it): "+
			"undo_edit only reverses a change nothing has touched since. Read the file and edit it instead.", rel, describeHash(info.SHA256), describeHash(c.AfterSHA256)))
		return nil
	}
	change := FileChange{Path: rel, PreviousSHA256: info.SHA256, Size: len(c.Before)}
	from, to := rel, rel
	switch {
	case !c.Existed:
		change.Kind, change.Size, to = ChangeDeleted, 0, ""
	case info.SHA256 == "":
		change.Kind, from = ChangeCreated, ""
	default:
		change.Kind = ChangeModified
	}
	if c.Existed {
		change.SHA256 = workspace.SHA256Hex(c.Before)
	}
	ex.Changes = []FileChange{change}
	ex.Diff, ex.DiffElided = joinDiffs(edit.Unified(from, to, string(cur), string(c.Before)))
	if !g.checkAnswer(res, ex) || req.DryRun {
		return nil
	}
	if c.Existed {
		_, err = ws.WriteFile(rel, c.Before, workspace.WriteOptions{ExpectedSHA256: c.AfterSHA256})
	} else {
		_, err = ws.Delete(rel, workspace.DeleteOptions{})
	}
	if err != nil {
		return g.fileError(res, "path", rel, err)
	}
	ex.written += int64(len(c.Before))
	ex.Applied = true
	return nil
}

// undoMove moves a file or folder back, and puts back a file it replaced.
func (g *Guard) undoMove(ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution, rel string, c session.Change) error {
	e, err := ws.Stat(rel)
	if err != nil {
		return g.fileError(res, "path", rel, err)
	}
	if e.IsDir != c.Directory || (!e.IsDir && e.SHA256 != c.AfterSHA256) {
		res.Violate(CodeFileChanged, "path", fmt.Sprintf("%s changed since this session moved it here from %s: "+
			"undo_edit only reverses a change nothing has touched since. Move it back with move_file instead.", rel, c.MovedFrom))
		return nil
	}
	m, err := ws.Move(rel, c.MovedFrom, workspace.MoveOptions{DryRun: req.DryRun})
	if err != nil {
		return g.fileError(res, "path", rel, err)
	}
	ex.Changes = []FileChange{{Path: rel, Kind: ChangeMoved, MovedTo: m.To, Directory: m.IsDir, Entries: m.Entries,
		PreviousSHA256: e.SHA256, SHA256: e.SHA256, Size: int(e.Size)}}
	if req.DryRun {
		return nil
	}
	ex.Applied = true
	if c.Existed {
		if _, err := ws.WriteFile(rel, c.Before, workspace.WriteOptions{}); err != nil {
			return g.fileError(res, "path", rel, err)
		}
		ex.Changes = append(ex.Changes, FileChange{Path: rel, Kind: ChangeCreated, SHA256: workspace.SHA256Hex(c.Before), Size: len(c.Before)})
	}
	return nil
}

func describeHash(h string) string {
	if h == "" {
		return "no file"
	}
	return "sha256 " + h
}
