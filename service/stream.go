package service

import (
	"context"
	"errors"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service/protoapi"
)

// StreamToolCalls follows a model's response as the client forwards it, in
// one goroutine, so nothing outlives the stream. It holds one of the
// server's stream slots, given back before the client sees the stream end.
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

// streamOptions scope a call's stream: the server's limits, the caller's
// grants, the access log's session id.
func (s *toolGuardService) streamOptions(ctx context.Context) protoapi.StreamOptions {
	return protoapi.StreamOptions{Limits: s.streamLimits, Scope: callerFromContext(ctx).scope, Started: logSessionID}
}
