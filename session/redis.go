package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/redis/go-redis/v9/maintnotifications"
)

// ErrUnavailable is returned (wrapped, with the cause) by a shared store that
// cannot reach its backend: the network failed, an operation timed out, or
// the server cannot serve right now (loading, failing over, out of memory).
// The call may be retried later; nothing about the session is known. The
// Memory store never returns it.
var ErrUnavailable = errors.New("session: store unavailable")

// DefaultRedisKeyPrefix is the prefix of the Redis keys of sessions when
// RedisOptions.KeyPrefix is empty.
const DefaultRedisKeyPrefix = "toolguard:session:"

// DefaultRedisTimeout is the dial, read and write timeout of a Redis store
// unless set: short, because every ValidateToolCall waits for its Record.
const DefaultRedisTimeout = 250 * time.Millisecond

// RedisOptions configures a Redis store. Only URL is required.
type RedisOptions struct {
	// URL locates the server: redis://[user:password@]host[:port][/db] or
	// rediss:// for TLS, as redis.ParseURL reads it (query parameters such as
	// pool_size are honoured unless the fields below override them). It may
	// hold a password: the store never includes it in errors or in Addr.
	URL string
	// TTL is how long a session may stay idle (no Record) before Redis
	// expires it. TTL <= 0 means the default, one hour.
	TTL time.Duration
	// KeyPrefix is prepended to the session id to make its key; empty means
	// DefaultRedisKeyPrefix. Replicas that share sessions must share it.
	KeyPrefix string
	// DialTimeout, ReadTimeout and WriteTimeout bound each connection
	// attempt, reply and request. Zero takes the URL's value, else
	// DefaultRedisTimeout.
	DialTimeout  time.Duration
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// PoolSize is the most connections kept open; zero takes the URL's
	// value, else go-redis's default (10 per GOMAXPROCS).
	PoolSize int
	// RepeatLimit is the number of identical calls in a row at which a call
	// is a repeated call, as in MemoryOptions. Zero means DefaultRepeatLimit.
	// Replicas that share sessions must share it.
	RepeatLimit uint32
	// Now returns the current time, recorded as a session's last-seen time;
	// nil means time.Now. Expiry is Redis's own clock (PEXPIRE).
	Now func() time.Time
	// Log, when set, takes go-redis's own messages (a failed dial...) from
	// NewRedis until Close instead of standard error. go-redis's logger is
	// process-wide: the store opened last gets them.
	Log func(msg string)
}

// Redis is a Store kept in Redis, so that several replicas count one
// session's mistakes together: the store for more than one replica.
//
// Each session is one hash at KeyPrefix+id holding its consecutive mistakes,
// its run of identical calls, the last call's fingerprint and when it was
// last seen. Record runs one Lua script (EVALSHA, falling back to EVAL when
// the server does not have it cached, after a restart for instance) that
// applies exactly the Memory store's rules and refreshes the key's expiry
// (PEXPIRE TTL), so it is atomic per session however many replicas call it.
// Get and Reset are a plain HMGET and DEL; like Memory's, Get does not make
// a session recent.
//
// Redis bounds the sessions by their TTL only (there is no MaxSessions):
// give the server a maxmemory with an eviction policy such as volatile-ttl
// if random session ids must not grow it.
//
// When the server cannot be reached, or an operation takes longer than its
// timeout, methods return an error wrapping ErrUnavailable. Operations are
// not retried: a Record whose reply was lost may or may not have counted,
// and retrying it could count one call twice.
type Redis struct {
	client *redis.Client
	addr   string
	prefix string
	ttlMS  string // TTL in milliseconds, the PEXPIRE argument
	limit  uint32
	now    func() time.Time
	logs   bool // whether Close detaches go-redis's logger
	closed atomic.Bool
	once   sync.Once
}

var _ Store = (*Redis)(nil)

// Hash fields of a session.
const (
	fieldConsecutive = "consecutive"
	fieldRepeats     = "repeats"
	fieldFingerprint = "fingerprint"
	fieldLastSeen    = "last_seen" // Unix nanoseconds
)

// recordScript is Memory.Record's rule in Lua, atomic in Redis:
//
//   - A session that does not exist (never seen, reset, or expired) starts
//     with no mistakes and a run of one call.
//   - A call with the previous call's fingerprint extends the run, unless
//     the fingerprint is 0, which never repeats and breaks any run.
//   - The run reaching the repeat limit makes the call a repeated call.
//   - An unusable or repeated call adds a mistake; any other call resets the
//     count to 0. Counters saturate at 2^32-1.
//
// The fingerprint (a uint64) travels and is stored as its decimal text and
// compared as text: Lua numbers are doubles and would round it.
//
// KEYS[1] the session's key; ARGV: usable ("1" or "0"), fingerprint,
// repeat limit, TTL in milliseconds, now in Unix nanoseconds. It returns
// {consecutive, repeats}.
var recordScript = redis.NewScript(`
local max = 4294967295
local function inc(v)
  if v >= max then return max end
  return v + 1
end
local prev = redis.call('HMGET', KEYS[1], '` + fieldConsecutive + `', '` + fieldRepeats + `', '` + fieldFingerprint + `')
local consecutive, repeats = 0, 1
if prev[1] then
  consecutive = tonumber(prev[1]) or 0
  if ARGV[2] ~= '0' and ARGV[2] == prev[3] then
    repeats = inc(tonumber(prev[2]) or 0)
  end
end
if ARGV[1] ~= '1' or repeats >= tonumber(ARGV[3]) then
  consecutive = inc(consecutive)
else
  consecutive = 0
end
redis.call('HSET', KEYS[1],
  '` + fieldConsecutive + `', tostring(consecutive),
  '` + fieldRepeats + `', tostring(repeats),
  '` + fieldFingerprint + `', ARGV[2],
  '` + fieldLastSeen + `', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {consecutive, repeats}
`)

// NewRedis connects to the Redis server opts.URL names and checks that it
// answers (PING, and loading the Record script) before returning, so that a
// misconfigured replica fails at startup rather than at its first call. An
// unreachable server is an error wrapping ErrUnavailable. Call Close to
// release the connections.
func NewRedis(ctx context.Context, opts RedisOptions) (*Redis, error) {
	ro, err := ParseRedisURL(opts.URL)
	if err != nil {
		return nil, err
	}
	setTimeout := func(dst *time.Duration, v time.Duration) {
		if v > 0 {
			*dst = v
		} else if *dst == 0 {
			*dst = DefaultRedisTimeout
		}
	}
	setTimeout(&ro.DialTimeout, opts.DialTimeout)
	setTimeout(&ro.ReadTimeout, opts.ReadTimeout)
	setTimeout(&ro.WriteTimeout, opts.WriteTimeout)
	if opts.PoolSize > 0 {
		ro.PoolSize = opts.PoolSize
	}
	// One dial attempt per operation and no retries, whatever the URL asks:
	// when Redis is down a call waits at most about one timeout before it
	// goes on uncounted, and a Record is never applied twice. After PoolSize
	// failed dials the pool fails fast and probes the server once a second
	// until it is back.
	ro.DialerRetries = 1
	ro.MaxRetries = -1
	// A plain standalone server: no maintenance-notification handshake.
	ro.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	c := newCommon(opts.TTL, opts.RepeatLimit, opts.Now)
	prefix := opts.KeyPrefix
	if prefix == "" {
		prefix = DefaultRedisKeyPrefix
	}
	r := &Redis{
		client: redis.NewClient(ro),
		addr:   ro.Addr,
		prefix: prefix,
		ttlMS:  strconv.FormatInt(max(c.ttl.Milliseconds(), 1), 10),
		limit:  c.limit,
		now:    c.now,
		logs:   opts.Log != nil,
	}
	if r.logs {
		redis.SetLogger(redisLog(opts.Log))
	}
	err = r.client.Ping(ctx).Err()
	if err == nil {
		err = recordScript.Load(ctx, r.client).Err()
	}
	if err != nil {
		_ = r.Close()
		if ctx.Err() != nil {
			return nil, fmt.Errorf("session store: redis at %s: %w", r.addr, ctx.Err())
		}
		if unreachable(err) {
			return nil, &unavailableError{msg: fmt.Sprintf("session store: cannot reach redis at %s: %v", r.addr, err), cause: err}
		}
		return nil, fmt.Errorf("session store: redis at %s: %w", r.addr, err)
	}
	return r, nil
}

// ParseRedisURL parses a Redis URL as NewRedis does. Its errors never quote
// the URL, which may hold a password.
func ParseRedisURL(rawURL string) (*redis.Options, error) {
	if rawURL == "" {
		return nil, errors.New("session store: a Redis URL is required")
	}
	ro, err := redis.ParseURL(rawURL)
	if err != nil {
		// url.Error quotes the whole URL; keep only what went wrong.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("session store: invalid Redis URL: %w", err)
	}
	return ro, nil
}

// Addr returns the server's address (host:port, or a socket path), without
// credentials: what logs may show.
func (r *Redis) Addr() string { return r.addr }

func (r *Redis) key(id string) string { return r.prefix + id }

// Record applies one call's outcome to the session atomically and returns
// the state after it. See Store and the Memory store, whose rules it shares.
func (r *Redis) Record(ctx context.Context, id string, o Outcome) (State, error) {
	if err := r.check(ctx); err != nil {
		return State{}, err
	}
	usable := "0"
	if o.Usable {
		usable = "1"
	}
	now := r.now()
	res, err := recordScript.Run(ctx, r.client, []string{r.key(id)},
		usable, strconv.FormatUint(o.Fingerprint, 10), strconv.FormatUint(uint64(r.limit), 10),
		r.ttlMS, strconv.FormatInt(now.UnixNano(), 10)).Int64Slice()
	if err != nil {
		return State{}, r.fail(ctx, err)
	}
	if len(res) != 2 {
		return State{}, fmt.Errorf("session: redis record: got %d values, want 2", len(res))
	}
	repeats := uint32(res[1])
	return State{
		Consecutive: uint32(res[0]),
		Repeats:     repeats,
		Repeated:    repeats >= r.limit,
		LastSeen:    time.Unix(0, now.UnixNano()),
		Exists:      true,
	}, nil
}

// Get returns the session's state, or the zero State if the session is
// unknown or expired. It does not make the session recent.
func (r *Redis) Get(ctx context.Context, id string) (State, error) {
	if err := r.check(ctx); err != nil {
		return State{}, err
	}
	vals, err := r.client.HMGet(ctx, r.key(id), fieldConsecutive, fieldRepeats, fieldLastSeen).Result()
	if err != nil {
		return State{}, r.fail(ctx, err)
	}
	if len(vals) != 3 || vals[0] == nil {
		return State{}, nil
	}
	var n [3]uint64
	for i, v := range vals {
		s, _ := v.(string)
		bits := 32
		if i == 2 {
			bits = 63
		}
		x, err := strconv.ParseUint(s, 10, bits)
		if err != nil {
			return State{}, fmt.Errorf("session: redis key of session %q holds a bad %s: %q", id, []string{fieldConsecutive, fieldRepeats, fieldLastSeen}[i], s)
		}
		n[i] = x
	}
	repeats := uint32(n[1])
	return State{
		Consecutive: uint32(n[0]),
		Repeats:     repeats,
		Repeated:    repeats >= r.limit,
		LastSeen:    time.Unix(0, int64(n[2])),
		Exists:      true,
	}, nil
}

// Reset forgets the session; resetting an unknown session is not an error.
func (r *Redis) Reset(ctx context.Context, id string) error {
	if err := r.check(ctx); err != nil {
		return err
	}
	if err := r.client.Del(ctx, r.key(id)).Err(); err != nil {
		return r.fail(ctx, err)
	}
	return nil
}

// Close closes the connections. Later calls return ErrClosed. Close is
// idempotent; the sessions stay in Redis for the other replicas.
func (r *Redis) Close() error {
	var err error
	r.once.Do(func() {
		r.closed.Store(true)
		err = r.client.Close()
		if r.logs {
			redis.SetLogger(&logging.VoidLogger{})
		}
	})
	return err
}

// redisLog takes go-redis's messages.
type redisLog func(msg string)

func (l redisLog) Printf(_ context.Context, format string, v ...any) { l(fmt.Sprintf(format, v...)) }

// check fails fast for a done context or a closed store.
func (r *Redis) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.closed.Load() {
		return ErrClosed
	}
	return nil
}

// fail classifies an error from the client: the caller's own cancellation
// stays a context error, a closed store is ErrClosed, a server that cannot
// be reached or cannot serve is ErrUnavailable, and anything else (a reply
// that makes no sense, a key of the wrong type) is returned as it is.
func (r *Redis) fail(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case r.closed.Load() || errors.Is(err, redis.ErrClosed):
		return ErrClosed
	case unreachable(err):
		return &unavailableError{msg: fmt.Sprintf("session store unavailable: redis at %s: %v", r.addr, err), cause: err}
	default:
		return fmt.Errorf("session: redis at %s: %w", r.addr, err)
	}
}

// unavailableError is ErrUnavailable with its cause: errors.Is finds both.
type unavailableError struct {
	msg   string
	cause error
}

func (e *unavailableError) Error() string   { return e.msg }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// unavailablePrefixes are the error replies of a server that is up but
// cannot serve right now, or no longer accepts the store's credentials.
var unavailablePrefixes = []string{
	"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN",
	"OOM", "MISCONF", "NOREPLICAS", "NOAUTH", "WRONGPASS",
	"ERR max number of clients reached",
}

// unreachable reports whether err means the server could not be reached or
// could not serve: any network error or timeout (the caller's own context
// being fine, a deadline here is the client's dial timeout), a connection
// closed under the call, an exhausted pool, or an error reply from
// unavailablePrefixes.
func unreachable(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, redis.ErrPoolTimeout) || errors.Is(err, redis.ErrPoolExhausted) {
		return true
	}
	var re redis.Error
	if errors.As(err, &re) {
		msg := re.Error()
		for _, p := range unavailablePrefixes {
			if strings.HasPrefix(msg, p) {
				return true
			}
		}
	}
	return false
}
