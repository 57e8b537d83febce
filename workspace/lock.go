package workspace

import (
	"path"
	"slices"
	"sync"
)

// Lock locks resolved paths in sorted order, so that callers locking
// overlapping sets cannot deadlock, and returns their unlock (idempotent).
// Locks are in process and by path: other processes are not held off, and a
// link and its target are different paths.
func (w *Workspace) Lock(rels ...string) (unlock func()) {
	keys := make([]string, len(rels))
	for i, r := range rels {
		keys[i] = path.Clean(toSlash(r))
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	entries := make([]*lockEntry, len(keys))
	for i, k := range keys {
		e := w.locks.acquire(k)
		e.mu.Lock()
		entries[i] = e
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for i := len(keys) - 1; i >= 0; i-- {
				entries[i].mu.Unlock()
				w.locks.release(keys[i], entries[i])
			}
		})
	}
}

// lockTable holds a mutex per path in use, counting its holders and waiters.
type lockTable struct {
	mu sync.Mutex
	m  map[string]*lockEntry
}

type lockEntry struct {
	mu   sync.Mutex
	refs int
}

func (t *lockTable) acquire(k string) *lockEntry {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string]*lockEntry)
	}
	e := t.m[k]
	if e == nil {
		e = &lockEntry{}
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
