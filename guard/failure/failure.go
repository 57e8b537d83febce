// Package failure sorts the errors of the core into kinds, once, for every
// front end: each renders a kind in its own protocol (a gRPC status with an
// ErrorInfo reason, an MCP isError result or JSON-RPC error, an HTTP
// status, an exit code) and none decides again what an error means.
//
// A model's mistake is no error: it is a verdict. These are the caller's
// mistakes, the environment's faults and the server's own.
package failure

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// Kind is what a failure means to the one who made the call.
type Kind int

// The kinds. Internal is the zero value: whatever is not classified is the
// server's fault.
const (
	Internal        Kind = iota // the server's own fault: logged, never described to the caller
	Invalid                     // the caller's mistake in the request: fix it, do not retry as is
	NotFound                    // something the request names does not exist
	Conflict                    // the file changed since it was read: read again, then redo
	Locked                      // another call holds the file: send the call again
	OverLimit                   // too large or too many: over a size, count or rate limit
	Storage                     // the workspace's disk is full or read-only: the operator's to fix
	StoreDegraded               // the shared session store cannot be reached
	Unauthenticated             // no valid credentials
	Denied                      // credentials without the grant
	Timeout                     // a deadline or idle timeout passed
	Canceled                    // the caller went away
	Unavailable                 // the server is shutting down
)

var kindNames = [...]string{"internal", "invalid", "not_found", "conflict", "locked", "over_limit", "storage",
	"store_degraded", "unauthenticated", "denied", "timeout", "canceled", "unavailable"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "kind(" + strconv.Itoa(int(k)) + ")"
	}
	return kindNames[k]
}

// Kinds returns every kind, Internal first.
func Kinds() []Kind {
	out := make([]Kind, len(kindNames))
	for i := range out {
		out[i] = Kind(i)
	}
	return out
}

// Failure is a classified error.
type Failure struct {
	Kind   Kind
	Reason Reason // "" for Internal and for a bare context error
	// Message is what the caller may be told; for Internal it says nothing
	// of the cause, which is logged instead.
	Message string
	// Field is the request field at fault of an Invalid failure, in proto
	// names ("call.name"), or "".
	Field string
	// FieldDetail says what is wrong with Field, when Message says more.
	FieldDetail string
	// Subject is the file a Conflict or Locked failure is about.
	Subject string
	// Meta is the ErrorInfo metadata.
	Meta map[string]string
	// RetryAfter, when positive, is how long to wait before sending again.
	RetryAfter time.Duration
	Err        error
}

// Retryable reports whether the same call, sent again later, may succeed.
func (f Failure) Retryable() bool {
	in, _ := Lookup(f.Reason)
	return in.Retryable
}

// LockRetryDelay is the delay a FILE_LOCKED failure suggests: a lock is
// held for milliseconds, so a short wait usually finds it free.
const LockRetryDelay = 100 * time.Millisecond

// StoreUnavailableMessage is what a caller is told while the session store
// is down.
const StoreUnavailableMessage = "the session store cannot be reached; try again later"

// Classify sorts an error of the core (guard, workspace, session) into its
// kind and reason. A front end classifies its own refusals (authentication,
// limits, request checks) before it calls Classify.
func Classify(err error) Failure {
	if f, ok := classifyCaller(err); ok {
		return f
	}
	var fc *guard.FileChangedError
	var locked *workspace.LockTimeoutError
	switch {
	case errors.As(err, &fc):
		return Failure{Kind: Conflict, Reason: FileChanged, Message: fc.Error(), Subject: fc.Path, Meta: map[string]string{"path": fc.Path}, Err: err}
	case errors.As(err, &locked):
		return Failure{Kind: Locked, Reason: FileLocked, Message: locked.Error(), Subject: locked.Path,
			Meta:       map[string]string{"path": locked.Path, "waited": locked.Waited.Round(time.Millisecond).String()},
			RetryAfter: LockRetryDelay, Err: err}
	case errors.Is(err, session.ErrUnavailable):
		// Before the context cases: the cause may be a dial timeout.
		return Failure{Kind: StoreDegraded, Reason: SessionStoreUnavailable, Message: StoreUnavailableMessage, Err: err}
	case errors.Is(err, context.Canceled):
		return Failure{Kind: Canceled, Message: "request cancelled", Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return Failure{Kind: Timeout, Message: "deadline exceeded", Err: err}
	case errors.Is(err, session.ErrClosed):
		return Failure{Kind: Unavailable, Reason: ShuttingDown, Message: "server is shutting down", Err: err}
	case errors.Is(err, workspace.ErrFull):
		return Failure{Kind: Storage, Reason: WorkspaceFull, Message: guard.WorkspaceFullMessage, Err: err}
	case errors.Is(err, workspace.ErrReadOnly):
		return Failure{Kind: Storage, Reason: WorkspaceReadOnly, Message: guard.WorkspaceReadOnlyMessage, Err: err}
	case errors.Is(err, workspace.ErrLockDirMismatch):
		// The operator's to fix, not the model's: the message says how.
		return Failure{Kind: Storage, Reason: LockDirMismatch, Message: err.Error(), Err: err}
	}
	return Failure{Kind: Internal, Message: "internal error", Err: err}
}

// classifyCaller finds the caller's mistakes the core reports.
func classifyCaller(err error) (Failure, bool) {
	var te *guard.InvalidToolDefinitionError
	var we *guard.UnknownWorkspaceError
	var wt *guard.WrongToolError
	var col *guard.ColumnError
	var idem *guard.IdempotencyError
	var long *guard.IdempotencyKeyTooLongError
	switch {
	case errors.As(err, &idem):
		return idempotencyFailure(idem), true
	case errors.As(err, &long):
		return Failure{Kind: Invalid, Reason: FieldTooLong, Message: long.Error(), Field: "idempotency_key", Err: err}, true
	case errors.As(err, &te):
		f := Failure{Kind: Invalid, Reason: InvalidToolDefinition, Message: te.Error(), Field: fmt.Sprintf("tools[%d]", te.Index),
			FieldDetail: te.Err.Error(), Meta: map[string]string{"tool": te.Name}, Err: err}
		if re := (*repair.SchemaRefError)(nil); errors.As(te.Err, &re) {
			// A schema that refers outside itself, never loaded, apart
			// from a broken one.
			f.Reason, f.Meta["ref"] = SchemaRefNotAllowed, re.Ref
		}
		return f, true
	case errors.As(err, &we):
		return Failure{Kind: NotFound, Reason: WorkspaceNotFound, Message: we.Error(), Meta: map[string]string{"workspace": we.Name}, Err: err}, true
	case errors.As(err, &wt):
		return Failure{Kind: Invalid, Reason: WrongRPC, Message: wt.Error(), Field: "call.name", Meta: map[string]string{"tool": wt.Tool}, Err: err}, true
	case errors.As(err, &col):
		// The caller's column, copied from an answer's next_column: its
		// mistake, with the column to give instead.
		return Failure{Kind: Invalid, Reason: InvalidColumn, Message: col.Error(), Field: "column",
			Meta: map[string]string{"line": strconv.Itoa(col.Line), "column": strconv.Itoa(col.Column)}, Err: err}, true
	}
	return Failure{}, false
}

// idempotencyFailure renders a refused idempotency key.
func idempotencyFailure(e *guard.IdempotencyError) Failure {
	f := Failure{Kind: Invalid, Reason: IdempotencyKeyReused, Message: e.Error(), Field: "idempotency_key", Err: e}
	switch {
	case errors.Is(e.Err, session.ErrInFlight):
		f.Kind, f.Reason = Locked, IdempotencyKeyInFlight
	case errors.Is(e.Err, session.ErrReplyNotKept):
		f.Kind, f.Reason = Conflict, IdempotencyReplyLost
	}
	return f
}
