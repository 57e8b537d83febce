package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// MetricsPath is where an Endpoint serves the Prometheus exposition.
const MetricsPath = "/metrics"

// releaseTimeout bounds stopping the metrics server and flushing spans at
// shutdown: both run after the front end's graceful stop, and the whole
// shutdown must fit in the orchestrator's grace period.
const releaseTimeout = 5 * time.Second

// Endpoint is a front end's Prometheus /metrics: an HTTP server on a port of
// its own, over a registry of its own (never the global one, so several
// servers in one process do not collide) holding the Go and process
// collectors and whatever the front end registers.
//
// NewEndpoint binds the address, so a bind failure fails startup; Start
// serves; Stop stops, and may be called without Start.
type Endpoint struct {
	registry *prometheus.Registry
	log      *zap.Logger
	lis      net.Listener
	http     *http.Server
	timeout  time.Duration

	mu     sync.Mutex
	served chan struct{} // closed when the HTTP server's Serve returns; nil until Start
}

// NewEndpoint builds the registry with collectors and binds listen. Stop
// waits at most shutdownTimeout (and never more than 5 s) for scrapes in
// flight. log may be nil.
func NewEndpoint(listen string, shutdownTimeout time.Duration, log *zap.Logger, extra ...prometheus.Collector) (*Endpoint, error) {
	if log == nil {
		log = zap.NewNop()
	}
	reg := prometheus.NewRegistry()
	for _, c := range append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}, extra...) {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(context.Background(), "tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: zap.NewStdLog(log),
		// A failing collector leaves the others' metrics served.
		ErrorHandling: promhttp.ContinueOnError,
		// Scrapes are cheap but not free; a flood of them is refused.
		MaxRequestsInFlight: 8,
	})))
	return &Endpoint{
		registry: reg,
		log:      log,
		lis:      lis,
		timeout:  min(shutdownTimeout, releaseTimeout),
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          zap.NewStdLog(log),
		},
	}, nil
}

// Addr returns the bound address.
func (e *Endpoint) Addr() net.Addr { return e.lis.Addr() }

// Register adds a front end's own collectors. Their label values must come
// from fixed sets, as the product's do.
func (e *Endpoint) Register(c prometheus.Collector) error { return e.registry.Register(c) }

// Observer builds the product's counters (toolguard_verdicts_total...) for
// a guard with the given tool registry, registers them and returns them as
// the guard's Observer. Call it once.
func (e *Endpoint) Observer(tools *repair.Registry) (guard.Observer, error) {
	p := newProductMetrics(toolNames(tools))
	if err := e.registry.Register(p); err != nil {
		return nil, fmt.Errorf("register product metrics: %w", err)
	}
	return p, nil
}

// Start serves /metrics until Stop.
func (e *Endpoint) Start() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.served = make(chan struct{})
	e.log.Info("serving metrics", zap.String("address", e.lis.Addr().String()), zap.String("path", MetricsPath))
	go func() {
		defer close(e.served)
		if err := e.http.Serve(e.lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// Metrics failing is no reason to stop serving calls.
			e.log.Error("metrics server failed", zap.Error(err))
		}
	}()
}

// Stop shuts the HTTP server down, letting scrapes in flight finish within
// the timeout, or closes the listener when it never started.
func (e *Endpoint) Stop() error {
	e.mu.Lock()
	served := e.served
	e.mu.Unlock()
	if served == nil {
		return e.lis.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.timeout)
	defer cancel()
	err := e.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, e.http.Close())
	}
	<-served
	if err == nil {
		e.log.Info("metrics server stopped")
	}
	return err
}

// CheckListen reports a metrics address that cannot work beside the front
// end's own (listen, called what in the message): not host:port, or the
// same port. Port 0 on both is fine: the system picks two.
func CheckListen(metricsListen, listen, what string) error {
	_, port, err := net.SplitHostPort(metricsListen)
	if err != nil {
		return fmt.Errorf("metrics listen address %q: want host:port", metricsListen)
	}
	if _, own, err := net.SplitHostPort(listen); err == nil && port == own && port != "0" {
		return fmt.Errorf("metrics listen address %q uses the %s %s: metrics need a port of their own", metricsListen, what, port)
	}
	return nil
}
