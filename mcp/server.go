// Package mcp is the Model Context Protocol front end: toolguard's file
// tools (the registry's write and edit tools, read_file, and the tools of a
// tools file) served over stdio or streamable HTTP with the official Go SDK.
// Every call goes through the guard exactly as a gRPC call does; a model's
// mistake is a tool result with isError set and the feedback as its text.
package mcp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/internal/logthrottle"
	"github.com/toolguard/toolguard/internal/ratelimit"
	"github.com/toolguard/toolguard/repair"
)

// Options configure a Server.
type Options struct {
	// ModelID selects the tools' parameter names and descriptions by model
	// family, as ListTools does; over HTTP a `model` query parameter of the
	// endpoint's URL overrides it.
	ModelID string
	// Version is the server's version, sent at initialisation.
	Version string
	// Workspaces are the guard's workspaces, name to directory: MCP roots
	// may narrow them to those inside a root, never widen them.
	Workspaces map[string]string
	// Profile names the tools listed: "" or ProfileToolguard for
	// toolguard's own, ProfileFilesystem for the reference file server's
	// (profile_filesystem.go).
	Profile string
	// MaxRequestBytes bounds an HTTP request's body and a stdio message; 0
	// is the SDK's bounds (4 MiB, 16 MiB). A write carries a whole file,
	// JSON-escaped.
	MaxRequestBytes int64
	// Log receives what the clients cannot be told; nil logs nothing.
	Log *zap.Logger
	// Metrics, when set, registers the MCP calls' counter and latency
	// (metrics.go); the guard's Observer counts verdicts and codes.
	Metrics Registerer

	// The streamable HTTP transport's bounds (limits.go); zero values take
	// the defaults.

	// SessionTimeout closes a session that has had no request for so long
	// (the SDK's own idle timer).
	SessionTimeout time.Duration
	// MaxSessions caps the sessions open at once; a new one past it is
	// refused with 503.
	MaxSessions int
	// MaxSessionsPerPrincipal caps one authenticated principal's sessions
	// (429 past it). Zero: a quarter of MaxSessions when Principals is two
	// or more, otherwise no cap beyond MaxSessions.
	MaxSessionsPerPrincipal int
	// Principals is how many principals the tokens file names.
	Principals int
	// RateLimit is the requests per second each principal may sustain
	// (429 past it), RateBurst how many it may make at once; 0: no limit.
	RateLimit float64
	RateBurst int
	// AllowedOrigins are the origins (scheme://host[:port]) whose pages may
	// call the server; loopback pages may on a loopback address. A request
	// without an Origin header (no browser) is not concerned.
	AllowedOrigins []string
	// BodyTimeout bounds the time a request's body may take to arrive.
	BodyTimeout time.Duration
}

// sessionShare is how many sessions one principal may hold (0: no share).
func (o Options) sessionShare(total int) int {
	switch {
	case o.MaxSessionsPerPrincipal > 0:
		return min(o.MaxSessionsPerPrincipal, total)
	case o.Principals >= 2:
		return max(1, total/4)
	}
	return 0
}

// Server serves the guard's tools over MCP. One Server serves any number of
// sessions; each MCP session counts its own mistakes.
type Server struct {
	g    *guard.Guard
	opts Options
	log  *zap.Logger
	// stdioID names the session of a transport without session ids (stdio).
	stdioID string

	mu      sync.Mutex
	servers map[string]*sdk.Server // by model family
	roots   sync.Map               // *sdk.ServerSession -> *rootsEntry

	sessions *sessionSlots // the HTTP handler's

	storeDown *logthrottle.Warning // every call may fail while the store is down
	metrics   *callMetrics
}

// New builds a Server over g.
func New(g *guard.Guard, opts Options) (*Server, error) {
	var b [9]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("mcp: session id: %w", err)
	}
	log := opts.Log
	if log == nil {
		log = zap.NewNop()
	}
	metrics, err := newCallMetrics(opts.Metrics)
	if err != nil {
		return nil, fmt.Errorf("mcp: register metrics: %w", err)
	}
	return &Server{g: g, opts: opts, log: log, stdioID: "stdio-" + hex.EncodeToString(b[:]), servers: map[string]*sdk.Server{},
		storeDown: logthrottle.New(log, "mcp: session store unreachable: call failed"), metrics: metrics}, nil
}

// Connect serves one session on t, for tests and embedders; it returns once
// the session is set up.
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	srv, err := s.server(s.opts.ModelID)
	if err != nil {
		return nil, err
	}
	return srv.Connect(ctx, t, nil)
}

// server returns the SDK server that lists the tools for modelID's family.
func (s *Server) server(modelID string) (*sdk.Server, error) {
	family := repair.FamilyOf(modelID)
	s.mu.Lock()
	defer s.mu.Unlock()
	if srv := s.servers[family]; srv != nil {
		return srv, nil
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "toolguard", Title: "toolguard guarded file tools", Version: s.opts.Version},
		&sdk.ServerOptions{
			Instructions: "File tools confined to the workspace. Read a file with read_file before editing it; " +
				"when a call is refused, its text says what to change.",
			// No logging capability: nothing is logged to the client.
			Capabilities:            &sdk.ServerCapabilities{},
			RootsListChangedHandler: s.rootsChanged, //nolint:staticcheck // SA1019: roots still narrow clients on protocol versions before 2026-07-28
		})
	srv.AddReceivingMiddleware(claimSlot)
	add := s.addTools
	if s.opts.Profile == ProfileFilesystem {
		add = s.addFilesystemTools
	}
	if err := add(srv, modelID, family); err != nil {
		return nil, err
	}
	s.servers[family] = srv
	return srv, nil
}

// addTools lists the registry's executable tools, read_file and the tools
// file's tools, rendered for family.
func (s *Server) addTools(srv *sdk.Server, modelID, family string) error {
	tools := append(s.g.Registry().Tools(), s.g.ReadTool())
	for _, t := range tools {
		action := s.g.ActionOf(t)
		if action == guard.ActionValidate && t.Builtin() {
			continue // todo_write and the like: nothing to do with files
		}
		r := t.Render(family)
		if typ, _ := r.Def.Parameters["type"].(string); typ != "object" {
			// MCP tools take an object of arguments.
			s.log.Warn("mcp: tool not listed: its parameters schema is not an object", zap.String("tool", t.Name()))
			continue
		}
		srv.AddTool(&sdk.Tool{
			Name:        t.Name(),
			Description: r.Def.Description,
			InputSchema: r.Def.Parameters,
			Annotations: annotations(action),
		}, s.handler(t.Name(), action, modelID))
	}
	return nil
}

func annotations(a guard.Action) *sdk.ToolAnnotations {
	no, yes := false, true
	switch a {
	case guard.ActionRead, guard.ActionLook, guard.ActionValidate:
		return &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	case guard.ActionWrite:
		return &sdk.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}
	}
	return &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &no}
}

// HTTPHandler serves streamable HTTP. Each request's `model` query
// parameter picks the tools' family; verify, when set, authenticates every
// request by its bearer token (internal/auth). The Options' HTTP bounds apply
// (limits.go): origin, then token, rate, sessions, and the SDK.
func (s *Server) HTTPHandler(verify auth.Verifier) (http.Handler, error) {
	if _, err := s.server(s.opts.ModelID); err != nil {
		return nil, err
	}
	origins, err := newOriginChecker(s.opts.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	o := s.opts
	timeout := cmp.Or(o.SessionTimeout, DefaultSessionTimeout)
	maxSessions := cmp.Or(o.MaxSessions, DefaultMaxSessions)
	s.sessions = newSessionSlots(maxSessions, o.sessionShare(maxSessions))
	sdkHandler := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		model := s.opts.ModelID
		if m := r.URL.Query().Get("model"); m != "" {
			model = m
		}
		srv, err := s.server(model)
		if err != nil {
			s.log.Error("mcp: tools", zap.Error(err))
			return nil
		}
		return srv
	}, &sdk.StreamableHTTPOptions{PropagateRequestCancellation: true, MaxRequestBodyBytes: o.MaxRequestBytes, SessionTimeout: timeout})
	h := s.sessions.limitSessions(sdkHandler)
	h = limitRate(ratelimit.New(o.RateLimit, o.RateBurst), h)
	if verify != nil {
		h = requireToken(verify, h)
	}
	h = origins.check(h)
	return bodyDeadline(cmp.Or(o.BodyTimeout, DefaultBodyTimeout), h), nil
}

// OpenHTTPSessions reports how many sessions the last HTTPHandler holds.
func (s *Server) OpenHTTPSessions() int {
	if s.sessions == nil {
		return 0
	}
	return s.sessions.Open()
}
