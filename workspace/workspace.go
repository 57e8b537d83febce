package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

const (
	// DefaultMaxFileBytes is Options.MaxFileBytes when unset.
	DefaultMaxFileBytes = 10 << 20
	// MaxPathBytes is the longest path Resolve accepts.
	MaxPathBytes = 4096
	// DefaultCleanupMinAge is Options.CleanupMinAge when unset: no write takes an hour.
	DefaultCleanupMinAge = time.Hour

	maxNameBytes      = 255 // NAME_MAX on Linux
	maxSymlinkHops    = 8
	tempPrefix        = ".toolguard-tmp-"
	maxCleanupDepth   = 32
	maxCleanupEntries = 500_000
)

// Options configure a Workspace.
type Options struct {
	// AgentRoot is the workspace root as the agent sees it (/home/user/project):
	// agents such as Cline send absolute paths under it.
	AgentRoot string
	// MaxFileBytes bounds the files read and the data written (default 10 MiB).
	MaxFileBytes int64
	// Deny holds server-wide gitignore patterns, after ".git" ("!.git" lifts it).
	Deny []string
	// CleanupMinAge makes Open keep younger temporary files: writes in progress
	// of replicas sharing the volume. Negative removes them all at Open
	// (SweepTemps, which runs beside writes, then keeps the default bound).
	CleanupMinAge time.Duration
	// LockDir, when set, makes Lock hold off other processes too, through
	// flock(2) on files in this directory (created if missing). It must be
	// outside the workspace and seen by every process sharing the workspace:
	// on the same volume. Empty locks within this process only.
	LockDir string
	// LockTimeout bounds Lock's wait (default DefaultLockTimeout).
	LockTimeout time.Duration
}

// Workspace is a directory that tool calls may read and write, confined as
// the package documentation says. Its methods are safe for concurrent use;
// a read-modify-write goes through OpenFile, or holds Lock around ReadFile and
// WriteFile. With Options.LockDir, so across processes sharing the directory.
type Workspace struct {
	root *os.Root
	dir  string // absolute, as given to Open
	// hint is the root named in messages: the agent's, never the server's.
	hint     string
	prefixes [][]string // absolute roots accepted, as components
	maxBytes int64
	policy   *policy
	locks    lockTable
	lockDir  string // "" locks within the process only
	lockID   string // the lock directory's identity; "" without one
	lockFS   string // the lock directory's file system type, "" unknown
	// marker is the workspace's lock directory marker as last read, and
	// markerCreated the marker Open wrote, for Discard.
	marker        markerState
	markerCreated string
	// lockCreated is what Open created for the lock directory, for Discard.
	lockCreated []string
	// lockTimeout bounds a wait for Lock.
	lockTimeout time.Duration
	// tempMaxAge is SweepTemps' bound: a temporary file this old is no write's.
	tempMaxAge time.Duration
	hooks      hooks
	counts     ioCounters
	closeOnce  sync.Once
	closeErr   error
}

// hooks let tests act between the steps of an operation.
type hooks struct {
	afterCheck     func(rel string)                           // checks done, before any change
	write          func(f *os.File, data []byte) (int, error) // replaces f.Write for the temporary file
	beforeRename   func(tmpRel, rel string) error             // temporary file complete
	beforeReadlink func(rel string)                           // a link seen by lstat, before reading it
	beforeOpenDir  func(rel string)                           // a walk's directory seen by lstat, before opening it
}

// Open opens dir as a workspace, reads its .toolguardignore and removes the
// temporary files a crash left, those older than Options.CleanupMinAge.
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
	w := &Workspace{dir: abs, maxBytes: opts.MaxFileBytes, policy: newPolicy(opts.Deny), lockTimeout: opts.LockTimeout}
	if w.maxBytes <= 0 {
		w.maxBytes = DefaultMaxFileBytes
	}
	if w.lockTimeout <= 0 {
		w.lockTimeout = DefaultLockTimeout
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
		_ = w.root.Close()
		return nil, err
	}
	w.policy.file.Store(st)
	if opts.LockDir != "" {
		if w.lockDir, w.lockCreated, err = openLockDir(opts.LockDir, real); err != nil {
			_ = w.root.Close()
			return nil, err
		}
		if w.lockFS, err = lockFileSystem(w.lockDir); err != nil {
			_ = w.Discard()
			return nil, err
		}
		id, created, err := lockIdentity(w.lockDir)
		if err != nil {
			_ = w.Discard()
			return nil, fmt.Errorf("workspace: lock directory %s: identity: %w", opts.LockDir, err)
		}
		w.lockID = id
		if created {
			w.lockCreated = append(w.lockCreated, filepath.Join(w.lockDir, identityName))
		}
	}
	if err := w.checkShared(); err != nil {
		_ = w.Discard()
		return nil, err
	}
	w.tempMaxAge = opts.CleanupMinAge
	if w.tempMaxAge <= 0 {
		w.tempMaxAge = DefaultCleanupMinAge
	}
	minAge := w.tempMaxAge
	if opts.CleanupMinAge < 0 {
		minAge = 0
	}
	w.removeTemps(time.Now(), minAge)
	return w, nil
}

// Close releases the workspace's directory handle. Further calls fail.
func (w *Workspace) Close() error {
	w.closeOnce.Do(func() { w.closeErr = w.root.Close() })
	return w.closeErr
}

// Discard closes a workspace whose setup failed after Open and removes the
// lock folders Open created for it (and its probe file), those still empty:
// a refused start leaves the lock directory as it found it.
func (w *Workspace) Discard() error {
	if w.markerCreated != "" {
		_ = w.root.Remove(w.markerCreated)
		w.markerCreated = ""
	}
	err := w.Close()
	removeCreated(w.lockCreated)
	w.lockCreated = nil
	return err
}

// Dir returns the workspace directory as given to Open, made absolute.
func (w *Workspace) Dir() string { return w.dir }

// MaxFileBytes returns the size limit of files read and written.
func (w *Workspace) MaxFileBytes() int64 { return w.maxBytes }

// Resolve maps a path as a model wrote it to a cleaned workspace-relative
// slash path, or refuses it. It is idempotent; every method resolves its paths.
func (w *Workspace) Resolve(p string) (string, error) {
	w.counts.resolves.Add(1)
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

// FileInfo describes a file as read.
type FileInfo struct {
	// Path is the file read: the path asked for, or the target of the link it names.
	Path   string
	Exists bool
	Size   int64
	Mode   fs.FileMode // permission bits
	SHA256 string      // lowercase hex of the content
}

// ReadFile reads a regular file. A missing one is NOT_FOUND, with FileInfo.Path set.
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
	data, info, _, err := w.read(p, t)
	if err != nil {
		return nil, FileInfo{}, err
	}
	return data, info, nil
}

// SHA256Hex returns the lowercase hex SHA-256 of data, as FileInfo.SHA256 spells it.
func SHA256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// WriteOptions qualify a write.
type WriteOptions struct {
	// ExpectedSHA256, when set, is the hex SHA-256 the file must have now
	// (FileInfo.SHA256 as read), or the write is a CONFLICT; a missing file matches none.
	ExpectedSHA256 string
}

// WriteResult describes a completed write.
type WriteResult struct {
	// Path is the file written: the path asked for, or the target of the link it names.
	Path           string
	Bytes          int64
	Created        bool        // the file did not exist
	PreviousSHA256 string      // "" when created
	SHA256         string      // of the data written
	Mode           fs.FileMode // permission bits of the file written
}

// WriteFile replaces or creates the file at p, atomically and durably, with
// its directories. The file keeps its mode and, where the server may set
// them, its owner and group; a new file gets 0644.
func (w *Workspace) WriteFile(p string, data []byte, opts WriteOptions) (WriteResult, error) {
	rel, err := w.Resolve(p)
	if err != nil {
		return WriteResult{}, err
	}
	if err := w.checkSize(p, rel, data); err != nil {
		return WriteResult{}, err
	}
	t, err := w.inspect(p, rel, followFinal|allowMissing)
	if err != nil {
		return WriteResult{}, err
	}
	defer t.close()
	res := WriteResult{Path: t.rel, Bytes: int64(len(data)), Mode: newFileMode, Created: t.info == nil}
	if t.info != nil {
		if res.PreviousSHA256, res.Mode, err = w.hash(p, t); err != nil {
			return WriteResult{}, err
		}
	}
	if opts.ExpectedSHA256 != "" && !strings.EqualFold(opts.ExpectedSHA256, res.PreviousSHA256) {
		msg := fmt.Sprintf("file %q changed since it was read (its SHA-256 is now %s, expected %s); read it again and redo the change", p, res.PreviousSHA256, opts.ExpectedSHA256)
		if res.Created {
			msg = fmt.Sprintf("file %q no longer exists (expected SHA-256 %s); read the workspace again and redo the change", p, opts.ExpectedSHA256)
		}
		return WriteResult{}, refuse(CodeConflict, t.rel, msg, nil)
	}
	if err := w.write(p, t, data, res.Mode, ownerOf(t.info)); err != nil {
		return WriteResult{}, err
	}
	res.SHA256 = SHA256Hex(data)
	return res, nil
}

// Remove deletes the regular file at p; a link is refused, not followed.
func (w *Workspace) Remove(p string) error {
	if err := w.checkShared(); err != nil {
		return err
	}
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

// Rename moves the regular file at from to to, replacing a regular file
// there; a link at either is refused, not followed.
func (w *Workspace) Rename(from, to string) error {
	if err := w.checkShared(); err != nil {
		return err
	}
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
	// An os.Root cannot rename into another: between two directories the
	// paths are walked again, so a racing swap could redirect the rename within the workspace.
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
