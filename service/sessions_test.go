package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

func TestValidateSessionStore(t *testing.T) {
	const secret = "hunter2"
	tests := []struct {
		name    string
		edit    func(c *Config)
		wantErr string // "" means valid
	}{
		{"memory by default", func(*Config) {}, ""},
		{"redis with a URL", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@redis:6379/0" }, ""},
		{"rediss", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "rediss://user:"+secret+"@redis.example:6380" }, ""},
		{"redis needs a URL", func(c *Config) { c.SessionStore = "redis" }, "needs a Redis URL"},
		{"a URL needs redis", func(c *Config) { c.RedisURL = "redis://redis:6379" }, "session store is memory"},
		{"unknown store", func(c *Config) { c.SessionStore = "etcd" }, `session store "etcd": want memory or redis`},
		{"bad URL, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "redis://:"+secret+"@redis:port" }, "invalid Redis URL"},
		{"bad scheme, password not quoted", func(c *Config) { c.SessionStore, c.RedisURL = "redis", "http://:"+secret+"@redis:6379" }, "invalid Redis URL"},
		{"empty prefix", func(c *Config) { c.SessionStore, c.RedisURL, c.RedisKeyPrefix = "redis", "redis://redis", "" }, "key prefix"},
		{"timeout", func(c *Config) { c.RedisTimeout = 0 }, "Redis timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := errors.Join(cfg.validateSessionStore()...)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), secret) {
				t.Fatalf("err = %q quotes the password", err)
			}
			// Config.Validate reports it too.
			if verr := cfg.Validate(); verr == nil || !strings.Contains(verr.Error(), tt.wantErr) {
				t.Fatalf("Validate = %v, want it to mention %q", verr, tt.wantErr)
			}
		})
	}
}

// redisConfig is a test configuration on the redis store at srv.
func redisConfig(t *testing.T, srv *redistest.Server) Config {
	cfg := testConfig(t)
	cfg.SessionStore, cfg.RedisURL, cfg.RedisKeyPrefix = SessionStoreRedis, srv.URL(), "svc:"+t.Name()+":"
	return cfg
}

// noSecretLogged fails if any log entry mentions secret, in its message or
// in any field.
func noSecretLogged(t *testing.T, logs *observer.ObservedLogs, secret string) {
	t.Helper()
	for _, e := range logs.All() {
		if strings.Contains(fmt.Sprint(e.Message, e.ContextMap()), secret) {
			t.Fatalf("a log entry holds the Redis password: %s %v", e.Message, e.ContextMap())
		}
	}
}

// TestRedisUnreachableAtStartup: the server does not start without its
// store, and says where it could not reach.
func TestRedisUnreachableAtStartup(t *testing.T) {
	const secret = "start-pw"
	gone := redistest.Start(t)
	gone.Stop()
	cfg := testConfig(t)
	cfg.SessionStore, cfg.RedisURL = SessionStoreRedis, "redis://:"+secret+"@"+gone.Addr()+"/0"
	log, logs := testLogger(t)
	srv, err := New(cfg, log)
	if err == nil {
		_ = srv.Serve(canceledContext(), mustListen(t))
		t.Fatal("New succeeded with Redis down")
	}
	if !errors.Is(err, session.ErrUnavailable) || !strings.Contains(err.Error(), "cannot reach redis at "+gone.Addr()) {
		t.Fatalf("err = %v, want ErrUnavailable naming %s", err, gone.Addr())
	}
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("err = %q quotes the password", err)
	}
	noSecretLogged(t, logs, secret)
}

func mustListen(t *testing.T) net.Listener {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return lis
}

func canceledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// TestRedisOutage stops Redis under a serving server: calls keep getting
// verdicts (and writes keep happening), marked not_counted; GetSession and
// ResetSession are UNAVAILABLE with reason SESSION_STORE_UNAVAILABLE; the
// server stays SERVING; the warnings are rate-limited and never show the
// password. Once Redis is back on the same port, counting resumes.
func TestRedisOutage(t *testing.T) {
	const secret = "outage-pw"
	rds := redistest.Start(t, redistest.Options{Password: secret})
	cfg := redisConfig(t, rds)
	ts := startTestServer(t, cfg)
	c := toolguardv1.NewToolGuardServiceClient(ts.conn)
	ctx := context.Background()
	bad := &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path":"a.py"}`}}
	validateBad := func() *toolguardv1.Verdict {
		t.Helper()
		resp, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s"}, Call: bad})
		if err != nil {
			t.Fatalf("ValidateToolCall: %v", err)
		}
		return resp.GetVerdict()
	}
	var startLog bool
	for _, e := range ts.logs.FilterMessage("session store").All() {
		startLog = startLog || e.ContextMap()["redis_addr"] == rds.Addr()
	}
	if !startLog {
		t.Errorf("no startup log of the session store with redis_addr %s", rds.Addr())
	}
	validateBad()
	if m := validateBad().GetMistakes(); m.GetConsecutive() != 2 || m.GetNotCounted() {
		t.Fatalf("before the outage: %v", m)
	}

	rds.Stop()
	const outageCalls = 20
	for i := range outageCalls {
		v := validateBad()
		m := v.GetMistakes()
		if v.GetOk() || v.GetFeedback() == "" || len(v.GetViolations()) != 1 || v.GetViolations()[0].GetCode() != "MISSING_REQUIRED" {
			t.Fatalf("outage call %d: verdict %v", i, v)
		}
		if !m.GetNotCounted() || m.GetConsecutive() != 0 || m.GetLimit() != 3 || m.GetLimitReached() {
			t.Fatalf("outage call %d: mistakes %v, want not counted", i, m)
		}
	}
	// Execution does not need the store.
	wr, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{
		Context: &toolguardv1.RequestContext{SessionId: "s"},
		Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"file_path":"out.txt","text":"hi"}`}},
	})
	if err != nil || !wr.GetVerdict().GetOk() || !wr.GetVerdict().GetMistakes().GetNotCounted() {
		t.Fatalf("ExecuteWrite during the outage: %v, %v", wr, err)
	}
	if b, err := os.ReadFile(filepath.Join(cfg.Workspace, "out.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	// Reading or resetting the session cannot be answered.
	_, err = c.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "s"})
	checkStoreUnavailable(t, "GetSession", err)
	_, err = c.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: "s"})
	checkStoreUnavailable(t, "ResetSession", err)
	// The replica stays in service: it still answers every call usefully.
	hc, err := healthpb.NewHealthClient(ts.conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || hc.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health during the outage = %v, %v; want SERVING", hc, err)
	}
	warned := ts.logs.FilterMessage("session store unreachable: call not counted")
	if warned.Len() == 0 || warned.Len() >= outageCalls+1 {
		t.Fatalf("%d warnings for %d uncounted calls: want at least one, rate-limited", warned.Len(), outageCalls+1)
	}
	if e := warned.All()[0]; e.Level != zapcore.WarnLevel || e.ContextMap()["session_id"] != "s" {
		t.Fatalf("warning %v %v: want a warning naming the session", e.Level, e.ContextMap())
	}

	rds.Restart()
	deadline := time.Now().Add(30 * time.Second)
	var m *toolguardv1.MistakeState
	for {
		if m = validateBad().GetMistakes(); !m.GetNotCounted() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("calls still not counted 30s after Redis came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Redis came back empty (no persistence here): the count starts afresh.
	if m.GetConsecutive() != 1 {
		t.Fatalf("first counted call after the outage: %v", m)
	}
	if m := validateBad().GetMistakes(); m.GetConsecutive() != 2 || m.GetNotCounted() {
		t.Fatalf("second counted call after the outage: %v", m)
	}
	got, err := c.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "s"})
	if err != nil || got.GetSession().GetMistakes().GetConsecutive() != 2 {
		t.Fatalf("GetSession after the outage = %v, %v", got, err)
	}
	noSecretLogged(t, ts.logs, secret)
}

func checkStoreUnavailable(t *testing.T, what string, err error) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.Unavailable {
		t.Fatalf("%s during the outage: %v, want UNAVAILABLE", what, err)
	}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetReason() == "SESSION_STORE_UNAVAILABLE" && info.GetDomain() == ErrorDomain {
			return
		}
	}
	t.Fatalf("%s during the outage: %v, want ErrorInfo reason SESSION_STORE_UNAVAILABLE", what, st.Details())
}

// TestUncountedLogIsRateLimited: however many calls go uncounted, at most
// one warning per uncountedLogEvery, each saying how many were not logged.
func TestUncountedLogIsRateLimited(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	u := &uncountedLog{log: zap.New(core)}
	cause := fmt.Errorf("%w: boom", session.ErrUnavailable)
	start := time.Now()
	const calls = 10_000
	for i := range calls {
		u.call(fmt.Sprint("s", i), cause)
	}
	elapsed := time.Since(start)
	n := logs.Len()
	if n == 0 || time.Duration(n-1)*uncountedLogEvery > elapsed {
		t.Fatalf("%d warnings in %v: want at most one per %v", n, elapsed, uncountedLogEvery)
	}
	first := logs.All()[0].ContextMap()
	if first["session_id"] != "s0" || first["not_logged_since_last"] != int64(0) {
		t.Fatalf("first warning %v", first)
	}
	// The next warning, once the interval has passed, counts the rest.
	u.mu.Lock()
	u.next = time.Time{}
	u.mu.Unlock()
	u.call("last", cause)
	var skipped int64
	for _, e := range logs.All()[1:] {
		skipped += e.ContextMap()["not_logged_since_last"].(int64)
	}
	if want := int64(calls - n); skipped != want {
		t.Fatalf("warnings account for %d unlogged calls, want %d", skipped, want)
	}
}
