package proxy

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/observe"
)

// Server runs a Proxy on an HTTP server, with the metrics endpoint when
// configured. Build it with NewServer and run it with Serve, once.
type Server struct {
	proxy   *Proxy
	run     lifecycle.Runner
	metrics *observe.Endpoint
}

// NewServer validates cfg and builds the server: the metrics endpoint is
// bound now (a bind failure fails here). log may be nil.
func NewServer(cfg Config, log *zap.Logger) (_ *Server, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	if log == nil {
		log = zap.NewNop()
	}
	s := &Server{}
	s.run.Conns = lifecycle.NewConnLimit(cfg.MaxConnections)
	defer func() {
		if err != nil {
			_ = s.run.Cleanups.Run()
		}
	}()
	opts := Options{Log: log}
	if cfg.MetricsListen != "" {
		metrics, err := observe.NewEndpoint(cfg.MetricsListen, cfg.ShutdownTimeout, log.Named("metrics"))
		if err != nil {
			return nil, err
		}
		s.run.Cleanups.Add("metrics server", metrics.Stop)
		if err := metrics.Register(observe.ConnectionMetrics(s.run.Conns)); err != nil {
			return nil, fmt.Errorf("register connection metrics: %w", err)
		}
		s.run.Metrics, s.metrics = metrics, metrics
		opts.Observe, opts.Metrics = metrics.Observer, metrics
	}
	if s.proxy, err = New(cfg, opts); err != nil {
		return nil, err
	}
	s.run.Cleanups.Add("session store", s.proxy.Close)
	errLog, _ := zap.NewStdLogAt(log.Named("http"), zapcore.WarnLevel)
	s.run.Server = lifecycle.HTTP(&http.Server{
		Handler:           s.proxy,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          errLog,
		// Streams run as long as the model writes: no read or write
		// timeout on the whole request.
	})
	s.run.Log, s.run.Name, s.run.Work, s.run.Stopped = log, "the proxy", "requests", "proxy stopped"
	s.run.ShutdownTimeout = cfg.ShutdownTimeout
	return s, nil
}

// Addr returns the address Serve listens on, or nil before Serve.
func (s *Server) Addr() net.Addr { return s.run.Addr() }

// MetricsAddr returns the metrics endpoint's address, or nil without one.
func (s *Server) MetricsAddr() net.Addr { return s.run.MetricsAddr() }

// MetricNames lists every metric the proxy can export (none without
// MetricsListen), for checking dashboards and alert rules against.
func (s *Server) MetricNames() []string {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.MetricNames()
}

// Serve serves on lis until ctx is cancelled, then shuts down gracefully:
// the listener closes, requests and streams in flight run on for at most
// ShutdownTimeout and are cut after it (their upstream requests are
// cancelled), then the session store and the metrics endpoint are
// released. It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	return s.run.Serve(ctx, lis)
}

// ListenAndServe binds cfg.Listen and serves on it until ctx is cancelled
// (see Server.Serve).
func ListenAndServe(ctx context.Context, cfg Config, log *zap.Logger) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return lifecycle.ListenAndServe(ctx, cfg.Listen, func() (*Server, error) { return NewServer(cfg, log) })
}
