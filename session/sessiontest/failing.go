// Package sessiontest has a session store for tests that fails on demand,
// in every way a shared store's backend can.
package sessiontest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"syscall"

	"github.com/toolguard/toolguard/session"
)

// Failing is a Memory store whose methods fail with Err while it is set.
type Failing struct {
	*session.Memory
	err atomic.Pointer[error]
}

var _ session.Store = (*Failing)(nil)

// NewFailing returns a Failing store that works until Fail is called.
func NewFailing() *Failing {
	return &Failing{Memory: session.NewMemory(session.MemoryOptions{})}
}

// Fail makes every later call fail with err; nil makes the store work again.
func (s *Failing) Fail(err error) {
	if err == nil {
		s.err.Store(nil)
		return
	}
	s.err.Store(&err)
}

func (s *Failing) failure() error {
	if p := s.err.Load(); p != nil {
		return *p
	}
	return nil
}

func (s *Failing) Record(ctx context.Context, id string, o session.Outcome) (session.State, error) {
	if err := s.failure(); err != nil {
		return session.State{}, err
	}
	return s.Memory.Record(ctx, id, o)
}

func (s *Failing) Get(ctx context.Context, id string) (session.State, error) {
	if err := s.failure(); err != nil {
		return session.State{}, err
	}
	return s.Memory.Get(ctx, id)
}

func (s *Failing) Reset(ctx context.Context, id string) error {
	if err := s.failure(); err != nil {
		return err
	}
	return s.Memory.Reset(ctx, id)
}

// Failure is one way a store fails.
type Failure struct {
	Name string
	Err  error
}

// serverError is an error reply of a Redis server, as go-redis returns it.
type serverError string

func (e serverError) Error() string { return string(e) }
func (serverError) RedisError()     {}

type timeoutError struct{}

func (timeoutError) Error() string   { return "i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// Failures are the ways a store fails, classified (wrapping
// session.ErrUnavailable) or not, as a store may return them.
func Failures() []Failure {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: timeoutError{}}
	return []Failure{
		{"unavailable timeout", fmt.Errorf("%w: %w", session.ErrUnavailable, timeout)},
		{"unavailable refused", fmt.Errorf("%w: %w", session.ErrUnavailable, refused)},
		{"raw timeout", timeout},
		{"raw refused", refused},
		{"deadline", context.DeadlineExceeded},
		{"canceled", context.Canceled},
		{"moved", serverError("MOVED 3999 127.0.0.1:6381")},
		{"ask", serverError("ASK 3999 127.0.0.1:6381")},
		{"crossslot", serverError("CROSSSLOT Keys in request don't hash to the same slot")},
		{"script error", serverError("ERR user_script:5: Script attempted to access nonexistent global variable 'x'")},
		{"noscript", serverError("NOSCRIPT No matching script. Please use EVAL.")},
		{"wrongtype", serverError("WRONGTYPE Operation against a key holding the wrong kind of value")},
		{"readonly", serverError("READONLY You can't write against a read only replica.")},
		{"closed", session.ErrClosed},
		{"other", errors.New("session: redis record: got 2 values, want 3")},
	}
}
