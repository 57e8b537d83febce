package session

import (
	"context"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RedisReplies is the Replies of a Redis store, shared by the replicas
// that share its sessions: one hash per session, its field per key
// "<expires ms>:<state>:<hash>:<answer>", trimmed to the session's bound
// (expired keys first, then the oldest) by the script that adds a key. A
// claim expires after the lease unless finished: a replica killed while it
// ran the call does not hold its key for the whole TTL.
type RedisReplies struct {
	r    *Redis
	opts ReplyOptions
}

var _ Replies = (*RedisReplies)(nil)

// Replies returns the idempotency answers kept beside r's sessions.
func (r *Redis) Replies(opts ReplyOptions) *RedisReplies {
	return &RedisReplies{r: r, opts: opts.withDefaults()}
}

func (h *RedisReplies) key(session string) string { return h.r.key(session) + "\x00replies" }

// claimScript returns the live entry of ARGV[1], or claims it and trims
// the session's keys to ARGV[5].
var claimScript = redis.NewScript(`
local now, ttl, maxn, lease = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local function expiry(v) return tonumber(string.sub(v, 1, string.find(v, ":", 1, true) - 1)) end
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and expiry(v) > now then return v end
redis.call('HSET', KEYS[1], ARGV[1], (now + math.min(ttl, lease)) .. ':P:' .. ARGV[2] .. ':')
if redis.call('HLEN', KEYS[1]) > maxn then
  local all = redis.call('HGETALL', KEYS[1])
  local live = {}
  for i = 1, #all, 2 do
    local e = expiry(all[i+1])
    if e <= now then redis.call('HDEL', KEYS[1], all[i]) else table.insert(live, {e, all[i]}) end
  end
  table.sort(live, function(a, b) return a[1] < b[1] end)
  for i = 1, #live - maxn do redis.call('HDEL', KEYS[1], live[i][2]) end
end
redis.call('PEXPIRE', KEYS[1], ttl)
return false
`)

// finishScript stores the answer of a key still claimed with the hash.
var finishScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return 0 end
local i = string.find(v, ":", 1, true)
if string.sub(v, i + 1, i + 3 + string.len(ARGV[2])) ~= 'P:' .. ARGV[2] .. ':' then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5] .. ':' .. ARGV[3] .. ':' .. ARGV[2] .. ':' .. ARGV[4])
return 1
`)

// releaseScript removes a key still claimed, without an answer.
var releaseScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if v and string.sub(v, string.find(v, ":", 1, true) + 1, string.find(v, ":", 1, true) + 2) == 'P:' then
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 1
`)

// Claim returns key's stored answer or claims it.
func (h *RedisReplies) Claim(ctx context.Context, session, key, hash string) ([]byte, bool, error) {
	if err := h.r.check(ctx); err != nil {
		return nil, false, err
	}
	v, err := claimScript.Run(ctx, h.r.client, []string{h.key(session)}, key, hash,
		h.opts.Now().UnixMilli(), h.opts.TTL.Milliseconds(), h.opts.SessionEntries, h.opts.Lease.Milliseconds()).Text()
	if err == redis.Nil {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, h.r.fail(ctx, err)
	}
	// "<expires>:<state>:<hash>:<answer>"
	parts := strings.SplitN(v, ":", 4)
	if len(parts) != 4 || len(parts[1]) != 1 {
		return nil, false, h.r.fail(ctx, errBadEntry(v))
	}
	r := reply{hash: parts[2], state: parts[1][0], body: []byte(parts[3])}
	body, err := r.answer(hash)
	return body, err == nil, err
}

type errBadEntry string

func (e errBadEntry) Error() string {
	return "session: malformed idempotency entry of " + strconv.Itoa(len(e)) + " bytes"
}

// Finish stores the answer of a claimed key; one larger than the bound is
// noted as ran but not kept.
func (h *RedisReplies) Finish(ctx context.Context, session, key, hash string, body []byte) error {
	if err := h.r.check(ctx); err != nil {
		return err
	}
	state := string(rune(replyDone))
	if len(body) > h.opts.EntryBytes {
		state, body = string(rune(replyTooBig)), nil
	}
	expires := h.opts.Now().Add(h.opts.TTL).UnixMilli()
	if err := finishScript.Run(ctx, h.r.client, []string{h.key(session)}, key, hash, state, body, expires).Err(); err != nil {
		return h.r.fail(ctx, err)
	}
	return nil
}

// Release frees a claimed key that has no answer.
func (h *RedisReplies) Release(ctx context.Context, session, key string) error {
	if err := h.r.check(ctx); err != nil {
		return err
	}
	if err := releaseScript.Run(ctx, h.r.client, []string{h.key(session)}, key).Err(); err != nil {
		return h.r.fail(ctx, err)
	}
	return nil
}

// Close does nothing: the store owns the connection.
func (h *RedisReplies) Close() error { return nil }
