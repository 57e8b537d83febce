package service

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service/protoapi"
)

// StreamIdleError ends a stream that waited on its client, for a frame or to
// take an event, longer than the idle timeout: it would otherwise hold its
// slot and its open calls, which are dropped as when the client leaves. It
// becomes DEADLINE_EXCEEDED (STREAM_IDLE_TIMEOUT): the caller's pace, not
// the server's load.
type StreamIdleError struct{ Timeout time.Duration }

func (e *StreamIdleError) Error() string {
	return fmt.Sprintf("the stream waited %s on its client, for a frame or to take an event, and was ended; "+
		"calls still open were dropped (while the model is silent, send an empty delta frame now and then)", e.Timeout)
}

// runStream runs RunStream under the idle timeout, in a goroutine of its
// own: a receive or send blocked on the client returns only once the handler
// has returned, so a handler blocked in one could never end its stream. A
// panic there is handed to the handler's goroutine, which recovery guards.
func (s *toolGuardService) runStream(ctx context.Context, srv grpc.BidiStreamingServer[toolguardv1.StreamToolCallsRequest, toolguardv1.StreamToolCallsResponse]) error {
	if s.idleTimeout <= 0 {
		return protoapi.RunStream(ctx, s.guard, s.streamOptions(ctx), srv.Recv, srv.Send)
	}
	w := &idleWatch{timeout: s.idleTimeout, clock: s.idleClock, expired: make(chan struct{})}
	done := make(chan streamResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- streamResult{panic: &forwardedPanic{value: p, stack: debug.Stack()}}
			}
		}()
		recv := func() (msg *toolguardv1.StreamToolCallsRequest, err error) {
			err = w.wait(func() error { msg, err = srv.Recv(); return err })
			return msg, err
		}
		send := func(resp *toolguardv1.StreamToolCallsResponse) error {
			return w.wait(func() error { return srv.Send(resp) })
		}
		done <- streamResult{err: protoapi.RunStream(ctx, s.guard, s.streamOptions(ctx), recv, send)}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.err
	case <-w.expired:
		return &StreamIdleError{Timeout: s.idleTimeout}
	}
}

type streamResult struct {
	err   error
	panic *forwardedPanic
}

// forwardedPanic carries a panic to another goroutine with the stack where
// it began.
type forwardedPanic struct {
	value any
	stack []byte
}

func (p *forwardedPanic) String() string { return fmt.Sprint(p.value) }

// idleWatch times the stream's waits on its client only (never the server's
// own work), with one timer reset per wait.
type idleWatch struct {
	timeout time.Duration
	clock   idleClock // nil: the real clock
	timer   idleTimer
	expired chan struct{}
}

// idleClock starts the idle timer; a test's clock moves only when the test
// says, so the timeout is tested without racing the machine's speed.
type idleClock interface {
	AfterFunc(d time.Duration, f func()) idleTimer
}

// idleTimer is the part of *time.Timer the watch uses.
type idleTimer interface {
	Reset(d time.Duration) bool
	Stop() bool
}

// wait runs op, a receive or a send, with the timer running. Once the time
// ran out it returns a StreamIdleError whatever op returned: a frame that
// came too late is dropped unread.
func (w *idleWatch) wait(op func() error) error {
	switch {
	case w.timer != nil:
		w.timer.Reset(w.timeout)
	case w.clock != nil:
		w.timer = w.clock.AfterFunc(w.timeout, func() { close(w.expired) })
	default:
		w.timer = time.AfterFunc(w.timeout, func() { close(w.expired) })
	}
	err := op()
	if !w.timer.Stop() {
		return &StreamIdleError{Timeout: w.timeout}
	}
	return err
}
