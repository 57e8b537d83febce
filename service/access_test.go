package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.uber.org/zap"
	"google.golang.org/grpc/metadata"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/repair"
)

// Unit tests of the access links, the limits and the JSON pre-scan; the
// refusals over a real server are in auth_test.go, limits_test.go and
// tls_test.go.

// TestAccessChainOrder checks where the server puts the access links: after
// request-id and logging, auth before rate-limit, recovery innermost.
func TestAccessChainOrder(t *testing.T) {
	access, err := newAccessControl(testConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ic := range interceptorChain(zap.NewNop(), access.interceptors...) {
		names = append(names, ic.name)
		if ic.unary == nil || ic.stream == nil {
			t.Errorf("interceptor %q lacks a unary or stream form", ic.name)
		}
	}
	if want := []string{"request-id", "logging", "auth", "rate-limit", "unary-memory", "recovery"}; !slices.Equal(names, want) {
		t.Fatalf("interceptor chain = %v, want %v", names, want)
	}
}

// TestRefusalsAndPrincipalsAreLogged checks that a refused call's access-log
// line carries its request id and code, and an accepted one its principal.
func TestRefusalsAndPrincipalsAreLogged(t *testing.T) {
	cfg := testConfig(t)
	const token = "alice-token-0123456789abcdef0123456789"
	cfg.AuthTokensFile = writeFile(t, "tokens.yaml", "tokens:\n  - principal: alice\n    sha256: "+auth.HashToken(token)+"\n    workspaces: [default]\n")
	ts := startTestServer(t, cfg)
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)

	if _, err := client.ListTools(testContext(t), &toolguardv1.ListToolsRequest{}); err == nil {
		t.Fatal("ListTools without a token succeeded")
	}
	refused := finishedCall(t, ts.logs, "ListTools").ContextMap()
	if refused["grpc.code"] != "Unauthenticated" || refused[requestIDField] == "" || refused[principalField] != nil {
		t.Errorf("refused call logged with %v, want code Unauthenticated, a request id and no principal", refused)
	}

	ctx := metadata.AppendToOutgoingContext(testContext(t), "authorization", "Bearer "+token)
	if _, err := client.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "s"}); err != nil {
		t.Fatal(err)
	}
	if got := finishedCall(t, ts.logs, "GetSession").ContextMap()[principalField]; got != "alice" {
		t.Errorf("accepted call logged with principal %v, want alice", got)
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCallerScope(t *testing.T) {
	alice := caller{auth.NewCaller("alice", "docs")}
	tests := []struct {
		caller    caller
		workspace string
		executes  bool
		wantKey   string
		denied    string
	}{
		{caller: alice, wantKey: "alice\x00s"},
		{caller: alice, workspace: "docs", executes: true, wantKey: "alice\x00s"},
		{caller: alice, executes: true, denied: guard.DefaultWorkspaceName},
		{caller: alice, workspace: "web", denied: "web"},
		{caller: caller{auth.Anonymous()}, workspace: "web", executes: true, wantKey: "s"},
	}
	for _, tt := range tests {
		key, err := tt.caller.scope("s", tt.workspace, tt.executes)
		var ng *WorkspaceNotGrantedError
		switch {
		case tt.denied != "":
			if !errors.As(err, &ng) || ng.Workspace != tt.denied || ng.Principal != tt.caller.Principal {
				t.Errorf("%s %q executes=%v: %v, want workspace %q not granted", tt.caller.Principal, tt.workspace, tt.executes, err, tt.denied)
			}
		case err != nil || key != tt.wantKey:
			t.Errorf("%s %q executes=%v: %q, %v; want %q", tt.caller.Principal, tt.workspace, tt.executes, key, err, tt.wantKey)
		}
	}
	if got := PrincipalFromContext(context.Background()); got != auth.AnonymousPrincipal {
		t.Errorf("principal outside a call = %q", got)
	}
}

func TestRateLimiterPerPrincipal(t *testing.T) {
	if newRateLimiter(0, 10) != nil || newRateLimiter(0, 10).allow("x") != nil {
		t.Fatal("a zero rate limits calls")
	}
	l := newRateLimiter(0.001, 2) // a token every 1000s
	for i := range 2 {
		if err := l.allow("alice"); err != nil {
			t.Fatalf("call %d within the burst: %v", i+1, err)
		}
	}
	var le *LimitError
	if err := l.allow("alice"); !errors.As(err, &le) || le.Reason != "RATE_LIMITED" || le.RetryAfter <= 0 {
		t.Fatalf("call over the burst: %v, want RATE_LIMITED with a retry delay", err)
	}
	if err := l.allow("bob"); err != nil {
		t.Fatalf("another principal: %v", err)
	}
}

func TestStreamSlots(t *testing.T) {
	alice := auth.NewCaller("alice")
	bob := auth.NewCaller("bob")
	slots := newStreamSlots(Config{MaxStreams: 3, MaxStreamsPerPrincipal: 2, AuthTokensFile: "t"}, 2)
	wantReason := func(what string, c *auth.Caller, reason string) {
		t.Helper()
		var le *LimitError
		if _, err := slots.acquire(c); !errors.As(err, &le) || le.Reason != reason {
			t.Fatalf("%s: %v, want %s", what, err, reason)
		}
	}
	var releases []func()
	for range 2 {
		release, err := slots.acquire(alice)
		if err != nil {
			t.Fatal(err)
		}
		releases = append(releases, release)
	}
	wantReason("alice's third stream", alice, "TOO_MANY_STREAMS_FOR_PRINCIPAL")
	if _, err := slots.acquire(bob); err != nil {
		t.Fatalf("bob's first stream: %v", err)
	}
	wantReason("bob's second stream, the server full", bob, "TOO_MANY_STREAMS")
	releases[0]()
	releases[0]() // releasing twice gives back one slot
	if _, err := slots.acquire(bob); err != nil {
		t.Fatalf("bob's second stream after alice released one: %v", err)
	}
	wantReason("bob's third stream", bob, "TOO_MANY_STREAMS_FOR_PRINCIPAL")
	wantReason("alice, the server full again", alice, "TOO_MANY_STREAMS")
	if _, err := slots.acquire(auth.Anonymous()); err == nil {
		t.Fatal("an anonymous stream beyond max streams")
	}
}

func TestStreamShare(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		principals int
		want       int
	}{
		{"no authentication", Config{MaxStreams: 256}, 0, 0},
		{"one principal", Config{MaxStreams: 256}, 1, 0},
		{"two principals", Config{MaxStreams: 256}, 2, 64},
		{"at least one", Config{MaxStreams: 3}, 5, 1},
		{"explicit", Config{MaxStreams: 256, MaxStreamsPerPrincipal: 10}, 1, 10},
		{"explicit above max streams", Config{MaxStreams: 8, MaxStreamsPerPrincipal: 10}, 2, 8},
	}
	for _, tt := range tests {
		if got := streamShare(tt.cfg, tt.principals); got != tt.want {
			t.Errorf("%s: share %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestValidateAccess covers the TLS settings and the exposure check; the
// serve command's side is in cmd/toolguard.
func TestValidateAccess(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{name: "defaults", edit: func(*Config) {}},
		{name: "cert without key", edit: func(c *Config) { c.TLSCert = "c.pem" }, wantErr: "both a certificate and its key"},
		{name: "key without cert", edit: func(c *Config) { c.TLSKey = "k.pem" }, wantErr: "both a certificate and its key"},
		{name: "client CA without cert", edit: func(c *Config) { c.TLSClientCA = "ca.pem" }, wantErr: "needs the server's own TLS certificate"},
		{name: "exposed", edit: func(c *Config) { c.Listen = "0.0.0.0:7700" }, wantErr: "refusing to listen on 0.0.0.0:7700 without authentication"},
		{name: "exposed with tokens", edit: func(c *Config) { c.Listen = "0.0.0.0:7700"; c.AuthTokensFile = "t.yaml" }},
		{name: "exposed on purpose", edit: func(c *Config) { c.Listen = "[::]:7700"; c.AllowUnauthenticated = true }},
		{name: "loopback zone", edit: func(c *Config) { c.Listen = "[::1%lo]:7700" }},
		{name: "negative rate", edit: func(c *Config) { c.RateLimit = -1 }, wantErr: "rate limit"},
		{name: "rate without burst", edit: func(c *Config) { c.RateLimit = 5; c.RateBurst = 0 }, wantErr: "rate burst"},
		{name: "no JSON depth", edit: func(c *Config) { c.MaxJSONDepth = 0 }, wantErr: "JSON depth"},
		{name: "JSON depth the repair reads", edit: func(c *Config) { c.MaxJSONDepth = repair.MaxJSONDepth }},
		{name: "JSON depth past the repair's", edit: func(c *Config) { c.MaxJSONDepth = repair.MaxJSONDepth + 1 }, wantErr: "at most 512"},
		{name: "no streams", edit: func(c *Config) { c.MaxStreams = 0 }, wantErr: "stream limits"},
		{name: "negative stream share", edit: func(c *Config) { c.MaxStreamsPerPrincipal = -1 }, wantErr: "per principal must not be negative"},
		{name: "stream share without tokens", edit: func(c *Config) { c.MaxStreamsPerPrincipal = 8 }, wantErr: "per principal needs a tokens file"},
		{name: "stream share", edit: func(c *Config) { c.MaxStreamsPerPrincipal = 8; c.AuthTokensFile = "t.yaml" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Validate: %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	// New refuses too, so no embedding of the server can skip the check.
	cfg := testConfig(t)
	cfg.Listen = "0.0.0.0:0"
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "--allow-unauthenticated") {
		t.Fatalf("New exposed without authentication: %v", err)
	}
}

// TestVerdictIsLogged checks that a call's access-log line names its tool
// (a bounded label) and its repair and violation codes.
func TestVerdictIsLogged(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)
	tests := []struct {
		name, tool, args string
		want             map[string]any
	}{
		{
			name: "repaired and usable", tool: "write_to_file",
			args: `{"path": "a.txt", "content": "x",}`,
			want: map[string]any{"tool": "write_to_file", "usable": true, "repairs": []any{"JSON_REPAIRED"}},
		},
		{
			name: "missing parameter", tool: "write_to_file", args: `{"path": "a.txt"}`,
			want: map[string]any{"tool": "write_to_file", "usable": false, "violations": []any{"MISSING_REQUIRED"}},
		},
		{
			name: "a model's unknown tool name is not logged as written", tool: "no_such_tool\x1b[2J", args: `{}`,
			want: map[string]any{"tool": "other", "usable": false, "violations": []any{"UNKNOWN_TOOL"}},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := fmt.Sprintf("verdict-%d", i)
			ctx := metadata.AppendToOutgoingContext(testContext(t), requestIDHeader, id)
			_, err := client.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
				Call: &toolguardv1.ToolCall{Name: tt.tool, Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: tt.args}}})
			if err != nil {
				t.Fatal(err)
			}
			var line map[string]any
			for _, e := range ts.logs.FilterMessage("finished call").All() {
				if m := e.ContextMap(); m[requestIDField] == id {
					line = m
				}
			}
			for k, want := range tt.want {
				if got := fmt.Sprint(line[k]); got != fmt.Sprint(want) {
					t.Errorf("log field %s = %s, want %s (line %v)", k, got, fmt.Sprint(want), line)
				}
			}
		})
	}
}
