package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace"
)

// runServe runs the gRPC server until SIGINT or SIGTERM.
func runServe(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := newFlagSet("serve", "Usage: toolguard serve [flags]\n\n"+
		"Runs the toolguard gRPC server until SIGINT or SIGTERM.\n"+
		"Every flag has a TOOLGUARD_* environment twin; a flag wins over its variable.\n\nFlags:\n\n", stderr)
	return runServer(fs, serveSettings, service.DefaultConfig(), args, stderr,
		func(c service.Config) (string, string) { return c.LogFormat, c.LogLevel }, serve)
}

// serve prepares the workspaces and runs the server until ctx ends.
func serve(ctx context.Context, cfg service.Config, log *zap.Logger) error {
	if err := prepareWorkspaces(cfg, log); err != nil {
		return err
	}

	log.Info("starting toolguard",
		zap.String("version", toolguardVersion),
		zap.String("listen", cfg.Listen),
		zap.String("auth_tokens_file", cfg.AuthTokensFile),
		zap.Bool("tls", cfg.TLSCert != ""),
		zap.Bool("mutual_tls", cfg.TLSClientCA != ""),
		zap.Float64("rate_limit", cfg.RateLimit),
		zap.Int("max_streams", cfg.MaxStreams),
		zap.String("workspace", cfg.Workspace),
		zap.String("tools_file", cfg.ToolsFile),
		zap.Uint32("mistake_limit", cfg.MistakeLimit),
		zap.String("mode", cfg.Mode),
		zap.Duration("session_ttl", cfg.SessionTTL),
		zap.Int("max_sessions", cfg.MaxSessions),
		zap.Int("max_recv_msg_bytes", cfg.MaxRecvMsgBytes),
		zap.Int("max_send_msg_bytes", cfg.MaxSendMsgBytes),
		zap.Duration("shutdown_timeout", cfg.ShutdownTimeout),
		zap.Duration("drain_delay", cfg.DrainDelay),
	)
	if cfg.AuthTokensFile == "" && cfg.AllowUnauthenticated {
		log.Warn("authentication is off (--allow-unauthenticated): every caller may use every workspace", zap.String("listen", cfg.Listen))
	}
	if err := service.ListenAndServe(ctx, cfg, log); err != nil {
		return err
	}
	log.Info("toolguard stopped")
	return nil
}

// createWorkspace creates a missing workspace folder: the default one and,
// with CreateWorkspaces, any other.
func createWorkspace(cfg service.Config, name, dir string, log *zap.Logger) error {
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		return nil // a folder, or an error workspace.Open reports with context
	}
	if !cfg.CreateWorkspaces && filepath.Clean(dir) != service.DefaultWorkspaceDir() {
		return fmt.Errorf("workspace %q: %s does not exist: create it, fix the path, or pass --create-workspaces", name, dir)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("create workspace %q: %w", name, err)
	}
	log.Info("created workspace folder", zap.String("workspace", name), zap.String("dir", dir))
	return nil
}

// prepareWorkspaces creates the default workspace folder and, with
// CreateWorkspaces, any other that is missing; a missing folder otherwise
// stops the start, since it is more likely a typo than a wish. A folder the
// server may not write stops it too, unless it only observes.
func prepareWorkspaces(cfg service.Config, log *zap.Logger) error {
	dirs, err := cfg.WorkspaceDirs()
	if err != nil {
		return err
	}
	for name, dir := range dirs {
		if err := createWorkspace(cfg, name, dir, log); err != nil {
			return err
		}
		// Now rather than at the first write: a volume that ignores the
		// pod's fsGroup leaves a non-root server a folder it cannot write.
		if cfg.Mode != guard.ModeObserve {
			if err := workspace.CheckWritable(dir); errors.Is(err, workspace.ErrNotWritable) {
				return fmt.Errorf("workspace %q: %w", name, err)
			}
		}
	}
	return nil
}
