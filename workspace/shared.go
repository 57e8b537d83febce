package workspace

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// A workspace shared by several processes is only safe when they all lock
// through one lock directory: two replicas with different ones, or one with
// none, overwrite each other's changes without a sign. So the workspace
// names its lock directory, in a marker its servers check at start and
// before every change, and the lock directory carries an identity (a random
// id made at its first use) that the marker names.
const (
	// MetaDir is the workspace's own area, denied to calls like
	// .toolguardignore: the models cannot rewrite what it holds.
	MetaDir = ".toolguard"
	// markerName is the marker, in MetaDir.
	markerName = "lock-dir"
	// identityName is the lock directory's identity file.
	identityName   = "identity"
	maxMarkerBytes = 4 << 10
)

// ErrLockDirMismatch is a workspace whose marker names another lock
// directory than the process's, or one when the process has none: changes
// made by both would not exclude each other.
var ErrLockDirMismatch = errors.New("the workspace is shared through another lock directory")

// markerState is the marker as last read, keyed by what stat tells of it, so
// that checking it before a change costs one stat.
type markerState struct {
	mu   sync.Mutex
	seen bool
	key  markerKey // the marker's stat when read; zero when absent
	id   string    // the id it names; "" when absent
}

type markerKey struct {
	ino   uint64
	size  int64
	mtime time.Time
}

func keyOf(fi fs.FileInfo) markerKey {
	return markerKey{ino: inodeOf(fi), size: fi.Size(), mtime: fi.ModTime()}
}

// LockDirID returns the identity of the workspace's lock directory, "" when
// it has none.
func (w *Workspace) LockDirID() string { return w.lockID }

// LockDirFileSystem returns the type of the lock directory's file system
// ("nfs4", "tmpfs"), "" when not known.
func (w *Workspace) LockDirFileSystem() string { return w.lockFS }

// LockDir returns the workspace's lock directory, resolved; "" when none.
func (w *Workspace) LockDir() string { return w.lockDir }

// lockIdentity reads the identity of lock directory dir, making it at first
// use. A new id goes in by link, which fails when it exists: two processes
// starting at once agree on the one that got there first.
func lockIdentity(dir string) (id string, created bool, err error) {
	name := filepath.Join(dir, identityName)
	if id, err := readID(name); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, false, err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	tmp, err := os.CreateTemp(dir, identityName+".tmp-")
	if err != nil {
		return "", false, err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	_, err = fmt.Fprintf(tmp, "id: %s\n", hex.EncodeToString(b))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", false, err
	}
	if err := os.Link(tmp.Name(), name); err == nil {
		created = true
	} else if !errors.Is(err, fs.ErrExist) {
		return "", false, err
	}
	id, err = readID(name)
	return id, created, err
}

// readID returns the "id:" line of a marker or identity file.
func readID(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	return parseID(f, name)
}

func parseID(r io.Reader, name string) (string, error) {
	sc := bufio.NewScanner(io.LimitReader(r, maxMarkerBytes))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "id: "); ok && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("%s names no lock directory id", name)
}

// markerPath is the marker's workspace-relative path.
var markerPath = filepath.Join(MetaDir, markerName)

// readMarker returns the marker's stat key and id; a zero key and "" when
// there is none.
func (w *Workspace) readMarker() (markerKey, string, error) {
	f, err := w.root.Open(markerPath)
	if errors.Is(err, fs.ErrNotExist) {
		return markerKey{}, "", nil
	}
	if err != nil {
		return markerKey{}, "", fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return markerKey{}, "", fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	id, err := parseID(f, markerPath)
	if err != nil {
		return markerKey{}, "", fmt.Errorf("workspace: %w", err)
	}
	return keyOf(fi), id, nil
}

// writeMarker names the process's lock directory in the workspace, unless a
// marker is there already (another process's, written meanwhile): by link,
// like the identity.
func (w *Workspace) writeMarker() (created bool, err error) {
	if err := w.root.Mkdir(MetaDir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	tmp := filepath.Join(MetaDir, fmt.Sprintf("%s.tmp-%d-%d", markerName, os.Getpid(), time.Now().UnixNano()))
	f, err := w.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return false, fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	defer func() { _ = w.root.Remove(tmp) }()
	_, err = fmt.Fprintf(f, "# Written by toolguard: every server changing this workspace must lock\n# through this lock directory (--lock-dir). See docs/replicas.md.\nid: %s\npath: %s\n", w.lockID, w.lockDir)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.root.Link(tmp, markerPath)
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return false, fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	return err == nil, nil
}

// checkShared compares the marker with the process's lock directory,
// writing the marker when there is none and the process has a lock
// directory. The marker is read again only when its stat changed.
func (w *Workspace) checkShared() error {
	m := &w.marker
	m.mu.Lock()
	defer m.mu.Unlock()
	// The area is denied to calls, but a workspace may arrive with one (a
	// clone): a link would put the marker where calls can change it.
	if fi, err := w.root.Lstat(MetaDir); err == nil && !fi.IsDir() {
		return fmt.Errorf("workspace: %s is not a folder (%s): remove it, it is toolguard's own area", filepath.Join(w.dir, MetaDir), kindOf(fi.Mode()))
	}
	var key markerKey
	switch fi, err := w.root.Stat(markerPath); {
	case err == nil:
		key = keyOf(fi)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("workspace: lock directory marker: %w", err)
	}
	if !m.seen || key != m.key {
		k, id, err := w.readMarker()
		if err != nil {
			return err
		}
		if id == "" && w.lockID != "" {
			created, err := w.writeMarker()
			if err != nil {
				return err
			}
			if created && w.markerCreated == "" {
				w.markerCreated = markerPath
			}
			if k, id, err = w.readMarker(); err != nil {
				return err
			}
		}
		m.seen, m.key, m.id = true, k, id
	}
	switch {
	case m.id == w.lockID:
		return nil
	case w.lockID == "":
		return fmt.Errorf("%w: %s names lock directory id %s, and this server has no --lock-dir: start it with the lock directory the others use (see %s)", ErrLockDirMismatch, filepath.Join(w.dir, markerPath), m.id, filepath.Join(w.dir, markerPath))
	default:
		return fmt.Errorf("%w: %s names lock directory id %s, and this server's lock directory %s is %s: give every server sharing the workspace the same --lock-dir, on a volume they all mount", ErrLockDirMismatch, filepath.Join(w.dir, markerPath), m.id, w.lockDir, w.lockID)
	}
}
