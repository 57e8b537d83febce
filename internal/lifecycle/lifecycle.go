// Package lifecycle is how every front end starts and stops: resources
// released last acquired first, and a server served until its context ends,
// then stopped gracefully within a bound.
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

// Cleanups releases resources in the reverse order of their acquisition.
// The zero value is empty and ready to use.
type Cleanups struct {
	list []cleanup
}

type cleanup struct {
	name string
	fn   func() error
}

// Add registers the release of a resource just acquired.
func (c *Cleanups) Add(name string, fn func() error) {
	c.list = append(c.list, cleanup{name: name, fn: fn})
}

// Run releases everything, last added first, and returns every failure
// wrapped with its resource's name. It empties the list: a second Run does
// nothing.
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

// Server is what a Runner serves. Serve returns nil once Shutdown or Close
// was called; Shutdown stops taking work and waits for the work in flight
// until ctx ends; Close cuts that work.
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

// Metrics is a front end's metrics endpoint, served while the front end is.
type Metrics interface {
	Start()
	Addr() net.Addr
}

// Runner serves one Server, once, and stops it. Set its fields, then call
// Serve.
type Runner struct {
	Server Server
	Log    *zap.Logger
	// Name names the server in the log ("serving gRPC"), Work what is in
	// flight ("calls"); Stopped is logged after a clean stop.
	Name, Work, Stopped string
	// ShutdownTimeout bounds the graceful stop, after which work in flight
	// is cut.
	ShutdownTimeout time.Duration
	// Drain, when set, runs first at shutdown (a health check turning
	// NOT_SERVING, a delay for load balancers to notice).
	Drain func()
	// Metrics, when set, is started with the server; its stop belongs in
	// Cleanups.
	Metrics Metrics
	// Cleanups run last, once the server has stopped.
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
// ShutdownTimeout (cutting the work still in flight after it) and runs the
// cleanups. It returns nil after a clean stop; otherwise every failure: the
// listener's, the cut work, a cleanup's. Serve closes lis.
func (r *Runner) Serve(ctx context.Context, lis net.Listener) error {
	r.mu.Lock()
	if r.served {
		r.mu.Unlock()
		return errors.New("Serve called more than once")
	}
	r.served, r.addr = true, lis.Addr()
	r.mu.Unlock()

	r.Log.Info("serving "+r.Name, zap.String("address", lis.Addr().String()))
	if r.Metrics != nil {
		r.Metrics.Start()
	}
	served := make(chan error, 1)
	go func() { served <- r.Server.Serve(lis) }()

	var errs []error
	select {
	case err := <-served:
		// The listener failed before anyone asked to stop.
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

// stop drains and stops the server; it fails only when work in flight had
// to be cut.
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

// ListenAndServe binds addr over TCP, builds the server and serves it until
// ctx ends. A build that fails releases the port.
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
