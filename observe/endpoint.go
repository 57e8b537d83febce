package observe

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/repair"
)

// MetricsPath is where an Endpoint serves the Prometheus exposition.
const MetricsPath = "/metrics"

// maxScrapeConnections bounds the endpoint's connections: a scraper or two
// keep one each, and MaxRequestsInFlight below refuses the scrapes past 8;
// more connections are closed at once (internal/lifecycle.ConnLimit).
const maxScrapeConnections = 32

// releaseTimeout bounds stopping the metrics server and flushing spans, which
// run after the graceful stop within the orchestrator's grace period.
const releaseTimeout = 5 * time.Second

// Endpoint is a front end's /metrics on a port of its own, over a registry
// of its own (never the global one, so servers in one process do not
// collide). NewEndpoint binds, so a bind failure fails startup; Stop may be
// called without Start.
type Endpoint struct {
	registry *prometheus.Registry
	// collectors are the registered ones, for MetricNames.
	collectors []prometheus.Collector
	log        *zap.Logger
	lis        net.Listener
	http       *http.Server
	timeout    time.Duration

	mu     sync.Mutex
	served chan struct{} // closed when Serve returns; nil until Start
}

// NewEndpoint registers the Go and process collectors and extra, and binds
// listen. Stop waits at most shutdownTimeout (5 s at most) for scrapes.
func NewEndpoint(listen string, shutdownTimeout time.Duration, log *zap.Logger, extra ...prometheus.Collector) (*Endpoint, error) {
	if log == nil {
		log = zap.NewNop()
	}
	reg := prometheus.NewRegistry()
	var registered []prometheus.Collector
	for _, c := range append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(),
	}, extra...) {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
		registered = append(registered, c)
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(context.Background(), "tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", listen, err)
	}
	lis = lifecycle.NewConnLimit(maxScrapeConnections).Listener(lis)
	mux := http.NewServeMux()
	mux.Handle("GET "+MetricsPath, promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: zap.NewStdLog(log),
		// A failing collector leaves the others' metrics served.
		ErrorHandling: promhttp.ContinueOnError,
		// A flood of scrapes is refused.
		MaxRequestsInFlight: 8,
	})))
	return &Endpoint{
		registry:   reg,
		collectors: registered,
		log:        log,
		lis:        lis,
		timeout:    min(shutdownTimeout, releaseTimeout),
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          zap.NewStdLog(log),
		},
	}, nil
}

// buildInfo is the usual constant 1 whose labels say what is running, for
// joining onto other series and spotting a mixed rollout.
func buildInfo() prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "toolguard_build_info",
		Help:        "Always 1; the labels name the toolguard version and the Go version it was built with.",
		ConstLabels: prometheus.Labels{"version": Version, "goversion": runtime.Version()},
	})
	g.Set(1)
	return g
}

func (e *Endpoint) Addr() net.Addr { return e.lis.Addr() }

// Register adds a front end's own collectors, whose labels must come from
// fixed sets.
func (e *Endpoint) Register(c prometheus.Collector) error {
	if err := e.registry.Register(c); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.collectors = append(e.collectors, c)
	return nil
}

// Observer registers the product's counters for a guard's tool registry and
// returns them as its Observer. Call it once.
func (e *Endpoint) Observer(tools *repair.Registry) (guard.Observer, error) {
	p := newProductMetrics(toolNames(tools))
	if err := e.Register(p); err != nil {
		return nil, fmt.Errorf("register product metrics: %w", err)
	}
	return p, nil
}

// descName reads a metric's name out of its Desc, which has no accessor;
// client_golang has printed it this way since its first release.
var descName = regexp.MustCompile(`fqName: "([^"]+)"`)

// MetricNames returns the name of every metric the endpoint can export,
// sorted, whether or not a series exists yet: what dashboards and alert
// rules may name (histograms add _bucket, _sum and _count).
func (e *Endpoint) MetricNames() []string {
	e.mu.Lock()
	cs := slices.Clone(e.collectors)
	e.mu.Unlock()
	descs := make(chan *prometheus.Desc)
	go func() {
		defer close(descs)
		for _, c := range cs {
			c.Describe(descs)
		}
	}()
	var names []string
	for d := range descs {
		if m := descName.FindStringSubmatch(d.String()); m != nil {
			names = append(names, m[1])
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
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

// Stop lets scrapes in flight finish within the timeout.
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

// CheckListen reports a metrics address that is not host:port or takes the
// front end's own port (called what).
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
