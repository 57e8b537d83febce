// Package lifecycle is how every front end starts and stops: served until
// its context ends, stopped gracefully within a bound, resources released
// last acquired first.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Cleanups releases resources last acquired first; the zero value is empty.
type Cleanups struct {
	list []cleanup
}

type cleanup struct {
	name string
	fn   func() error
}

func (c *Cleanups) Add(name string, fn func() error) {
	c.list = append(c.list, cleanup{name: name, fn: fn})
}

// Run releases everything, last added first, wrapping each failure with its
// resource's name. A second Run does nothing.
func (c *Cleanups) Run() error {
	var errs []error
	for _, r := range slices.Backward(c.list) {
		if err := r.fn(); err != nil {
			errs = append(errs, fmt.Errorf("release %s: %w", r.name, err))
		}
	}
	c.list = nil
	return errors.Join(errs...)
}

// Server is what a Runner serves. Serve returns nil once stopped; Shutdown
// waits for the work in flight until ctx ends; Close cuts it.
type Server interface {
	Serve(net.Listener) error
	Shutdown(ctx context.Context) error
	Close() error
}

// HTTP adapts an http.Server to Server.
func HTTP(s *http.Server) Server { return httpServer{s} }

type httpServer struct{ *http.Server }

func (s httpServer) Serve(lis net.Listener) error {
	if err := s.Server.Serve(lis); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Metrics is a front end's metrics endpoint, served with it.
type Metrics interface {
	Start()
	Addr() net.Addr
}

// Runner serves one Server once and stops it. Set its fields, then Serve.
type Runner struct {
	Server Server
	Log    *zap.Logger
	// Name names the server in the log ("serving gRPC"), Work what is in
	// flight ("calls"); Stopped is logged after a clean stop.
	Name, Work, Stopped string
	ShutdownTimeout     time.Duration
	// Drain, when set, runs first at shutdown (health NOT_SERVING, a delay).
	Drain func()
	// Metrics is started with the server; its stop belongs in Cleanups.
	Metrics Metrics
	// Conns, when set, bounds the connections Serve's listener has open.
	Conns    *ConnLimit
	Cleanups Cleanups

	mu     sync.Mutex
	addr   net.Addr
	served bool
}

// Addr returns the address Serve listens on, or nil before Serve.
func (r *Runner) Addr() net.Addr {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.addr
}

// MetricsAddr returns the metrics endpoint's address, or nil without one.
func (r *Runner) MetricsAddr() net.Addr {
	if r.Metrics == nil {
		return nil
	}
	return r.Metrics.Addr()
}

// Serve serves on lis until ctx ends, then drains, stops gracefully within
// ShutdownTimeout (cutting the work in flight after it) and runs the
// cleanups. It returns nil after a clean stop. Serve closes lis.
func (r *Runner) Serve(ctx context.Context, lis net.Listener) error {
	r.mu.Lock()
	if r.served {
		r.mu.Unlock()
		return errors.New("Serve called more than once")
	}
	r.served, r.addr = true, lis.Addr()
	r.mu.Unlock()
	if r.Conns != nil {
		lis = r.Conns.Listener(lis)
	}

	r.Log.Info("serving "+r.Name, zap.String("address", lis.Addr().String()))
	if r.Metrics != nil {
		r.Metrics.Start()
	}
	served := make(chan error, 1)
	go func() { served <- r.Server.Serve(lis) }()

	var errs []error
	select {
	case err := <-served:
		_ = r.Server.Close()
		r.Log.Error(r.Name+" server failed", zap.Error(err))
		errs = append(errs, fmt.Errorf("serve: %w", err))
	case <-ctx.Done():
		errs = append(errs, r.stop())
		if err := <-served; err != nil {
			errs = append(errs, fmt.Errorf("serve: %w", err))
		}
	}
	if err := r.Cleanups.Run(); err != nil {
		r.Log.Error("cleanup failed", zap.Error(err))
		errs = append(errs, err)
	}
	err := errors.Join(errs...)
	if err == nil {
		r.Log.Info(r.Stopped)
	}
	return err
}

// stop fails only when work in flight had to be cut.
func (r *Runner) stop() error {
	if r.Drain != nil {
		r.Drain()
	}
	r.Log.Info("stopping gracefully: waiting for in-flight "+r.Work, zap.Duration("shutdown_timeout", r.ShutdownTimeout))
	ctx, cancel := context.WithTimeout(context.Background(), r.ShutdownTimeout)
	defer cancel()
	if err := r.Server.Shutdown(ctx); err == nil {
		r.Log.Info("graceful stop complete")
		return nil
	}
	r.Log.Warn("graceful stop timed out: cutting in-flight "+r.Work, zap.Duration("shutdown_timeout", r.ShutdownTimeout))
	_ = r.Server.Close()
	return fmt.Errorf("graceful stop did not finish within %s: in-flight %s were cut", r.ShutdownTimeout, r.Work)
}

// ListenAndServe binds addr, builds the server and serves it until ctx ends.
func ListenAndServe[S interface {
	Serve(context.Context, net.Listener) error
}](ctx context.Context, addr string, build func() (S, error)) error {
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", addr, err)
	}
	srv, err := build()
	if err != nil {
		_ = lis.Close()
		return err
	}
	return srv.Serve(ctx, lis)
}
