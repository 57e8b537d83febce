package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/session"
)

// IdempotencyError refuses a call whose idempotency key cannot run it: the
// key was used with another call, its first call still runs, or that call
// ran but its answer was too large to keep. Err is the session error.
type IdempotencyError struct {
	Key string
	Err error
}

func (e *IdempotencyError) Error() string {
	switch {
	case errors.Is(e.Err, session.ErrKeyReused):
		return fmt.Sprintf("idempotency key %q was used with a different call; nothing was done (use a new key for a new call)", e.Key)
	case errors.Is(e.Err, session.ErrInFlight):
		return fmt.Sprintf("the call with idempotency key %q is still running; nothing was done: send the call again to get its answer", e.Key)
	}
	return fmt.Sprintf("the call with idempotency key %q was carried out, but its answer was too large to keep; it was not carried out again", e.Key)
}

func (e *IdempotencyError) Unwrap() error { return e.Err }

// IdempotencyKeyTooLongError is a key past session.MaxIdempotencyKeyBytes.
type IdempotencyKeyTooLongError struct{ Len int }

func (e *IdempotencyKeyTooLongError) Error() string {
	return fmt.Sprintf("idempotency key is %d bytes, longer than the %d the server takes", e.Len, session.MaxIdempotencyKeyBytes)
}

// Once runs a change at most once per idempotency key of a session. call is
// the normalized request (without the key): its hash tells a retry of the
// same call from another call with the same key. The first answer, as the
// front end renders it, is kept and returned to every retry, which changes
// nothing. An error answer is not kept: the key is freed and a retry runs.
// A duplicate while the first runs is refused (IdempotencyError, ErrInFlight)
// rather than waited for: never applied twice, and never holding a request
// for as long as another takes. An empty key runs run as it is.
func (g *Guard) Once(ctx context.Context, sessionID, key string, call []byte, run func(context.Context) ([]byte, error)) ([]byte, error) {
	if key == "" || g.replies == nil {
		return run(ctx)
	}
	if len(key) > session.MaxIdempotencyKeyBytes {
		return nil, &IdempotencyKeyTooLongError{Len: len(key)}
	}
	sum := sha256.Sum256(call)
	hash := hex.EncodeToString(sum[:])
	stored, done, err := g.replies.Claim(ctx, sessionID, key, hash)
	switch {
	case done:
		return stored, nil
	case errors.Is(err, session.ErrKeyReused), errors.Is(err, session.ErrInFlight), errors.Is(err, session.ErrReplyNotKept):
		return nil, &IdempotencyError{Key: key, Err: err}
	case err != nil:
		// Unknown whether it ran: nothing is done rather than risk twice.
		return nil, err
	}
	// The claim is settled even when the caller went away meanwhile, and
	// freed if run panics (the panic goes on).
	settle := context.WithoutCancel(ctx)
	settled := false
	defer func() {
		if !settled {
			_ = g.replies.Release(settle, sessionID, key)
		}
	}()
	answer, err := run(ctx)
	settled = true
	if err != nil {
		if rerr := g.replies.Release(settle, sessionID, key); rerr != nil {
			g.log.Warn("idempotency key not released", zap.String("session", sessionID), zap.Error(rerr))
		}
		return nil, err
	}
	if ferr := g.replies.Finish(settle, sessionID, key, hash, answer); ferr != nil {
		// The change is made: its answer stands; a retry is refused as
		// in flight until the key's TTL passes, never applied again.
		g.log.Warn("idempotency answer not kept", zap.String("session", sessionID), zap.Error(ferr))
	}
	return answer, nil
}

// openReplies returns the idempotency answers where the sessions live:
// Redis when the store is Redis, else memory.
func openReplies(cfg Config, store session.Store) session.Replies {
	opts := session.ReplyOptions{EntryBytes: cfg.IdempotencyReplyBytes, SessionEntries: cfg.IdempotencyKeys, TTL: cfg.IdempotencyTTL}
	if r, ok := store.(*session.Redis); ok {
		return r.Replies(opts)
	}
	return session.NewMemoryReplies(opts)
}

// once runs a stream's call under the stream's idempotency key and the
// call's index: ran is false when an earlier stream with the key ran it.
func (s *Stream) once(e stream.Event, run func() error) (ran bool, err error) {
	if s.req.IdempotencyKey == "" {
		return true, run()
	}
	key := s.req.IdempotencyKey + "#" + strconv.Itoa(e.Index)
	_, err = s.g.Once(s.ctx, s.req.SessionID, key, []byte(e.Call.Name+"\x00"+e.Call.Text), func(context.Context) ([]byte, error) {
		ran = true
		if err := run(); err != nil {
			return nil, err
		}
		return []byte{1}, nil
	})
	return ran, err
}
