package session

import (
	"container/list"
	"context"
	"errors"
	"sync"
	"time"
)

// Defaults of the idempotency replies' bounds.
const (
	DefaultReplyBytes      = 256 << 10 // one stored answer
	DefaultSessionReplies  = 256       // keys one session keeps
	DefaultReplyTTL        = 24 * time.Hour
	DefaultReplyLease      = time.Minute // a claim not finished (Redis)
	defaultTotalReplies    = 100_000     // keys every session keeps together (memory)
	MaxIdempotencyKeyBytes = 256         // the longest key a caller may give
)

// Errors of Claim: the key cannot be run again, and why.
var (
	// ErrKeyReused: the key was used with another call (its hash differs).
	ErrKeyReused = errors.New("the idempotency key was used with a different call")
	// ErrInFlight: the first call with the key is still running.
	ErrInFlight = errors.New("the call with this idempotency key is still running")
	// ErrReplyNotKept: the first call ran but its answer was larger than
	// a stored answer may be; it is not run again.
	ErrReplyNotKept = errors.New("the call with this idempotency key ran, but its answer was too large to keep")
)

// Replies keeps the first answer of each idempotency key of a session, so
// that a retried change is answered again rather than applied again. Claim
// takes a key for one run; Finish stores the run's answer; Release frees a
// key whose run failed before changing anything, so a retry may run.
type Replies interface {
	// Claim returns the stored answer (done) of key, or claims it for the
	// caller (not done), or ErrKeyReused, ErrInFlight, ErrReplyNotKept.
	Claim(ctx context.Context, session, key, hash string) (reply []byte, done bool, err error)
	Finish(ctx context.Context, session, key, hash string, reply []byte) error
	Release(ctx context.Context, session, key string) error
	Close() error
}

// ReplyOptions bound the answers kept.
type ReplyOptions struct {
	// EntryBytes bounds one answer; a larger one is not kept (its key then
	// answers ErrReplyNotKept). <= 0: DefaultReplyBytes.
	EntryBytes int
	// SessionEntries bounds one session's keys, the oldest dropped first.
	// <= 0: DefaultSessionReplies.
	SessionEntries int
	// TTL drops keys this old; <= 0: DefaultReplyTTL.
	TTL time.Duration
	// Lease bounds how long a claim not finished holds its key in Redis
	// (its replica may have been killed); <= 0: DefaultReplyLease. A call
	// that runs longer may then run twice. In memory, a claim lasts as long
	// as the process.
	Lease time.Duration
	Now   func() time.Time
}

func (o ReplyOptions) withDefaults() ReplyOptions {
	if o.EntryBytes <= 0 {
		o.EntryBytes = DefaultReplyBytes
	}
	if o.SessionEntries <= 0 {
		o.SessionEntries = DefaultSessionReplies
	}
	if o.TTL <= 0 {
		o.TTL = DefaultReplyTTL
	}
	if o.Lease <= 0 {
		o.Lease = DefaultReplyLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Reply states.
const (
	replyRunning = 'P'
	replyDone    = 'D'
	replyTooBig  = 'L'
)

// MemoryReplies is a Replies in the process, bounded per session and in
// total, oldest keys dropped first.
type MemoryReplies struct {
	opts     ReplyOptions
	mu       sync.Mutex
	sessions map[string]map[string]*list.Element
	all      *list.List // *reply, oldest first
	seq      uint64
}

type reply struct {
	session, key, hash string
	state              byte
	body               []byte
	at                 time.Time
	seq                uint64 // tells apart keys claimed at the same time
}

var _ Replies = (*MemoryReplies)(nil)

// NewMemoryReplies returns an empty store of answers.
func NewMemoryReplies(opts ReplyOptions) *MemoryReplies {
	return &MemoryReplies{opts: opts.withDefaults(), sessions: map[string]map[string]*list.Element{}, all: list.New()}
}

// Claim returns key's stored answer or claims it.
func (m *MemoryReplies) Claim(_ context.Context, session, key, hash string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.expire()
	if el := m.sessions[session][key]; el != nil {
		r := el.Value.(*reply)
		body, err := r.answer(hash)
		return body, err == nil, err
	}
	s := m.sessions[session]
	if s == nil {
		s = map[string]*list.Element{}
		m.sessions[session] = s
	}
	m.seq++
	s[key] = m.all.PushBack(&reply{session: session, key: key, hash: hash, state: replyRunning, at: m.opts.Now(), seq: m.seq})
	for len(s) > m.opts.SessionEntries {
		m.dropOldest(session)
	}
	for m.all.Len() > defaultTotalReplies {
		m.remove(m.all.Front())
	}
	return nil, false, nil
}

// answer returns what a Claim with hash gets of a held key.
func (r *reply) answer(hash string) ([]byte, error) {
	switch {
	case r.hash != hash:
		return nil, ErrKeyReused
	case r.state == replyRunning:
		return nil, ErrInFlight
	case r.state == replyTooBig:
		return nil, ErrReplyNotKept
	}
	return append([]byte(nil), r.body...), nil
}

// Finish stores the answer of a claimed key.
func (m *MemoryReplies) Finish(_ context.Context, session, key, hash string, body []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	el := m.sessions[session][key]
	if el == nil {
		return nil // dropped by the bounds meanwhile
	}
	r := el.Value.(*reply)
	if r.hash != hash {
		return nil
	}
	r.state, r.body = replyDone, append([]byte(nil), body...)
	if len(body) > m.opts.EntryBytes {
		r.state, r.body = replyTooBig, nil
	}
	return nil
}

// Release frees a claimed key that has no answer.
func (m *MemoryReplies) Release(_ context.Context, session, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if el := m.sessions[session][key]; el != nil && el.Value.(*reply).state == replyRunning {
		m.remove(el)
	}
	return nil
}

// Close drops every answer.
func (m *MemoryReplies) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sessions, m.all = map[string]map[string]*list.Element{}, list.New()
	return nil
}

func (m *MemoryReplies) expire() {
	now := m.opts.Now()
	for el := m.all.Front(); el != nil && now.Sub(el.Value.(*reply).at) >= m.opts.TTL; el = m.all.Front() {
		m.remove(el)
	}
}

// dropOldest drops the session's oldest key: a scan of its keys, bounded by
// SessionEntries, rather than of every session's.
func (m *MemoryReplies) dropOldest(session string) {
	var oldest *list.Element
	for _, el := range m.sessions[session] {
		if oldest == nil || el.Value.(*reply).at.Before(oldest.Value.(*reply).at) ||
			el.Value.(*reply).at.Equal(oldest.Value.(*reply).at) && el.Value.(*reply).seq < oldest.Value.(*reply).seq {
			oldest = el
		}
	}
	if oldest != nil {
		m.remove(oldest)
	}
}

func (m *MemoryReplies) remove(el *list.Element) {
	r := m.all.Remove(el).(*reply)
	s := m.sessions[r.session]
	delete(s, r.key)
	if len(s) == 0 {
		delete(m.sessions, r.session)
	}
}
