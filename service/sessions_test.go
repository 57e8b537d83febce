package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/internal/logthrottle"
	"github.com/toolguard/toolguard/session/redistest"
)

// redisConfig is a test configuration on the redis store at srv.
func redisConfig(t *testing.T, srv *redistest.Server) Config {
	cfg := testConfig(t)
	cfg.SessionStore, cfg.RedisURL, cfg.RedisKeyPrefix = guard.SessionStoreRedis, srv.URL(), "svc:"+t.Name()+":"
	cfg.RedisTimeout = 5 * time.Second // not a test of outages: room for a loaded machine
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

// TestRedisUnreachableAtStartup: the server starts without its store,
// degraded: it says so loudly, its session store health service is
// NOT_SERVING while the server stays SERVING, and calls are answered
// uncounted. Once Redis answers, the health turns SERVING and counting
// resumes.
func TestRedisUnreachableAtStartup(t *testing.T) {
	t.Parallel()
	const secret = "start-pw"
	rds := redistest.Start(t, redistest.Options{Password: secret})
	rds.Stop()
	cfg := redisConfig(t, rds)
	ts := startTestServer(t, cfg)
	ctx := context.Background()
	loud := ts.logs.FilterMessageSnippet("session store unreachable at start").All()
	if len(loud) != 1 || loud[0].Level != zapcore.ErrorLevel || loud[0].ContextMap()["redis_addr"] != rds.Addr() {
		t.Fatalf("start log %v: want one error naming %s", loud, rds.Addr())
	}
	hc := healthpb.NewHealthClient(ts.conn)
	status := func(service string) healthpb.HealthCheckResponse_ServingStatus {
		t.Helper()
		r, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatalf("health %q: %v", service, err)
		}
		return r.GetStatus()
	}
	if got := status(SessionStoreHealthService); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("store health while Redis is away = %v", got)
	}
	if got := status(""); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("server health while Redis is away = %v", got)
	}
	c := toolguardv1.NewToolGuardServiceClient(ts.conn)
	write := func() *toolguardv1.MistakeState {
		t.Helper()
		wr, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
			Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path":"a.txt"}`}}})
		if err != nil {
			t.Fatalf("ExecuteWrite: %v", err)
		}
		return wr.GetVerdict().GetMistakes()
	}
	if m := write(); !m.GetNotCounted() {
		t.Fatalf("a call while Redis is away: %v, want not counted", m)
	}

	rds.Restart()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: a loaded machine can be slow to reconnect
	for status(SessionStoreHealthService) != healthpb.HealthCheckResponse_SERVING {
		if time.Now().After(deadline) {
			t.Fatal("store health not SERVING 2 minutes after Redis came back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if m := write(); m.GetNotCounted() || m.GetConsecutive() != 1 {
		t.Fatalf("a call once Redis answers: %v, want counted", m)
	}
	if ts.logs.FilterMessage("session store reachable again: counting resumes").Len() != 1 {
		t.Error("no log of the store coming back")
	}
	noSecretLogged(t, ts.logs, secret)
}

// TestRedisOutage stops Redis under a serving server: calls keep getting
// verdicts (and writes keep happening), marked not_counted; GetSession and
// ResetSession are UNAVAILABLE with reason SESSION_STORE_UNAVAILABLE; the
// server stays SERVING; the warnings are rate-limited and never show the
// password. Once Redis is back on the same port, counting resumes.
func TestRedisOutage(t *testing.T) {
	t.Parallel()
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
	deadline := time.Now().Add(2 * time.Minute) // a hang guard: a loaded machine can be slow to reconnect
	var m *toolguardv1.MistakeState
	for {
		if m = validateBad().GetMistakes(); !m.GetNotCounted() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("calls still not counted 2 minutes after Redis came back")
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

// hasNUL reports whether a log entry shows a NUL byte anywhere, raw or
// escaped.
func hasNUL(e observer.LoggedEntry) bool {
	s := fmt.Sprint(e.Message, e.ContextMap())
	return strings.Contains(s, "\x00") || strings.Contains(s, `\x00`) || strings.Contains(s, `\u0000`)
}

// TestSessionStoreOutageLogs sends a burst of GetSession and ResetSession
// calls, and counted calls, to a server with authentication whose Redis is
// down: each call has its access-log line, below warning level; the
// warnings are throttled and name the principal and the session apart,
// never the store's key, which joins them with a NUL byte.
func TestSessionStoreOutageLogs(t *testing.T) {
	t.Parallel()
	rds := redistest.Start(t)
	cfg := redisConfig(t, rds)
	const token = "alice-token-0123456789abcdef0123456789"
	cfg.AuthTokensFile = writeFile(t, "tokens.yaml", "tokens:\n  - principal: alice\n    sha256: "+auth.HashToken(token)+"\n    workspaces: [default]\n")
	ts := startTestServer(t, cfg)
	c := toolguardv1.NewToolGuardServiceClient(ts.conn)
	// A bound to detect a hang, generous for a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	rds.Stop()

	calls := []struct {
		method, warning string
		call            func(i int) error
	}{
		{"GetSession", "session store unreachable: call failed", func(i int) error {
			_, err := c.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: fmt.Sprint("get-", i)})
			return err
		}},
		{"ResetSession", "session store unreachable: call failed", func(i int) error {
			_, err := c.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: fmt.Sprint("reset-", i)})
			return err
		}},
		{"ValidateToolCall", "session store unreachable: call not counted", func(i int) error {
			_, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: fmt.Sprint("validate-", i)},
				Call: &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"path":"a.py"}`}}})
			return err
		}},
	}
	for _, tt := range calls {
		t.Run(tt.method, func(t *testing.T) {
			// GetSession and ResetSession share their warning: let the last
			// interval pass.
			time.Sleep(logthrottle.Every)
			const burst, workers = 1000, 8
			start := time.Now()
			var wg sync.WaitGroup
			errs := make(chan error, burst)
			for w := range workers {
				wg.Go(func() {
					for i := w; i < burst; i += workers {
						errs <- tt.call(i)
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			close(errs)
			for err := range errs {
				if tt.method == "ValidateToolCall" && err != nil || tt.method != "ValidateToolCall" && status.Code(err) != codes.Unavailable {
					t.Fatalf("call during the outage: %v", err)
				}
			}

			var access, warned int
			for _, e := range ts.logs.All() {
				if hasNUL(e) {
					t.Fatalf("log entry %q %v shows a NUL byte", e.Message, e.ContextMap())
				}
				fields := e.ContextMap()
				if e.Message == "finished call" && fields["grpc.method"] == tt.method {
					access++
					if e.Level >= zapcore.WarnLevel {
						t.Fatalf("access-log line at %v: %v", e.Level, fields)
					}
				}
				if e.Message == tt.warning {
					warned++
					if id, _ := fields[sessionIDField].(string); fields[principalField] != "alice" || !strings.HasPrefix(id, strings.ToLower(tt.method[:3])) && !strings.HasPrefix(id, "validate-") {
						t.Fatalf("warning %v: want principal alice and the session id apart", fields)
					}
				}
			}
			if access != burst {
				t.Errorf("%d access-log lines for %d calls", access, burst)
			}
			// The first warning comes at once, then one per interval at most.
			if limit := 1 + int(elapsed/logthrottle.Every); warned == 0 || warned > limit {
				t.Errorf("%d warnings for %d calls in %v: want between 1 and %d", warned, burst, elapsed, limit)
			}
			t.Logf("%d calls in %v: %d warning lines", burst, elapsed, warned)
			ts.logs.TakeAll()
		})
	}
}
