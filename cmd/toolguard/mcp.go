package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/service"
)

// mcpConfig is the MCP server's configuration: the core's settings as serve
// takes them, and the MCP transport's.
type mcpConfig struct {
	service.Config
	// HTTP is the streamable HTTP address; empty serves stdio.
	HTTP  string
	Model string
}

// Validate checks the core's settings and refuses an unauthenticated HTTP
// server beyond loopback, as serve does.
func (c mcpConfig) Validate() error {
	errs := []error{c.Config.Config.Validate()}
	if c.HTTP != "" && c.AuthTokensFile == "" && !c.AllowUnauthenticated && !service.IsLoopback(c.HTTP) {
		errs = append(errs, fmt.Errorf("refusing to serve MCP on %s without authentication: it is not a loopback address; "+
			"set --auth-tokens-file, or --allow-unauthenticated if that is intended", c.HTTP))
	}
	if c.AuthTokensFile != "" && c.HTTP == "" {
		errs = append(errs, errors.New("--auth-tokens-file needs --http: stdio has no bearer tokens"))
	}
	return errors.Join(errs...)
}

// mcpCoreSettings are serve's settings that mean the same for the MCP server.
var mcpCoreSettings = []string{"workspace", "workspaces", "create-workspaces", "agent-root", "tools-file", "max-file-bytes", "deny",
	"fuzzy-threshold", "mistake-limit", "session-ttl", "max-sessions", "session-store", "redis-url", "redis-key-prefix", "redis-timeout",
	"auth-tokens-file", "allow-unauthenticated", "log-format", "log-level", "shutdown-timeout"}

func mcpSettings() []setting[mcpConfig] {
	out := []setting[mcpConfig]{
		{"http", "TOOLGUARD_MCP_HTTP", "serve streamable HTTP on this TCP `address` (loopback unless --auth-tokens-file or --allow-unauthenticated) instead of stdio",
			func(c *mcpConfig) flag.Value { return (*stringValue)(&c.HTTP) }},
		{"model", "TOOLGUARD_MCP_MODEL", "model `id` the tools' names and parameters are chosen for, as ListTools does (over HTTP a ?model= query parameter overrides it)",
			func(c *mcpConfig) flag.Value { return (*stringValue)(&c.Model) }},
	}
	for _, name := range mcpCoreSettings {
		s := serveSetting(name)
		out = append(out, setting[mcpConfig]{s.flag, s.env, s.usage, func(c *mcpConfig) flag.Value { return s.value(&c.Config) }})
	}
	return out
}

// runMCP serves the guarded file tools over MCP until stdin closes (stdio),
// or SIGINT or SIGTERM.
func runMCP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("mcp", "Usage: toolguard mcp [--workspace DIR] [--http ADDR] [flags]\n\n"+
		"Serves toolguard's file tools (write_to_file, edit, multi_edit, replace_in_file, apply_patch, read_file\n"+
		"and the --tools-file tools) over the Model Context Protocol: on stdin and stdout by default, or over\n"+
		"streamable HTTP with --http. Logs go to stderr.\n\nFlags:\n\n", stderr)
	def := mcpConfig{Config: service.DefaultConfig()}
	// A client starts the server in the project it works on.
	def.Workspace = "."
	return runServer(fs, mcpSettings(), def, args, stderr,
		func(c mcpConfig) (string, string) { return c.LogFormat, c.LogLevel },
		func(ctx context.Context, cfg mcpConfig, log *zap.Logger) error {
			return serveMCP(ctx, cfg, log, stdin, stdout)
		})
}

func serveMCP(ctx context.Context, cfg mcpConfig, log *zap.Logger, stdin io.Reader, stdout io.Writer) error {
	if err := prepareWorkspaces(cfg.Config, log); err != nil {
		return err
	}
	g, cleanup, err := guard.New(cfg.Config.Config, guard.Options{Log: log})
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
	srv, err := mcp.New(g, mcp.Options{ModelID: cfg.Model, Version: version, Workspaces: dirs, MaxRequestBytes: maxRequest, Log: log})
	if err != nil {
		return err
	}
	if cfg.HTTP == "" {
		log.Info("serving MCP on stdio", zap.String("version", version), zap.Any("workspaces", dirs))
		return srv.RunIO(ctx, io.NopCloser(stdin), nopWriteCloser{stdout})
	}
	var verify mcp.Verifier
	if cfg.AuthTokensFile != "" {
		check, err := service.TokenVerifier(cfg.AuthTokensFile, dirs)
		if err != nil {
			return err
		}
		verify = func(token string) (*mcp.Caller, error) {
			c, err := check(token)
			if err != nil {
				return nil, err
			}
			return &mcp.Caller{Principal: c.Principal, MayUse: c.MayUse}, nil
		}
	}
	h, err := srv.HTTPHandler(verify)
	if err != nil {
		return err
	}
	return serveHTTP(ctx, cfg, log, h)
}

// serveHTTP serves h on cfg.HTTP until ctx ends, then lets calls finish.
func serveHTTP(ctx context.Context, cfg mcpConfig, log *zap.Logger, h http.Handler) error {
	ln, err := net.Listen("tcp", cfg.HTTP)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving MCP over streamable HTTP", zap.String("version", version), zap.String("address", ln.Addr().String()),
		zap.Bool("authentication", cfg.AuthTokensFile != ""))
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
