package session

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Defaults of the undo history's bounds.
const (
	DefaultHistorySessionBytes = 8 << 20   // before-images one session keeps
	DefaultHistoryTotalBytes   = 256 << 20 // before-images every session keeps together (memory)
	DefaultHistoryTTL          = time.Hour
	// maxHistoryEntries bounds one session's changes, whatever their size.
	maxHistoryEntries = 1000
	// maxForgotten bounds the paths whose history is remembered as evicted.
	maxForgotten = 100_000
)

// Change is one change a session made to a path, enough to undo it: the
// content before (Before, when Existed) and the hash it left (AfterSHA256,
// "" when it left no file), or a move (MovedFrom: Path is where it went).
type Change struct {
	// Path is the key: the workspace's name and the workspace-relative path.
	Path        string `json:"path"`
	Existed     bool   `json:"existed,omitempty"`
	Before      []byte `json:"before,omitempty"`
	AfterSHA256 string `json:"after_sha256,omitempty"`
	MovedFrom   string `json:"moved_from,omitempty"`
	Directory   bool   `json:"directory,omitempty"`
	// NotUndoable, when set, says why this change cannot be undone (a
	// folder deleted with what it held, a file an apply_patch moved): it is
	// held only so that undo_edit can say so rather than "no change".
	NotUndoable string    `json:"not_undoable,omitempty"`
	At          time.Time `json:"at"`
	// ID tells a change from another of the same path (set by Push).
	ID uint64 `json:"id"`
}

func (c *Change) size() int64 {
	return int64(len(c.Before)+len(c.Path)+len(c.MovedFrom)+len(c.NotUndoable)) + 64
}

// Errors of Last: no change held, with why.
var (
	// ErrNoHistory: the session made no change of the path that is still held.
	ErrNoHistory = errors.New("no change of this file is held in the session's history")
	// ErrForgotten wraps the reason a change was dropped (evicted or expired).
	ErrForgotten = errors.New("the session's history of this file was dropped")
)

// History is a bounded per-session record of changes, for undo. Push
// drops the oldest changes past the bounds; Last returns the newest change
// of a path; Drop removes it once undone.
type History interface {
	Push(ctx context.Context, session string, c Change) error
	Last(ctx context.Context, session, path string) (Change, error)
	Drop(ctx context.Context, session string, c Change) error
	Close() error
}

// HistoryOptions bound a history.
type HistoryOptions struct {
	// SessionBytes bounds one session's before-images; a change larger is
	// not kept (Last says so). <= 0: DefaultHistorySessionBytes.
	SessionBytes int64
	// TotalBytes bounds every session's together (memory only); <= 0:
	// DefaultHistoryTotalBytes.
	TotalBytes int64
	// TTL drops changes this old; <= 0: DefaultHistoryTTL.
	TTL time.Duration
	Now func() time.Time
}

func (o HistoryOptions) withDefaults() HistoryOptions {
	if o.SessionBytes <= 0 {
		o.SessionBytes = DefaultHistorySessionBytes
	}
	if o.TotalBytes <= 0 {
		o.TotalBytes = DefaultHistoryTotalBytes
	}
	if o.TTL <= 0 {
		o.TTL = DefaultHistoryTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// MemoryHistory is a History in the process, bounded per session and in
// total, oldest changes dropped first.
type MemoryHistory struct {
	opts      HistoryOptions
	mu        sync.Mutex
	sessions  map[string]*historySession
	all       *list.List // *held, oldest first
	total     int64
	nextID    uint64
	forgotten map[[2]string]string // (session, path) -> why its changes were dropped
}

type historySession struct {
	entries *list.List // *list.Element of all, oldest first
	bytes   int64
}

type held struct {
	session string
	c       Change
	own     *list.Element // in the session's entries
}

var _ History = (*MemoryHistory)(nil)

// NewMemoryHistory returns an empty history.
func NewMemoryHistory(opts HistoryOptions) *MemoryHistory {
	return &MemoryHistory{opts: opts.withDefaults(), sessions: map[string]*historySession{}, all: list.New(), forgotten: map[[2]string]string{}}
}

// Push records c, dropping the oldest changes past the bounds.
func (h *MemoryHistory) Push(_ context.Context, session string, c Change) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.At = h.opts.Now()
	if c.size() > h.opts.SessionBytes {
		// Older changes of the path cannot be undone past this one either.
		if s := h.sessions[session]; s != nil {
			for el := s.entries.Front(); el != nil; {
				next := el.Next()
				if ael := el.Value.(*list.Element); ael.Value.(*held).c.Path == c.Path {
					h.remove(ael)
				}
				el = next
			}
		}
		h.forget(session, c.Path, fmt.Sprintf("the change was larger than the history keeps per session (%d bytes)", h.opts.SessionBytes))
		return nil
	}
	h.nextID++
	c.ID = h.nextID
	s := h.sessions[session]
	if s == nil {
		s = &historySession{entries: list.New()}
		h.sessions[session] = s
	}
	e := &held{session: session, c: c}
	el := h.all.PushBack(e)
	e.own = s.entries.PushBack(el)
	s.bytes += c.size()
	h.total += c.size()
	delete(h.forgotten, [2]string{session, c.Path})
	for s.bytes > h.opts.SessionBytes || s.entries.Len() > maxHistoryEntries {
		h.evict(s.entries.Front().Value.(*list.Element), "evicted: the session's history is full (its oldest changes go first)")
	}
	for h.total > h.opts.TotalBytes {
		h.evict(h.all.Front(), "evicted: the server's history is full (its oldest changes go first)")
	}
	return nil
}

// Last returns the newest change of path, after dropping expired ones.
func (h *MemoryHistory) Last(_ context.Context, session, path string) (Change, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.expire()
	if s := h.sessions[session]; s != nil {
		for el := s.entries.Back(); el != nil; el = el.Prev() {
			if e := el.Value.(*list.Element).Value.(*held); e.c.Path == path {
				return e.c, nil
			}
		}
	}
	if why, ok := h.forgotten[[2]string{session, path}]; ok {
		return Change{}, fmt.Errorf("%w: %s", ErrForgotten, why)
	}
	return Change{}, ErrNoHistory
}

// Drop removes c, once undone.
func (h *MemoryHistory) Drop(_ context.Context, session string, c Change) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s := h.sessions[session]; s != nil {
		for el := s.entries.Back(); el != nil; el = el.Prev() {
			if ael := el.Value.(*list.Element); ael.Value.(*held).c.ID == c.ID {
				h.remove(ael)
				return nil
			}
		}
	}
	return nil
}

// Close releases nothing: the history is memory.
func (h *MemoryHistory) Close() error { return nil }

func (h *MemoryHistory) expire() {
	cut := h.opts.Now().Add(-h.opts.TTL)
	for el := h.all.Front(); el != nil && el.Value.(*held).c.At.Before(cut); el = h.all.Front() {
		h.evict(el, fmt.Sprintf("expired: changes are kept for %s", h.opts.TTL))
	}
}

func (h *MemoryHistory) evict(el *list.Element, why string) {
	e := el.Value.(*held)
	h.forget(e.session, e.c.Path, why)
	h.remove(el)
}

func (h *MemoryHistory) forget(session, path, why string) {
	if len(h.forgotten) >= maxForgotten {
		clear(h.forgotten) // a bound, not a promise: past it, "no change held"
	}
	h.forgotten[[2]string{session, path}] = why
}

func (h *MemoryHistory) remove(el *list.Element) {
	e := el.Value.(*held)
	s := h.sessions[e.session]
	s.entries.Remove(e.own)
	s.bytes -= e.c.size()
	h.total -= e.c.size()
	h.all.Remove(el)
	if s.entries.Len() == 0 {
		delete(h.sessions, e.session)
	}
}
