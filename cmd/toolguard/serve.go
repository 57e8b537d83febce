package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/service"
)

// runServe is "toolguard serve": it runs the gRPC server until SIGINT or
// SIGTERM, then shuts it down gracefully. Logs go to standard error.
func runServe(args []string, _ io.Reader, _, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: toolguard serve [flags]\n\n"+
			"Runs the toolguard gRPC server until SIGINT or SIGTERM.\n"+
			"Every flag has a TOOLGUARD_* environment twin; a flag wins over its variable.\n\nFlags:\n\n")
		fs.PrintDefaults()
	}

	cfg, err := parseServeConfig(fs, args, os.LookupEnv)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		// The flag package already printed its own errors with the usage.
		if !isFlagError(fs, err) {
			fmt.Fprintf(stderr, "toolguard serve: %v\n", err)
		}
		return 2
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "toolguard serve: invalid configuration: %v\n", err)
		return 2
	}

	log, err := service.NewLogger(cfg.LogFormat, cfg.LogLevel)
	if err != nil {
		fmt.Fprintf(stderr, "toolguard serve: %v\n", err)
		return 2
	}
	defer func() { _ = log.Sync() }()

	if err := serve(cfg, log); err != nil {
		log.Error("toolguard serve failed", zap.Error(err))
		return 1
	}
	return 0
}

// serve creates the workspace and runs the server until SIGINT or SIGTERM.
func serve(cfg service.Config, log *zap.Logger) error {
	if err := os.MkdirAll(cfg.Workspace, 0o755); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Once the first signal starts the shutdown, restore the default
	// handling: a second Ctrl-C or SIGTERM kills the process at once instead
	// of waiting out the drain delay and shutdown timeout.
	onSignal := context.AfterFunc(ctx, func() {
		log.Info("shutting down (signal again to exit immediately)",
			zap.String("cause", context.Cause(ctx).Error()))
		stop()
	})
	// Deferred after stop, so it runs first: returning for another reason
	// (listen failed) must not log a signal.
	defer onSignal()

	log.Info("starting toolguard",
		zap.String("version", version),
		zap.String("listen", cfg.Listen),
		zap.String("auth_tokens_file", cfg.AuthTokensFile),
		zap.Bool("tls", cfg.TLSCert != ""),
		zap.Bool("mutual_tls", cfg.TLSClientCA != ""),
		zap.Float64("rate_limit", cfg.RateLimit),
		zap.Int("max_streams", cfg.MaxStreams),
		zap.String("workspace", cfg.Workspace),
		zap.String("tools_file", cfg.ToolsFile),
		zap.Uint32("mistake_limit", cfg.MistakeLimit),
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

// isFlagError reports whether err came from fs.Parse (which has printed it),
// as opposed to the environment or a stray argument.
func isFlagError(fs *flag.FlagSet, err error) bool {
	return fs.Parsed() && !errors.Is(err, errStrayArg)
}
