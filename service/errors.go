package service

import (
	"context"
	"errors"

	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/service/protoapi"
)

// ErrorDomain is the google.rpc.ErrorInfo domain of toolguard's errors.
const ErrorDomain = "toolguard.dev"

// toStatus is the one place domain errors become gRPC statuses: the
// server's own refusals here, the core's classified by failure.Classify.
// Callers' mistakes get a precise code and a stable reason; anything
// unexpected is logged here and leaves as a bare INTERNAL.
func (s *toolGuardService) toStatus(ctx context.Context, err error) error {
	if st := refusalStatus(err); st != nil {
		return st
	}
	var fe *protoapi.FieldError
	var idle *StreamIdleError
	switch {
	case errors.As(err, &fe):
		return fieldStatus(fe)
	case errors.As(err, &idle):
		return withDetails(codes.DeadlineExceeded, idle.Error(), string(failure.StreamIdleTimeout), map[string]string{"idle_timeout": idle.Timeout.String()})
	}
	f := failure.Classify(err)
	switch f.Kind {
	case failure.StoreDegraded:
		// Every call fails while the store is down, hence the throttle.
		id, _ := callAnnotation(ctx, sessionIDField).(string)
		s.storeDown.Warn(zap.String(requestIDField, requestIDFromContext(ctx)), zap.String(principalField, PrincipalFromContext(ctx)),
			zap.String(sessionIDField, id), zap.Error(storeError(err)))
	case failure.Storage:
		// The environment's fault, for an operator: logged in full.
		s.log.Error(storageLog[f.Reason], zap.String(requestIDField, requestIDFromContext(ctx)), zap.Error(err))
	case failure.Internal:
		s.log.Error("internal error", zap.String(requestIDField, requestIDFromContext(ctx)), zap.Error(err))
	}
	return failureStatus(f)
}

var storageLog = map[failure.Reason]string{
	failure.WorkspaceFull:     "workspace file system full",
	failure.WorkspaceReadOnly: "workspace file system read-only",
}

// kindCodes is each kind's gRPC code.
var kindCodes = map[failure.Kind]codes.Code{
	failure.Internal:        codes.Internal,
	failure.Invalid:         codes.InvalidArgument,
	failure.NotFound:        codes.NotFound,
	failure.Conflict:        codes.FailedPrecondition,
	failure.Locked:          codes.Aborted, // a concurrency conflict resolved by retrying the call, not by reading the file again
	failure.OverLimit:       codes.ResourceExhausted,
	failure.Storage:         codes.FailedPrecondition,
	failure.StoreDegraded:   codes.Unavailable,
	failure.Unauthenticated: codes.Unauthenticated,
	failure.Denied:          codes.PermissionDenied,
	failure.Timeout:         codes.DeadlineExceeded,
	failure.Canceled:        codes.Canceled,
	failure.Unavailable:     codes.Unavailable,
}

// grpcCode is a failure's code: its kind's, but a full disk is out of a
// resource rather than in the wrong state.
func grpcCode(f failure.Failure) codes.Code {
	if f.Reason == failure.WorkspaceFull {
		return codes.ResourceExhausted
	}
	return kindCodes[f.Kind]
}

// failureStatus renders a classified failure: its code, ErrorInfo with its
// reason, and the detail its kind calls for.
func failureStatus(f failure.Failure) error {
	code := grpcCode(f)
	if f.Reason == "" {
		return status.Error(code, f.Message)
	}
	var more []protoadapt.MessageV1
	switch {
	case f.Field != "":
		desc := f.FieldDetail
		if desc == "" {
			desc = f.Message
		}
		more = append(more, &errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: f.Field, Description: desc, Reason: string(f.Reason)}}})
	case f.Kind == failure.Conflict:
		more = append(more, &errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{Type: string(f.Reason), Subject: f.Subject, Description: "the file changed since it was read; read it again"}}})
	}
	if f.RetryAfter > 0 {
		more = append(more, &errdetails.RetryInfo{RetryDelay: durationpb.New(f.RetryAfter)})
	}
	return withDetails(code, f.Message, string(f.Reason), f.Meta, more...)
}

// refusalStatus converts a refusal of access or over a limit, or returns
// nil; the interceptors use it too.
func refusalStatus(err error) error {
	var ae *auth.Error
	var ng *WorkspaceNotGrantedError
	var le *LimitError
	switch {
	case errors.As(err, &ae):
		return withDetails(codes.Unauthenticated, ae.Message, ae.Reason, nil)
	case errors.As(err, &ng):
		return withDetails(codes.PermissionDenied, ng.Error(), string(failure.WorkspaceNotGranted), map[string]string{"principal": ng.Principal, "workspace": ng.Workspace})
	case errors.As(err, &le):
		var more []protoadapt.MessageV1
		if le.RetryAfter > 0 {
			more = append(more, &errdetails.RetryInfo{RetryDelay: durationpb.New(le.RetryAfter)})
		}
		return withDetails(codes.ResourceExhausted, le.Message, le.Reason, le.Metadata, more...)
	}
	return nil
}

// fieldStatus is INVALID_ARGUMENT with the field's reason and a BadRequest.
func fieldStatus(fe *protoapi.FieldError) error {
	if fe.Field == "" {
		return withDetails(codes.InvalidArgument, fe.Error(), fe.Reason, nil)
	}
	return withDetails(codes.InvalidArgument, fe.Error(), fe.Reason, nil,
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: fe.Field, Description: fe.Description, Reason: fe.Reason}}})
}

func withDetails(code codes.Code, msg, reason string, meta map[string]string, more ...protoadapt.MessageV1) error {
	st := status.New(code, msg)
	details := append([]protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain, Metadata: meta}}, more...)
	if withD, err := st.WithDetails(details...); err == nil {
		st = withD
	}
	return st.Err()
}
