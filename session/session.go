// Package session owns the consecutive-mistake counters of agent sessions: the
// Store interface the service records call outcomes through, and the stores
// behind it (in memory by default; a shared store for several replicas).
//
// A session is identified by an opaque string chosen by the caller, usually
// one agent task. The store never grows without bound: idle sessions expire
// after a TTL and the number kept is capped, so random session ids cannot
// exhaust memory.
package session

import (
	"context"
	"time"
)

// DefaultRepeatLimit is the number of identical calls in a row at which a call
// is a repeated call: the third identical call is a mistake even when it is
// otherwise usable, because the model is looping.
const DefaultRepeatLimit = 3

// Outcome is what one tool call did to its session.
type Outcome struct {
	// Usable reports whether the call was usable. An unusable call increments
	// the consecutive-mistake counter; a usable one resets it, unless it is a
	// repeated call.
	Usable bool
	// Fingerprint identifies the call (canonical tool name and normalised
	// arguments). Zero means "no fingerprint": the call never counts as a
	// repeat and breaks any run of repeats.
	Fingerprint uint64
}

// State is a session's state after a call, or as read.
type State struct {
	// Consecutive is the number of mistakes in a row.
	Consecutive uint32
	// Repeats is the number of identical calls in a row ending with the last
	// recorded one (1 when the last call differed from the one before it).
	Repeats uint32
	// Repeated reports whether the last recorded call reached the repeat
	// limit; such a call counted as a mistake.
	Repeated bool
	// LastSeen is when the session last recorded a call.
	LastSeen time.Time
	// Exists reports whether the store holds the session.
	Exists bool
}

// Store records call outcomes per session. Implementations are safe for
// concurrent use; Record is atomic per session.
type Store interface {
	// Record applies one call's outcome to the session, creating it if
	// needed, and returns the state after it.
	Record(ctx context.Context, id string, o Outcome) (State, error)
	// Get returns the session's state; an unknown or expired session is the
	// zero State (Exists false), not an error.
	Get(ctx context.Context, id string) (State, error)
	// Reset forgets the session.
	Reset(ctx context.Context, id string) error
	// Close releases the store's resources.
	Close() error
}

// common are the settings both stores share, with their defaults applied.
type common struct {
	ttl   time.Duration
	limit uint32
	now   func() time.Time
}

func newCommon(ttl time.Duration, limit uint32, now func() time.Time) common {
	if ttl <= 0 {
		ttl = defaultTTL
	}
	if limit == 0 {
		limit = DefaultRepeatLimit
	}
	if now == nil {
		now = time.Now
	}
	return common{ttl: ttl, limit: limit, now: now}
}
