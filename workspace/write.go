package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
)

// newFileMode is applied whatever the umask; newDirMode less the umask, as mkdir does.
const (
	newFileMode = 0o644
	newDirMode  = 0o755
)

func (w *Workspace) checkSize(orig, rel string, data []byte) error {
	if n := int64(len(data)); n > w.maxBytes {
		return refuse(CodeTooLarge, rel, fmt.Sprintf(
			"the content for %q is %d bytes; toolguard writes files of up to %d bytes. Split it into smaller files", orig, n, w.maxBytes), nil)
	}
	return nil
}

// write puts data in place of t, an inspected file, creating its directories.
func (w *Workspace) write(orig string, t *target, data []byte, mode fs.FileMode, owner fileOwner) error {
	if err := w.checkShared(); err != nil {
		return err
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	if err := w.mkdirs(orig, t); err != nil {
		return err
	}
	return w.replace(orig, t, data, mode, owner)
}

// mkdirs creates the missing directories of t one below the other, adding them to t.dirs.
func (w *Workspace) mkdirs(orig string, t *target) error {
	if t.missing < 0 {
		return nil
	}
	comps := strings.Split(t.rel, "/")
	for i := t.missing; i < len(comps)-1; i++ {
		cur, name := t.dir(), comps[i]
		if err := cur.Mkdir(name, newDirMode); err != nil {
			d := strings.Join(comps[:i+1], "/")
			if !errors.Is(err, fs.ErrExist) {
				return w.ioError("mkdir", orig, d, err)
			}
			// Created meanwhile: it must be a real directory.
			fi, err := cur.Lstat(name)
			if err != nil {
				return w.ioError("stat", orig, d, err)
			}
			if fi.Mode()&fs.ModeSymlink != 0 {
				return w.linkedDir(orig, t.rel, d, comps[i+1:])
			}
			if !fi.IsDir() {
				return refuse(CodeNotRegular, t.rel, fmt.Sprintf("path %q goes through %q, which is %s, not a directory", orig, d, kindOf(fi.Mode())), nil)
			}
		}
		next, err := cur.OpenRoot(name)
		if err != nil {
			return w.ioError("open", orig, strings.Join(comps[:i+1], "/"), err)
		}
		t.dirs = append(t.dirs, next)
	}
	t.missing = -1
	return nil
}

// replace writes data to a temporary file, renames it over t and fsyncs t's directories.
func (w *Workspace) replace(orig string, t *target, data []byte, mode fs.FileMode, owner fileOwner) error {
	dir := t.dir()
	tmp, f, err := w.createTemp(orig, dir)
	if err != nil {
		return err
	}
	tmpRel := path.Join(path.Dir(t.rel), tmp)
	fail := func(op string, err error) error {
		if f != nil {
			_ = f.Close()
		}
		_ = dir.Remove(tmp)
		return ioFailure(op, t.rel, err)
	}
	// Best effort: a server that may not give the file away keeps it.
	if owner.known && (owner.uid != os.Geteuid() || owner.gid != os.Getegid()) {
		_ = f.Chown(owner.uid, owner.gid)
	}
	// fchmod, not Root.Chmod, which follows a link swapped in; after the
	// chown, which may clear bits.
	if err := f.Chmod(mode); err != nil {
		return fail("chmod", err)
	}
	write := f.Write
	if w.hooks.write != nil {
		write = func(b []byte) (int, error) { return w.hooks.write(f, b) }
	}
	if _, err := write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	err = f.Close()
	f = nil
	if err != nil {
		return fail("close", err)
	}
	if w.hooks.beforeRename != nil {
		if err := w.hooks.beforeRename(tmpRel, t.rel); err != nil {
			return fail("rename", err)
		}
	}
	if err := dir.Rename(tmp, t.name); err != nil {
		_ = dir.Remove(tmp)
		return w.ioError("rename", orig, t.rel, err)
	}
	// The new file is in place; a failing directory fsync is the server's to report.
	return w.syncDirs(t)
}

// createTemp creates a temporary file exclusively: no link can be planted under its name.
func (w *Workspace) createTemp(orig string, dir *os.Root) (string, *os.File, error) {
	for range 16 {
		name := tempPrefix + strconv.FormatUint(rand.Uint64()|1<<63, 16)
		f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNonblock, 0o600)
		if err == nil {
			return name, f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", nil, w.ioError("create", orig, orig, err)
		}
	}
	return "", nil, fmt.Errorf("workspace: create a temporary file for %s: too many name collisions", orig)
}

func (w *Workspace) syncDirs(t *target) error {
	for i := len(t.dirs) - 1; i >= 0; i-- {
		if err := syncRoot(t.dirs[i]); err != nil {
			return err
		}
	}
	return nil
}

func syncRoot(r *os.Root) error {
	d, err := r.OpenFile(".", os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return fmt.Errorf("workspace: open directory %s: %w", r.Name(), err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("workspace: sync directory %s: %w", r.Name(), err)
	}
	return nil
}
