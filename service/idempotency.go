package service

import (
	"context"
	"errors"

	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// keyed is an executing request that may carry an idempotency key.
type keyed interface {
	proto.Message
	GetContext() *toolguardv1.RequestContext
	GetIdempotencyKey() string
}

// runFailed carries a status run returned, apart from Once's own errors.
type runFailed struct{ err error }

func (e *runFailed) Error() string { return e.err.Error() }

// once runs an executing RPC at most once per idempotency key of the
// caller's session (guard.Once): the call's identity is the request without
// its key, in protobuf's deterministic encoding; the answer kept is the
// response's, so a retry gets the same bytes back. Without a key, run runs.
func once[Resp proto.Message](s *toolGuardService, ctx context.Context, req keyed, newResp func() Resp,
	run func(context.Context) (Resp, error)) (Resp, error) {
	var zero Resp
	key := req.GetIdempotencyKey()
	if key == "" || req.GetContext().GetSessionId() == "" {
		return run(ctx) // without a session, run's request check refuses it
	}
	rc := req.GetContext()
	sessionID, err := callerFromContext(ctx).scope(rc.GetSessionId(), rc.GetWorkspace(), true)
	if err != nil {
		return zero, s.toStatus(ctx, err)
	}
	call := proto.Clone(req)
	call.ProtoReflect().Clear(call.ProtoReflect().Descriptor().Fields().ByName("idempotency_key"))
	identity, err := proto.MarshalOptions{Deterministic: true}.Marshal(call)
	if err != nil {
		return zero, s.toStatus(ctx, err)
	}
	answer, err := s.guard.Once(ctx, sessionID, key, identity, func(ctx context.Context) ([]byte, error) {
		resp, err := run(ctx)
		if err != nil {
			return nil, &runFailed{err}
		}
		return proto.MarshalOptions{Deterministic: true}.Marshal(resp)
	})
	if rf := (*runFailed)(nil); errors.As(err, &rf) {
		return zero, rf.err
	}
	if err != nil {
		return zero, s.toStatus(ctx, err)
	}
	resp := newResp()
	if err := proto.Unmarshal(answer, resp); err != nil {
		return zero, s.toStatus(ctx, err)
	}
	return resp, nil
}
