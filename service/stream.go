package service

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service/protoapi"
)

// StreamToolCalls follows a model's response as the client forwards it, in
// one goroutine, so nothing outlives the stream. It holds one of the
// server's stream slots, given back before the client sees the stream end.
func (s *toolGuardService) StreamToolCalls(srv grpc.BidiStreamingServer[toolguardv1.StreamToolCallsRequest, toolguardv1.StreamToolCallsResponse]) error {
	ctx := srv.Context()
	release, err := s.streams.acquire(callerFromContext(ctx).Caller)
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
// grants and rate limit, the access log's session id.
func (s *toolGuardService) streamOptions(ctx context.Context) protoapi.StreamOptions {
	opts := protoapi.StreamOptions{Limits: s.streamLimits, Scope: callerFromContext(ctx).scope, Started: logSessionID}
	if s.rates != nil {
		opts.AdmitCall = s.admitCall(PrincipalFromContext(ctx))
	}
	return opts
}

// admitCall charges each call a stream completes to its principal's bucket,
// the one the interceptor charged for opening the stream: a stream is no way
// around the rate limit. The stream's access-log line counts the refusals.
func (s *toolGuardService) admitCall(principal string) func(context.Context) error {
	refused := 0
	return func(ctx context.Context) error {
		err := s.rates.allow(principal)
		if err == nil {
			return nil
		}
		refused++
		annotateCall(ctx, "rate_limited_calls", refused)
		return fmt.Errorf("%w; then send it to ExecuteWrite, ExecuteEdit or ValidateToolCall, as this stream has moved past it", err)
	}
}
