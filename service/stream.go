package service

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service/protoapi"
)

// StreamToolCalls follows a model's response as the client forwards it.
// The work happens frame by frame in one goroutine (runStream), so when the
// client cancels, the next receive or send fails and nothing outlives the
// stream. A stream that waits on its client longer than the idle timeout is
// ended with DEADLINE_EXCEEDED (stream_idle.go).
//
// At most MaxStreams streams are open at once, server-wide, and each
// authenticated principal holds at most its share of them; the slot is
// given back when the handler returns, before the client sees the stream
// end.
func (s *toolGuardService) StreamToolCalls(srv grpc.BidiStreamingServer[toolguardv1.StreamToolCallsRequest, toolguardv1.StreamToolCallsResponse]) error {
	ctx := srv.Context()
	release, err := s.streams.acquire(callerFromContext(ctx))
	if err != nil {
		return s.toStatus(ctx, err)
	}
	defer release()
	err = s.runStream(ctx, srv)
	var te *protoapi.TransportError
	var idle *StreamIdleError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &idle):
		return s.toStatus(ctx, idle)
	case errors.As(err, &te):
		return te.Err // already a status: the transport's, or a frame's refusal
	default:
		return s.toStatus(ctx, err)
	}
}

// streamOptions are the stream options of a call: the server's limits, the
// caller's grants, the access log's session id.
func (s *toolGuardService) streamOptions(ctx context.Context) protoapi.StreamOptions {
	return protoapi.StreamOptions{Limits: s.streamLimits, Scope: callerFromContext(ctx).scope, Started: logSessionID}
}
