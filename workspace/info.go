package workspace

import (
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// Kinds of path Info reports.
const (
	KindFile      = "file"
	KindDirectory = "directory"
	KindSymlink   = "symlink"
	KindOther     = "other" // a named pipe, socket or device
)

// PathInfo describes a path as it stands in the workspace; a final link is
// described, not followed.
type PathInfo struct {
	// Path is the cleaned workspace-relative path.
	Path string
	// Kind is one of the Kind constants.
	Kind string
	// Size is the lstat size: a file's bytes, a link's target length.
	Size int64
	Mode fs.FileMode // permission bits
	// The times are zero where the platform does not report them.
	Modified, Accessed, Changed, Created time.Time
	// LinkTarget is a link's target as written; it is never followed.
	LinkTarget string
	// Data and SHA256 are a regular file's content and hash when Info was
	// asked to read it; NotRead says why it was not (over the size limit).
	Data    []byte
	SHA256  string
	NotRead string
	// DeniedBy names the pattern that denies the path and where it comes
	// from, with a DENIED_PATH error; nothing else about the path is looked at.
	DeniedBy string
}

// Info describes p: a file, a directory (the root is "." or "/"), a link or
// a special file. The checks are those of every read: the path is confined,
// a denied one is refused before anything is looked up (so a refusal says
// nothing of its existence), directories on the way are not links, and a
// file with several hard links is refused. With read, a regular file within
// the size limit is read and hashed as ReadFile would.
func (w *Workspace) Info(p string, read bool) (PathInfo, error) {
	w.counts.resolves.Add(1)
	rel, err := w.clean(p)
	if err != nil {
		return PathInfo{}, err
	}
	if pat, err := w.denial(rel); err != nil {
		return PathInfo{}, err
	} else if pat != nil {
		return PathInfo{Path: rel, DeniedBy: fmt.Sprintf("pattern %q (%s)", strings.TrimSpace(pat.raw), pat.source)}, w.checkDeny(p, rel)
	}
	w.counts.walks.Add(1)
	t, err := w.walk(p, rel, anyKind, nil)
	if err != nil {
		return PathInfo{Path: rel}, err
	}
	defer t.close()
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	fi := t.info
	if !fi.IsDir() {
		if err := namesDirectory(p, rel); err != nil {
			return PathInfo{Path: rel}, err
		}
	}
	out := PathInfo{Path: rel, Kind: kindName(fi.Mode()), Size: fi.Size(), Mode: fi.Mode().Perm(), Modified: fi.ModTime()}
	out.Accessed, out.Changed = statTimes(fi)
	out.Created = birthTime(t.dir(), t.name)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		if out.LinkTarget, err = t.dir().Readlink(t.name); err != nil {
			return PathInfo{Path: rel}, w.ioError("readlink", p, rel, err)
		}
	case fi.Mode().IsRegular() && read:
		data, info, _, err := w.read(p, t)
		switch {
		case IsCode(err, CodeTooLarge):
			out.NotRead = fmt.Sprintf("the file is over the %d-byte limit of files read", w.maxBytes)
		case err != nil:
			return PathInfo{Path: rel}, err
		default:
			out.Data, out.SHA256, out.Size = data, info.SHA256, info.Size
		}
	}
	return out, nil
}

func kindName(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return KindFile
	case m.IsDir():
		return KindDirectory
	case m&fs.ModeSymlink != 0:
		return KindSymlink
	}
	return KindOther
}
