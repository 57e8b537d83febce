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

// ErrUnavailable is returned, wrapped with its cause, by a shared store that
// cannot reach or use its backend. Nothing about the session is known; the
// call may be retried later.
var ErrUnavailable = errors.New("session: store unavailable")

// DefaultRedisKeyPrefix is the default prefix of the sessions' Redis keys.
const DefaultRedisKeyPrefix = "toolguard:session:"

// DefaultRedisTimeout is short because every call waits for its Record.
const DefaultRedisTimeout = 250 * time.Millisecond

// RedisOptions configures a Redis store. Only URL is required.
type RedisOptions struct {
	// URL locates the server: redis://[user:password@]host[:port][/db] or
	// rediss:// for TLS. It may hold a password, never put in errors or Addr.
	URL string
	// TTL is how long a session may stay idle; <= 0 is one hour.
	TTL time.Duration
	// KeyPrefix makes a session's key; empty is DefaultRedisKeyPrefix.
	// Replicas that share sessions share it.
	KeyPrefix string
	// DialTimeout, ReadTimeout and WriteTimeout: zero takes the URL's
	// value, else DefaultRedisTimeout.
	DialTimeout  time.Duration
	ReadTimeout  time.Duration
	WriteTimeout time.Duration
	// PoolSize: zero takes the URL's value, else go-redis's default.
	PoolSize int
	// RepeatLimit is as in MemoryOptions; replicas share it.
	RepeatLimit uint32
	// Now is the clock of LastSeen; expiry is Redis's own (PEXPIRE).
	Now func() time.Time
	// Log, when set, takes go-redis's messages from NewRedis until Close
	// instead of standard error. go-redis's logger is process-wide.
	Log func(msg string)
}

// Redis is a Store in Redis, so that several replicas count one session's
// mistakes together. Each session is one hash at KeyPrefix+id; Record runs a
// Lua script applying the Memory store's rules, atomic per session however
// many replicas call it. Sessions are bounded by their TTL only: give the
// server a maxmemory policy such as volatile-ttl.
//
// An unreachable server or a timeout is an error wrapping ErrUnavailable.
// Nothing is retried: a Record whose reply was lost may have counted.
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

const (
	fieldConsecutive = "consecutive"
	fieldRepeats     = "repeats"
	fieldFingerprint = "fingerprint"
	fieldLastSeen    = "last_seen" // Unix nanoseconds
	// The open turns (turns.go), "call,fingerprint,base,failed,at ms;" each,
	// oldest first.
	fieldTurns = "turns"
	// Fields of the one open turn earlier versions kept, dropped on write.
	fieldTurnBase = "turn_base"
	fieldTurnCall = "turn_call"
)

// recordScript is Memory.Record's rule (nextTurns) in Lua. Fingerprints
// and call keys travel and are compared as decimal text: Lua numbers are
// doubles and would round them. consecutive always holds the count, open
// turns included, so a reader needs no other field.
// KEYS[1] is the session's key; ARGV: usable ("1" or "0"), fingerprint,
// repeat limit, TTL in ms, now in Unix ns, execution ("1" or "0"), call key,
// now in Unix ms, the open turns' TTL in ms and their bound.
// It returns {consecutive, repeats, same turn (1 or 0)}.
var recordScript = redis.NewScript(`
local max = 4294967295
local function inc(v)
  if v >= max then return max end
  return v + 1
end
local prev = redis.call('HMGET', KEYS[1], '` + fieldConsecutive + `', '` + fieldRepeats + `', '` + fieldFingerprint + `', '` + fieldTurns + `')
local consecutive, repeats, fp = 0, 0, '0'
if prev[1] then
  consecutive = tonumber(prev[1]) or 0
  repeats = tonumber(prev[2]) or 0
  fp = prev[3] or '0'
end
local usable, limit, exec, call = ARGV[1] == '1', tonumber(ARGV[3]), ARGV[6] == '1', ARGV[7]
local nowms, turnTTL, maxTurns = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local turns = {}
for c, f, b, x, at in string.gmatch(prev[4] or '', '(%d+),(%d+),(%d+),(%d),(%d+);') do
  if nowms - tonumber(at) < turnTTL then table.insert(turns, {c, f, b, x, at}) end
end
local function save()
  local out = {}
  for _, t in ipairs(turns) do table.insert(out, table.concat(t, ',') .. ';') end
  if #out == 0 then
    redis.call('HDEL', KEYS[1], '` + fieldTurns + `', '` + fieldTurnBase + `', '` + fieldTurnCall + `')
  else
    redis.call('HSET', KEYS[1], '` + fieldTurns + `', table.concat(out))
    redis.call('HDEL', KEYS[1], '` + fieldTurnBase + `', '` + fieldTurnCall + `')
  end
end
if exec then
  for i, t in ipairs(turns) do
    local same
    if call ~= '0' and t[1] ~= '0' then
      same = call == t[1]
    else
      same = ARGV[2] ~= '0' and ARGV[2] == t[2]
    end
    if same then
      table.remove(turns, i)
      if usable and repeats < limit then
        consecutive = 0
      elseif t[4] == '0' then
        consecutive = inc(math.max(consecutive, tonumber(t[3])))
      end
      redis.call('HSET', KEYS[1], '` + fieldConsecutive + `', tostring(consecutive), '` + fieldLastSeen + `', ARGV[5])
      save()
      redis.call('PEXPIRE', KEYS[1], ARGV[4])
      return {consecutive, repeats, 1}
    end
  end
end
local base = consecutive
repeats = (ARGV[2] ~= '0' and ARGV[2] == fp) and inc(repeats) or 1
local failed = not usable or repeats >= limit
if failed then
  consecutive = inc(base)
else
  consecutive = 0
end
redis.call('HSET', KEYS[1],
  '` + fieldConsecutive + `', tostring(consecutive),
  '` + fieldRepeats + `', tostring(repeats),
  '` + fieldFingerprint + `', ARGV[2],
  '` + fieldLastSeen + `', ARGV[5])
if not exec then
  while #turns >= maxTurns do table.remove(turns, 1) end
  table.insert(turns, {call, ARGV[2], tostring(base), failed and '1' or '0', ARGV[8]})
end
save()
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {consecutive, repeats, 0}
`)

// NewRedis connects to the server and checks that it answers (PING, and
// loading the script), so that a misconfigured replica fails at startup. An
// unreachable server is an error wrapping ErrUnavailable.
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
	// One dial and no retry per operation, whatever the URL asks: a call
	// waits about one timeout before it goes on uncounted, and a Record is
	// never applied twice.
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

// ParseRedisURL parses a Redis URL as NewRedis does, without ever quoting
// it in errors.
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

// Addr returns the server's address without credentials.
func (r *Redis) Addr() string { return r.addr }

func (r *Redis) key(id string) string { return r.prefix + id }

// Record applies one call's outcome to the session atomically.
func (r *Redis) Record(ctx context.Context, id string, o Outcome) (State, error) {
	if err := r.check(ctx); err != nil {
		return State{}, err
	}
	now := r.now()
	res, err := recordScript.Run(ctx, r.client, []string{r.key(id)},
		flag(o.Usable), strconv.FormatUint(o.Fingerprint, 10), strconv.FormatUint(uint64(r.limit), 10),
		r.ttlMS, strconv.FormatInt(now.UnixNano(), 10), flag(o.Execution),
		strconv.FormatUint(callKey(o.CallID), 10), strconv.FormatInt(now.UnixMilli(), 10),
		strconv.FormatInt(OpenTurnTTL.Milliseconds(), 10), strconv.Itoa(MaxOpenTurns)).Int64Slice()
	if err != nil {
		return State{}, r.fail(ctx, err)
	}
	if len(res) != 3 {
		return State{}, fmt.Errorf("session: redis record: got %d values, want 3", len(res))
	}
	repeats := uint32(res[1])
	return State{
		Consecutive: uint32(res[0]),
		Repeats:     repeats,
		Repeated:    repeats >= r.limit,
		SameTurn:    res[2] == 1,
		LastSeen:    time.Unix(0, now.UnixNano()),
		Exists:      true,
	}, nil
}

// Get returns the session's state (zero when unknown or expired) without
// making it recent.
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

// Close closes the connections; later calls return ErrClosed. The sessions
// stay in Redis for the other replicas.
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

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

type redisLog func(msg string)

func (l redisLog) Printf(_ context.Context, format string, v ...any) { l(fmt.Sprintf(format, v...)) }

func (r *Redis) check(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r.closed.Load() {
		return ErrClosed
	}
	return nil
}

// fail classifies an error from the client: the caller's cancellation stays
// a context error, a closed store is ErrClosed, an unreachable server
// ErrUnavailable; anything else is returned as it is.
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

type unavailableError struct {
	msg   string
	cause error
}

func (e *unavailableError) Error() string   { return e.msg }
func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// unavailablePrefixes are the replies of a server that is up but cannot
// serve now, or no longer accepts the store's credentials.
var unavailablePrefixes = []string{
	"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN",
	"OOM", "MISCONF", "NOREPLICAS", "NOAUTH", "WRONGPASS",
	"ERR max number of clients reached",
}

// unreachable reports whether err means the server could not be reached or
// serve; with the caller's context fine, a deadline is the dial timeout.
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
