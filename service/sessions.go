package service

import (
	"errors"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/internal/logthrottle"
	"github.com/toolguard/toolguard/session"
)

// uncountedWarning is the guard's Uncounted hook: a throttled warning naming
// the principal and the session apart.
func uncountedWarning(log *zap.Logger, authenticated bool) func(key string, err error) {
	w := logthrottle.New(log, "session store unreachable: call not counted")
	// Any other failure once a change was made: the change is answered.
	failed := logthrottle.New(log, "session store failed after a change was made: call not counted")
	return func(key string, err error) {
		principal, id := splitSessionKey(key, authenticated)
		fields := []zap.Field{zap.String(principalField, principal), zap.String(sessionIDField, id), zap.Error(storeError(err))}
		if errors.Is(err, session.ErrUnavailable) {
			w.Warn(fields...)
			return
		}
		failed.Warn(fields...)
	}
}

// storeError returns the store's own error, without the wrapping that quotes
// the session's key.
func storeError(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil || !errors.Is(next, session.ErrUnavailable) {
			return err
		}
		err = next
	}
}
