package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
)

// target is an inspected path, its directories held open: each step acts on a name in one, not on a path.
type target struct {
	w    *Workspace
	rel  string      // the file to act on: the path, or a followed link's target
	name string      // its last component
	info fs.FileInfo // its lstat; nil when it does not exist
	// missing is the index of rel's first missing directory (allowMissing), or -1.
	missing int
	// dirs are rel's directory, or its deepest existing one and those mkdirs creates.
	dirs []*os.Root
}

func (t *target) dir() *os.Root { return t.dirs[len(t.dirs)-1] }

func (t *target) close() {
	for _, d := range t.dirs {
		if d != t.w.root {
			_ = d.Close()
		}
	}
	t.dirs = nil
}

const (
	followFinal  = 1 << iota // follow a relative link in the last component
	allowMissing             // the file and its directories may be missing
	allowDir                 // the last name may be a directory (MakeDir, Move, Delete)
	anyKind                  // the last name may be a directory, a link (not followed) or a special file
)

// inspect is the one walk of every operation: each directory of rel is
// checked, then opened below the one before, so both see the same directory;
// the last name must be a regular file, missing (allowMissing) or a relative
// link (followFinal), inspected in turn. t is never nil; the caller closes it.
func (w *Workspace) inspect(orig, rel string, flags int) (*target, error) {
	w.counts.walks.Add(1)
	if rel == "." {
		return &target{w: w, rel: rel, missing: -1}, refuse(CodeNotRegular, rel, fmt.Sprintf("path %q is the workspace root, a directory; give the path of a file", orig), nil)
	}
	var links []string // the links followed so far
	for {
		t, err := w.walk(orig, rel, flags, links)
		if err != nil || t.info == nil || t.info.Mode()&fs.ModeSymlink == 0 {
			return t, err
		}
		next, err := w.followLink(orig, t.dir(), t.name, rel, len(links))
		t.close() // the link's target is walked from the root
		if err != nil {
			return t, err
		}
		links = append(links, rel)
		rel = next
	}
}

// walk opens rel's directories and checks its last name.
func (w *Workspace) walk(orig, rel string, flags int, links []string) (*target, error) {
	t := &target{w: w, rel: rel, missing: -1}
	comps := strings.Split(rel, "/")
	t.name = comps[len(comps)-1]
	if err := w.openDirs(orig, t, comps, flags, links); err != nil || t.missing >= 0 {
		return t, err
	}
	fi, err := t.dir().Lstat(t.name)
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(links) > 0:
		err = w.dangling(orig, links, rel)
	case errors.Is(err, fs.ErrNotExist) && flags&allowMissing == 0:
		err = refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist in the workspace", orig), err)
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		err = w.ioError("stat", orig, rel, err)
	default:
		t.info = fi
		err = w.checkLast(orig, rel, fi, flags)
	}
	if err != nil {
		t.close()
	}
	return t, err
}

// openDirs opens comps' directories one below the other, the deepest left in t.dirs.
func (w *Workspace) openDirs(orig string, t *target, comps []string, flags int, links []string) error {
	cur := w.root
	for i := range len(comps) - 1 {
		fi, err := cur.Lstat(comps[i])
		if err == nil && fi.IsDir() {
			next, err := cur.OpenRoot(comps[i])
			if err != nil {
				err = w.ioError("open", orig, strings.Join(comps[:i+1], "/"), err)
			}
			if cur != w.root {
				_ = cur.Close()
			}
			if err != nil {
				return err
			}
			cur = next
			continue
		}
		if errors.Is(err, fs.ErrNotExist) && len(links) == 0 && flags&allowMissing != 0 {
			t.missing = i
			break
		}
		if cur != w.root {
			_ = cur.Close()
		}
		return w.dirError(orig, t.rel, comps, i, fi, err, links)
	}
	t.dirs = []*os.Root{cur}
	return nil
}

// dirError refuses comps[i], which is no directory to walk through.
func (w *Workspace) dirError(orig, rel string, comps []string, i int, fi fs.FileInfo, err error, links []string) error {
	dir := strings.Join(comps[:i+1], "/")
	switch {
	case errors.Is(err, fs.ErrNotExist) && len(links) > 0:
		return w.dangling(orig, links, rel)
	case errors.Is(err, fs.ErrNotExist):
		return refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist: there is no directory %q in the workspace", orig, dir), err)
	case err != nil:
		return w.ioError("stat", orig, dir, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return w.linkedDir(orig, rel, dir, comps[i+1:])
	}
	return refuse(CodeNotRegular, rel, fmt.Sprintf("path %q goes through %q, which is %s, not a directory", orig, dir, kindOf(fi.Mode())), nil)
}

func (w *Workspace) checkLast(orig, rel string, fi fs.FileInfo, flags int) error {
	mode := fi.Mode()
	switch {
	case flags&anyKind != 0 && !mode.IsRegular():
		return nil
	case mode&fs.ModeSymlink != 0 && flags&followFinal == 0:
		return refuse(CodeSymlink, rel, fmt.Sprintf(
			"%q is a symbolic link; toolguard does not delete, move or replace links. Use the path of the real file instead", orig), nil)
	case mode&fs.ModeSymlink != 0:
		return nil
	case mode.IsDir() && flags&allowDir != 0:
		return nil
	case !mode.IsRegular():
		return w.notRegular(orig, rel, mode)
	}
	if n := linkCount(fi); n > 1 {
		return w.hardlink(orig, rel, n)
	}
	return nil
}

// followLink returns the target of the link name in dir as a resolved path.
func (w *Workspace) followLink(orig string, dir *os.Root, name, rel string, hops int) (string, error) {
	if hops >= maxSymlinkHops {
		return "", refuse(CodeSymlink, rel, fmt.Sprintf("%q is a chain of more than %d symbolic links, or a loop; write to the real file path instead", orig, maxSymlinkHops), nil)
	}
	if w.hooks.beforeReadlink != nil {
		w.hooks.beforeReadlink(rel)
	}
	dest, err := dir.Readlink(name)
	if err != nil {
		return "", w.ioError("readlink", orig, rel, err)
	}
	if isAbs(dest) {
		msg := fmt.Sprintf("%q is a symbolic link to the absolute path %q; toolguard never follows absolute links, even into the workspace. Write to the real file path instead", orig, dest)
		if real, err := w.clean(dest); err == nil && real != "." {
			msg += fmt.Sprintf(" (%q)", real)
		}
		return "", refuse(CodeSymlink, rel, msg, nil)
	}
	next, ok := joinInside(path.Dir(rel), toSlash(dest))
	if !ok {
		return "", refuse(CodeSymlink, rel, fmt.Sprintf(
			"%q is a symbolic link to %q, which is outside the workspace; toolguard does not follow links out of the workspace. Write to a file inside it instead", orig, dest), nil)
	}
	if err := w.checkDeny(dest, next); err != nil {
		if e, ok := err.(*Error); ok {
			e.Msg = fmt.Sprintf("%q is a symbolic link to %q: %s", orig, next, e.Msg)
		}
		return "", err
	}
	return next, nil
}
