package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service/protoapi"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// ErrorDomain is the google.rpc.ErrorInfo domain of toolguard's errors.
const ErrorDomain = "toolguard.dev"

// toStatus is the one place domain errors become gRPC statuses. Callers'
// mistakes get a precise code and a stable reason; anything unexpected is
// logged here and leaves as a bare INTERNAL.
func (s *toolGuardService) toStatus(ctx context.Context, err error) error {
	if st := refusalStatus(err); st != nil {
		return st
	}
	var fe *protoapi.FieldError
	var te *guard.InvalidToolDefinitionError
	var we *guard.UnknownWorkspaceError
	var wt *guard.WrongToolError
	var fc *guard.FileChangedError
	var locked *workspace.LockTimeoutError
	var idle *StreamIdleError
	var col *guard.ColumnError
	switch {
	case errors.As(err, &fe):
		return fieldStatus(fe)
	case errors.As(err, &te):
		field := fmt.Sprintf("tools[%d]", te.Index)
		reason, meta := te.Reason(), map[string]string{"tool": te.Name}
		if re := (*repair.SchemaRefError)(nil); errors.As(te.Err, &re) {
			meta["ref"] = re.Ref
		}
		return withDetails(codes.InvalidArgument, te.Error(), reason, meta,
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: te.Err.Error(), Reason: reason}}})
	case errors.As(err, &we):
		return withDetails(codes.NotFound, we.Error(), "WORKSPACE_NOT_FOUND", map[string]string{"workspace": we.Name})
	case errors.As(err, &wt):
		return withDetails(codes.InvalidArgument, wt.Error(), "WRONG_RPC", map[string]string{"tool": wt.Tool},
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "call.name", Description: wt.Error(), Reason: "WRONG_RPC"}}})
	case errors.As(err, &col):
		// The caller's column, copied from an answer's next_column: its
		// mistake, with the column to give instead.
		return withDetails(codes.InvalidArgument, col.Error(), "INVALID_COLUMN",
			map[string]string{"line": strconv.Itoa(col.Line), "column": strconv.Itoa(col.Column)},
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "column", Description: col.Error(), Reason: "INVALID_COLUMN"}}})
	case errors.As(err, &fc):
		return withDetails(codes.FailedPrecondition, fc.Error(), "FILE_CHANGED", map[string]string{"path": fc.Path},
			&errdetails.PreconditionFailure{Violations: []*errdetails.PreconditionFailure_Violation{{Type: "FILE_CHANGED", Subject: fc.Path, Description: "the file changed since it was read; read it again"}}})
	case errors.As(err, &locked):
		// ABORTED: a concurrency conflict the client resolves by retrying the
		// call, not by reading the file again (FILE_CHANGED).
		return withDetails(codes.Aborted, locked.Error(), "FILE_LOCKED", map[string]string{"path": locked.Path, "waited": locked.Waited.Round(time.Millisecond).String()},
			&errdetails.RetryInfo{RetryDelay: durationpb.New(100 * time.Millisecond)})
	case errors.As(err, &idle):
		return withDetails(codes.DeadlineExceeded, idle.Error(), "STREAM_IDLE_TIMEOUT", map[string]string{"idle_timeout": idle.Timeout.String()})
	case errors.Is(err, session.ErrUnavailable):
		// Before the context cases: the cause may be a dial timeout. Every
		// call fails while the store is down, hence the throttle.
		id, _ := callAnnotation(ctx, sessionIDField).(string)
		s.storeDown.warn(zap.String(requestIDField, requestIDFromContext(ctx)), zap.String(principalField, PrincipalFromContext(ctx)),
			zap.String(sessionIDField, id), zap.Error(storeError(err)))
		return withDetails(codes.Unavailable, "the session store cannot be reached; try again later", "SESSION_STORE_UNAVAILABLE", nil)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	case errors.Is(err, session.ErrClosed):
		return withDetails(codes.Unavailable, "server is shutting down", "SHUTTING_DOWN", nil)
	case errors.Is(err, workspace.ErrFull):
		// The environment's fault, for an operator: logged in full.
		s.log.Error("workspace file system full", zap.String(requestIDField, requestIDFromContext(ctx)), zap.Error(err))
		return withDetails(codes.ResourceExhausted, guard.WorkspaceFullMessage, "WORKSPACE_FULL", nil)
	case errors.Is(err, workspace.ErrReadOnly):
		s.log.Error("workspace file system read-only", zap.String(requestIDField, requestIDFromContext(ctx)), zap.Error(err))
		return withDetails(codes.FailedPrecondition, guard.WorkspaceReadOnlyMessage, "WORKSPACE_READ_ONLY", nil)
	default:
		s.log.Error("internal error", zap.String(requestIDField, requestIDFromContext(ctx)), zap.Error(err))
		return status.Error(codes.Internal, "internal error")
	}
}

// refusalStatus converts a refusal of access or over a limit, or returns
// nil; the interceptors use it too.
func refusalStatus(err error) error {
	var ae *AuthError
	var ng *WorkspaceNotGrantedError
	var le *LimitError
	switch {
	case errors.As(err, &ae):
		return withDetails(codes.Unauthenticated, ae.Message, ae.Reason, nil)
	case errors.As(err, &ng):
		return withDetails(codes.PermissionDenied, ng.Error(), "WORKSPACE_NOT_GRANTED", map[string]string{"principal": ng.Principal, "workspace": ng.Workspace})
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
