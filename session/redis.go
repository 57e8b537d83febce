package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
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
	// URL locates the servers: redis://[user:password@]host[:port][,host[:port]...][/db],
	// or rediss:// for TLS. Several hosts are a cluster's seed nodes or
	// Sentinels (Mode). It may hold a password, never put in errors or Addr.
	URL string
	// Mode is one of RedisModes; "" is RedisAuto.
	Mode string
	// MasterName is the master Sentinels watch (RedisSentinel).
	MasterName string
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
	// StartUnreachable: a server that cannot be reached at start is not an
	// error; the store is returned, and its calls fail with ErrUnavailable
	// until the server answers (Ping tells).
	StartUnreachable bool
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
	client redis.UniversalClient
	addr   string
	mode   string
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
	t, err := parseRedisTarget(opts.URL)
	if err != nil {
		return nil, err
	}
	ro := t.opts
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
	uo, err := t.universal(opts.Mode, opts.MasterName)
	if err != nil {
		return nil, err
	}

	c := newCommon(opts.TTL, opts.RepeatLimit, opts.Now)
	prefix := opts.KeyPrefix
	if prefix == "" {
		prefix = DefaultRedisKeyPrefix
	}
	r := &Redis{
		client: redis.NewUniversalClient(uo),
		addr:   strings.Join(t.addrs, ","),
		mode:   kind(uo),
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
	if err == nil && r.mode == RedisSingle && (opts.Mode == "" || opts.Mode == RedisAuto) {
		// A cluster node behind one address (a managed cluster's
		// endpoint): a single-node client would get MOVED for most keys.
		var cluster bool
		if cluster, err = clusterNode(ctx, r.client); err == nil && cluster {
			_ = r.client.Close()
			uo.IsClusterMode = true
			r.client, r.mode = redis.NewUniversalClient(uo), RedisCluster
			err = r.client.Ping(ctx).Err()
		}
	}
	if err == nil {
		err = recordScript.Load(ctx, r.client).Err()
	}
	if err != nil && opts.StartUnreachable && ctx.Err() == nil && unreachable(err) {
		// Scripts are loaded again on their first NOSCRIPT (Script.Run).
		return r, nil
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
// it in errors; with several hosts, the options are the first one's.
func ParseRedisURL(rawURL string) (*redis.Options, error) {
	t, err := parseRedisTarget(rawURL)
	if err != nil {
		return nil, err
	}
	return t.opts, nil
}

// Addr returns the servers' addresses, as the URL lists them, without
// credentials.
func (r *Redis) Addr() string { return r.addr }

// Mode is the deployment connected to: RedisSingle, RedisCluster or
// RedisSentinel.
func (r *Redis) Mode() string { return r.mode }

func (r *Redis) key(id string) string { return RedisKey(r.prefix, id) }

// RedisKey is the key of session id under prefix. Its hash tag (the part
// in braces) is a hash of the id, so that every key of one session lives on
// one cluster slot and its scripts can run there, whatever the id holds.
func RedisKey(prefix, id string) string {
	return prefix + "{" + strconv.FormatUint(fnv64(id), 36) + "}" + id
}

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

// Ping reports whether the server answers: nil, or an error classified as
// the store's calls are (ErrUnavailable for an unreachable server).
func (r *Redis) Ping(ctx context.Context) error {
	if err := r.check(ctx); err != nil {
		return err
	}
	if err := r.client.Ping(ctx).Err(); err != nil {
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
		r.reloadCluster()
		return &unavailableError{msg: fmt.Sprintf("session store unavailable: redis at %s: %v", r.addr, err), cause: err}
	default:
		return fmt.Errorf("session: redis at %s: %w", r.addr, err)
	}
}

// reloadCluster has a cluster client load the cluster's map again, in
// the background, at most every 200 ms. It reloads on MOVED by itself, but
// keeps dialing a master that died until its minute's reload: a replica
// promoted in its place would get no call for that minute.
func (r *Redis) reloadCluster() {
	if c, ok := r.client.(*redis.ClusterClient); ok {
		c.ReloadState(context.Background())
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
