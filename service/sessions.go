package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/session"
)

// The session stores Config.SessionStore selects.
const (
	// SessionStoreMemory keeps counters in the replica's memory: one
	// replica, or replicas that each count their own calls.
	SessionStoreMemory = "memory"
	// SessionStoreRedis keeps counters in Redis, shared by every replica
	// that uses the same server and key prefix.
	SessionStoreRedis = "redis"
)

// validateSessionStore reports the session store settings that cannot work.
// It never quotes the Redis URL, which may hold a password.
func (c Config) validateSessionStore() []error {
	var errs []error
	switch c.SessionStore {
	case SessionStoreMemory:
		if c.RedisURL != "" {
			// Almost certainly a deployment that meant to share sessions
			// and would silently count per replica.
			errs = append(errs, errors.New("a Redis URL is set but the session store is memory: set the session store to redis, or unset the URL"))
		}
	case SessionStoreRedis:
		if c.RedisURL == "" {
			errs = append(errs, errors.New("the redis session store needs a Redis URL"))
		} else if _, err := session.ParseRedisURL(c.RedisURL); err != nil {
			errs = append(errs, err)
		}
		if c.RedisKeyPrefix == "" {
			errs = append(errs, errors.New("the Redis key prefix must not be empty"))
		}
	default:
		errs = append(errs, fmt.Errorf("session store %q: want %s or %s", c.SessionStore, SessionStoreMemory, SessionStoreRedis))
	}
	if c.RedisTimeout <= 0 {
		errs = append(errs, errors.New("the Redis timeout must be positive"))
	}
	return errs
}

// newSessionStore opens the store cfg selects ("" is memory, for callers
// that build a Config by hand). The Redis store is pinged first: an
// unreachable server fails startup rather than the first calls.
func newSessionStore(cfg Config, log *zap.Logger) (session.Store, error) {
	switch cfg.SessionStore {
	case "", SessionStoreMemory:
		log.Info("session store", zap.String("store", SessionStoreMemory), zap.Int("max_sessions", cfg.MaxSessions))
		return session.NewMemory(session.MemoryOptions{TTL: cfg.SessionTTL, MaxSessions: cfg.MaxSessions}), nil
	case SessionStoreRedis:
		timeout := cfg.RedisTimeout
		if timeout <= 0 {
			timeout = session.DefaultRedisTimeout
		}
		// go-redis prints its own messages (a failed dial, for one) to
		// standard error in its own format; they go to our log instead.
		redis.SetLogger(redisLog{log.Named("redis")})
		r, err := session.NewRedis(context.Background(), session.RedisOptions{
			URL: cfg.RedisURL, TTL: cfg.SessionTTL, KeyPrefix: cfg.RedisKeyPrefix,
			DialTimeout: timeout, ReadTimeout: timeout, WriteTimeout: timeout,
		})
		if err != nil {
			redis.SetLogger(&logging.VoidLogger{})
			return nil, err
		}
		// The host only: the URL may hold a password.
		log.Info("session store", zap.String("store", SessionStoreRedis), zap.String("redis_addr", r.Addr()),
			zap.String("key_prefix", cfg.RedisKeyPrefix), zap.Duration("timeout", timeout))
		return redisStore{r}, nil
	default:
		return nil, fmt.Errorf("session store %q: want %s or %s", cfg.SessionStore, SessionStoreMemory, SessionStoreRedis)
	}
}

// redisStore is the Redis store, detaching go-redis from the server's log
// once closed.
type redisStore struct{ *session.Redis }

func (r redisStore) Close() error {
	err := r.Redis.Close()
	redis.SetLogger(&logging.VoidLogger{})
	return err
}

// redisLog takes go-redis's messages at debug level: what matters in them
// (the store cannot be reached) the server logs itself, as warnings.
type redisLog struct{ log *zap.Logger }

func (l redisLog) Printf(_ context.Context, format string, v ...any) {
	l.log.Debug(fmt.Sprintf(format, v...))
}

// uncountedWarning returns the guard's Uncounted hook: a throttled warning
// about calls the session store could not count, naming the principal and
// the session apart. authenticated says whether the server authenticates
// callers (see splitSessionKey).
func uncountedWarning(log *zap.Logger, authenticated bool) func(key string, err error) {
	w := newThrottledWarning(log, "session store unreachable: call not counted")
	return func(key string, err error) {
		principal, id := splitSessionKey(key, authenticated)
		w.warn(zap.String(principalField, principal), zap.String(sessionIDField, id), zap.Error(storeError(err)))
	}
}

// storeError returns the session store's own error inside err, without the
// wrapping around it that quotes the session's key.
func storeError(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil || !errors.Is(next, session.ErrUnavailable) {
			return err
		}
		err = next
	}
}
