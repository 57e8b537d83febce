package workspace

// Atomic, durable writes. WriteFile never changes a file in place: it
// writes a temporary file created exclusively (O_CREATE|O_EXCL, so no link
// can be planted under its name) next to the target, named
// ".toolguard-tmp-" plus 16 random hex digits, fsyncs it, renames it over
// the target and fsyncs the directory (and the parents of any directory it
// created). A reader sees the old file or the new one, whole; after a crash
// the target is old or new, whole, and Open removes the temporary files
// left behind once they are old enough (Options.CleanupMinAge). On any failure before the rename the temporary file is
// removed and the target is untouched.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WriteOptions qualify a write.
type WriteOptions struct {
	// ExpectedSHA256, when set, is the lowercase or uppercase hex SHA-256
	// the file must have now (as FileInfo.SHA256 reported when the model
	// read it); otherwise the write is refused with CONFLICT. A missing file
	// does not match any hash. Empty means "do not check".
	ExpectedSHA256 string
}

// WriteResult describes a completed write.
type WriteResult struct {
	// Path is the workspace-relative path written: the path asked for, or
	// the target of the relative symbolic link it names.
	Path           string
	Bytes          int64
	Created        bool        // the file did not exist
	PreviousSHA256 string      // "" when created
	SHA256         string      // of the data written
	Mode           fs.FileMode // permission bits of the file written
}

// newFileMode is the mode of the files WriteFile creates, applied exactly
// (fchmod, whatever the umask); newDirMode is that of the directories it
// creates, less the umask, as mkdir does.
const (
	newFileMode = 0o644
	newDirMode  = 0o755
)

// WriteFile replaces (or creates) the file at p with data, atomically and
// durably. The file keeps its permission bits (not setuid, setgid or
// sticky) and, where the server may set them (as root, or for a group it
// is in), its owner and group; new files get 0644. Missing directories are
// created (0755). The checks of ReadFile apply to an
// existing target and to the directories on the way; data over the size
// limit is TOO_LARGE. It does not lock: hold Lock(p) around a
// read-modify-write.
func (w *Workspace) WriteFile(p string, data []byte, opts WriteOptions) (WriteResult, error) {
	rel, err := w.Resolve(p)
	if err != nil {
		return WriteResult{}, err
	}
	if n := int64(len(data)); n > w.maxBytes {
		return WriteResult{}, refuse(CodeTooLarge, rel, fmt.Sprintf(
			"the content for %q is %d bytes; toolguard writes files of up to %d bytes. Split it into smaller files", p, n, w.maxBytes), nil)
	}
	t, err := w.inspect(p, rel, followFinal|allowMissing)
	if err != nil {
		return WriteResult{}, err
	}
	defer t.close()
	res := WriteResult{Path: t.rel, Bytes: int64(len(data)), Mode: newFileMode}
	if t.info != nil {
		info, err := w.readChecked(p, t, hashInto(p, &res.PreviousSHA256, w.maxBytes))
		if err != nil {
			return WriteResult{}, err
		}
		res.Mode = info.Mode
	} else {
		res.Created = true
	}
	if opts.ExpectedSHA256 != "" && !strings.EqualFold(opts.ExpectedSHA256, res.PreviousSHA256) {
		msg := fmt.Sprintf("file %q changed since it was read (its SHA-256 is now %s, expected %s); read it again and redo the change", p, res.PreviousSHA256, opts.ExpectedSHA256)
		if res.Created {
			msg = fmt.Sprintf("file %q no longer exists (expected SHA-256 %s); read the workspace again and redo the change", p, opts.ExpectedSHA256)
		}
		return WriteResult{}, refuse(CodeConflict, t.rel, msg, nil)
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	if err := w.mkdirs(p, t); err != nil {
		return WriteResult{}, err
	}
	owner := ownerOf(t.info)
	if err := w.replace(p, t, data, res.Mode, owner); err != nil {
		return WriteResult{}, err
	}
	res.SHA256 = SHA256Hex(data)
	return res, nil
}

// fileOwner is a file's owner and group, where the platform has them.
type fileOwner struct {
	uid, gid int
	known    bool
}

func ownerOf(fi fs.FileInfo) fileOwner {
	if fi == nil {
		return fileOwner{}
	}
	uid, ok1 := statField(fi, "Uid")
	gid, ok2 := statField(fi, "Gid")
	return fileOwner{uid: int(uid), gid: int(gid), known: ok1 && ok2}
}

var copyBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// hashInto returns a reader for readChecked that hashes the file into *sum.
func hashInto(orig string, sum *string, max int64) func(f *os.File, size int64) error {
	return func(f *os.File, size int64) error {
		bp := copyBufs.Get().(*[]byte)
		defer copyBufs.Put(bp)
		h := sha256.New()
		var n int64
		for {
			k, err := f.Read(*bp)
			h.Write((*bp)[:k])
			if n += int64(k); n > max {
				return refuse(CodeTooLarge, orig, fmt.Sprintf("file %q is over %d bytes; toolguard reads and writes files of up to %d bytes", orig, max, max), nil)
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
		}
		*sum = hex.EncodeToString(h.Sum(nil))
		return nil
	}
}

// mkdirs creates the missing directories of t (0755, less the umask), one
// below the other, and adds them to t.dirs.
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

// replace writes data to a temporary file in t's directory and renames it
// over t, then fsyncs t's directories (the file's, and those mkdirs
// created with their parent).
func (w *Workspace) replace(orig string, t *target, data []byte, mode fs.FileMode, owner fileOwner) error {
	dir := t.dir()
	tmp, f, err := w.createTemp(orig, dir)
	if err != nil {
		return err
	}
	tmpRel := path.Join(path.Dir(t.rel), tmp)
	fail := func(op string, err error) error {
		if f != nil {
			f.Close()
		}
		_ = dir.Remove(tmp)
		return ioFailure(op, t.rel, err)
	}
	// The old file's owner, best effort: a server that may not give the
	// file away leaves it its own.
	if owner.known && (owner.uid != os.Geteuid() || owner.gid != os.Getegid()) {
		_ = f.Chown(owner.uid, owner.gid)
	}
	// fchmod, not Root.Chmod: exact bits, no umask, and on the open file
	// (Root.Chmod follows a link swapped in on Unix). After the chown,
	// which may clear bits.
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
	// The new file is in place; a failing directory fsync means its
	// durability is unknown, which is the server's problem to report.
	return w.syncDirs(t)
}

// createTemp creates an empty temporary file in dir, exclusively, mode
// 0600, and returns its name in dir. O_NONBLOCK (meaningless for a regular
// file) spares the runtime's poller probing.
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

// syncDirs fsyncs t's directories, innermost first.
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

// Remove deletes the regular file at p (apply_patch's Delete File). The
// checks of ReadFile apply, except that a symbolic link is refused rather
// than followed (SYMLINK) and the size does not matter. The directory is
// fsynced. It does not lock.
func (w *Workspace) Remove(p string) error {
	rel, err := w.Resolve(p)
	if err != nil {
		return err
	}
	t, err := w.inspect(p, rel, 0)
	if err != nil {
		return err
	}
	defer t.close()
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	if err := t.dir().Remove(t.name); err != nil {
		return w.ioError("remove", p, t.rel, err)
	}
	return w.syncDirs(t)
}

// Rename moves the regular file at from to to (apply_patch's Move to),
// atomically, replacing a regular file at to. Both paths get the checks of
// ReadFile (a link at either is refused, not followed; to may be missing,
// its directories are created); both directories are fsynced. Moving a file
// onto itself does nothing. It does not lock: hold Lock(from, to).
func (w *Workspace) Rename(from, to string) error {
	fr, err := w.Resolve(from)
	if err != nil {
		return err
	}
	tr, err := w.Resolve(to)
	if err != nil {
		return err
	}
	ft, err := w.inspect(from, fr, 0)
	if err != nil {
		return err
	}
	defer ft.close()
	tt, err := w.inspect(to, tr, allowMissing)
	if err != nil {
		return err
	}
	defer tt.close()
	if fr == tr {
		return nil
	}
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(tt.rel)
	}
	if err := w.mkdirs(to, tt); err != nil {
		return err
	}
	// Within one directory, the rename acts on the directory held since the
	// checks. Between two, it walks both paths from the workspace root (an
	// os.Root cannot rename into another one), so a racing directory swap
	// could redirect it, but only within the workspace.
	var rerr error
	if path.Dir(ft.rel) == path.Dir(tt.rel) {
		rerr = tt.dir().Rename(ft.name, tt.name)
	} else {
		rerr = w.root.Rename(ft.rel, tt.rel)
	}
	if rerr != nil {
		return w.ioError("rename", from, ft.rel, rerr)
	}
	if err := w.syncDirs(tt); err != nil {
		return err
	}
	if path.Dir(ft.rel) != path.Dir(tt.rel) {
		return syncRoot(ft.dir())
	}
	return nil
}

// removeTemps deletes the temporary files (.toolguard-tmp-*) a crash left
// behind. It walks the workspace through the Root without following
// symbolic links, skips .git directories (toolguard never writes there),
// goes at most 32 directories deep and looks at most at 500,000 entries, so
// a huge tree costs a bounded start-up. Files younger than minAge are kept.
// Failures are ignored: cleanup is best effort.
func (w *Workspace) removeTemps(minAge time.Duration) {
	type dir struct {
		rel   string
		depth int
	}
	stack := []dir{{".", 0}}
	seen := 0
	for len(stack) > 0 && seen < maxCleanupEntries {
		d := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f, err := w.root.Open(d.rel)
		if err != nil {
			continue
		}
		for seen < maxCleanupEntries {
			ents, err := f.ReadDir(512)
			for _, e := range ents {
				seen++
				name := e.Name()
				child := name
				if d.rel != "." {
					child = d.rel + "/" + name
				}
				switch {
				case e.IsDir():
					if name != ".git" && d.depth+1 < maxCleanupDepth {
						stack = append(stack, dir{child, d.depth + 1})
					}
				case e.Type().IsRegular() && strings.HasPrefix(name, tempPrefix):
					if minAge > 0 {
						if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) < minAge {
							continue
						}
					}
					_ = w.root.Remove(child)
				}
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
}
