package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/redis/go-redis/v9"
)

// RedisHistory is a History in the Redis of the session store, so that
// replicas sharing sessions share their undo. A session's changes are one
// list (each "path\x00json"), its byte count and its dropped paths, all
// expiring TTL after its last change; the total is bounded by the TTL and
// the server's maxmemory, not by HistoryOptions.TotalBytes.
type RedisHistory struct {
	r    *Redis
	opts HistoryOptions
}

var _ History = (*RedisHistory)(nil)

// History returns the undo history kept beside r's sessions.
func (r *Redis) History(opts HistoryOptions) *RedisHistory {
	return &RedisHistory{r: r, opts: opts.withDefaults()}
}

func (h *RedisHistory) keys(session string) []string {
	k := h.r.key(session) + "\x00undo"
	return []string{k, k + ":dropped", k + ":bytes"}
}

// pushScript appends an entry and drops the oldest past the bounds, noting
// why for each path dropped; an entry over the bound drops the path's older
// ones instead (they cannot be undone past it).
var pushScript = redis.NewScript(`
local size, cap, ttl, path, maxn = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4], ARGV[5], tonumber(ARGV[6])
local function pathOf(e) return string.sub(e, 1, string.find(e, "\0", 1, true) - 1) end
if size > cap then
  for _, e in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if pathOf(e) == path then
      redis.call('LREM', KEYS[1], 1, e)
      redis.call('DECRBY', KEYS[3], string.len(e))
    end
  end
  redis.call('HSET', KEYS[2], path, ARGV[7])
else
  redis.call('RPUSH', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], path)
  local bytes = redis.call('INCRBY', KEYS[3], size)
  while bytes > cap or redis.call('LLEN', KEYS[1]) > maxn do
    local e = redis.call('LPOP', KEYS[1])
    if not e then break end
    bytes = redis.call('DECRBY', KEYS[3], string.len(e))
    redis.call('HSET', KEYS[2], pathOf(e), ARGV[8])
  end
end
for i = 1, 3 do redis.call('PEXPIRE', KEYS[i], ttl) end
return 1
`)

var dropScript = redis.NewScript(`
if redis.call('LREM', KEYS[1], 1, ARGV[1]) > 0 then redis.call('DECRBY', KEYS[3], string.len(ARGV[1])) end
return 1
`)

// Push records c, dropping the session's oldest changes past the bounds.
func (h *RedisHistory) Push(ctx context.Context, session string, c Change) error {
	if err := h.r.check(ctx); err != nil {
		return err
	}
	c.At, c.ID = h.opts.Now(), rand.Uint64()
	body, err := json.Marshal(c)
	if err != nil {
		return err
	}
	entry := c.Path + "\x00" + string(body)
	size := int64(len(entry))
	if c.size() > h.opts.SessionBytes {
		size = h.opts.SessionBytes + 1
	}
	err = pushScript.Run(ctx, h.r.client, h.keys(session), entry, size, h.opts.SessionBytes,
		h.opts.TTL.Milliseconds(), c.Path, maxHistoryEntries,
		fmt.Sprintf("the change was larger than the history keeps per session (%d bytes)", h.opts.SessionBytes),
		"evicted: the session's history is full (its oldest changes go first)").Err()
	if err != nil {
		return h.r.fail(ctx, err)
	}
	return nil
}

// Last returns the newest change of path younger than the TTL.
func (h *RedisHistory) Last(ctx context.Context, session, path string) (Change, error) {
	c, _, err := h.find(ctx, session, func(c Change) bool { return c.Path == path })
	if err == nil || !errors.Is(err, ErrNoHistory) {
		return c, err
	}
	keys := h.keys(session)
	why, herr := h.r.client.HGet(ctx, keys[1], path).Result()
	switch {
	case errors.Is(herr, redis.Nil):
		return Change{}, err
	case herr != nil:
		return Change{}, h.r.fail(ctx, herr)
	}
	return Change{}, fmt.Errorf("%w: %s", ErrForgotten, why)
}

func (h *RedisHistory) find(ctx context.Context, session string, match func(Change) bool) (Change, string, error) {
	if err := h.r.check(ctx); err != nil {
		return Change{}, "", err
	}
	all, err := h.r.client.LRange(ctx, h.keys(session)[0], 0, -1).Result()
	if err != nil {
		return Change{}, "", h.r.fail(ctx, err)
	}
	cut := h.opts.Now().Add(-h.opts.TTL)
	for i := len(all) - 1; i >= 0; i-- {
		_, body, ok := strings.Cut(all[i], "\x00")
		var c Change
		if !ok || json.Unmarshal([]byte(body), &c) != nil || !match(c) {
			continue
		}
		if c.At.Before(cut) {
			return Change{}, "", fmt.Errorf("%w: expired: changes are kept for %s", ErrForgotten, h.opts.TTL)
		}
		return c, all[i], nil
	}
	return Change{}, "", ErrNoHistory
}

// Drop removes c, once undone.
func (h *RedisHistory) Drop(ctx context.Context, session string, c Change) error {
	_, raw, err := h.find(ctx, session, func(o Change) bool { return o.ID == c.ID })
	if err != nil {
		return nil // gone already
	}
	if err := dropScript.Run(ctx, h.r.client, h.keys(session), raw).Err(); err != nil {
		return h.r.fail(ctx, err)
	}
	return nil
}

// Close leaves the client to the store.
func (h *RedisHistory) Close() error { return nil }
