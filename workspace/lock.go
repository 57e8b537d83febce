package workspace

import (
	"cmp"
	"errors"
	"fmt"
	"hash/fnv"
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
	// DefaultLockTimeout is Options.LockTimeout when unset: an edit holds
	// its paths for milliseconds, so a longer wait means a stuck writer.
	DefaultLockTimeout = 10 * time.Second
	// lockStripes bounds the lock files of a lock directory: paths share a
	// file by hash, which costs a rare needless wait, never exclusion, and
	// spares removing lock files (unsafe while another process may hold one).
	lockStripes = 4096
)

// LockTimeoutError reports paths another call held past Options.LockTimeout:
// nothing was read or written, and the call may be sent again.
type LockTimeoutError struct {
	Path   string // a path waited for, workspace-relative
	Waited time.Duration
}

func (e *LockTimeoutError) Error() string {
	return fmt.Sprintf("file %q is being changed by another call (waited %s for it); nothing was read or written: send the call again", e.Path, e.Waited.Round(time.Millisecond))
}

// Lock locks resolved paths in sorted order, so that callers locking
// overlapping sets cannot deadlock, and returns their unlock (idempotent).
// With Options.LockDir the paths are locked across processes too; a wait
// longer than Options.LockTimeout is a *LockTimeoutError, and a workspace
// whose marker names another lock directory is ErrLockDirMismatch. Locks are by path:
// a link and its target are different paths.
func (w *Workspace) Lock(rels ...string) (unlock func(), err error) {
	// Before every change: a marker naming another lock directory means
	// the locks taken here would not hold off every writer.
	if err := w.checkShared(); err != nil {
		return nil, err
	}
	keys := make([]string, len(rels))
	for i, r := range rels {
		keys[i] = path.Clean(toSlash(r))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	timer := time.NewTimer(w.lockTimeout)
	defer timer.Stop()
	start := time.Now()
	entries := make([]*lockEntry, 0, len(keys))
	var files []*lockFile
	release := func() {
		for i := len(files) - 1; i >= 0; i-- {
			files[i].unlock()
		}
		for i := len(entries) - 1; i >= 0; i-- {
			entries[i].unlock()
			w.locks.release(keys[i], entries[i])
		}
	}
	// The process's own callers queue in memory first: the lock files then
	// only arbitrate between processes.
	for _, k := range keys {
		e := w.locks.acquire(k)
		if !e.lock(timer.C) {
			w.locks.release(k, e)
			release()
			return nil, &LockTimeoutError{Path: k, Waited: time.Since(start)}
		}
		entries = append(entries, e)
	}
	if w.lockDir != "" {
		// All in-process locks are held, so only other processes contend
		// here, each taking the stripes in increasing order: no cycle.
		stripes, first := stripesOf(keys)
		for _, s := range stripes {
			f, err := w.lockStripe(s, timer.C)
			if err != nil {
				release()
				var te *LockTimeoutError
				if errors.As(err, &te) {
					te.Path, te.Waited = first[s], time.Since(start)
				}
				return nil, err
			}
			files = append(files, f)
		}
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

// stripesOf returns the sorted lock stripes of keys, and a key of each.
func stripesOf(keys []string) ([]uint32, map[uint32]string) {
	first := make(map[uint32]string, len(keys))
	stripes := make([]uint32, 0, len(keys))
	for _, k := range keys {
		h := fnv.New32a()
		_, _ = h.Write([]byte(k))
		s := h.Sum32() % lockStripes
		if _, ok := first[s]; !ok {
			first[s] = k
			stripes = append(stripes, s)
		}
	}
	slices.Sort(stripes)
	return stripes, first
}

// lockStripe takes stripe s's lock file, polling until expired fires: a
// blocking flock could not be abandoned at the deadline.
func (w *Workspace) lockStripe(s uint32, expired <-chan time.Time) (*lockFile, error) {
	name := filepath.Join(w.lockDir, fmt.Sprintf("%03x.lock", s))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("workspace: open lock file: %w", err)
	}
	backoff := time.Millisecond
	for {
		ok, err := tryLockFile(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("workspace: lock %s: %w", name, err)
		}
		if ok {
			return &lockFile{f: f}, nil
		}
		select {
		case <-expired:
			_ = f.Close()
			return nil, &LockTimeoutError{}
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 20*time.Millisecond)
	}
}

// lockFile is a held lock file; closing it releases the lock.
type lockFile struct{ f *os.File }

func (l *lockFile) unlock() {
	_ = unlockFile(l.f)
	_ = l.f.Close()
}

// openLockDir checks that dir lies outside the workspace whose real root is
// root (the agent could otherwise remove the lock files), creates it if
// needed and checks that its file system takes the locks. It returns the
// folders and the probe file it created, in that order, for Discard; a
// refusal leaves nothing behind.
func openLockDir(dir, root string) (real string, created []string, err error) {
	in, err := LockDirInside(dir, root)
	if err != nil {
		return "", nil, fmt.Errorf("workspace: lock directory: %w", err)
	}
	if in {
		return "", nil, insideErr(dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("workspace: lock directory: %w", err)
	}
	defer func() {
		if err != nil {
			removeCreated(created)
			created = nil
		}
	}()
	if created, err = mkdirAll(abs); err != nil {
		return "", created, fmt.Errorf("workspace: lock directory: %w", err)
	}
	if real, err = filepath.EvalSymlinks(abs); err != nil {
		return "", created, fmt.Errorf("workspace: lock directory: %w", err)
	}
	// Once more as created, should a link have changed meanwhile.
	if in, err = LockDirInside(real, root); err != nil || in {
		return "", created, cmp.Or(err, insideErr(dir))
	}
	name := filepath.Join(real, "probe.lock")
	probe, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		created = append(created, name)
	} else if errors.Is(err, fs.ErrExist) {
		probe, err = os.OpenFile(name, os.O_RDWR, 0)
	}
	if err != nil {
		return "", created, fmt.Errorf("workspace: lock directory: %w", err)
	}
	defer func() { _ = probe.Close() }()
	if _, err := tryLockFile(probe); err != nil {
		return "", created, fmt.Errorf("workspace: lock directory %s: its file system does not support file locks (%w); see docs/replicas.md", dir, err)
	}
	_ = unlockFile(probe)
	return real, created, nil
}

func insideErr(dir string) error {
	return fmt.Errorf("workspace: lock directory %s is inside the workspace, where calls could remove its files; put it beside the workspace, on the same volume", dir)
}

// mkdirAll is os.MkdirAll that returns the folders it made, parents first:
// only those are its to remove.
func mkdirAll(abs string) ([]string, error) {
	var missing []string
	for p := abs; ; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var created []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o700)
		if err == nil {
			created = append(created, missing[i])
		} else if !errors.Is(err, fs.ErrExist) { // made meanwhile by another process: not ours
			return created, err
		}
	}
	return created, nil
}

// removeCreated removes what openLockDir created, last first; a folder
// another process has put lock files in meanwhile is not empty, so it stays.
func removeCreated(created []string) {
	for i := len(created) - 1; i >= 0; i-- {
		_ = os.Remove(created[i])
	}
}

// LockDirInside reports whether lock directory dir is, or once created
// would be, inside the workspace directory ws (or is it): through symbolic
// links and "..", and, for folders that exist, whatever spelling a
// case-insensitive file system or a bind mount gives them. Neither needs to
// exist.
func LockDirInside(dir, ws string) (bool, error) {
	d, err := resolveExisting(dir)
	if err != nil {
		return false, err
	}
	w, err := resolveExisting(ws)
	if err != nil {
		return false, err
	}
	dc, wc := components(toSlash(d)), components(toSlash(w))
	if len(dc) >= len(wc) && slices.Equal(dc[:len(wc)], wc) {
		return true, nil
	}
	wi, err := os.Stat(w)
	if err != nil {
		return false, nil // not there yet: the names decided
	}
	for p := d; ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, wi) {
			return true, nil
		}
		if filepath.Dir(p) == p {
			return false, nil
		}
	}
}

// resolveExisting makes p absolute and resolves the links of the longest
// part of it that exists; the rest, which does not, is kept as written.
func resolveExisting(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(cur) == cur {
			return "", err
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// lockTable holds a lock per path in use, counting its holders and waiters.
type lockTable struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

// lockEntry is a mutex whose wait can end at a deadline.
type lockEntry struct {
	held chan struct{} // one slot: full while held
	refs int
}

func (e *lockEntry) lock(expired <-chan time.Time) bool {
	select {
	case e.held <- struct{}{}:
		return true
	case <-expired:
		return false
	}
}

func (e *lockEntry) unlock() { <-e.held }

func (t *lockTable) acquire(k string) *lockEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]*lockEntry)
	}
	e := t.m[k]
	if e == nil {
		e = &lockEntry{held: make(chan struct{}, 1)}
		t.m[k] = e
	}
	e.refs++
	return e
}

func (t *lockTable) release(k string, e *lockEntry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if e.refs--; e.refs == 0 {
		delete(t.m, k)
	}
}

func (t *lockTable) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}

// LockDirName is the lock directory of a named workspace under a server's
// lock directory: one name, one folder, whatever characters it holds.
func LockDirName(name string) string {
	r := strings.NewReplacer("%", "%25", "/", "%2F", "\\", "%5C")
	name = r.Replace(name)
	if name == "." || name == ".." || name == "" {
		name = "%" + name
	}
	return name
}
