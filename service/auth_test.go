package service_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// These tests run the server with a tokens file, over a real loopback
// connection: every refusal's code and ErrorInfo reason, and that the
// server goes on serving other callers afterwards.

// principal is a caller of the test server: its token and grants.
type principal struct {
	name       string
	token      string
	workspaces []string
}

var (
	alice = principal{"alice", "alice-token-4f1c2b7e9d0a3856c1e2f3a4b5c6d7e8", []string{"default"}}
	bob   = principal{"bob", "bob-token-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", []string{"docs"}}
	admin = principal{"admin", "admin-token-1122334455667788990011223344", []string{"*"}}
)

// as returns a context whose calls carry p's bearer token.
func as(p principal) context.Context {
	return metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+p.token)
}

// tokensFile writes a tokens file granting each principal its workspaces.
func tokensFile(t *testing.T, ps ...principal) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("tokens:\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "  - principal: %s\n    sha256: %s\n    workspaces: [%q]\n", p.name, auth.HashToken(p.token), strings.Join(p.workspaces, `", "`))
	}
	path := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startAuthenticated starts a server with the workspaces "default" and
// "docs" and the tokens of alice, bob and admin. cfg's other fields apply.
func startAuthenticated(t *testing.T, cfg service.Config) (toolguardv1.ToolGuardServiceClient, *grpc.ClientConn, service.Config) {
	t.Helper()
	cfg.AuthTokensFile = tokensFile(t, alice, bob, admin)
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	cfg.Workspaces = append(cfg.Workspaces, "docs="+t.TempDir())
	conn, got := servicetest.Start(t, cfg)
	return toolguardv1.NewToolGuardServiceClient(conn), conn, got
}

// wantRefusal checks an error's code and ErrorInfo reason and returns its
// status.
func wantRefusal(t *testing.T, what string, err error, code codes.Code, reason string) *status.Status {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != code {
		t.Fatalf("%s: %v, want %v", what, err, code)
	}
	var got string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			got = info.GetReason()
			if info.GetDomain() != service.ErrorDomain {
				t.Errorf("%s: ErrorInfo domain %q", what, info.GetDomain())
			}
		}
	}
	if got != reason {
		t.Fatalf("%s: reason %q, want %q (%v)", what, got, reason, err)
	}
	return st
}

// stillServes checks that p can still call the server.
func stillServes(t *testing.T, c toolguardv1.ToolGuardServiceClient, p principal) {
	t.Helper()
	if _, err := c.GetSession(as(p), &toolguardv1.GetSessionRequest{SessionId: "still-serving"}); err != nil {
		t.Fatalf("%s after the refusal: %v", p.name, err)
	}
}

func writeCall(session, workspace, path string) *toolguardv1.ExecuteWriteRequest {
	return &toolguardv1.ExecuteWriteRequest{
		Context: &toolguardv1.RequestContext{SessionId: session, Workspace: workspace},
		Call:    textCall("Write", fmt.Sprintf(`{"file_path": %q, "content": "hello\n"}`, path)),
	}
}

// streamAs runs a whole stream in ctx (streamRun, with a caller).
func streamAs(ctx context.Context, c toolguardv1.ToolGuardServiceClient, frames ...*toolguardv1.StreamToolCallsRequest) ([]*toolguardv1.StreamToolCallsResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		return nil, err
	}
	for _, f := range frames {
		if err := st.Send(f); err != nil {
			break // the server ended the stream: Recv says why
		}
	}
	_ = st.CloseSend()
	var events []*toolguardv1.StreamToolCallsResponse
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

func TestAuthRefusals(t *testing.T) {
	c, conn, _ := startAuthenticated(t, service.Config{})
	ctx := context.Background()
	tests := []struct {
		name   string
		ctx    context.Context
		reason string
	}{
		{"no token", ctx, "TOKEN_REQUIRED"},
		{"another scheme", metadata.AppendToOutgoingContext(ctx, "authorization", "Basic "+alice.token), "TOKEN_REQUIRED"},
		{"empty bearer", metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "), "TOKEN_REQUIRED"},
		{"wrong token", as(principal{token: "not-a-token-of-this-server-000000000000"}), "TOKEN_INVALID"},
		{"a token's hash as the token", as(principal{token: auth.HashToken(alice.token)}), "TOKEN_INVALID"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.ValidateToolCall(tt.ctx, &toolguardv1.ValidateToolCallRequest{
				Context: &toolguardv1.RequestContext{SessionId: "s"}, Call: textCall("Write", "{}")})
			wantRefusal(t, "ValidateToolCall", err, codes.Unauthenticated, tt.reason)
			_, err = c.ListTools(tt.ctx, &toolguardv1.ListToolsRequest{})
			wantRefusal(t, "ListTools", err, codes.Unauthenticated, tt.reason)
			_, err = streamAs(tt.ctx, c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop"))
			wantRefusal(t, "StreamToolCalls", err, codes.Unauthenticated, tt.reason)
			stillServes(t, c, alice)
		})
	}

	// Health and reflection need no token.
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health without a token: %v, %v", resp, err)
	}
	refl, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := refl.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	if r, err := refl.Recv(); err != nil || len(r.GetListServicesResponse().GetService()) == 0 {
		t.Errorf("reflection without a token: %v, %v", r, err)
	}
	_ = refl.CloseSend()
}

func TestWorkspaceGrants(t *testing.T) {
	c, _, cfg := startAuthenticated(t, service.Config{})

	// ExecuteWrite and ExecuteEdit, in the default workspace (named or not)
	// and in docs.
	refusals := []struct {
		name string
		who  principal
		call func(context.Context) error
		ws   string
	}{
		{"write in the default workspace, unnamed", bob, func(ctx context.Context) error {
			_, err := c.ExecuteWrite(ctx, writeCall("s", "", "a.txt"))
			return err
		}, "default"},
		{"write in the default workspace, named", bob, func(ctx context.Context) error {
			_, err := c.ExecuteWrite(ctx, writeCall("s", "default", "a.txt"))
			return err
		}, "default"},
		{"edit in docs", alice, func(ctx context.Context) error {
			_, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{
				Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "docs"},
				Call:    textCall("Edit", `{"file_path": "a.txt", "old_string": "a", "new_string": "b"}`)})
			return err
		}, "docs"},
		{"a workspace the server does not have", alice, func(ctx context.Context) error {
			_, err := c.ExecuteWrite(ctx, writeCall("s", "nope", "a.txt"))
			return err
		}, "nope"},
		{"validate naming docs", alice, func(ctx context.Context) error {
			_, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{
				Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "docs"}, Call: textCall("Write", "{}")})
			return err
		}, "docs"},
		{"stream executing in the default workspace", bob, func(ctx context.Context) error {
			_, err := streamAs(ctx, c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS,
				&toolguardv1.StreamOptions{ExecuteOnComplete: true}), endFrame("stop"))
			return err
		}, "default"},
		{"stream naming docs", alice, func(ctx context.Context) error {
			start := startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)
			start.GetStart().GetContext().Workspace = "docs"
			_, err := streamAs(ctx, c, start, endFrame("stop"))
			return err
		}, "docs"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			st := wantRefusal(t, tt.name, tt.call(as(tt.who)), codes.PermissionDenied, "WORKSPACE_NOT_GRANTED")
			if !strings.Contains(st.Message(), fmt.Sprintf("%q may not use workspace %q", tt.who.name, tt.ws)) {
				t.Errorf("message %q does not name the principal and workspace", st.Message())
			}
			stillServes(t, c, tt.who)
		})
	}
	if _, err := os.Stat(filepath.Join(cfg.Workspace, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused write wrote the file: %v", err)
	}

	// What each was granted works; a caller of every workspace learns that
	// "nope" does not exist, which the others were not told.
	if r, err := c.ExecuteWrite(as(alice), writeCall("s", "", "a.txt")); err != nil || !r.GetVerdict().GetOk() {
		t.Fatalf("alice writing in default: %v, %v", r, err)
	}
	if r, err := c.ExecuteWrite(as(bob), writeCall("s", "docs", "b.txt")); err != nil || !r.GetVerdict().GetOk() {
		t.Fatalf("bob writing in docs: %v, %v", r, err)
	}
	if _, err := c.ExecuteWrite(as(admin), writeCall("s", "docs", "c.txt")); err != nil {
		t.Fatalf("admin writing in docs: %v", err)
	}
	_, err := c.ExecuteWrite(as(admin), writeCall("s", "nope", "a.txt"))
	wantRefusal(t, "admin in a missing workspace", err, codes.NotFound, "WORKSPACE_NOT_FOUND")
	if got := readFile(t, filepath.Join(cfg.Workspace, "a.txt")); got != "hello\n" {
		t.Errorf("a.txt = %q", got)
	}
	// A stream that executes nothing and names no workspace needs no grant.
	if _, err := streamAs(as(bob), c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop")); err != nil {
		t.Fatalf("bob streaming without executing: %v", err)
	}
}

// TestSessionsArePerPrincipal checks that principals with the same session
// id have separate sessions: one's mistakes are invisible to the other,
// which can neither read nor reset them.
func TestSessionsArePerPrincipal(t *testing.T) {
	c, _, _ := startAuthenticated(t, service.Config{})
	const id = "shared"
	mistake := func(p principal) *toolguardv1.Verdict {
		t.Helper()
		r, err := c.ValidateToolCall(as(p), &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: id}, Call: textCall("Write", `{"file_path": "a.txt"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetVerdict()
	}
	for range 3 {
		mistake(alice)
	}
	get := func(p principal) *toolguardv1.Session {
		t.Helper()
		r, err := c.GetSession(as(p), &toolguardv1.GetSessionRequest{SessionId: id})
		if err != nil {
			t.Fatal(err)
		}
		return r.GetSession()
	}
	if s := get(alice); s.GetMistakes().GetConsecutive() != 3 || !s.GetExists() || s.GetSessionId() != id {
		t.Fatalf("alice's own session: %v", s)
	}
	if s := get(bob); s.GetExists() || s.GetMistakes().GetConsecutive() != 0 || s.GetSessionId() != id {
		t.Fatalf("bob sees %v under alice's session id", s)
	}
	if v := mistake(bob); v.GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("bob's first mistake counted as %d", v.GetMistakes().GetConsecutive())
	}
	r, err := c.ResetSession(as(bob), &toolguardv1.ResetSessionRequest{SessionId: id})
	if err != nil || r.GetSession().GetSessionId() != id {
		t.Fatalf("bob's reset: %v, %v", r, err)
	}
	if s := get(alice); s.GetMistakes().GetConsecutive() != 3 {
		t.Fatalf("bob's reset cleared alice's session: %v", s)
	}
	if v := mistake(alice); v.GetMistakes().GetConsecutive() != 4 || !v.GetMistakes().GetLimitReached() {
		t.Fatalf("alice's fourth mistake: %v", v.GetMistakes())
	}

	// A stream counts in the streaming principal's own session too.
	events, err := streamAs(as(bob), c, append(append([]*toolguardv1.StreamToolCallsRequest{
		startFrame(id, toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)},
		textFrames("<write_to_file><path>a.txt</path></write_to_file>", 10)...), endFrame("stop"))...)
	if err != nil {
		t.Fatal(err)
	}
	if done := events[len(events)-1].GetDone(); done.GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("bob's streamed mistake after his reset: %v", done)
	}
	if s := get(alice); s.GetMistakes().GetConsecutive() != 4 {
		t.Fatalf("bob's stream changed alice's session: %v", s)
	}
}

// TestAuthDisabled checks the server without a tokens file: every caller is
// anonymous, may use every workspace, and token metadata is ignored.
func TestAuthDisabled(t *testing.T) {
	conn, _ := servicetest.Start(t, service.Config{Config: guard.Config{Workspaces: []string{"docs=" + t.TempDir()}}})
	c := toolguardv1.NewToolGuardServiceClient(conn)
	for _, ctx := range []context.Context{context.Background(), as(principal{token: "anything"})} {
		if r, err := c.ExecuteWrite(ctx, writeCall("s", "docs", "a.txt")); err != nil || !r.GetVerdict().GetOk() {
			t.Fatalf("write without authentication: %v, %v", r, err)
		}
	}
	// Anonymous callers share sessions, as before authentication existed.
	if _, err := c.ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: "anon"}, Call: textCall("Write", "{}")}); err != nil {
		t.Fatal(err)
	}
	r, err := c.GetSession(as(principal{token: "other"}), &toolguardv1.GetSessionRequest{SessionId: "anon"})
	if err != nil || r.GetSession().GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("anonymous session: %v, %v", r, err)
	}
}
