package guard

import (
	"context"
	"fmt"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// changePath carries out create_directory, move_file and delete_file: each
// checked whole (a folder's every name) before anything changes, under the
// lock of the paths it names, and reported as the execution's changes.
func (g *Guard) changePath(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution) error {
	str := func(k string) string { s, _ := res.Args[k].(string); return s }
	flag := func(k string) bool { b, _ := res.Args[k].(bool); return b }
	params := []string{"path"}
	if res.ToolName == "move_file" {
		params = []string{"source", "destination"}
	}
	var rels []string
	for _, p := range params {
		rel, err := ws.ResolvePath(str(p))
		if err != nil {
			return g.fileError(res, p, str(p), err)
		}
		rels = append(rels, rel)
	}
	unlock, err := ws.Lock(rels...)
	if err != nil {
		return err
	}
	defer unlock()
	switch res.ToolName {
	case "create_directory":
		return g.makeDir(ws, req, res, ex, str("path"))
	case "move_file":
		return g.move(ctx, ws, req, res, ex, str("source"), str("destination"), flag("overwrite"))
	}
	return g.delete(ctx, ws, req, res, ex, str("path"), flag("recursive"))
}

func (g *Guard) makeDir(ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution, p string) error {
	rel, created, err := ws.MakeDir(p, req.DryRun)
	if err != nil {
		return g.fileError(res, "path", p, err)
	}
	c := FileChange{Path: rel, Kind: ChangeDirectoryCreated, Directory: true}
	if !created {
		c.Kind = ChangeUnchanged
	}
	ex.Changes = []FileChange{c}
	ex.Applied = created && !req.DryRun
	return nil
}

func (g *Guard) move(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution, from, to string, overwrite bool) error {
	src, err := ws.Stat(from)
	if err != nil {
		return g.fileError(res, "source", from, err)
	}
	var replaced []byte
	if overwrite && !src.IsDir {
		// The file a move replaces is the undo's to put back.
		if data, _, err := ws.ReadFile(to); err == nil {
			replaced = data
		}
	}
	m, err := ws.Move(from, to, workspace.MoveOptions{Overwrite: overwrite, DryRun: req.DryRun})
	if err != nil {
		return g.fileError(res, "destination", to, err)
	}
	ex.Changes = []FileChange{{Path: m.From, Kind: ChangeMoved, MovedTo: m.To, Directory: m.IsDir, Entries: m.Entries,
		PreviousSHA256: src.SHA256, SHA256: src.SHA256, Size: int(src.Size)}}
	if m.From == m.To {
		ex.Changes[0].Kind, ex.Changes[0].MovedTo = ChangeUnchanged, ""
		return nil
	}
	if req.DryRun {
		return nil
	}
	ex.Applied = true
	c := session.Change{Path: m.To, MovedFrom: m.From, Directory: m.IsDir, AfterSHA256: src.SHA256, Existed: m.Replaced, Before: replaced}
	g.remember(ctx, req, ws, c)
	return nil
}

func (g *Guard) delete(ctx context.Context, ws *workspace.Workspace, req ExecuteRequest, res *repair.Result, ex *Execution, p string, recursive bool) error {
	var old []byte
	var info workspace.FileInfo
	if e, err := ws.Stat(p); err == nil && !e.IsDir {
		old, info, _ = ws.ReadFile(p)
	}
	d, err := ws.Delete(p, workspace.DeleteOptions{Recursive: recursive, DryRun: req.DryRun})
	if err != nil {
		return g.fileError(res, "path", p, err)
	}
	ex.Changes = []FileChange{{Path: d.Path, Kind: ChangeDeleted, Directory: d.IsDir, Entries: d.Entries, PreviousSHA256: info.SHA256}}
	if !d.IsDir {
		ex.Diff, ex.DiffElided = joinDiffs(edit.Unified(d.Path, "", string(old), ""))
	}
	if !g.checkAnswer(res, ex) || req.DryRun {
		return nil
	}
	ex.Applied = true
	switch {
	case d.IsDir:
		g.remember(ctx, req, ws, session.Change{Path: d.Path, Directory: true, NotUndoable: "it was a folder deleted with everything in it, " +
			"and a folder deleted is not kept, so it is not undoable; create it again with create_directory and write_to_file"})
	case info.Exists:
		g.remember(ctx, req, ws, session.Change{Path: d.Path, Existed: true, Before: old})
	}
	return nil
}

// describeChange is a change in words, for the CLI and MCP answers.
func DescribeChange(c FileChange) string {
	what := "file"
	if c.Directory {
		what = "folder"
	}
	switch c.Kind {
	case ChangeDirectoryCreated:
		return fmt.Sprintf("%s: folder created", c.Path)
	case ChangeUnchanged:
		if c.Directory {
			return fmt.Sprintf("%s: unchanged (the folder already exists)", c.Path)
		}
		return fmt.Sprintf("%s: unchanged (the content was already as requested), sha256 %s", c.Path, c.SHA256)
	case ChangeDeleted:
		if c.Directory {
			return fmt.Sprintf("%s: folder deleted, with the %d names in it", c.Path, c.Entries)
		}
		return fmt.Sprintf("%s: deleted", c.Path)
	case ChangeMoved:
		if c.Directory {
			return fmt.Sprintf("%s: %s moved to %s, with the %d names in it", c.Path, what, c.MovedTo, c.Entries)
		}
		return fmt.Sprintf("%s: moved to %s, %d bytes, sha256 %s", c.Path, c.MovedTo, c.Size, c.SHA256)
	case ChangeCreated:
		return fmt.Sprintf("%s: created, %d bytes, sha256 %s", c.Path, c.Size, c.SHA256)
	}
	return fmt.Sprintf("%s: modified, %d bytes, sha256 %s", c.Path, c.Size, c.SHA256)
}
