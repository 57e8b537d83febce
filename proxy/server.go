package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/toolguard/toolguard/observe"
)

// Server runs a Proxy on an HTTP server, with the metrics endpoint when
// configured. Build it with NewServer and run it with Serve, once.
type Server struct {
	cfg     Config
	log     *zap.Logger
	proxy   *Proxy
	http    *http.Server
	metrics *observe.Endpoint

	mu   sync.Mutex
	addr net.Addr
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
	s := &Server{cfg: cfg, log: log}
	opts := Options{Log: log}
	if cfg.MetricsListen != "" {
		if s.metrics, err = observe.NewEndpoint(cfg.MetricsListen, cfg.ShutdownTimeout, log.Named("metrics")); err != nil {
			return nil, err
		}
		opts.Observe, opts.Metrics = s.metrics.Observer, s.metrics
	}
	if s.proxy, err = New(cfg, opts); err != nil {
		if s.metrics != nil {
			_ = s.metrics.Stop()
		}
		return nil, err
	}
	errLog, _ := zap.NewStdLogAt(log.Named("http"), zapcore.WarnLevel)
	s.http = &http.Server{
		Handler:           s.proxy,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          errLog,
		// Streams run as long as the model writes: no read or write
		// timeout on the whole request.
	}
	return s, nil
}

// Addr returns the address Serve listens on, or nil before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// MetricsAddr returns the metrics endpoint's address, or nil without one.
func (s *Server) MetricsAddr() net.Addr {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.Addr()
}

// Serve serves on lis until ctx is cancelled, then shuts down gracefully:
// the listener closes (no new connection is accepted), requests and
// streams in flight run on for at most ShutdownTimeout and are cut after
// it (the upstream requests of those cut are cancelled), then the metrics
// endpoint and the session store are released. It returns nil after a
// clean shutdown.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	s.mu.Lock()
	s.addr = lis.Addr()
	s.mu.Unlock()
	s.log.Info("serving the proxy", zap.String("address", lis.Addr().String()))
	if s.metrics != nil {
		s.metrics.Start()
	}
	served := make(chan error, 1)
	go func() { served <- s.http.Serve(lis) }()

	var errs []error
	select {
	case err := <-served:
		errs = append(errs, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
		s.log.Info("shutting down: draining requests in flight", zap.Duration("shutdown_timeout", s.cfg.ShutdownTimeout))
		sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		err := s.http.Shutdown(sctx)
		cancel()
		if err != nil {
			s.log.Warn("graceful stop timed out: cutting requests in flight", zap.Duration("shutdown_timeout", s.cfg.ShutdownTimeout))
			_ = s.http.Close()
			errs = append(errs, fmt.Errorf("requests in flight did not finish within %s and were cut", s.cfg.ShutdownTimeout))
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, fmt.Errorf("serve: %w", err))
		}
	}
	if s.metrics != nil {
		if err := s.metrics.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("stop metrics: %w", err))
		}
	}
	if err := s.proxy.Close(); err != nil {
		errs = append(errs, fmt.Errorf("close session store: %w", err))
	}
	err := errors.Join(errs...)
	if err == nil {
		s.log.Info("proxy stopped")
	}
	return err
}

// ListenAndServe binds cfg.Listen and serves on it until ctx is cancelled
// (see Server.Serve).
func ListenAndServe(ctx context.Context, cfg Config, log *zap.Logger) error {
	srv, err := NewServer(cfg, log)
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		if srv.metrics != nil {
			_ = srv.metrics.Stop()
		}
		_ = srv.proxy.Close()
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	return srv.Serve(ctx, lis)
}
