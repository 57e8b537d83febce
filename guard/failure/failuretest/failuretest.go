// Package failuretest lists one error of each kind the core returns, for
// the front ends' tests: each renders every case and checks its answer.
package failuretest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// Case is an error as the guard returns it, and how it classifies.
type Case struct {
	Name   string
	Err    error
	Kind   failure.Kind
	Reason failure.Reason
}

// Cases returns one case per reason and kind the core can return, wrapped
// as the guard wraps them.
func Cases() []Case {
	return []Case{
		{"invalid tool definition", &guard.InvalidToolDefinitionError{Index: 0, Name: "t", Err: errors.New("not a schema")}, failure.Invalid, failure.InvalidToolDefinition},
		{"schema ref", &guard.InvalidToolDefinitionError{Index: 1, Name: "t", Err: &repair.SchemaRefError{Ref: "file:///etc/passwd"}}, failure.Invalid, failure.SchemaRefNotAllowed},
		{"idempotency key reused", &guard.IdempotencyError{Key: "k", Err: session.ErrKeyReused}, failure.Invalid, failure.IdempotencyKeyReused},
		{"idempotency key in flight", &guard.IdempotencyError{Key: "k", Err: session.ErrInFlight}, failure.Locked, failure.IdempotencyKeyInFlight},
		{"idempotency answer not kept", &guard.IdempotencyError{Key: "k", Err: session.ErrReplyNotKept}, failure.Conflict, failure.IdempotencyReplyLost},
		{"idempotency key too long", &guard.IdempotencyKeyTooLongError{Len: 300}, failure.Invalid, failure.FieldTooLong},
		{"wrong rpc", &guard.WrongToolError{Tool: "edit", Want: "write_to_file"}, failure.Invalid, failure.WrongRPC},
		{"invalid column", &guard.ColumnError{Line: 3, Column: 9, Message: "column 9 is past the end of line 3; give 1 to 5"}, failure.Invalid, failure.InvalidColumn},
		{"unknown workspace", &guard.UnknownWorkspaceError{Name: "other"}, failure.NotFound, failure.WorkspaceNotFound},
		{"file changed", fmt.Errorf("edit a.go: %w", &guard.FileChangedError{Path: "a.go", Expected: "aa", Actual: "bb"}), failure.Conflict, failure.FileChanged},
		{"file locked", fmt.Errorf("write a.go: %w", &workspace.LockTimeoutError{Path: "a.go", Waited: 10 * time.Second}), failure.Locked, failure.FileLocked},
		{"workspace full", fmt.Errorf("workspace: write a.go: %w: %w", workspace.ErrFull, errors.New("no space left on device")), failure.Storage, failure.WorkspaceFull},
		{"workspace read-only", fmt.Errorf("workspace: write a.go: %w: %w", workspace.ErrReadOnly, errors.New("read-only file system")), failure.Storage, failure.WorkspaceReadOnly},
		{"session store unavailable", fmt.Errorf("record session %q: %w", "s", errors.Join(session.ErrUnavailable, context.DeadlineExceeded)), failure.StoreDegraded, failure.SessionStoreUnavailable},
		{"shutting down", fmt.Errorf("record session %q: %w", "s", session.ErrClosed), failure.Unavailable, failure.ShuttingDown},
		{"cancelled", fmt.Errorf("read: %w", context.Canceled), failure.Canceled, ""},
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), failure.Timeout, ""},
		{"internal", errors.New("encode arguments: unsupported value"), failure.Internal, ""},
	}
}
