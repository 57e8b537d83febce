package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"
)

// EntryType is what a walked name is; a link is never followed, so it is a
// link whatever it points to.
type EntryType int

const (
	EntryFile  EntryType = iota // a regular file
	EntryDir                    // a directory
	EntryLink                   // a symbolic link, shown with its target as written
	EntryOther                  // a FIFO, socket or device
)

func (t EntryType) String() string {
	if t < 0 || t > EntryOther {
		return "other"
	}
	return [...]string{"file", "dir", "link", "other"}[t]
}

// MarshalText writes the type as String does, for JSON answers.
func (t EntryType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Defaults and ceilings of WalkOptions.
const (
	DefaultWalkDepth   = 32
	DefaultWalkEntries = 200_000
	// MaxDirNames bounds the names read from one directory; the rest are
	// counted in WalkStats.Unread, never shown.
	MaxDirNames = 100_000
	// maxGitignoreBytes bounds a .gitignore read; a larger one is not used.
	maxGitignoreBytes = 1 << 20
)

// Entry is one name the walk met, valid during the callback only.
type Entry struct {
	// Path is workspace-relative, slash-separated; Name its last element.
	Path, Name string
	Type       EntryType
	// Depth is 1 for the names in the walked directory, 2 below, ...
	Depth   int
	Size    int64 // a regular file's size (lstat)
	Mode    fs.FileMode
	ModTime time.Time
	// Target is a link's target as written, never resolved.
	Target string
	// Hardlinks is a file's hard link count; more than one and Open refuses it.
	Hardlinks uint64

	dir  *os.Root // the directory held open, where Name is
	info fs.FileInfo
	w    *Workspace
}

// Open opens a regular file of the walk for reading, in the directory held
// open, and checks with fstat that it is the file the walk saw; a file
// swapped, or with more than one hard link, is refused as a read would be.
// The caller closes it; it may be read after the callback returns.
func (e *Entry) Open() (*os.File, error) {
	if e.Type != EntryFile {
		return nil, refuse(CodeNotRegular, e.Path, fmt.Sprintf("%q is %s, not a regular file", e.Path, kindOf(e.Mode)), nil)
	}
	if e.Hardlinks > 1 {
		return nil, e.w.hardlink(e.Path, e.Path, e.Hardlinks)
	}
	f, err := e.dir.OpenFile(e.Name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, e.w.ioError("open", e.Path, e.Path, err)
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("workspace: stat %s: %w", e.Path, err)
	case !fi.Mode().IsRegular() || !os.SameFile(fi, e.info):
		err = refuse(CodeConflict, e.Path, fmt.Sprintf("file %q changed while toolguard was walking the workspace; look again and retry", e.Path), nil)
	case linkCount(fi) > 1:
		err = e.w.hardlink(e.Path, e.Path, linkCount(fi))
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return f, nil
}

// WalkOptions bound and shape a walk.
type WalkOptions struct {
	// MaxDepth is how many levels below the directory are read: 1 its names
	// only (0: DefaultWalkDepth, which is also the ceiling).
	MaxDepth int
	// MaxEntries bounds the entries passed to the callback (0:
	// DefaultWalkEntries); the walk stops there, Cut says why.
	MaxEntries int
	// Gitignore skips what the .gitignore files of the walked directories
	// (and of the workspace root and the directories above the walked one)
	// ignore, as git would.
	Gitignore bool
}

// Cut says why a walk stopped before its end.
type Cut string

const (
	CutNone    Cut = ""
	CutEntries Cut = "entries" // WalkOptions.MaxEntries
	CutTime    Cut = "time"    // the context's deadline
)

// WalkStats is what a walk met besides the entries it passed on.
type WalkStats struct {
	Entries int // passed to the callback
	// Unread counts the names past MaxDirNames in a directory, never read.
	Unread int
	// Deep counts directories not entered because of MaxDepth.
	Deep int
	Cut  Cut
}

// SkipDir and SkipAll, returned by a walk's callback, skip a directory's
// names or the rest of the walk, as in io/fs.
var (
	SkipDir = fs.SkipDir
	SkipAll = fs.SkipAll
)

// WalkFunc receives each entry; it returns SkipDir on a directory not to
// enter it, SkipAll to stop, another error to stop and return it.
type WalkFunc func(e *Entry) error

// Walk walks the directory p (a path as a model writes it; "" or "." the
// root) depth first, names in byte order, each directory opened in the one
// above it and held while its names are read: nothing is resolved again by
// path. A link is passed on as a link and never followed. Denied names and
// the ignore file's, and with Gitignore the ignored ones, are skipped
// entirely: not passed on, not entered, not counted. A directory swapped
// for another (or for a link) between its lstat and its opening is
// skipped. A context deadline stops the walk with Cut CutTime; a cancelled
// context returns its error. Move and Delete check a folder with walkTree
// (tree.go) instead: they refuse what Walk skips.
func (w *Workspace) Walk(ctx context.Context, p string, opts WalkOptions, fn WalkFunc) (WalkStats, error) {
	rel, err := w.resolveDir(p)
	if err != nil {
		return WalkStats{}, err
	}
	top, err := w.openDir(p, rel)
	if err != nil {
		return WalkStats{}, err
	}
	defer func() {
		if top != w.root {
			_ = top.Close()
		}
	}()
	fm, err := w.ignoreMatcher()
	if err != nil {
		return WalkStats{}, err
	}
	wk := &walker{w: w, ctx: ctx, fn: fn, file: fm, opts: opts}
	if wk.opts.MaxDepth <= 0 || wk.opts.MaxDepth > DefaultWalkDepth {
		wk.opts.MaxDepth = DefaultWalkDepth
	}
	if wk.opts.MaxEntries <= 0 {
		wk.opts.MaxEntries = DefaultWalkEntries
	}
	if opts.Gitignore {
		if err := wk.gitignoresAbove(rel); err != nil {
			return WalkStats{}, err
		}
	}
	err = wk.dir(top, rel, 1)
	switch {
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = ctx.Err()
	case errors.Is(err, errStop), errors.Is(err, SkipAll), errors.Is(err, SkipDir):
		err = nil
	}
	return wk.stats, err
}

// errStop ends a walk at a bound, Cut saying which.
var errStop = errors.New("walk bound reached")

// ResolveDir is Resolve for a folder to walk: "" and "." are the root, a
// trailing "/" is fine; it does not look at the folder.
func (w *Workspace) ResolveDir(p string) (string, error) { return w.resolveDir(p) }

// resolveDir is Resolve for a directory: the root is "." and a trailing "/" is fine.
func (w *Workspace) resolveDir(p string) (string, error) {
	if strings.TrimSpace(p) == "" || p == "." || p == "./" {
		return ".", nil
	}
	w.counts.resolves.Add(1)
	rel, err := w.clean(p)
	if err != nil {
		return "", err
	}
	if err := w.checkDenyAs(p, rel, true); err != nil {
		return "", err
	}
	return rel, nil
}

// openDir opens rel, a directory, through openDirs: each directory on the
// way checked, then opened below the one before; a link on the way or at
// the end is refused with the real path to use.
func (w *Workspace) openDir(orig, rel string) (*os.Root, error) {
	if rel == "." {
		return w.root, nil
	}
	w.counts.walks.Add(1)
	t := &target{w: w, rel: rel, missing: -1}
	comps := append(strings.Split(rel, "/"), "")
	if err := w.openDirs(orig, t, comps, 0, nil); err != nil {
		if e, ok := err.(*Error); ok && e.Code == CodeNotFound {
			e.Msg = fmt.Sprintf("directory %q does not exist in the workspace", orig)
		}
		if e, ok := err.(*Error); ok && e.Code == CodeNotRegular && e.Err == nil {
			e.Msg = fmt.Sprintf("%q is a file, not a directory; give the path of a directory", orig)
		}
		return nil, err
	}
	return t.dirs[0], nil
}

// checkDenyAs is checkDeny for a name known to be a directory or not.
func (w *Workspace) checkDenyAs(orig, rel string, isDir bool) error {
	if !isDir {
		return w.checkDeny(orig, rel)
	}
	fm, err := w.ignoreMatcher()
	if err != nil {
		return err
	}
	if p := w.deniedEntry(fm, strings.Split(rel, "/"), true); p != nil {
		return refuse(CodeDeniedPath, rel, fmt.Sprintf(
			"path %q is denied by the workspace policy (pattern %q, %s); toolguard will not list or read it. Look elsewhere.",
			orig, strings.TrimSpace(p.raw), p.source), nil)
	}
	return nil
}

// deniedEntry reports the pattern of the three deny lists that denies comps.
func (w *Workspace) deniedEntry(fm *matcher, comps []string, isDir bool) *pattern {
	if p := w.policy.builtin.deniedAs(comps, isDir); p != nil {
		return p
	}
	if p := w.policy.server.deniedAs(comps, isDir); p != nil {
		return p
	}
	return fm.deniedAs(comps, isDir)
}

// Denied reports whether p (workspace-relative) is denied, as a directory
// when isDir; for callers that show or skip paths, such as a search's hits.
func (w *Workspace) Denied(p string, isDir bool) bool {
	rel, err := w.clean(p)
	if err != nil || rel == "." {
		return err != nil
	}
	fm, err := w.ignoreMatcher()
	if err != nil {
		return true // fail closed
	}
	return w.deniedEntry(fm, strings.Split(rel, "/"), isDir) != nil
}

type walker struct {
	w     *Workspace
	ctx   context.Context
	fn    WalkFunc
	file  *matcher // .toolguardignore, read once for the walk
	opts  WalkOptions
	stats WalkStats
	// ignores are the .gitignore files in force, outermost first.
	ignores []gitignore
}

// dir passes on the names of d (at rel, depth levels below the walk's
// top) and walks into its directories.
func (wk *walker) dir(d *os.Root, rel string, depth int) error {
	names, unread, err := readNames(d)
	if err != nil {
		return wk.w.ioError("open", rel, rel, err)
	}
	wk.stats.Unread += unread
	if wk.opts.Gitignore {
		n := len(wk.ignores)
		wk.loadGitignore(d, rel)
		defer func() { wk.ignores = wk.ignores[:n] }()
	}
	for _, name := range names {
		if err := wk.ctx.Err(); err != nil {
			wk.stats.Cut = CutTime
			return errStop
		}
		if err := wk.entry(d, rel, name, depth); err != nil {
			return err
		}
	}
	return nil
}

// entry passes on one name of d and, for a directory, walks into it.
func (wk *walker) entry(d *os.Root, rel, name string, depth int) error {
	child := name
	if rel != "." {
		child = rel + "/" + name
	}
	fi, err := d.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since it was read
	}
	if err != nil {
		return wk.w.ioError("stat", child, child, err)
	}
	comps := strings.Split(child, "/")
	isDir := fi.IsDir()
	if wk.w.deniedEntry(wk.file, comps, isDir) != nil || wk.ignored(comps, isDir) {
		return nil
	}
	if wk.stats.Entries >= wk.opts.MaxEntries {
		wk.stats.Cut = CutEntries
		return errStop
	}
	e := &Entry{Path: child, Name: name, Depth: depth, Mode: fi.Mode(), ModTime: fi.ModTime(), dir: d, info: fi, w: wk.w}
	switch mode := fi.Mode(); {
	case isDir:
		e.Type = EntryDir
	case mode&fs.ModeSymlink != 0:
		e.Type = EntryLink
		if e.Target, err = d.Readlink(name); err != nil {
			return nil // no longer a link: changed since its lstat
		}
	case mode.IsRegular():
		e.Type, e.Size, e.Hardlinks = EntryFile, fi.Size(), linkCount(fi)
	default:
		e.Type = EntryOther
	}
	wk.stats.Entries++
	err = wk.fn(e)
	if errors.Is(err, SkipDir) {
		return nil
	}
	if err != nil || !isDir {
		return err
	}
	if depth >= wk.opts.MaxDepth {
		wk.stats.Deep++
		return nil
	}
	if wk.w.hooks.beforeOpenDir != nil {
		wk.w.hooks.beforeOpenDir(child)
	}
	sub, ok := openSame(d, name, fi)
	if !ok {
		return nil
	}
	defer func() { _ = sub.Close() }()
	return wk.dir(sub, child, depth+1)
}

// openSame opens directory name of d and checks it is the one lstat saw:
// one swapped since, for a link or another directory, is not entered.
func openSame(d *os.Root, name string, fi fs.FileInfo) (*os.Root, bool) {
	sub, err := d.OpenRoot(name)
	if err != nil {
		return nil, false
	}
	st, err := sub.Stat(".")
	if err != nil || !st.IsDir() || !os.SameFile(st, fi) {
		_ = sub.Close()
		return nil, false
	}
	return sub, true
}

// readNames reads d's names, sorted, at most MaxDirNames; unread counts the rest.
func readNames(d *os.Root) (names []string, unread int, err error) {
	f, err := d.Open(".")
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }()
	for {
		batch, err := f.Readdirnames(1024)
		room := max(MaxDirNames-len(names), 0)
		names = append(names, batch[:min(room, len(batch))]...)
		unread += len(batch) - min(room, len(batch))
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
	}
	slices.Sort(names)
	return names, unread, nil
}
