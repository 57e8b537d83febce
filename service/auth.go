package service

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/auth"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionv1 "google.golang.org/grpc/reflection/grpc_reflection_v1"
	reflectionv1alpha "google.golang.org/grpc/reflection/grpc_reflection_v1alpha"
	"sigs.k8s.io/yaml"

	"github.com/toolguard/toolguard/guard"
)

// A caller presents a bearer token; the tokens file keeps each token as its
// SHA-256 with the principal it names and the workspaces it may use (see
// docs and tokensFile). Without a tokens file every caller is "anonymous"
// and may use every workspace. A principal's sessions are its own: session
// ids are keyed with the principal (Caller.scope).

// AnonymousPrincipal is every caller's principal without authentication.
const AnonymousPrincipal = "anonymous"

// AllWorkspaces in a token's workspaces grants every workspace.
const AllWorkspaces = "*"

const principalField = "principal"

// maxPrincipalLen bounds a principal, copied into log lines and session keys.
const maxPrincipalLen = 128

// HashToken returns the SHA-256 of a bearer token in lowercase hex, the
// form the tokens file stores.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Caller is who makes a call: its principal and the workspaces it may use.
type Caller struct {
	// Principal is the tokens file's name for the caller's token, or
	// AnonymousPrincipal.
	Principal string
	// authenticated is false for the anonymous caller, whose session ids are
	// used as sent.
	authenticated bool
	all           bool
	workspaces    map[string]bool
}

// anonymousCaller is every caller without authentication, and outside the
// gRPC server.
var anonymousCaller = &Caller{Principal: AnonymousPrincipal, all: true}

type callerKey struct{}

func withCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

func callerFromContext(ctx context.Context) *Caller {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		return c
	}
	return anonymousCaller
}

// PrincipalFromContext returns the principal of the call ctx belongs to.
func PrincipalFromContext(ctx context.Context) string {
	return callerFromContext(ctx).Principal
}

func (c *Caller) mayUse(workspace string) bool {
	return c.all || c.workspaces[workspace]
}

// scope checks a request against the caller's grants and returns the
// session id as the store keys it. Executing without naming a workspace uses
// the default one. An authenticated caller's key is its principal, a NUL
// byte (which no principal holds) and the id.
func (c *Caller) scope(sessionID, workspace string, executes bool) (string, error) {
	if workspace == "" && executes {
		workspace = guard.DefaultWorkspaceName
	}
	if workspace != "" && !c.mayUse(workspace) {
		return "", &WorkspaceNotGrantedError{Principal: c.Principal, Workspace: workspace}
	}
	return c.sessionKey(sessionID), nil
}

func (c *Caller) sessionKey(id string) string {
	return guard.SessionKey(c.Principal, c.authenticated, id)
}

// splitSessionKey takes a session key apart for logs.
func splitSessionKey(key string, authenticated bool) (principal, id string) {
	return guard.SplitSessionKey(key, authenticated, AnonymousPrincipal)
}

// AuthError refuses a call without a valid bearer token (UNAUTHENTICATED).
type AuthError struct {
	Reason  string
	Message string
}

func (e *AuthError) Error() string { return e.Message }

var (
	errTokenRequired = &AuthError{Reason: "TOKEN_REQUIRED",
		Message: "this server requires a bearer token: send the metadata \"authorization: Bearer <token>\""}
	errTokenInvalid = &AuthError{Reason: "TOKEN_INVALID", Message: "the bearer token is not valid on this server"}
)

// WorkspaceNotGrantedError refuses a workspace the principal was not granted
// (PERMISSION_DENIED); whether it exists is not revealed.
type WorkspaceNotGrantedError struct {
	Principal string
	Workspace string
}

func (e *WorkspaceNotGrantedError) Error() string {
	return fmt.Sprintf("principal %q may not use workspace %q", e.Principal, e.Workspace)
}

// authenticator checks bearer tokens; nil lets every call in anonymously.
type authenticator struct {
	tokens []knownToken
}

type knownToken struct {
	hash   [sha256.Size]byte
	caller *Caller
}

// tokensFile is the format of Config.AuthTokensFile:
//
//	tokens:
//	  - principal: orchestrator-a
//	    sha256: 1c59a10a1f6d39e7606603e3958ec12f42fbdbbcf37c45fe9a467904bf6faaac
//	    workspaces: [default, docs]   # or ["*"]
type tokensFile struct {
	Tokens []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Principal  string   `json:"principal"`
	SHA256     string   `json:"sha256"`
	Workspaces []string `json:"workspaces"`
}

// TokenVerifier reads a tokens file as the server does and returns its
// check of a bearer token, for the front ends beside the gRPC server (the
// MCP server over HTTP): the same tokens, the same grants.
func TokenVerifier(path string, workspaces map[string]string) (func(token string) (*Caller, error), error) {
	if path == "" {
		return nil, errors.New("auth tokens file: no path")
	}
	a, err := loadAuthenticator(path, workspaces)
	if err != nil {
		return nil, err
	}
	return a.verify, nil
}

// TokenPrincipals counts the principals a tokens file names, for the front
// ends beside the gRPC server that share a bound among principals as it
// does (the MCP server's sessions).
func TokenPrincipals(path string, workspaces map[string]string) (int, error) {
	a, err := loadAuthenticator(path, workspaces)
	if err != nil {
		return 0, err
	}
	return a.principals(), nil
}

// MayUse reports whether the caller's grants include the workspace.
func (c *Caller) MayUse(workspace string) bool { return c.mayUse(workspace) }

// loadAuthenticator reads the tokens file (nil for an empty path). Every
// grant must name a workspace of the server, so a typo fails at startup.
func loadAuthenticator(path string, workspaces map[string]string) (*authenticator, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth tokens file: %w", err)
	}
	a, err := parseTokens(data, workspaces)
	if err != nil {
		return nil, fmt.Errorf("auth tokens file %s: %w", path, err)
	}
	return a, nil
}

func parseTokens(data []byte, workspaces map[string]string) (*authenticator, error) {
	var f tokensFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, err
	}
	if len(f.Tokens) == 0 {
		return nil, errors.New("no tokens: list at least one, or unset the tokens file to disable authentication")
	}
	a := &authenticator{}
	for i, e := range f.Tokens {
		where := fmt.Sprintf("tokens[%d]", i)
		if err := checkPrincipal(e.Principal); err != nil {
			return nil, fmt.Errorf("%s: principal: %w", where, err)
		}
		raw, err := hex.DecodeString(e.SHA256)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s (%s): sha256 must be the 64 hex digits of the token's SHA-256 (toolguard hash-token prints it), not the token", where, e.Principal)
		}
		c := &Caller{Principal: e.Principal, authenticated: true, workspaces: map[string]bool{}}
		for _, w := range e.Workspaces {
			switch _, ok := workspaces[w]; {
			case w == AllWorkspaces:
				c.all = true
			case ok:
				c.workspaces[w] = true
			default:
				return nil, fmt.Errorf("%s (%s): workspace %q: the server has no such workspace (it has %s)", where, e.Principal, w, strings.Join(slices.Sorted(maps.Keys(workspaces)), ", "))
			}
		}
		t := knownToken{caller: c}
		copy(t.hash[:], raw)
		for j, prev := range a.tokens {
			if prev.hash == t.hash {
				return nil, fmt.Errorf("%s (%s): the same token as tokens[%d] (%s)", where, e.Principal, j, prev.caller.Principal)
			}
		}
		a.tokens = append(a.tokens, t)
	}
	return a, nil
}

// checkPrincipal holds a principal to visible ASCII: it goes into log lines
// and session keys.
func checkPrincipal(p string) error {
	switch {
	case p == "":
		return errors.New("required")
	case len(p) > maxPrincipalLen:
		return fmt.Errorf("%q is longer than %d bytes", p, maxPrincipalLen)
	case !isVisibleASCII(p):
		return fmt.Errorf("%q: only visible ASCII characters, no spaces", p)
	case p == AnonymousPrincipal:
		return fmt.Errorf("%q is reserved for callers when authentication is disabled", p)
	}
	return nil
}

// authenticate identifies the caller by its bearer token.
func (a *authenticator) authenticate(ctx context.Context) (context.Context, error) {
	c, err := a.identify(ctx)
	if err != nil {
		return nil, refusalStatus(err)
	}
	// annotateCall, not logging.InjectFields: the logging interceptor, outside
	// this one, never sees a context derived here.
	annotateCall(ctx, principalField, c.Principal)
	return withCaller(ctx, c), nil
}

// principals counts the tokens file's principals (0 without one).
func (a *authenticator) principals() int {
	if a == nil {
		return 0
	}
	names := map[string]bool{}
	for _, t := range a.tokens {
		names[t.caller.Principal] = true
	}
	return len(names)
}

func (a *authenticator) identify(ctx context.Context) (*Caller, error) {
	if a == nil {
		return anonymousCaller, nil
	}
	token, err := auth.AuthFromMD(ctx, "bearer")
	if err != nil || token == "" {
		return nil, errTokenRequired
	}
	return a.verify(token)
}

// verify finds the caller a bearer token names.
func (a *authenticator) verify(token string) (*Caller, error) {
	sum := sha256.Sum256([]byte(token))
	// Every hash is compared in constant time, so timing says nothing.
	var found *Caller
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.hash[:]) == 1 {
			found = t.caller
		}
	}
	if found == nil {
		return nil, errTokenInvalid
	}
	return found, nil
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

func authInterceptor(a *authenticator) interceptor {
	return interceptor{
		name:   linkAuth,
		unary:  selector.UnaryServerInterceptor(auth.UnaryServerInterceptor(a.authenticate), guardedCall),
		stream: selector.StreamServerInterceptor(auth.StreamServerInterceptor(a.authenticate), guardedCall),
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
	if c.AuthTokensFile == "" && !c.AllowUnauthenticated && c.Listen != "" && !IsLoopback(c.Listen) {
		errs = append(errs, fmt.Errorf("refusing to listen on %s without authentication: it is not a loopback address, so anyone who can reach it could use every workspace; "+
			"set --auth-tokens-file (TOOLGUARD_AUTH_TOKENS_FILE), or --allow-unauthenticated (TOOLGUARD_ALLOW_UNAUTHENTICATED=true) if an unauthenticated server on this address is intended", c.Listen))
	}
	return errs
}

// IsLoopback reports whether a listen address binds loopback only. One that
// does not parse counts as loopback: listening fails with a clearer error.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
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
}

func newAccessControl(cfg Config) (accessControl, error) {
	workspaces, err := cfg.WorkspaceDirs()
	if err != nil {
		return accessControl{}, err
	}
	authn, err := loadAuthenticator(cfg.AuthTokensFile, workspaces)
	if err != nil {
		return accessControl{}, err
	}
	creds, err := serverCredentials(cfg)
	if err != nil {
		return accessControl{}, err
	}
	opts := []grpc.ServerOption{grpc.MaxConcurrentStreams(cfg.MaxConnStreams)}
	if creds != nil {
		opts = append(opts, grpc.Creds(creds))
	}
	rates := newRateLimiter(cfg.RateLimit, cfg.RateBurst)
	return accessControl{
		options:      opts,
		interceptors: accessInterceptors(authn, rates),
		streams:      newStreamSlots(cfg, authn.principals()),
		rates:        rates,
	}, nil
}
