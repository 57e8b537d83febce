package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
)

// mcpConfig is the MCP server's configuration: the core's settings as serve
// takes them, and the MCP transport's.
type mcpConfig struct {
	service.Config
	// HTTP is the streamable HTTP address; empty serves stdio.
	HTTP  string
	Model string
	// The streamable HTTP transport's bounds (mcp/limits.go).
	HTTPSessionTimeout          time.Duration
	MaxHTTPSessions             int
	MaxHTTPSessionsPerPrincipal int
	AllowedOrigins              []string
	MaxConnections              int
	HTTPBodyTimeout             time.Duration
	// Profile names the tools served (mcp.Profiles); AllowedDirs are the
	// filesystem profile's positional directories (mcp_profile.go).
	Profile     string
	AllowedDirs []string
}

// defaultMCPConfig is serve's core defaults, the current directory as the
// workspace (a client starts the server in the project it works on), and
// the HTTP bounds.
func defaultMCPConfig() mcpConfig {
	def := mcpConfig{Config: service.DefaultConfig(), HTTPSessionTimeout: mcp.DefaultSessionTimeout, MaxHTTPSessions: mcp.DefaultMaxSessions,
		MaxConnections: 2048, HTTPBodyTimeout: mcp.DefaultBodyTimeout}
	def.Workspace = "."
	def.Profile = mcp.ProfileToolguard
	return def
}

// Validate checks the core's settings and refuses an unauthenticated HTTP
// server beyond loopback, as serve does.
func (c mcpConfig) Validate() error {
	errs := []error{c.Config.Config.Validate(), c.validateProfile()}
	if c.HTTP != "" && c.AuthTokensFile == "" && !c.AllowUnauthenticated && !auth.IsLoopback(c.HTTP) {
		errs = append(errs, fmt.Errorf("refusing to serve MCP on %s without authentication: it is not a loopback address; "+
			"set --auth-tokens-file, or --allow-unauthenticated if that is intended", c.HTTP))
	}
	if c.AuthTokensFile != "" && c.HTTP == "" {
		errs = append(errs, errors.New("--auth-tokens-file needs --http: stdio has no bearer tokens"))
	}
	if c.MetricsListen != "" {
		errs = append(errs, observe.CheckListen(c.MetricsListen, c.HTTP, "MCP server's port"))
	}
	return errors.Join(append(errs, c.validateHTTP()...)...)
}

// validateHTTP checks the HTTP bounds: each must bound something.
func (c mcpConfig) validateHTTP() []error {
	var errs []error
	if c.HTTPSessionTimeout <= 0 || c.HTTPBodyTimeout <= 0 {
		errs = append(errs, errors.New("--http-session-timeout and --http-body-timeout must be positive durations"))
	}
	if c.MaxHTTPSessions <= 0 || c.MaxConnections <= 0 {
		errs = append(errs, errors.New("--max-http-sessions and --max-connections must be positive"))
	}
	switch {
	case c.MaxHTTPSessionsPerPrincipal < 0:
		errs = append(errs, errors.New("--max-http-sessions-per-principal must not be negative (0: the default share)"))
	case c.MaxHTTPSessionsPerPrincipal > 0 && c.AuthTokensFile == "":
		errs = append(errs, errors.New("--max-http-sessions-per-principal needs --auth-tokens-file: without one every caller is the one anonymous principal, bounded by --max-http-sessions"))
	}
	if c.RateLimit < 0 || math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0) {
		errs = append(errs, errors.New("--rate-limit must be a number of requests per second, or 0 for no limit"))
	}
	if c.RateBurst < 0 || c.RateLimit > 0 && c.RateBurst == 0 {
		errs = append(errs, errors.New("--rate-burst must be at least 1 when a rate limit is set"))
	}
	for _, o := range c.AllowedOrigins {
		if _, err := mcp.ParseOrigin(o); err != nil {
			errs = append(errs, fmt.Errorf("--allowed-origins: %w", err))
		}
	}
	return errs
}

// mcpCoreSettings are serve's settings that mean the same for the MCP server.
var mcpCoreSettings = []string{"workspace", "workspaces", "create-workspaces", "agent-root", "tools-file", "max-file-bytes", "max-media-bytes", "deny",
	"fuzzy-threshold", "search-max-results", "search-max-files", "search-max-bytes", "search-timeout", "mistake-limit", "session-ttl", "max-sessions", "session-store", "redis-url", "redis-key-prefix", "redis-timeout",
	"auth-tokens-file", "allow-unauthenticated", "rate-limit", "rate-burst", "log-format", "log-level", "shutdown-timeout", "metrics-listen"}

func mcpSettings() []setting[mcpConfig] {
	out := []setting[mcpConfig]{
		{"http", "TOOLGUARD_MCP_HTTP", "serve streamable HTTP on this TCP `address` (loopback unless --auth-tokens-file or --allow-unauthenticated) instead of stdio",
			func(c *mcpConfig) flag.Value { return (*stringValue)(&c.HTTP) }},
		{"model", "TOOLGUARD_MCP_MODEL", "model `id` the tools' names and parameters are chosen for, as ListTools does (over HTTP a ?model= query parameter overrides it)",
			func(c *mcpConfig) flag.Value { return (*stringValue)(&c.Model) }},
		{"http-session-timeout", "TOOLGUARD_MCP_HTTP_SESSION_TIMEOUT", "`duration` without a request after which an HTTP session is closed (its client must initialise a new one)",
			func(c *mcpConfig) flag.Value { return (*durationValue)(&c.HTTPSessionTimeout) }},
		{"max-http-sessions", "TOOLGUARD_MCP_MAX_HTTP_SESSIONS", "most HTTP sessions open at once (`number`); a new one past it is refused with 503 and Retry-After, none is evicted",
			func(c *mcpConfig) flag.Value { return (*intValue)(&c.MaxHTTPSessions) }},
		{"max-http-sessions-per-principal", "TOOLGUARD_MCP_MAX_HTTP_SESSIONS_PER_PRINCIPAL", "most HTTP sessions one principal of the tokens file may hold (`number`; 429 past it; 0: a quarter of --max-http-sessions when the tokens file names two principals or more, otherwise no bound)",
			func(c *mcpConfig) flag.Value { return (*intValue)(&c.MaxHTTPSessionsPerPrincipal) }},
		{"allowed-origins", "TOOLGUARD_MCP_ALLOWED_ORIGINS", "comma-separated `origins` (scheme://host[:port]) whose web pages may call the HTTP server; loopback pages may on a loopback address; a request with any other Origin gets 403",
			func(c *mcpConfig) flag.Value { return (*listValue)(&c.AllowedOrigins) }},
		{"max-connections", "TOOLGUARD_MCP_MAX_CONNECTIONS", "most HTTP connections open at once (`number`); more are closed at once, so clients retry after their backoff",
			func(c *mcpConfig) flag.Value { return (*intValue)(&c.MaxConnections) }},
		{"profile", "TOOLGUARD_MCP_PROFILE", "the tools served (`name`): toolguard (its own) or filesystem (the 14 tools of @modelcontextprotocol/server-filesystem, its names, arguments and answers; directories after the flags are its allowed directories)",
			func(c *mcpConfig) flag.Value { return (*stringValue)(&c.Profile) }},
		{"http-body-timeout", "TOOLGUARD_MCP_HTTP_BODY_TIMEOUT", "`duration` an HTTP request's body may take to arrive before the request and its connection are ended",
			func(c *mcpConfig) flag.Value { return (*durationValue)(&c.HTTPBodyTimeout) }},
	}
	for _, name := range mcpCoreSettings {
		s := serveSetting(name)
		env := s.env
		if mcpOwnWorkspaceEnv[name] {
			env = "TOOLGUARD_MCP_" + strings.TrimPrefix(env, "TOOLGUARD_")
		}
		out = append(out, setting[mcpConfig]{s.flag, env, s.usage, func(c *mcpConfig) flag.Value { return s.value(&c.Config) }})
	}
	return out
}

// mcpOwnWorkspaceEnv are the settings whose variables the MCP server does not
// share with serve: an editor starts `toolguard mcp` in the project it edits,
// and a TOOLGUARD_WORKSPACE exported for a server must not move it there
// (docs/configuration.md, "Which workspace").
var mcpOwnWorkspaceEnv = map[string]bool{"workspace": true, "workspaces": true}

// runMCP serves the guarded file tools over MCP until stdin closes (stdio),
// or SIGINT or SIGTERM.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", "Usage: toolguard mcp [--workspace DIR] [--http ADDR] [flags]\n"+
		"       toolguard mcp --profile filesystem [flags] DIR...\n\n"+
		"Serves toolguard's file tools (write_to_file, edit, multi_edit, replace_in_file, apply_patch, read_file\n"+
		"and the --tools-file tools) over the Model Context Protocol: on stdin and stdout by default, or over\n"+
		"streamable HTTP with --http. Logs go to stderr. With --profile filesystem it serves the tools of\n"+
		"@modelcontextprotocol/server-filesystem instead, guarded, the DIRs being its allowed directories.\n\nFlags:\n\n", stderr)
	return runServer(fs, mcpSettings(), defaultMCPConfig(), args, stderr,
		func(c mcpConfig) (string, string) { return c.LogFormat, c.LogLevel },
		func(ctx context.Context, cfg mcpConfig, log *zap.Logger) error {
			return serveMCP(ctx, cfg, log, stdin, stdout)
		})
}

func serveMCP(ctx context.Context, cfg mcpConfig, log *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	cfg = cfg.withAllowedDirs()
	if err := prepareWorkspaces(cfg.Config, log); err != nil {
		return err
	}
	gopts, reg, stopMetrics, err := mcpMetrics(cfg, log)
	if err != nil {
		return err
	}
	defer func() { _ = stopMetrics() }()
	g, cleanup, err := guard.New(cfg.Config.Config, gopts)
	if err != nil {
		return err
	}
	defer func() { _ = cleanup() }()
	dirs, err := cfg.WorkspaceDirs()
	if err != nil {
		return err
	}
	// Room for a whole file at the size limit, escaped (most characters
	// take one byte in JSON, a few two), and the call around it.
	maxRequest := 2*cfg.MaxFileBytes + 1<<20
	opts := mcp.Options{ModelID: cfg.Model, Version: toolguardVersion, Workspaces: dirs, MaxRequestBytes: maxRequest, Log: log,
		SessionTimeout: cfg.HTTPSessionTimeout, MaxSessions: cfg.MaxHTTPSessions, MaxSessionsPerPrincipal: cfg.MaxHTTPSessionsPerPrincipal,
		RateLimit: cfg.RateLimit, RateBurst: cfg.RateBurst, AllowedOrigins: cfg.AllowedOrigins, BodyTimeout: cfg.HTTPBodyTimeout,
		Metrics: reg, Profile: cfg.Profile}
	if cfg.HTTP != "" && cfg.AuthTokensFile != "" {
		if opts.Principals, err = auth.TokenPrincipals(cfg.AuthTokensFile, dirs); err != nil {
			return err
		}
	}
	srv, err := mcp.New(g, opts)
	if err != nil {
		return err
	}
	if cfg.HTTP == "" {
		log.Info("serving MCP on stdio", zap.String("version", toolguardVersion), zap.Any("workspaces", dirs))
		return srv.RunIO(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
	}
	var verify auth.Verifier
	if cfg.AuthTokensFile != "" {
		if verify, err = auth.TokenVerifier(cfg.AuthTokensFile, dirs); err != nil {
			return err
		}
	}
	h, err := srv.HTTPHandler(verify)
	if err != nil {
		return err
	}
	log.Info("MCP server over HTTP", zap.String("version", toolguardVersion), zap.Bool("authentication", cfg.AuthTokensFile != ""))
	return mcp.ListenAndServeHTTP(ctx, h, mcp.HTTPServeOptions{Listen: cfg.HTTP, MaxConnections: cfg.MaxConnections,
		ShutdownTimeout: cfg.ShutdownTimeout, Log: log, Metrics: reg})
}

// mcpMetrics starts the metrics endpoint of --metrics-listen: the guard's
// Observer counts verdicts and codes, the MCP server its calls and their
// latency. Without the flag there is none and stop does nothing.
func mcpMetrics(cfg mcpConfig, log *zap.Logger) (guard.Options, mcp.Registerer, func() error, error) {
	opts := guard.Options{Log: log}
	if cfg.MetricsListen == "" {
		return opts, nil, func() error { return nil }, nil
	}
	ep, err := observe.NewEndpoint(cfg.MetricsListen, cfg.ShutdownTimeout, log.Named("metrics"))
	if err != nil {
		return opts, nil, nil, err
	}
	ep.Start()
	opts.Observe = ep.Observer
	return opts, ep, ep.Stop, nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
