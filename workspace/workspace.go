package workspace

// Confinement. A Workspace maps the paths a model writes onto a directory
// opened as an os.Root and refuses what it must not touch. The rules, in the
// order they are applied:
//
// Paths (Resolve). A path is cleaned lexically into a workspace-relative,
// slash-separated path. Refused: the empty path, paths over 4,096 bytes,
// names over 255 bytes, NUL and other ASCII control characters
// (INVALID_PATH); a ".." that climbs above the root, even if the path comes
// back in ("a/../../ws/x"), and absolute paths that are not under the
// workspace (OUTSIDE_WORKSPACE). An absolute path is accepted when it lies
// under the workspace as the agent sees it (Options.AgentRoot, tried first),
// or as the server sees it (the directory given to Open, made absolute, and
// the same with its symbolic links resolved); its ".." components are then
// judged against the workspace root like a relative path's. "..test" and
// "..." are ordinary names. Deny patterns (deny.go) are matched on the
// cleaned path, so "./.env" and "x/../.env" are caught (DENIED_PATH), with
// letter case ignored and in the spelling Windows and macOS may read (".GIT",
// ".git.").
//
// Backslashes: refused (INVALID_PATH) on Unix, where the kernel takes a
// backslash for an ordinary character of a name while Windows takes it for
// a separator. "src\\main.go" almost always means src/main.go, and
// ".git\\config" names .git/config to a Windows file server; writing a file
// of that name in the root would be silently wrong either way. The message
// gives the path with slashes. (Files whose names hold a backslash cannot
// be read or written through toolguard.) On Windows (not a supported server
// platform; it compiles but is untested) backslashes are separators.
//
// Symbolic links (os.Root already refuses any link that leads out of the
// root, and any absolute link). On top of that:
//
//   - a directory on the way that is a symbolic link is refused, even when
//     it points inside the workspace: the model must use the real path;
//   - the last component may be a relative symbolic link whose target is in
//     the workspace: it is followed (reads read the target, writes replace
//     the target and keep the link), up to 8 links in a chain. The target is
//     checked like the path itself: deny patterns, directories on the way,
//     hard links, file type;
//   - an absolute link is never followed, even into the workspace; a dangling
//     link is refused (a write does not create its target); a link that
//     points outside is refused;
//   - Remove and Rename act on names, not on what they point to: a link there
//     is refused rather than deleted or moved.
//
// Files: only regular files with one hard link are read or written. A
// directory, FIFO, socket or device is NOT_REGULAR; a file with more than one
// link is HARDLINK (the other name may be outside the workspace). Files and
// data over Options.MaxFileBytes are TOO_LARGE. Files are opened with
// O_NONBLOCK, so a FIFO swapped in after the checks cannot block a read, and
// the opened file is checked again with fstat against what was inspected.
//
// Races. Each directory on the way is checked (lstat) and then opened as an
// os.Root below the one before, and the operation then acts on a name inside
// the last directory held open. So a directory removed, renamed or replaced
// by a link after its check does not redirect the operation: it stays in the
// directory that was checked (or fails, if that directory was removed). The
// last component is opened with os.Root semantics (a link swapped in is
// followed only within its own directory) and checked again with fstat; a
// file that changed between its check and its use, a link replaced before
// it is read included, is CONFLICT: read it again and retry. A
// racing process can at worst make an operation act on whatever file is at
// the checked place at that moment; it cannot make it leave the workspace.
// (As with os.Root itself, a directory that another process moves out of
// the workspace while an operation holds it takes the operation along; only
// a process that can already write outside the workspace can do that.)

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	// DefaultMaxFileBytes is Options.MaxFileBytes when unset.
	DefaultMaxFileBytes = 10 << 20
	// MaxPathBytes is the longest path Resolve accepts.
	MaxPathBytes = 4096
	// maxNameBytes is the longest single name (NAME_MAX on Linux).
	maxNameBytes = 255
	// maxSymlinkHops bounds a chain of followed links.
	maxSymlinkHops = 8
	// tempPrefix starts the names of toolguard's temporary files.
	tempPrefix = ".toolguard-tmp-"
	// Start-up cleanup bounds.
	maxCleanupDepth   = 32
	maxCleanupEntries = 500_000
	// DefaultCleanupMinAge is Options.CleanupMinAge when unset: a temporary
	// file lives from the start of a write to its rename, which takes
	// seconds even for a large file on a slow volume, so one an hour old
	// is a leftover, not another process's write in progress.
	DefaultCleanupMinAge = time.Hour

	oNonblock = syscall.O_NONBLOCK
)

// Options configure a Workspace.
type Options struct {
	// AgentRoot is the workspace root as the agent sees it (an absolute
	// path such as /home/user/project). Absolute paths under it are mapped
	// onto the workspace; agents such as Cline send absolute paths.
	AgentRoot string
	// MaxFileBytes bounds the files read and the data written;
	// DefaultMaxFileBytes (10 MiB) when zero or negative.
	MaxFileBytes int64
	// Deny holds server-wide gitignore-style patterns, after the default
	// ".git" (which "!.git" lifts). See deny.go for the syntax.
	Deny []string
	// CleanupMinAge makes Open leave temporary files younger than this in
	// place, so that a process starting on a directory that others write
	// too (replicas on a shared volume) does not delete their writes in
	// progress. Zero means DefaultCleanupMinAge; negative removes them all,
	// whatever their age, which is right only when this process alone
	// writes the workspace.
	CleanupMinAge time.Duration
}

// Workspace is a directory that tool calls may read and write, confined as
// described in the comment at the top of workspace.go. Its methods are safe
// for concurrent use. ReadFile, WriteFile, Remove and Rename do not lock: a
// caller doing read-modify-write holds Lock on the paths around it.
type Workspace struct {
	root *os.Root
	dir  string // absolute, as given to Open
	// hint is the absolute root named in messages: the agent's root when
	// configured; empty otherwise, so the server's own layout never reaches
	// the model.
	hint      string
	prefixes  [][]string // absolute roots accepted, as components
	maxBytes  int64
	policy    *policy
	locks     lockTable
	hooks     hooks
	closeOnce sync.Once
	closeErr  error
}

// hooks let tests act between the steps of an operation. Nil in production.
type hooks struct {
	afterCheck     func(rel string)                           // checks done, before any change
	write          func(f *os.File, data []byte) (int, error) // replaces f.Write for the temporary file
	beforeRename   func(tmpRel, rel string) error             // temporary file complete
	beforeReadlink func(rel string)                           // a link seen by lstat, before reading it
}

// Open opens dir as a workspace: it resolves it, opens it as an os.Root,
// reads its .toolguardignore and removes the temporary files a crash may
// have left, those older than Options.CleanupMinAge (see removeTemps).
func Open(dir string, opts Options) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workspace: %s is not a directory", dir)
	}
	w := &Workspace{dir: abs, maxBytes: opts.MaxFileBytes, policy: newPolicy(opts.Deny)}
	if w.maxBytes <= 0 {
		w.maxBytes = DefaultMaxFileBytes
	}
	if opts.AgentRoot != "" {
		if !isAbs(opts.AgentRoot) {
			return nil, fmt.Errorf("workspace: agent root %q is not an absolute path", opts.AgentRoot)
		}
		agent := path.Clean(toSlash(opts.AgentRoot))
		w.hint = agent
		w.prefixes = append(w.prefixes, components(agent))
	}
	for _, p := range []string{real, abs} {
		c := components(toSlash(p))
		if !slices.ContainsFunc(w.prefixes, func(q []string) bool { return slices.Equal(q, c) }) {
			w.prefixes = append(w.prefixes, c)
		}
	}
	if w.root, err = os.OpenRoot(real); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	st, err := w.loadIgnore()
	if err != nil {
		w.root.Close()
		return nil, err
	}
	w.policy.file.Store(st)
	minAge := opts.CleanupMinAge
	switch {
	case minAge == 0:
		minAge = DefaultCleanupMinAge
	case minAge < 0:
		minAge = 0
	}
	w.removeTemps(minAge)
	return w, nil
}

// Close releases the workspace's directory handle. Further calls fail.
func (w *Workspace) Close() error {
	w.closeOnce.Do(func() { w.closeErr = w.root.Close() })
	return w.closeErr
}

// Dir returns the workspace directory as given to Open, made absolute.
func (w *Workspace) Dir() string { return w.dir }

// MaxFileBytes returns the size limit of files read and written.
func (w *Workspace) MaxFileBytes() int64 { return w.maxBytes }

// useInstead says which paths the workspace takes.
func (w *Workspace) useInstead() string {
	if w.hint == "" {
		return "use a path relative to the workspace root"
	}
	return "use a path relative to the workspace root, or an absolute path under " + w.hint
}

// Resolve maps a path as a model wrote it (relative to the workspace root,
// or absolute under the agent's or the server's view of the root) to a
// cleaned workspace-relative slash path ("." for the root itself), or
// refuses it (INVALID_PATH, OUTSIDE_WORKSPACE, DENIED_PATH; NOT_REGULAR for
// a path that ends with "/", "/." or "/..", which names a directory, as it
// does to the kernel, and every method works on files). It looks at no file
// but .toolguardignore; ReadFile and the other methods apply the file
// checks. Every method resolves its path arguments itself, so passing
// Resolve's result to them is fine (Resolve is idempotent).
func (w *Workspace) Resolve(p string) (string, error) {
	rel, err := w.clean(p)
	if err != nil {
		return "", err
	}
	if err := w.checkDeny(p, rel); err != nil {
		return "", err
	}
	if err := namesDirectory(p, rel); err != nil {
		return "", err
	}
	return rel, nil
}

// namesDirectory refuses a path whose spelling names a directory: a
// trailing "/" would otherwise be dropped by cleaning, and "f.txt/" would
// write f.txt.
func namesDirectory(p, rel string) error {
	q := toSlash(p)
	var end string
	for _, e := range []string{"/", "/.", "/.."} {
		if strings.HasSuffix(q, e) {
			end = e
		}
	}
	if end == "" {
		return nil
	}
	msg := fmt.Sprintf("path %q ends with %q, so it names a directory; toolguard reads and writes files only", p, end)
	if end != "/.." && rel != "." {
		msg += fmt.Sprintf(". To name the file, drop the trailing %q: %q", end, rel)
	} else {
		msg += ". Give the path of a file"
	}
	return refuse(CodeNotRegular, rel, msg, nil)
}

func (w *Workspace) clean(p string) (string, error) {
	if p == "" {
		return "", refuse(CodeInvalidPath, p, "the path is empty; give the file's path relative to the workspace root", nil)
	}
	if len(p) > MaxPathBytes {
		return "", refuse(CodeInvalidPath, strings.ToValidUTF8(p[:64], "")+"...", fmt.Sprintf("the path is %d bytes long; toolguard accepts paths up to %d bytes", len(p), MaxPathBytes), nil)
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			what := fmt.Sprintf("a control character (%#02x)", c)
			if c == 0 {
				what = "a NUL byte"
			}
			return "", refuse(CodeInvalidPath, p, fmt.Sprintf("path %q contains %s at byte %d; file paths cannot contain it", p, what, i), nil)
		}
	}
	if i := strings.IndexByte(p, '\\'); i >= 0 && os.PathSeparator != '\\' {
		return "", refuse(CodeInvalidPath, p, fmt.Sprintf(
			"path %q contains a backslash at byte %d; toolguard separates directories with \"/\" only. Write %q", p, i, strings.ReplaceAll(p, `\`, "/")), nil)
	}
	q := toSlash(p)
	comps := strings.Split(q, "/")
	if isAbs(p) {
		rest, ok := w.underRoot(components(q))
		if !ok {
			return "", refuse(CodeOutsideWorkspace, p, fmt.Sprintf(
				"path %q is outside the workspace; %s", p, w.useInstead()), nil)
		}
		comps = rest
	}
	out := make([]string, 0, len(comps))
	for _, c := range comps {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", refuse(CodeOutsideWorkspace, p, fmt.Sprintf(
					"path %q climbs above the workspace root with \"..\"; %s", p, w.useInstead()), nil)
			}
			out = out[:len(out)-1]
		default:
			if len(c) > maxNameBytes {
				return "", refuse(CodeInvalidPath, p, fmt.Sprintf("path %q has a name of %d bytes; names are limited to %d bytes", p, len(c), maxNameBytes), nil)
			}
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return ".", nil
	}
	return strings.Join(out, "/"), nil
}

// underRoot strips an accepted absolute root from comps, returning the
// rest (with its "..", judged by the caller).
func (w *Workspace) underRoot(comps []string) ([]string, bool) {
	for _, pre := range w.prefixes {
		if len(comps) >= len(pre) && slices.Equal(comps[:len(pre)], pre) {
			return comps[len(pre):], true
		}
	}
	return nil, false
}

// components splits an absolute slash path into its names, dropping empty
// and "." ones (but keeping ".."): "/a//./b/../c" is [a b .. c].
func components(p string) []string {
	var out []string
	for c := range strings.SplitSeq(p, "/") {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func toSlash(p string) string {
	if os.PathSeparator == '\\' {
		return strings.ReplaceAll(p, `\`, "/")
	}
	return p
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || filepath.IsAbs(p)
}

// FileInfo describes a file as read.
type FileInfo struct {
	// Path is the workspace-relative path of the file read: the path asked
	// for, or the target of the relative symbolic link it names.
	Path   string
	Exists bool
	Size   int64
	Mode   fs.FileMode // permission bits
	SHA256 string      // lowercase hex of the content
}

// ReadFile reads a regular file of the workspace. A missing file is a
// NOT_FOUND refusal with FileInfo.Exists false; see the confinement rules
// for the others. It does not lock.
func (w *Workspace) ReadFile(p string) ([]byte, FileInfo, error) {
	rel, err := w.Resolve(p)
	if err != nil {
		return nil, FileInfo{}, err
	}
	t, err := w.inspect(p, rel, followFinal)
	if err != nil {
		if IsCode(err, CodeNotFound) {
			return nil, FileInfo{Path: t.rel}, err
		}
		return nil, FileInfo{}, err
	}
	defer t.close()
	if w.hooks.afterCheck != nil {
		w.hooks.afterCheck(t.rel)
	}
	var data []byte
	info, err := w.readChecked(p, t, func(f *os.File, size int64) error {
		var rerr error
		data, rerr = readLimited(f, size, w.maxBytes)
		return rerr
	})
	if err != nil {
		return nil, FileInfo{}, err
	}
	if int64(len(data)) > w.maxBytes {
		return nil, FileInfo{}, w.tooLarge(p, int64(len(data)))
	}
	info.Size = int64(len(data))
	info.SHA256 = SHA256Hex(data)
	return data, info, nil
}

// readChecked opens t (an inspected existing regular file) and checks the
// opened file again: a regular file, the same one that was inspected, one
// link, not too large. read consumes it.
func (w *Workspace) readChecked(orig string, t *target, read func(f *os.File, size int64) error) (FileInfo, error) {
	f, err := t.dir().OpenFile(t.name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return FileInfo{}, w.ioError("open", orig, t.rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FileInfo{}, fmt.Errorf("workspace: stat %s: %w", t.rel, err)
	}
	if !fi.Mode().IsRegular() {
		return FileInfo{}, w.notRegular(orig, t.rel, fi.Mode())
	}
	if !os.SameFile(fi, t.info) {
		return FileInfo{}, refuse(CodeConflict, t.rel, fmt.Sprintf("file %q changed while toolguard was opening it; read it again and retry", orig), nil)
	}
	if n := linkCount(fi); n > 1 {
		return FileInfo{}, w.hardlink(orig, t.rel, n)
	}
	if fi.Size() > w.maxBytes {
		return FileInfo{}, w.tooLarge(orig, fi.Size())
	}
	if err := read(f, fi.Size()); err != nil {
		if _, ok := err.(*Error); ok {
			return FileInfo{}, err
		}
		return FileInfo{}, fmt.Errorf("workspace: read %s: %w", t.rel, err)
	}
	return FileInfo{Path: t.rel, Exists: true, Size: fi.Size(), Mode: fi.Mode().Perm()}, nil
}

// readLimited reads f to the end, at most max+1 bytes (so the caller can
// tell it is too large), starting with a buffer of size.
func readLimited(f io.Reader, size, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(size, max)+1)
	for int64(len(buf)) <= max {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(int64(cap(buf)), max+1-int64(len(buf)))))
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// SHA256Hex returns the lowercase hex SHA-256 of data, as FileInfo.SHA256
// and WriteOptions.ExpectedSHA256 spell it.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// target is the result of inspecting a path. It holds open the
// directories the operation works in, so that each step is one system call
// on a name in its directory rather than a walk from the root; close
// releases them.
type target struct {
	w    *Workspace
	rel  string      // the file to act on: the path, or a followed link's target
	name string      // its last component
	info fs.FileInfo // its lstat; nil when it does not exist
	// missing is the index of the first directory of rel that does not
	// exist (only with allowMissing), or -1.
	missing int
	// dirs are open directories, outermost first; the last is rel's
	// directory, or, while directories are missing, the deepest existing
	// one (mkdirs appends the ones it creates). All are fsynced after a
	// change; all but w.root are closed by close.
	dirs []*os.Root
}

func (t *target) dir() *os.Root { return t.dirs[len(t.dirs)-1] }

func (t *target) close() {
	for _, d := range t.dirs {
		if d != t.w.root {
			d.Close()
		}
	}
	t.dirs = nil
}

const (
	followFinal  = 1 << iota // follow a relative link in the last component
	allowMissing             // the file and its directories may be missing
)

// inspect applies the file checks to rel (already resolved): every
// directory on the way exists (or, with allowMissing, is missing from some
// point on), is a directory and not a link; the last component is a regular
// file with one link, or missing (allowMissing), or a relative link inside
// the workspace (followFinal), which is then inspected in turn. It walks
// down one directory at a time (lstat the name, then open it as a Root
// below the current one), so a check and the open that follows it are on
// the same directory. On success the caller must close the target.
func (w *Workspace) inspect(orig, rel string, flags int) (*target, error) {
	if rel == "." {
		return &target{w: w, rel: rel, missing: -1}, refuse(CodeNotRegular, rel, fmt.Sprintf("path %q is the workspace root, a directory; give the path of a file", orig), nil)
	}
	var links []string // the links followed so far
	for {
		t := &target{w: w, rel: rel, missing: -1}
		comps := strings.Split(rel, "/")
		t.name = comps[len(comps)-1]
		cur := w.root
		fail := func(err error) (*target, error) {
			if cur != w.root {
				cur.Close()
			}
			t.dirs = nil
			return t, err
		}
		for i := range len(comps) - 1 {
			fi, err := cur.Lstat(comps[i])
			switch {
			case errors.Is(err, fs.ErrNotExist):
				if len(links) > 0 {
					return fail(w.dangling(orig, links, rel))
				}
				if flags&allowMissing == 0 {
					return fail(refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist: there is no directory %q in the workspace", orig, strings.Join(comps[:i+1], "/")), err))
				}
				t.missing = i
				t.dirs = []*os.Root{cur}
				return t, nil
			case err != nil:
				return fail(w.ioError("stat", orig, strings.Join(comps[:i+1], "/"), err))
			case fi.Mode()&fs.ModeSymlink != 0:
				return fail(w.linkedDir(orig, rel, strings.Join(comps[:i+1], "/"), comps[i+1:]))
			case !fi.IsDir():
				return fail(refuse(CodeNotRegular, rel, fmt.Sprintf("path %q goes through %q, which is %s, not a directory", orig, strings.Join(comps[:i+1], "/"), kindOf(fi.Mode())), nil))
			}
			next, err := cur.OpenRoot(comps[i])
			if err != nil {
				return fail(w.ioError("open", orig, strings.Join(comps[:i+1], "/"), err))
			}
			if cur != w.root {
				cur.Close()
			}
			cur = next
		}
		t.dirs = []*os.Root{cur}
		fi, err := cur.Lstat(t.name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if len(links) > 0 {
				return fail(w.dangling(orig, links, rel))
			}
			if flags&allowMissing == 0 {
				return fail(refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist in the workspace", orig), err))
			}
			return t, nil
		case err != nil:
			return fail(w.ioError("stat", orig, rel, err))
		}
		t.info = fi
		mode := fi.Mode()
		switch {
		case mode&fs.ModeSymlink != 0:
			if flags&followFinal == 0 {
				return fail(refuse(CodeSymlink, rel, fmt.Sprintf(
					"%q is a symbolic link; toolguard does not delete, move or replace links. Use the path of the real file instead", orig), nil))
			}
			next, err := w.followLink(orig, cur, t.name, rel, len(links))
			// The target is walked again from the root.
			if cur != w.root {
				cur.Close()
			}
			t.dirs = nil
			if err != nil {
				return t, err
			}
			links = append(links, rel)
			rel = next
			continue
		case mode.IsRegular():
			if n := linkCount(fi); n > 1 {
				return fail(w.hardlink(orig, rel, n))
			}
			return t, nil
		default:
			return fail(w.notRegular(orig, rel, mode))
		}
	}
}

// followLink reads the link name in dir (rel in the workspace) and returns
// its target as a resolved workspace path, or refuses it.
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

// joinInside joins dir and a relative link target lexically, failing when
// a ".." climbs above the root.
func joinInside(dir, dest string) (string, bool) {
	var out []string
	if dir != "." {
		out = strings.Split(dir, "/")
	}
	for c := range strings.SplitSeq(dest, "/") {
		switch c {
		case "", ".":
		case "..":
			if len(out) == 0 {
				return "", false
			}
			out = out[:len(out)-1]
		default:
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return ".", true
	}
	return strings.Join(out, "/"), true
}

func (w *Workspace) linkedDir(orig, rel, dir string, rest []string) error {
	msg := fmt.Sprintf("path %q goes through %q, which is a symbolic link to a directory; toolguard does not follow links to directories", orig, dir)
	dest, err := w.root.Readlink(dir)
	switch {
	case err != nil:
	case isAbs(dest):
		msg += fmt.Sprintf(" (it points to the absolute path %q)", dest)
		if real, err := w.clean(dest); err == nil {
			msg += fmt.Sprintf(". Use the real path %q instead", path.Join(append([]string{real}, rest...)...))
			return refuse(CodeSymlink, rel, msg, nil)
		}
	default:
		if real, ok := joinInside(path.Dir(dir), toSlash(dest)); ok {
			msg += fmt.Sprintf(". Use the real path %q instead", path.Join(append([]string{real}, rest...)...))
			return refuse(CodeSymlink, rel, msg, nil)
		}
		msg += fmt.Sprintf(" (it points to %q, outside the workspace)", dest)
	}
	return refuse(CodeSymlink, rel, msg+". Write to a file inside the workspace instead", nil)
}

func (w *Workspace) dangling(orig string, links []string, target string) error {
	return refuse(CodeSymlink, links[0], fmt.Sprintf(
		"%q is a symbolic link to %q, which does not exist; toolguard does not read or write through dangling links. Write to the real file path instead", orig, target), nil)
}

func (w *Workspace) hardlink(orig, rel string, n uint64) error {
	return refuse(CodeHardlink, rel, fmt.Sprintf(
		"file %q has %d hard links; toolguard does not read or change files linked under other names (another name may be outside the workspace). Write a new file instead", orig, n), nil)
}

func (w *Workspace) notRegular(orig, rel string, mode fs.FileMode) error {
	msg := fmt.Sprintf("%q is %s, not a regular file; toolguard only reads and writes regular files", orig, kindOf(mode))
	if mode.IsDir() {
		msg = fmt.Sprintf("%q is a directory, not a file; give the path of a file (for example %q)", orig, path.Join(rel, "name.ext"))
	}
	return refuse(CodeNotRegular, rel, msg, nil)
}

func (w *Workspace) tooLarge(orig string, n int64) error {
	return refuse(CodeTooLarge, orig, fmt.Sprintf("file %q is %d bytes; toolguard reads and writes files of up to %d bytes", orig, n, w.maxBytes), nil)
}

// ioError classifies a failure of an os.Root call made after the checks:
// a race that put a link, a missing file or a wrong type on the way becomes
// the refusal the checks would have given; anything else stays an I/O error.
func (w *Workspace) ioError(op, orig, rel string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist) && (op == "open" || op == "stat" || op == "readlink" || op == "remove"):
		// Gone between the checks and the call. (Elsewhere, a missing
		// temporary file or directory is the server's problem.)
		return refuse(CodeNotFound, rel, fmt.Sprintf("file %q does not exist in the workspace", orig), err)
	case errors.Is(err, fs.ErrNotExist) && op == "create":
		// The directory, held open since the checks, was removed.
		return refuse(CodeConflict, rel, fmt.Sprintf("the directory of %q was removed or replaced while toolguard was writing; look at the workspace again and retry", orig), err)
	case op == "readlink" && errors.As(err, &errno) && errno == syscall.EINVAL:
		// No longer a link: replaced since its lstat.
		return refuse(CodeConflict, rel, fmt.Sprintf("file %q changed while toolguard was reading it (a symbolic link was replaced); read it again and retry", orig), err)
	case strings.Contains(err.Error(), "path escapes from parent"):
		return refuse(CodeSymlink, rel, fmt.Sprintf("path %q leads out of the workspace through a symbolic link; toolguard does not follow links out of the workspace. Write to the real file path instead", orig), err)
	case errors.As(err, &errno) && errno == syscall.ELOOP:
		return refuse(CodeSymlink, rel, fmt.Sprintf("path %q goes through too many symbolic links; write to the real file path instead", orig), err)
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return refuse(CodeNotRegular, rel, fmt.Sprintf("path %q goes through a file where a directory is needed", orig), err)
	case errors.As(err, &errno) && errno == syscall.ENAMETOOLONG:
		return refuse(CodeInvalidPath, rel, fmt.Sprintf("path %q is too long for the file system", orig), err)
	}
	return ioFailure(op, rel, err)
}

// ioFailure wraps a failed file system call that is no refusal, marking a
// full or read-only file system (ErrFull, ErrReadOnly): the caller can then
// tell the environment's fault from the server's.
func ioFailure(op, rel string, err error) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOSPC, syscall.EDQUOT:
			return fmt.Errorf("workspace: %s %s: %w: %w", op, rel, ErrFull, err)
		case syscall.EROFS:
			return fmt.Errorf("workspace: %s %s: %w: %w", op, rel, ErrReadOnly, err)
		}
	}
	return fmt.Errorf("workspace: %s %s: %w", op, rel, err)
}

func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// linkCount returns the number of hard links of a file (1 where the
// platform does not say).
func linkCount(fi fs.FileInfo) uint64 {
	if n, ok := statField(fi, "Nlink"); ok {
		return n
	}
	return 1
}

// statField reads an integer field of the platform's stat structure
// (fi.Sys()), whose field types differ between systems (Nlink is uint16 on
// Darwin, uint64 on Linux/amd64, uint32 on Linux/arm64), so reflection
// keeps this file free of build tags.
func statField(fi fs.FileInfo, name string) (uint64, bool) {
	v := reflect.ValueOf(fi.Sys())
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return 0, false
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return 0, false
	}
	f := v.FieldByName(name)
	switch {
	case !f.IsValid():
		return 0, false
	case f.CanUint():
		return f.Uint(), true
	case f.CanInt():
		return uint64(f.Int()), true
	}
	return 0, false
}
