package session_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// The Redis store's tests run against a real redis-server that they start
// (see redistest); without one they fail.

// fakeNow is a goroutine-safe manual clock shared by the stores a test
// compares, so that their LastSeen agree to the nanosecond.
type fakeNow struct{ ns atomic.Int64 }

func newFakeNow() *fakeNow {
	c := &fakeNow{}
	c.ns.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	return c
}

func (c *fakeNow) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *fakeNow) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// newRedis opens a store on srv, closed when the test ends. A fresh key
// prefix per test keeps tests that share a server apart.
// loadedTimeout replaces the 250 ms default in tests that are not about
// outages: a loaded machine running the race detector can take longer.
const loadedTimeout = 5 * time.Second

func newRedis(t testing.TB, srv *redistest.Server, opts session.RedisOptions) *session.Redis {
	t.Helper()
	opts.URL = srv.URL()
	// The 250 ms default is for production; on a loaded machine under the
	// race detector a healthy Redis can take longer, and a test about
	// counting must not fail on it. Tests about timeouts set their own.
	if opts.ReadTimeout == 0 {
		opts.ReadTimeout = loadedTimeout
	}
	if opts.WriteTimeout == 0 {
		opts.WriteTimeout = loadedTimeout
	}
	if opts.KeyPrefix == "" {
		opts.KeyPrefix = "test:" + t.Name() + ":"
	}
	r, err := session.NewRedis(context.Background(), opts)
	if err != nil {
		t.Fatalf("NewRedis: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

// rawClient is a plain client on srv, to look at and tamper with the keys.
func rawClient(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func same(a, b session.State) bool {
	return a.Consecutive == b.Consecutive && a.Repeats == b.Repeats && a.Repeated == b.Repeated &&
		a.SameTurn == b.SameTurn && a.Exists == b.Exists && a.LastSeen.Equal(b.LastSeen)
}

// op is one step of an equivalence sequence.
type op struct {
	kind   byte // 'r' Record, 'g' Get, 'x' Reset
	id     string
	usable bool
	fp     uint64
	exec   bool
	call   string
}

func rec(usable bool, fp uint64) op { return op{kind: 'r', id: "s", usable: usable, fp: fp} }

// val and exe record a validation and an execution carrying a call id.
func val(usable bool, fp uint64, call string) op {
	return op{kind: 'r', id: "s", usable: usable, fp: fp, call: call}
}

func exe(usable bool, fp uint64, call string) op {
	return op{kind: 'r', id: "s", usable: usable, fp: fp, exec: true, call: call}
}

var (
	get   = op{kind: 'g', id: "s"}
	reset = op{kind: 'x', id: "s"}
)

// TestRedisMatchesMemory runs the same sequences of outcomes against the
// Memory and Redis stores and compares every state they return, step by
// step: the Lua script and Memory.Record must apply one rule.
func TestRedisMatchesMemory(t *testing.T) {
	srv := redistest.Start(t)
	tests := []struct {
		name  string
		limit uint32
		ops   []op
	}{
		{"mistakes count and a usable call resets", 0, []op{
			rec(false, 1), rec(false, 2), rec(false, 3), get, rec(true, 4), rec(false, 5), rec(true, 6), get,
		}},
		{"third identical call is repeated even when usable", 0, []op{
			rec(true, 7), rec(true, 7), rec(true, 7), get, rec(true, 7), rec(true, 8), get,
		}},
		{"a different call breaks the run", 0, []op{
			rec(true, 7), rec(true, 7), rec(true, 8), rec(true, 7), rec(true, 7), rec(true, 7),
		}},
		{"fingerprint zero never repeats", 0, []op{
			rec(true, 0), rec(true, 0), rec(true, 0), rec(false, 0), rec(false, 0), get,
		}},
		{"fingerprint zero breaks a run", 0, []op{
			rec(true, 5), rec(true, 5), rec(true, 0), rec(true, 5), rec(true, 5),
		}},
		{"identical unusable calls count once each", 0, []op{
			rec(false, 9), rec(false, 9), rec(false, 9), rec(true, 9), rec(true, 10),
		}},
		{"largest fingerprints compare exactly", 0, []op{
			rec(true, math.MaxUint64), rec(true, math.MaxUint64), rec(true, math.MaxUint64-1), rec(true, math.MaxUint64-1),
			rec(true, 1<<53), rec(true, 1<<53+1), rec(true, 1<<53+1), rec(true, 1<<53+1),
		}},
		{"reset forgets, and the next call starts afresh", 0, []op{
			rec(false, 1), rec(false, 1), reset, get, rec(false, 1), rec(false, 1), rec(false, 1), reset, reset, rec(true, 1),
		}},
		{"unknown session reads as absent", 0, []op{get, reset, get}},
		{"repeat limit 2", 2, []op{rec(true, 1), rec(true, 1), rec(true, 2), rec(false, 2), rec(false, 2)}},
		{"repeat limit 1 makes every call repeated", 1, []op{rec(true, 1), rec(true, 0), rec(true, 2), get, reset, rec(true, 3)}},
		{"validate then execute is one turn", 0, []op{
			val(true, 7, ""), get, exe(true, 7, ""), get, val(true, 7, ""), exe(true, 7, ""), val(true, 7, ""), get, exe(true, 7, ""), get,
		}},
		{"a failing turn is one mistake", 0, []op{
			val(false, 7, ""), exe(false, 7, ""), get, val(false, 7, ""), exe(false, 7, ""), exe(false, 7, ""), get,
		}},
		{"a usable validation whose execution fails", 0, []op{
			val(false, 1, ""), val(false, 2, ""), val(true, 3, ""), get, exe(false, 3, ""), get, val(true, 4, ""), exe(true, 4, ""),
		}},
		{"a failed validation whose execution succeeds", 0, []op{
			val(false, 5, ""), val(false, 6, ""), exe(true, 6, ""), get,
		}},
		{"executions alone are a turn each", 0, []op{exe(true, 7, ""), exe(true, 7, ""), exe(false, 7, ""), get}},
		{"other calls do not join the turn", 0, []op{
			val(false, 7, ""), exe(true, 8, ""), val(true, 7, ""), val(false, 9, ""), get, exe(true, 7, ""), get,
		}},
		{"call ids decide when both have one", 0, []op{
			val(false, 7, "call_1"), exe(true, 8, "call_1"), val(true, 7, "call_1"), exe(true, 7, "call_2"),
			val(true, 7, "call_3"), exe(true, 7, ""), val(false, 0, ""), exe(false, 0, ""), val(false, 0, "c"), exe(false, 0, "c"),
		}},
		{"parallel calls, a read between", 0, []op{val(false, 7, "a"), val(false, 8, "b"), val(true, 5, ""), exe(false, 7, "a"), exe(false, 8, "b"), get,
			exe(false, 8, "b"), val(false, 7, ""), val(false, 8, ""), exe(false, 8, ""), exe(true, 7, ""), get}},
		{"reset closes the open turn", 0, []op{val(false, 7, ""), reset, exe(false, 7, ""), get}},
		{"a repeated turn stays repeated", 2, []op{val(true, 7, ""), exe(true, 7, ""), val(true, 7, ""), exe(true, 7, ""), get, val(true, 8, "")}},
	}
	// A longer random walk over a few sessions and fingerprints, so that
	// runs, resets and interleaved sessions meet in every order.
	rng := rand.New(rand.NewPCG(1, 2))
	var walk []op
	for range 3000 {
		o := op{id: fmt.Sprint("w", rng.IntN(4))}
		switch r := rng.IntN(10); {
		case r < 7:
			o.kind, o.usable, o.fp = 'r', rng.IntN(3) > 0, uint64(rng.IntN(3))
			o.exec = rng.IntN(2) == 0
			if c := rng.IntN(4); c > 0 {
				o.call = fmt.Sprint("call_", c)
			}
		case r < 9:
			o.kind = 'g'
		default:
			o.kind = 'x'
		}
		walk = append(walk, o)
	}
	tests = append(tests, struct {
		name  string
		limit uint32
		ops   []op
	}{"random walk", 0, walk})

	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newFakeNow()
			mem := session.NewMemory(session.MemoryOptions{RepeatLimit: tt.limit, Now: clk.Now})
			t.Cleanup(func() { _ = mem.Close() })
			red := newRedis(t, srv, session.RedisOptions{RepeatLimit: tt.limit, Now: clk.Now})
			stores := []session.Store{mem, red}
			for i, o := range tt.ops {
				// Under the hour-long TTL neither store expires anything.
				clk.Advance(time.Millisecond)
				var got [2]session.State
				for j, s := range stores {
					var err error
					switch o.kind {
					case 'r':
						got[j], err = s.Record(ctx, o.id, session.Outcome{Usable: o.usable, Fingerprint: o.fp, CallID: o.call, Execution: o.exec})
					case 'g':
						got[j], err = s.Get(ctx, o.id)
					case 'x':
						err = s.Reset(ctx, o.id)
					}
					if err != nil {
						t.Fatalf("step %d %+v: store %d: %v", i, o, j, err)
					}
				}
				if !same(got[0], got[1]) {
					t.Fatalf("step %d %c(%s, usable=%v, fp=%d, exec=%v, call=%q): Memory %+v, Redis %+v", i, o.kind, o.id, o.usable, o.fp, o.exec, o.call, got[0], got[1])
				}
				if o.kind == 'r' {
					// What Record returned is what Get reads back.
					want := got[1]
					want.SameTurn = false
					if back, err := red.Get(ctx, o.id); err != nil || !same(back, want) {
						t.Fatalf("step %d: Redis Get = %+v, %v; Record returned %+v", i, back, err, got[1])
					}
				}
			}
		})
	}
}

func TestRedisRecordGetReset(t *testing.T) {
	srv := redistest.Start(t)
	raw := rawClient(t, srv)
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "tg:"})

	if st, err := r.Get(ctx, "a"); err != nil || st != (session.State{}) {
		t.Fatalf("Get unknown = %+v, %v; want zero State", st, err)
	}
	before := time.Now()
	for _, id := range []string{"a", "b", ""} {
		for range 2 {
			if _, err := r.Record(ctx, id, session.Outcome{Fingerprint: 1}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := r.Get(ctx, "a")
	if err != nil || !st.Exists || st.Consecutive != 2 || st.Repeats != 2 || st.Repeated {
		t.Fatalf("Get = %+v, %v; want 2 mistakes in a run of 2", st, err)
	}
	if st.LastSeen.Before(before.Add(-time.Second)) || st.LastSeen.After(time.Now().Add(time.Second)) {
		t.Fatalf("LastSeen %v is not about now", st.LastSeen)
	}
	// One hash per session, under the prefix.
	h, err := raw.HGetAll(ctx, session.RedisKey("tg:", "a")).Result()
	if err != nil || h["consecutive"] != "2" || h["repeats"] != "2" || h["fingerprint"] != "1" || h["last_seen"] == "" {
		t.Fatalf("key tg:a = %v, %v", h, err)
	}
	if n, _ := raw.Exists(ctx, session.RedisKey("tg:", "b"), session.RedisKey("tg:", "")).Result(); n != 2 {
		t.Fatalf("keys tg:b and tg: exist: %d, want 2", n)
	}

	if err := r.Reset(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if st, _ := r.Get(ctx, "a"); st != (session.State{}) {
		t.Fatalf("Get after Reset = %+v, want zero State", st)
	}
	if err := r.Reset(ctx, "a"); err != nil {
		t.Fatalf("Reset unknown: %v", err)
	}
	for _, id := range []string{"b", ""} {
		if st, _ := r.Get(ctx, id); !st.Exists || st.Consecutive != 2 {
			t.Fatalf("Get(%q) = %+v; Reset of another session disturbed it", id, st)
		}
	}
	if st, _ := r.Record(ctx, "a", session.Outcome{Fingerprint: 1}); st.Consecutive != 1 || st.Repeats != 1 {
		t.Fatalf("Record after Reset = %+v, want a fresh session", st)
	}

	// Another prefix is another set of sessions; the same prefix, on another
	// client, is the same set.
	other := newRedis(t, srv, session.RedisOptions{KeyPrefix: "other:"})
	if st, _ := other.Get(ctx, "b"); st.Exists {
		t.Fatalf("prefix other: sees session b: %+v", st)
	}
	twin := newRedis(t, srv, session.RedisOptions{KeyPrefix: "tg:"})
	if st, _ := twin.Get(ctx, "b"); !st.Exists || st.Consecutive != 2 {
		t.Fatalf("a second client with prefix tg: reads b as %+v", st)
	}
}

func TestRedisDefaultKeyPrefix(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL(), ReadTimeout: loadedTimeout, WriteTimeout: loadedTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Record(ctx, "x", session.Outcome{}); err != nil {
		t.Fatal(err)
	}
	if n, _ := rawClient(t, srv).Exists(ctx, session.RedisKey(session.DefaultRedisKeyPrefix, "x")).Result(); n != 1 {
		t.Fatalf("no key %q", session.RedisKey(session.DefaultRedisKeyPrefix, "x"))
	}
}

// TestRedisTTL checks that every Record sets the key's expiry to the TTL,
// that Get leaves it alone (only Record makes a session recent), and that an
// expired session reads as absent and starts afresh.
func TestRedisTTL(t *testing.T) {
	srv := redistest.Start(t)
	raw := rawClient(t, srv)
	ctx := context.Background()

	t.Run("every write sets the expiry", func(t *testing.T) {
		r := newRedis(t, srv, session.RedisOptions{TTL: time.Hour, KeyPrefix: "ttl:"})
		if _, err := r.Record(ctx, "s", session.Outcome{}); err != nil {
			t.Fatal(err)
		}
		if d, _ := raw.PTTL(ctx, session.RedisKey("ttl:", "s")).Result(); d <= 59*time.Minute || d > time.Hour {
			t.Fatalf("PTTL after Record = %v, want about an hour", d)
		}
		// Shorten it by hand: Get must not extend it, Record must.
		raw.PExpire(ctx, session.RedisKey("ttl:", "s"), time.Minute)
		if _, err := r.Get(ctx, "s"); err != nil {
			t.Fatal(err)
		}
		if d, _ := raw.PTTL(ctx, session.RedisKey("ttl:", "s")).Result(); d > time.Minute {
			t.Fatalf("PTTL after Get = %v: Get extended the session", d)
		}
		if _, err := r.Record(ctx, "s", session.Outcome{Usable: true}); err != nil {
			t.Fatal(err)
		}
		if d, _ := raw.PTTL(ctx, session.RedisKey("ttl:", "s")).Result(); d <= 59*time.Minute {
			t.Fatalf("PTTL after a second Record = %v, want about an hour again", d)
		}
	})

	t.Run("an idle session expires", func(t *testing.T) {
		const ttl = 200 * time.Millisecond
		r := newRedis(t, srv, session.RedisOptions{TTL: ttl, KeyPrefix: "exp:"})
		for range 2 {
			if _, err := r.Record(ctx, "s", session.Outcome{Fingerprint: 1}); err != nil {
				t.Fatal(err)
			}
		}
		// A machine busy for longer than the TTL finds the key expired
		// already (-2): that too shows a TTL no longer than ttl was set.
		if d, _ := raw.PTTL(ctx, session.RedisKey("exp:", "s")).Result(); d != -2 && (d <= 0 || d > ttl) {
			t.Fatalf("PTTL = %v, want in (0, %v], or expired", d, ttl)
		}
		// Wait for Redis to expire it; the bound only keeps a broken
		// store from hanging the test.
		deadline := time.Now().Add(2 * time.Minute)
		for {
			st, err := r.Get(ctx, "s")
			if err != nil {
				t.Fatal(err)
			}
			if !st.Exists {
				if st != (session.State{}) {
					t.Fatalf("expired session reads as %+v, want the zero State", st)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("session still there long after its %v TTL: %+v", ttl, st)
			}
			time.Sleep(ttl / 4)
		}
		st, err := r.Record(ctx, "s", session.Outcome{Fingerprint: 1})
		if err != nil || st.Consecutive != 1 || st.Repeats != 1 {
			t.Fatalf("Record after expiry = %+v, %v; want a fresh session", st, err)
		}
	})
}

// TestRedisConcurrentRecords records from many goroutines on two stores
// (two replicas) into the same sessions: Record must be atomic for no call
// to be lost or counted twice.
func TestRedisConcurrentRecords(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	replicas := []*session.Redis{
		newRedis(t, srv, session.RedisOptions{KeyPrefix: "conc:"}),
		newRedis(t, srv, session.RedisOptions{KeyPrefix: "conc:"}),
	}
	const (
		goroutines = 8 // per replica
		calls      = 200
		total      = 2 * goroutines * calls
	)
	var wg sync.WaitGroup
	for _, r := range replicas {
		for range goroutines {
			wg.Go(func() {
				for range calls {
					// Every call a mistake: the count is the number of calls.
					if _, err := r.Record(ctx, "mistakes", session.Outcome{}); err != nil {
						t.Error(err)
						return
					}
					// Every call identical and usable: the run is the
					// number of calls, and all but the first two are repeats.
					if _, err := r.Record(ctx, "loop", session.Outcome{Usable: true, Fingerprint: 42}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	wg.Wait()
	if st, err := replicas[0].Get(ctx, "mistakes"); err != nil || st.Consecutive != total {
		t.Fatalf("mistakes: Get = %+v, %v; want Consecutive %d", st, err, total)
	}
	if st, err := replicas[1].Get(ctx, "loop"); err != nil || st.Repeats != total || st.Consecutive != total-2 || !st.Repeated {
		t.Fatalf("loop: Get = %+v, %v; want Repeats %d, Consecutive %d", st, err, total, total-2)
	}
}

func TestRedisCountersSaturate(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "sat:"})
	if _, err := r.Record(ctx, "s", session.Outcome{Fingerprint: 1}); err != nil {
		t.Fatal(err)
	}
	rawClient(t, srv).HSet(ctx, session.RedisKey("sat:", "s"), "consecutive", math.MaxUint32-1, "repeats", math.MaxUint32-1)
	for range 2 {
		st, err := r.Record(ctx, "s", session.Outcome{Usable: true, Fingerprint: 1})
		if err != nil {
			t.Fatal(err)
		}
		if st.Consecutive != math.MaxUint32 || st.Repeats != math.MaxUint32 || !st.Repeated {
			t.Fatalf("Record = %+v, want saturated counters", st)
		}
	}
	if st, _ := r.Get(ctx, "s"); st.Consecutive != math.MaxUint32 || st.Repeats != math.MaxUint32 {
		t.Fatalf("Get = %+v, want saturated counters", st)
	}
}

// TestRedisScriptReload checks the EVALSHA fallback: a server that lost its
// script cache (SCRIPT FLUSH, or a restart) still records.
func TestRedisScriptReload(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "flush:"})
	raw := rawClient(t, srv)
	for i := range 3 {
		if err := raw.ScriptFlush(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		st, err := r.Record(ctx, "s", session.Outcome{})
		if err != nil || st.Consecutive != uint32(i+1) {
			t.Fatalf("Record %d after SCRIPT FLUSH = %+v, %v", i, st, err)
		}
	}
}

func TestRedisForeignKey(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "foreign:"})
	raw := rawClient(t, srv)
	raw.Set(ctx, session.RedisKey("foreign:", "str"), "not a hash", 0)
	raw.HSet(ctx, session.RedisKey("foreign:", "bad"), "consecutive", "x", "repeats", "1", "last_seen", "1")
	if _, err := r.Record(ctx, "str", session.Outcome{}); err == nil || errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Record over a string key: err = %v, want an error that is not ErrUnavailable", err)
	}
	if _, err := r.Get(ctx, "bad"); err == nil || errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Get of a bad hash: err = %v, want an error that is not ErrUnavailable", err)
	}
}

// TestRedisUnavailable stops the server under a store: every method fails
// with ErrUnavailable (never quoting the password), and once the server is
// back on the same port the store works again without being reopened.
func TestRedisUnavailable(t *testing.T) {
	const secret = "s3cret-pw"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "down:"})
	for range 2 {
		if _, err := r.Record(ctx, "s", session.Outcome{}); err != nil {
			t.Fatal(err)
		}
	}

	srv.Stop()
	checkUnavailable := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, session.ErrUnavailable) || errors.Is(err, session.ErrClosed) {
			t.Fatalf("%s with the server stopped: err = %v, want ErrUnavailable", what, err)
		}
		if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), srv.Addr()) {
			t.Fatalf("%s: error %q must name the server and not hold the password", what, err)
		}
	}
	// Several rounds: the first finds the pooled connections dead, later
	// ones fail to dial, and once the pool has seen enough failed dials it
	// fails fast. All of them are ErrUnavailable.
	for range 50 {
		_, err := r.Record(ctx, "s", session.Outcome{})
		checkUnavailable("Record", err)
		_, err = r.Get(ctx, "s")
		checkUnavailable("Get", err)
		checkUnavailable("Reset", r.Reset(ctx, "s"))
	}

	srv.Restart()
	// The pool probes the server about once a second; wait for it. The
	// bound only keeps a broken store from hanging the test.
	var st session.State
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: a loaded machine can be slow to reconnect
	for {
		var err error
		st, err = r.Record(ctx, "s", session.Outcome{})
		if err == nil {
			break
		}
		checkUnavailable("Record while the server comes back", err)
		if time.Now().After(deadline) {
			t.Fatalf("store did not recover after the server restarted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The server came back empty (no persistence): counting starts afresh
	// and goes on.
	if st.Consecutive != 1 {
		t.Fatalf("first Record after the restart = %+v, want Consecutive 1", st)
	}
	if st, err := r.Record(ctx, "s", session.Outcome{}); err != nil || st.Consecutive != 2 {
		t.Fatalf("second Record after the restart = %+v, %v; want Consecutive 2", st, err)
	}
}

// TestRedisStuck freezes the server: replies never come, so each call ends
// at the read timeout with ErrUnavailable; once it runs again, so does the
// store.
func TestRedisStuck(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r := newRedis(t, srv, session.RedisOptions{KeyPrefix: "stuck:", ReadTimeout: 100 * time.Millisecond})
	// The first mistake is counted by a store with room for a loaded
	// machine: only the calls to the frozen server are about the timeout.
	if _, err := newRedis(t, srv, session.RedisOptions{KeyPrefix: "stuck:"}).Record(ctx, "s", session.Outcome{}); err != nil {
		t.Fatal(err)
	}
	srv.Pause()
	_, err := r.Record(ctx, "s", session.Outcome{})
	if !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Record on a frozen server: err = %v, want ErrUnavailable", err)
	}
	if _, err := r.Get(ctx, "s"); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Get on a frozen server: err = %v, want ErrUnavailable", err)
	}
	srv.Resume()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: a loaded machine can be slow to reconnect
	for {
		st, err := r.Get(ctx, "s")
		if err == nil {
			// The timed-out Record may or may not have been applied (its
			// reply was lost, not its request): one or two mistakes.
			if st.Consecutive < 1 || st.Consecutive > 2 {
				t.Fatalf("Get after the server resumed = %+v, want 1 or 2 mistakes", st)
			}
			break
		}
		if !errors.Is(err, session.ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("Get after the server resumed: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestNewRedisErrors(t *testing.T) {
	const secret = "s3cret-pw"
	srv := redistest.Start(t, redistest.Options{Password: secret})
	ctx := context.Background()

	// A port nothing listens on: the server that was there is stopped.
	gone := redistest.Start(t)
	goneAddr := gone.Addr()
	gone.Stop()

	tests := []struct {
		name        string
		url         string
		unavailable bool
		mention     string
	}{
		{"empty", "", false, "URL is required"},
		{"not a URL", "127.0.0.1:6379", false, "invalid Redis URL"},
		{"wrong scheme", "http://u:" + secret + "@127.0.0.1:6379", false, "invalid Redis URL"},
		{"bad port", "redis://u:" + secret + "@127.0.0.1:port", false, "invalid Redis URL"},
		{"bad database", "redis://u:" + secret + "@127.0.0.1:6379/zero", false, "database"},
		{"unreachable", "redis://:" + secret + "@" + goneAddr + "/0", true, "cannot reach redis at " + goneAddr},
		{"wrong password", "redis://:not-" + secret + "@" + srv.Addr() + "/0", true, srv.Addr()},
		{"no password", "redis://" + srv.Addr() + "/0", true, srv.Addr()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := session.NewRedis(ctx, session.RedisOptions{URL: tt.url})
			if err == nil {
				r.Close()
				t.Fatal("NewRedis succeeded")
			}
			if errors.Is(err, session.ErrUnavailable) != tt.unavailable {
				t.Errorf("err = %v: ErrUnavailable %v, want %v", err, !tt.unavailable, tt.unavailable)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("err = %q, want it to mention %q", err, tt.mention)
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("err = %q quotes the password", err)
			}
		})
	}

	// The right password works, and Addr never shows it.
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL(), ReadTimeout: loadedTimeout, WriteTimeout: loadedTimeout})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Addr() != srv.Addr() {
		t.Errorf("Addr = %q, want %q", r.Addr(), srv.Addr())
	}
	if _, err := r.Record(ctx, "s", session.Outcome{}); err != nil {
		t.Fatal(err)
	}
}

func TestRedisClose(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	r, err := session.NewRedis(ctx, session.RedisOptions{URL: srv.URL()})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := r.Record(ctx, "s", session.Outcome{}); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Record after Close: %v", err)
	}
	if _, err := r.Get(ctx, "s"); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	if err := r.Reset(ctx, "s"); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Reset after Close: %v", err)
	}
}

func TestRedisCanceledContext(t *testing.T) {
	srv := redistest.Start(t)
	r := newRedis(t, srv, session.RedisOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Record(ctx, "s", session.Outcome{}); !errors.Is(err, context.Canceled) || errors.Is(err, session.ErrUnavailable) {
		t.Errorf("Record: %v", err)
	}
	if _, err := r.Get(ctx, "s"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get: %v", err)
	}
	if err := r.Reset(ctx, "s"); !errors.Is(err, context.Canceled) {
		t.Errorf("Reset: %v", err)
	}
	if st, err := r.Get(context.Background(), "s"); err != nil || st.Exists {
		t.Errorf("a canceled Record was applied: %+v, %v", st, err)
	}
}
