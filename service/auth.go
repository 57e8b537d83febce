package service

import (
	"context"
	"errors"
	"fmt"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	grpcauth "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
)

// A caller presents a bearer token in the call's metadata; internal/auth
// checks it against the tokens file. A principal's sessions are its own:
// session ids are keyed with the principal (caller.scope).

const principalField = "principal"

// caller is the auth.Caller of a gRPC call, with the server's use of its
// grants.
type caller struct{ *auth.Caller }

type callerKey struct{}

func withCaller(ctx context.Context, c *auth.Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// callerFromContext is the caller of the call ctx belongs to; outside the
// gRPC server, the anonymous caller.
func callerFromContext(ctx context.Context) caller {
	if c, ok := ctx.Value(callerKey{}).(*auth.Caller); ok {
		return caller{c}
	}
	return caller{auth.Anonymous()}
}

// PrincipalFromContext returns the principal of the call ctx belongs to.
func PrincipalFromContext(ctx context.Context) string {
	return callerFromContext(ctx).Principal
}

// scope checks a request against the caller's grants and returns the
// session id as the store keys it. Executing without naming a workspace uses
// the default one. An authenticated caller's key is its principal, a NUL
// byte (which no principal holds) and the id.
func (c caller) scope(sessionID, workspace string, executes bool) (string, error) {
	if workspace == "" && executes {
		workspace = guard.DefaultWorkspaceName
	}
	if workspace != "" && !c.MayUse(workspace) {
		return "", &WorkspaceNotGrantedError{Principal: c.Principal, Workspace: workspace}
	}
	return c.sessionKey(sessionID), nil
}

func (c caller) sessionKey(id string) string {
	return guard.SessionKey(c.Principal, c.Authenticated(), id)
}

// splitSessionKey takes a session key apart for logs.
func splitSessionKey(key string, authenticated bool) (principal, id string) {
	return guard.SplitSessionKey(key, authenticated, auth.AnonymousPrincipal)
}

var errTokenRequired = &auth.Error{Reason: "TOKEN_REQUIRED",
	Message: "this server requires a bearer token: send the metadata \"authorization: Bearer <token>\""}

// WorkspaceNotGrantedError refuses a workspace the principal was not granted
// (PERMISSION_DENIED); whether it exists is not revealed.
type WorkspaceNotGrantedError struct {
	Principal string
	Workspace string
}

func (e *WorkspaceNotGrantedError) Error() string {
	return fmt.Sprintf("principal %q may not use workspace %q", e.Principal, e.Workspace)
}

// authenticator identifies a call's caller by the bearer token in its
// metadata; without a tokens file (nil) every call is let in anonymously.
func authenticator(tokens *auth.Tokens) grpcauth.AuthFunc {
	return func(ctx context.Context) (context.Context, error) {
		c, err := identify(ctx, tokens)
		if err != nil {
			return nil, refusalStatus(err)
		}
		// annotateCall, not logging.InjectFields: the logging interceptor, outside
		// this one, never sees a context derived here.
		annotateCall(ctx, principalField, c.Principal)
		return withCaller(ctx, c), nil
	}
}

func identify(ctx context.Context, tokens *auth.Tokens) (*auth.Caller, error) {
	if tokens == nil {
		return auth.Anonymous(), nil
	}
	token, err := grpcauth.AuthFromMD(ctx, "bearer")
	if err != nil || token == "" {
		return nil, errTokenRequired
	}
	return tokens.Verify(token)
}

// openServices need no token and no rate limit: probes check health, and
// reflection exposes only the public schema.
var openServices = map[string]bool{
	healthpb.Health_ServiceDesc.ServiceName:                    true,
	reflectionv1.ServerReflection_ServiceDesc.ServiceName:      true,
	reflectionv1alpha.ServerReflection_ServiceDesc.ServiceName: true,
}

var guardedCall = selector.MatchFunc(func(_ context.Context, call interceptors.CallMeta) bool {
	return !openServices[call.Service]
})

func authInterceptor(tokens *auth.Tokens) interceptor {
	return interceptor{
		name:   linkAuth,
		unary:  selector.UnaryServerInterceptor(grpcauth.UnaryServerInterceptor(authenticator(tokens)), guardedCall),
		stream: selector.StreamServerInterceptor(grpcauth.StreamServerInterceptor(authenticator(tokens)), guardedCall),
	}
}

// validateAccess checks the authentication and TLS settings, and refuses an
// unauthenticated server beyond loopback unless told to.
func (c Config) validateAccess() []error {
	var errs []error
	if (c.TLSCert == "") != (c.TLSKey == "") {
		errs = append(errs, errors.New("TLS needs both a certificate and its key"))
	}
	if c.TLSClientCA != "" && c.TLSCert == "" {
		errs = append(errs, errors.New("a TLS client CA (mutual TLS) needs the server's own TLS certificate and key"))
	}
	if c.AuthTokensFile == "" && !c.AllowUnauthenticated && c.Listen != "" && !auth.IsLoopback(c.Listen) {
		errs = append(errs, fmt.Errorf("refusing to listen on %s without authentication: it is not a loopback address, so anyone who can reach it could use every workspace; "+
			"set --auth-tokens-file (TOOLGUARD_AUTH_TOKENS_FILE), or --allow-unauthenticated (TOOLGUARD_ALLOW_UNAUTHENTICATED=true) if an unauthenticated server on this address is intended", c.Listen))
	}
	return errs
}

// accessControl decides who may call, over what, and how much: the server
// options (TLS, calls per connection) and the interceptor chain's links.
type accessControl struct {
	options      []grpc.ServerOption
	interceptors []interceptor
	streams      *streamSlots
	// rates is the interceptor's limiter, which streams also charge for
	// each call they complete; nil when off.
	rates *rateLimiter
	// memory is the unary calls' memory budget, for its gauges.
	memory *unaryMemory
}

func newAccessControl(cfg Config) (accessControl, error) {
	workspaces, err := cfg.WorkspaceDirs()
	if err != nil {
		return accessControl{}, err
	}
	authn, err := auth.Load(cfg.AuthTokensFile, workspaces)
	if err != nil {
		return accessControl{}, err
	}
	creds, err := serverCredentials(cfg)
	if err != nil {
		return accessControl{}, err
	}
	opts := []grpc.ServerOption{
		grpc.MaxConcurrentStreams(cfg.MaxConnStreams),
		// TLS or none, then writes gathered (writebatch.go).
		grpc.Creds(batchedWrites(creds)),
	}
	rates := newRateLimiter(cfg.RateLimit, cfg.RateBurst)
	memory := newUnaryMemory(cfg.MaxUnaryMemoryBytes)
	memory.decided = cfg.memoryDecided
	if cfg.memoryWait != 0 {
		memory.maxWait = max(cfg.memoryWait, 0)
	}
	return accessControl{
		options:      opts,
		interceptors: accessInterceptors(authn, rates, memory),
		streams:      newStreamSlots(cfg, authn.Principals()),
		rates:        rates,
		memory:       memory,
	}, nil
}
