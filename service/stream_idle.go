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

// The idle timeout of streams (Config.StreamIdleTimeout).
//
// A stream that waits on its client for longer than the timeout, for a
// frame or for the client to take an event, is ended: it would otherwise
// hold its slot, and what it has read of its calls, until the connection
// goes. Its open calls are dropped as when the client closes without an end
// frame: neither concluded, executed nor counted.

// StreamIdleError ends a stream that waited on its client for longer than
// the idle timeout. It becomes DEADLINE_EXCEEDED with the reason
// STREAM_IDLE_TIMEOUT: the stream ran out of time because of the caller's
// pace, not the server's load (RESOURCE_EXHAUSTED) nor a conflict
// (ABORTED).
type StreamIdleError struct{ Timeout time.Duration }

func (e *StreamIdleError) Error() string {
	return fmt.Sprintf("the stream waited %s on its client, for a frame or to take an event, and was ended; "+
		"calls still open were dropped (while the model is silent, send an empty delta frame now and then)", e.Timeout)
}

// runStream runs RunStream on the handler's stream under the idle timeout.
//
// RunStream runs in a goroutine of its own while the handler's goroutine
// waits for it or for the timeout: a receive or a send blocked on the client
// returns only once the handler has returned, so a handler blocked in one
// could never end its stream. After a timeout the goroutine ends as soon as
// its blocked receive or send fails, when the stream ends; it does no other
// work in between. A panic in it is handed to the handler's goroutine,
// which the recovery interceptor guards.
func (s *toolGuardService) runStream(ctx context.Context, srv grpc.BidiStreamingServer[toolguardv1.StreamToolCallsRequest, toolguardv1.StreamToolCallsResponse]) error {
	if s.idleTimeout <= 0 {
		return protoapi.RunStream(ctx, s.guard, s.streamOptions(ctx), srv.Recv, srv.Send)
	}
	w := &idleWatch{timeout: s.idleTimeout, expired: make(chan struct{})}
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

// streamResult is how RunStream's goroutine ended.
type streamResult struct {
	err   error
	panic *forwardedPanic
}

// forwardedPanic carries a panic to another goroutine with the stack where
// it began; the recovery handler logs that stack.
type forwardedPanic struct {
	value any
	stack []byte
}

func (p *forwardedPanic) String() string { return fmt.Sprint(p.value) }

// idleWatch times the waits of one stream on its client. Its timer runs
// only during a wait, so the server's own work never counts, and it is
// reset rather than replaced: no goroutine or timer per frame. Only the
// stream's goroutine calls wait.
type idleWatch struct {
	timeout time.Duration
	timer   *time.Timer
	// expired is closed when a wait ran out of time.
	expired chan struct{}
}

// wait runs op, a receive or a send, with the timer running. When the time
// ran out meanwhile it returns a StreamIdleError, whatever op returned: the
// handler is ending the stream, and a frame that came too late is dropped
// unread. The timer fires at most once, since no wait follows that error.
func (w *idleWatch) wait(op func() error) error {
	if w.timer == nil {
		w.timer = time.AfterFunc(w.timeout, func() { close(w.expired) })
	} else {
		w.timer.Reset(w.timeout)
	}
	err := op()
	if !w.timer.Stop() {
		return &StreamIdleError{Timeout: w.timeout}
	}
	return err
}
