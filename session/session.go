// Package session holds the consecutive-mistake counters of agent sessions:
// the Store interface and its stores, in memory or in Redis for replicas.
// Idle sessions expire and the number kept is capped, so random session ids
// cannot exhaust memory.
package session

import (
	"context"
	"hash/fnv"
	"time"
)

// DefaultRepeatLimit is the run of identical calls that makes a call a
// mistake even when usable: the model is looping.
const DefaultRepeatLimit = 3

// Outcome is what one tool call did to its session.
//
// One model turn counts once: a call is often validated, then executed. An
// Execution that follows the session's last validation and is the same call
// (the same CallID when both have one, else the same Fingerprint) continues
// that validation's turn: its outcome replaces the validation's, and it does
// not lengthen the run of identical calls.
type Outcome struct {
	// Usable resets the mistake counter, unless the call repeats; an
	// unusable call increments it.
	Usable bool
	// Fingerprint identifies the call; zero never repeats and breaks any run.
	Fingerprint uint64
	// CallID is the id the model or orchestrator gave the call, "" if none.
	CallID string
	// Execution: the call was sent to be carried out (ExecuteWrite,
	// ExecuteEdit, a stream executing calls), not only validated.
	Execution bool
}

// callKey is what the stores keep of a call id: its 64-bit hash, zero for
// no id. Two ids colliding would make two calls one turn: counted once,
// never refused wrongly.
func callKey(id string) uint64 {
	if id == "" {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	if k := h.Sum64(); k != 0 {
		return k
	}
	return 1
}

// sameCall reports whether an execution continues the open turn of a
// validation with call key turnCall and fingerprint turnFP.
func sameCall(o Outcome, call, turnCall, turnFP uint64) bool {
	if call != 0 && turnCall != 0 {
		return call == turnCall
	}
	return o.Fingerprint != 0 && o.Fingerprint == turnFP
}

// State is a session's state after a call, or as read.
type State struct {
	// Consecutive is the number of mistakes in a row.
	Consecutive uint32
	// Repeats is the run of identical calls ending with the last one.
	Repeats uint32
	// Repeated reports whether the last call reached the repeat limit; it
	// counted as a mistake.
	Repeated bool
	// SameTurn: Record took the call as the execution of the turn the last
	// validation opened (Outcome), not as a call of its own.
	SameTurn bool
	LastSeen time.Time
	Exists   bool
}

// Store records call outcomes per session. Implementations are safe for
// concurrent use; Record is atomic per session.
type Store interface {
	// Record applies one call's outcome and returns the state after it.
	Record(ctx context.Context, id string, o Outcome) (State, error)
	// Get returns the session's state; an unknown session is the zero State.
	Get(ctx context.Context, id string) (State, error)
	Reset(ctx context.Context, id string) error
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
