package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// File is a file held for a read-modify-write: its path stays locked and its
// directories open from the read to the write, so the write lands where the
// read was and nothing is resolved, walked or hashed twice.
type File struct {
	w      *Workspace
	orig   string
	rel    string
	t      *target
	data   []byte
	info   FileInfo
	stat   fs.FileInfo // the opened file's fstat; nil when it did not exist
	unlock func()
}

// OpenFile resolves p, locks it and reads it under the checks of ReadFile; a
// missing file is no error, Write creates it. A lock not had in time is a
// *LockTimeoutError. The caller closes the file.
func (w *Workspace) OpenFile(p string) (*File, error) {
	rel, err := w.Resolve(p)
	if err != nil {
		return nil, err
	}
	unlock, err := w.Lock(rel)
	if err != nil {
		return nil, err
	}
	return w.open(p, rel, unlock)
}

// Resolved is a path Resolve accepted, with the workspace that did: a batch
// resolves its paths to lock them together, then opens each with
// OpenLocked, which neither cleans nor matches it again.
type Resolved struct {
	w   *Workspace
	rel string
}

// ResolveFile is Resolve for a file OpenLocked is to open.
func (w *Workspace) ResolveFile(p string) (Resolved, error) {
	rel, err := w.Resolve(p)
	if err != nil {
		return Resolved{}, err
	}
	return Resolved{w: w, rel: rel}, nil
}

// Rel returns the path as Resolve returned it.
func (r Resolved) Rel() string { return r.rel }

// OpenLocked is OpenFile for a caller that holds the path's lock already,
// taken with the other paths of its batch (Lock); Close leaves the lock to
// it. Messages name the path as resolved.
func (w *Workspace) OpenLocked(r Resolved) (*File, error) {
	if r.w != w {
		return nil, fmt.Errorf("workspace: open %q: resolved by another workspace", r.rel)
	}
	return w.open(r.rel, r.rel, func() {})
}

// open walks to rel, locked by the caller, and reads it; unlock is the
// file's to release from then on.
func (w *Workspace) open(p, rel string, unlock func()) (*File, error) {
	t, err := w.inspect(p, rel, followFinal|allowMissing)
	if err != nil {
		unlock()
		return nil, err
	}
	f := &File{w: w, orig: p, rel: rel, t: t, info: FileInfo{Path: t.rel}, unlock: unlock}
	if t.info == nil {
		return f, nil
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	f.data, f.info, f.stat, err = w.read(p, t)
	if IsCode(err, CodeNotFound) {
		// Removed since its check: as missing, in the directory held.
		f.t.info, f.info, err = nil, FileInfo{Path: t.rel}, nil
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Path returns the path as resolved; Info().Path is the link's target if it names one.
func (f *File) Path() string { return f.rel }

// Data returns the content read.
func (f *File) Data() []byte { return f.data }

// Info describes the file as read.
func (f *File) Info() FileInfo { return f.info }

// Write replaces the file with data as WriteFile does. A file that another
// process replaced, changed or removed since the read is a CONFLICT.
func (f *File) Write(data []byte) error {
	if f.t == nil {
		return fmt.Errorf("workspace: write %s: %w", f.rel, os.ErrClosed)
	}
	w, t := f.w, f.t
	if err := w.checkSize(f.orig, f.rel, data); err != nil {
		return err
	}
	mode, owner := fs.FileMode(newFileMode), fileOwner{}
	if f.stat != nil {
		fi, err := f.unchanged()
		if err != nil {
			return err
		}
		mode, owner = fi.Mode().Perm(), ownerOf(fi)
	}
	return w.write(f.orig, t, data, mode, owner)
}

// unchanged returns the lstat of the file if it is still the one read, by identity,
// size and modification time: comparing hashes would read it twice.
func (f *File) unchanged() (fs.FileInfo, error) {
	t := f.t
	fi, err := t.dir().Lstat(t.name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, refuse(CodeConflict, t.rel, fmt.Sprintf("file %q no longer exists; read the workspace again and redo the change", f.orig), err)
	case err != nil:
		return nil, f.w.ioError("stat", f.orig, t.rel, err)
	case !os.SameFile(fi, f.stat) || fi.Size() != f.stat.Size() || !fi.ModTime().Equal(f.stat.ModTime()):
		return nil, refuse(CodeConflict, t.rel, fmt.Sprintf("file %q changed since it was read; read it again and redo the change", f.orig), nil)
	}
	if n := linkCount(fi); n > 1 {
		return nil, f.w.hardlink(f.orig, t.rel, n)
	}
	return fi, nil
}

// Close releases the file's directories and lock.
func (f *File) Close() {
	if f.t == nil {
		return
	}
	f.t.close()
	f.t = nil
	f.unlock()
}
