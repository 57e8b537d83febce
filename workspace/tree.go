package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Bounds of the folder operations: a folder moved or deleted is walked
// first, every name checked, so its size is bounded.
const (
	// MaxTreeEntries is the most names a folder moved or deleted may hold.
	MaxTreeEntries = 100_000
	// MaxTreeDepth is the deepest folder a move or delete walks.
	MaxTreeDepth = 64
)

// CodeExists refuses a move onto a path that exists, or a folder made where a file is.
const CodeExists = "EXISTS"

// CodeIsDirectory refuses a delete of a folder without recursive.
const CodeIsDirectory = "IS_DIRECTORY"

// resolveTreePath resolves a path that may name a folder: a trailing "/" is
// the folder's own spelling there.
func (w *Workspace) resolveTreePath(p string) (string, error) {
	q := strings.TrimRight(toSlash(p), "/")
	if q == "" && p != "" {
		q = "/"
	}
	rel, err := w.clean(q)
	if err != nil {
		return "", err
	}
	if err := w.checkDeny(p, rel); err != nil {
		return "", err
	}
	if rel == "." {
		return "", refuse(CodeNotRegular, rel, fmt.Sprintf("path %q is the workspace root itself; name a folder or file inside it", p), nil)
	}
	return rel, nil
}

// MakeDir creates the folder p and its missing parents. created is false
// when it was already a folder; a file in the way is EXISTS.
// With dryRun it checks all that and changes nothing.
func (w *Workspace) MakeDir(p string, dryRun bool) (rel string, created bool, err error) {
	if rel, err = w.resolveTreePath(p); err != nil {
		return "", false, err
	}
	t, err := w.inspect(p, rel, allowMissing|allowDir)
	if err != nil {
		return "", false, err
	}
	defer t.close()
	if t.info != nil {
		if t.info.IsDir() {
			return rel, false, nil
		}
		return "", false, refuse(CodeExists, rel, fmt.Sprintf("%q is %s, so no folder can be made there; pick another name", p, kindOf(t.info.Mode())), nil)
	}
	if dryRun {
		return rel, true, nil
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(rel)
	}
	if err := w.mkdirs(p, t); err != nil {
		return "", false, err
	}
	if err := t.dir().Mkdir(t.name, newDirMode); err != nil {
		if !errors.Is(err, fs.ErrExist) {
			return "", false, w.ioError("mkdir", p, rel, err)
		}
		fi, err := t.dir().Lstat(t.name) // made meanwhile: only a real folder will do
		if err != nil || !fi.IsDir() {
			return "", false, refuse(CodeExists, rel, fmt.Sprintf("%q appeared meanwhile and is not a folder; look at the workspace again", p), err)
		}
		return rel, false, nil
	}
	return rel, true, w.syncDirs(t)
}

// PathState is what a check of a path found: its workspace-relative path and
// whether it is a folder, and for a folder the names it holds.
type PathState struct {
	Path    string
	IsDir   bool
	Entries int // names below a folder, every level
	SHA256  string
	Size    int64
}

// Stat inspects p without following a link as its last name: a regular
// file (hashed) or a folder (its names counted and checked as Move and
// Delete would). Refusals are those of the operations.
func (w *Workspace) Stat(p string) (PathState, error) {
	rel, err := w.resolveTreePath(p)
	if err != nil {
		return PathState{}, err
	}
	t, err := w.inspect(p, rel, allowDir)
	if err != nil {
		return PathState{}, err
	}
	defer t.close()
	e := PathState{Path: rel, IsDir: t.info.IsDir(), Size: t.info.Size()}
	if e.IsDir {
		e.Size = 0
		e.Entries, err = w.checkTree(p, t, rel, "")
		return e, err
	}
	e.SHA256, _, err = w.hash(p, t)
	return e, err
}

// checkTree walks the folder t names and refuses it if a name below it is
// denied, where it is or (dest non-empty) where a move would put it, or if
// it is too large or deep to walk. It returns the number of names.
func (w *Workspace) checkTree(orig string, t *target, rel, dest string) (int, error) {
	d, err := t.dir().OpenRoot(t.name)
	if err != nil {
		return 0, w.ioError("open", orig, rel, err)
	}
	defer func() { _ = d.Close() }()
	n := 0
	err = w.walkTree(orig, d, rel, 0, &n, func(sub string, _ fs.DirEntry, _ *os.Root) error {
		if err := w.checkDeny(sub, sub); err != nil {
			return refuse(CodeDeniedPath, rel, fmt.Sprintf("folder %q holds %q, which is denied by the workspace policy; toolguard will not move or delete it", orig, sub), nil)
		}
		if dest != "" {
			to := dest + strings.TrimPrefix(sub, rel)
			if err := w.checkDeny(to, to); err != nil {
				return refuse(CodeDeniedPath, rel, fmt.Sprintf("moving folder %q would put %q at %q, which is denied by the workspace policy", orig, sub, to), nil)
			}
		}
		return nil
	})
	return n, err
}

// walkTree calls visit for every name below d (rel), depth first, a folder
// after the names it holds; links are names, never followed. Each folder
// is opened below the one held, as inspect does.
//
// It is not Walk (dir.go), whose walk serves looking: Walk starts from a
// path, skips denied and ignored names, passes a folder before its names,
// and at a bound stops and says so (Cut, Unread, Deep). Moving or deleting
// needs the opposite at each of those points: the folder inspect holds,
// every name seen so that a denied one refuses the whole operation, a
// folder after its names (removeTree empties it through the handle
// visit gets), and a bound that refuses rather than answers in part.
func (w *Workspace) walkTree(orig string, d *os.Root, rel string, depth int, n *int, visit func(sub string, de fs.DirEntry, dir *os.Root) error) error {
	if depth >= MaxTreeDepth {
		return refuse(CodeTooLarge, rel, fmt.Sprintf("folder %q is more than %d folders deep; toolguard moves and deletes shallower folders only", orig, MaxTreeDepth), nil)
	}
	f, err := d.Open(".")
	if err != nil {
		return w.ioError("open", orig, rel, err)
	}
	entries, err := f.ReadDir(MaxTreeEntries + 1 - *n)
	_ = f.Close()
	if err != nil && len(entries) == 0 && !errors.Is(err, io.EOF) {
		return w.ioError("readdir", orig, rel, err)
	}
	for _, de := range entries {
		if *n++; *n > MaxTreeEntries {
			return refuse(CodeTooLarge, rel, fmt.Sprintf("folder %q holds more than %d names; toolguard moves and deletes smaller folders only", orig, MaxTreeEntries), nil)
		}
		sub := path.Join(rel, de.Name())
		if de.Type().IsDir() {
			child, err := d.OpenRoot(de.Name())
			if err != nil {
				return w.ioError("open", orig, sub, err)
			}
			err = w.walkTree(orig, child, sub, depth+1, n, visit)
			_ = child.Close()
			if err != nil {
				return err
			}
		}
		if err := visit(sub, de, d); err != nil {
			return err
		}
	}
	return nil
}

// MoveOptions qualify a Move.
type MoveOptions struct {
	Overwrite bool // replace a regular file at the destination
	DryRun    bool // check everything, change nothing
}

// Moved is what Move did.
type Moved struct {
	From, To string
	IsDir    bool
	Entries  int // names below a folder moved
	Replaced bool
}

// Move renames from to to within the workspace, atomically: a regular file
// or a folder (whose names are checked first: none may be denied where it is
// or where it goes). It replaces nothing unless overwrite, and then only a
// regular file; links at either end are refused, not followed.
func (w *Workspace) Move(from, to string, opts MoveOptions) (Moved, error) {
	if err := w.checkShared(); err != nil {
		return Moved{}, err
	}
	fr, err := w.resolveTreePath(from)
	if err != nil {
		return Moved{}, err
	}
	tr, err := w.resolveTreePath(to)
	if err != nil {
		return Moved{}, err
	}
	ft, err := w.inspect(from, fr, allowDir)
	if err != nil {
		return Moved{}, err
	}
	defer ft.close()
	tt, err := w.inspect(to, tr, allowMissing|allowDir)
	if err != nil {
		return Moved{}, err
	}
	defer tt.close()
	m := Moved{From: fr, To: tr, IsDir: ft.info.IsDir()}
	if err := w.checkMove(from, to, ft, tt, &m, opts.Overwrite); err != nil || fr == tr || opts.DryRun {
		return m, err
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(tr)
	}
	if err := w.mkdirs(to, tt); err != nil {
		return Moved{}, err
	}
	if err := renameAt(ft.dir(), ft.name, tt.dir(), tt.name, !m.Replaced); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return Moved{}, refuse(CodeExists, tr, fmt.Sprintf("%q appeared meanwhile; nothing was moved. Look at the workspace again", to), err)
		}
		return Moved{}, w.ioError("rename", from, fr, err)
	}
	if err := w.syncDirs(tt); err != nil {
		return m, err
	}
	return m, syncRoot(ft.dir())
}

// checkMove refuses what Move must not do.
func (w *Workspace) checkMove(from, to string, ft, tt *target, m *Moved, overwrite bool) error {
	switch {
	case m.From == m.To:
		return nil
	case m.IsDir && strings.HasPrefix(m.To+"/", m.From+"/"):
		return refuse(CodeInvalidPath, m.To, fmt.Sprintf("%q is inside %q: a folder cannot be moved into itself", to, from), nil)
	case tt.info != nil && tt.info.IsDir():
		return refuse(CodeExists, m.To, fmt.Sprintf("%q is an existing folder; toolguard never replaces a folder. Give the full new path, for example %q", to, path.Join(m.To, path.Base(m.From))), nil)
	case tt.info != nil && m.IsDir:
		return refuse(CodeExists, m.To, fmt.Sprintf("%q exists; a folder never replaces a file. Pick another name", to), nil)
	case tt.info != nil && !overwrite:
		return refuse(CodeExists, m.To, fmt.Sprintf("%q already exists; nothing was moved. Set overwrite to replace it, or pick another name", to), nil)
	}
	m.Replaced = tt.info != nil
	if m.IsDir {
		n, err := w.checkTree(from, ft, m.From, m.To)
		m.Entries = n
		return err
	}
	return nil
}

// DeleteOptions qualify a Delete.
type DeleteOptions struct {
	Recursive bool // a folder and everything in it
	DryRun    bool // check everything, change nothing
}

// Deleted is what Delete did.
type Deleted struct {
	Path    string
	IsDir   bool
	Entries int // names deleted below a folder
}

// Delete removes the regular file p, or the folder p with recursive: every
// name below it is checked first (none may be denied), then removed name by
// name through the folders held open, links as links. A folder that gains a
// denied name meanwhile stops the delete there.
func (w *Workspace) Delete(p string, opts DeleteOptions) (Deleted, error) {
	if err := w.checkShared(); err != nil {
		return Deleted{}, err
	}
	rel, err := w.resolveTreePath(p)
	if err != nil {
		return Deleted{}, err
	}
	t, err := w.inspect(p, rel, allowDir)
	if err != nil {
		return Deleted{}, err
	}
	defer t.close()
	d := Deleted{Path: rel, IsDir: t.info.IsDir()}
	if d.IsDir && !opts.Recursive {
		return d, refuse(CodeIsDirectory, rel, fmt.Sprintf("%q is a folder; nothing was deleted. Set recursive to delete it and everything in it", p), nil)
	}
	if d.IsDir {
		if d.Entries, err = w.checkTree(p, t, rel, ""); err != nil {
			return d, err
		}
	}
	if opts.DryRun {
		return d, nil
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(rel)
	}
	if d.IsDir {
		if err := w.removeTree(p, t, rel); err != nil {
			return d, err
		}
	}
	if err := t.dir().Remove(t.name); err != nil {
		return d, w.ioError("remove", p, rel, err)
	}
	return d, w.syncDirs(t)
}

// removeTree empties the folder t names, checking each name again.
func (w *Workspace) removeTree(orig string, t *target, rel string) error {
	d, err := t.dir().OpenRoot(t.name)
	if err != nil {
		return w.ioError("open", orig, rel, err)
	}
	defer func() { _ = d.Close() }()
	n := 0
	return w.walkTree(orig, d, rel, 0, &n, func(sub string, de fs.DirEntry, dir *os.Root) error {
		if err := w.checkDeny(sub, sub); err != nil {
			return err
		}
		if err := dir.Remove(de.Name()); err != nil {
			return w.ioError("remove", sub, sub, err)
		}
		return nil
	})
}

// ResolvePath is Resolve for a path that may name a folder (a trailing "/"
// allowed): the key Lock takes for MakeDir, Move and Delete.
func (w *Workspace) ResolvePath(p string) (string, error) { return w.resolveTreePath(p) }
