package service

import (
	"context"
	"testing"

	"go.uber.org/zap"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/guard/failure/failuretest"
	"github.com/toolguard/toolguard/internal/logthrottle"
)

// TestFailureKindsAsStatus: each kind of the core's errors leaves as its
// gRPC code, with its reason in an ErrorInfo, and a RetryInfo when it says
// when to retry.
func TestFailureKindsAsStatus(t *testing.T) {
	want := map[failure.Reason]codes.Code{
		failure.InvalidToolDefinition:   codes.InvalidArgument,
		failure.SchemaRefNotAllowed:     codes.InvalidArgument,
		failure.WrongRPC:                codes.InvalidArgument,
		failure.InvalidColumn:           codes.InvalidArgument,
		failure.WorkspaceNotFound:       codes.NotFound,
		failure.FileChanged:             codes.FailedPrecondition,
		failure.FileLocked:              codes.Aborted,
		failure.IdempotencyKeyReused:    codes.InvalidArgument,
		failure.IdempotencyKeyInFlight:  codes.Aborted,
		failure.IdempotencyReplyLost:    codes.FailedPrecondition,
		failure.FieldTooLong:            codes.InvalidArgument,
		failure.WorkspaceFull:           codes.ResourceExhausted,
		failure.WorkspaceReadOnly:       codes.FailedPrecondition,
		failure.SessionStoreUnavailable: codes.Unavailable,
		failure.ShuttingDown:            codes.Unavailable,
	}
	bare := map[failure.Kind]codes.Code{failure.Canceled: codes.Canceled, failure.Timeout: codes.DeadlineExceeded, failure.Internal: codes.Internal}
	s := &toolGuardService{log: zap.NewNop(), storeDown: logthrottle.New(zap.NewNop(), "store down")}
	for _, tt := range failuretest.Cases() {
		t.Run(tt.Name, func(t *testing.T) {
			st := status.Convert(s.toStatus(context.Background(), tt.Err))
			code, ok := want[tt.Reason]
			if tt.Reason == "" {
				code, ok = bare[tt.Kind]
			}
			if !ok {
				t.Fatalf("no expectation for %v %q", tt.Kind, tt.Reason)
			}
			var reason string
			var retry bool
			for _, d := range st.Details() {
				switch d := d.(type) {
				case *errdetails.ErrorInfo:
					reason = d.Reason
				case *errdetails.RetryInfo:
					retry = true
				}
			}
			if st.Code() != code || reason != string(tt.Reason) {
				t.Fatalf("status %v %q (%s), want %v %q", st.Code(), reason, st.Message(), code, tt.Reason)
			}
			if retry != (tt.Reason == failure.FileLocked) {
				t.Fatalf("RetryInfo %v for %q", retry, tt.Reason)
			}
			if tt.Kind == failure.Internal && st.Message() != "internal error" {
				t.Fatalf("internal error says %q", st.Message())
			}
		})
	}
}
