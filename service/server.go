// Package service is the toolguard gRPC server: its configuration, the
// interceptors, auth and limits, and the ToolGuardService handlers (proto in,
// guard call, proto out).
package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/lifecycle"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/repair"
)

// Agents hold one long-lived connection and call it in bursts: idle pings
// are allowed (more often than keepaliveMinTime is a ping flood, answered
// with GOAWAY), and the server pings idle connections to notice dead peers.
const (
	keepaliveMinTime = 10 * time.Second
	keepaliveTime    = 2 * time.Minute
	keepaliveTimeout = 20 * time.Second
)

// forever maps "zero means forever" onto keepalive's infinity.
func forever(d time.Duration) time.Duration {
	if d == 0 {
		return time.Duration(math.MaxInt64)
	}
	return d
}

// Server is a toolguard gRPC server. Build it with New and run it with
// Serve, once; Serve releases what New acquired.
type Server struct {
	cfg    Config
	log    *zap.Logger
	grpc   *grpc.Server
	health *health.Server
	// stopping is closed after the drain; it ends health Watch streams.
	stopping chan struct{}
	run      lifecycle.Runner
	// nil when off
	metrics     *observe.Endpoint
	grpcMetrics *grpcprom.ServerMetrics
	tracing     *sdktrace.TracerProvider
}

// New validates cfg and builds the server. log may be nil (no logging).
func New(cfg Config, log *zap.Logger) (*Server, error) {
	return newServer(cfg, log)
}

// NewWithServices is New with more services registered on the same server,
// behind the same interceptors: a benchmark's echo service measures the
// transport and the chain without the handlers' work.
func NewWithServices(cfg Config, log *zap.Logger, register ...func(grpc.ServiceRegistrar)) (*Server, error) {
	return newServer(cfg, log, register...)
}

// newServer is New with extra services, for tests.
func newServer(cfg Config, log *zap.Logger, extra ...func(grpc.ServiceRegistrar)) (*Server, error) {
	return newServerWith(cfg, log, serverHooks{}, extra...)
}

func newServerWith(cfg Config, log *zap.Logger, hooks serverHooks, extra ...func(grpc.ServiceRegistrar)) (_ *Server, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("invalid configuration: %w", err)
	}
	if log == nil {
		log = zap.NewNop()
	}
	s := &Server{
		cfg:      cfg,
		log:      log,
		health:   health.NewServer(),
		stopping: make(chan struct{}),
	}
	defer func() {
		if err != nil {
			_ = s.run.Cleanups.Run()
		}
	}()

	access, err := newAccessControl(cfg)
	if err != nil {
		return nil, err
	}

	// Tracing first and metrics next, so they are released last: spans are
	// flushed after everything else.
	tracing, tracingOpts, err := newTracing(cfg, hooks)
	if err != nil {
		return nil, err
	}
	if tracing != nil {
		s.tracing = tracing
		s.run.Cleanups.Add("tracing", func() error { return stopTracing(tracing, cfg, log) })
		log.Info("tracing on: exporting spans over OTLP", zap.String("otlp_endpoint", cfg.OTLPEndpoint), zap.Bool("otlp_insecure", cfg.OTLPInsecure))
	}
	var observer func(*repair.Registry) (guard.Observer, error)
	if cfg.MetricsListen != "" {
		if s.metrics, s.grpcMetrics, err = newMetrics(cfg, log.Named("metrics")); err != nil {
			return nil, err
		}
		s.run.Cleanups.Add("metrics server", s.metrics.Stop)
		if err := s.metrics.Register(access.streams.collector()); err != nil {
			return nil, fmt.Errorf("register stream metrics: %w", err)
		}
		if err := s.metrics.Register(access.memory.collector()); err != nil {
			return nil, fmt.Errorf("register unary memory metrics: %w", err)
		}
		observer = s.metrics.Observer
	}

	svc, release, err := newToolGuardService(cfg, hooks.sessions, log.Named("toolguard"), observer, access.streams, access.rates)
	if err != nil {
		return nil, fmt.Errorf("build ToolGuardService: %w", err)
	}
	s.run.Cleanups.Add("ToolGuardService", release)

	opts := []grpc.ServerOption{
		// Services decode their own requests, so one that does not decode is
		// the caller's mistake (decode.go); codec.go sends non-UTF-8 answers.
		grpc.ForceServerCodecV2(newWireCodec(log)),
		grpc.MaxRecvMsgSize(cfg.MaxRecvMsgBytes),
		grpc.MaxSendMsgSize(cfg.MaxSendMsgBytes),
		// A call on a kept worker runs on a stack already grown by the calls
		// before it; a fresh goroutine grows its stack, by copying, on every
		// call. When all are busy, grpc-go starts a goroutine.
		grpc.NumStreamWorkers(cfg.StreamWorkers),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             keepaliveMinTime,
			PermitWithoutStream: true,
		}),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			Time:                  keepaliveTime,
			Timeout:               keepaliveTimeout,
			MaxConnectionAge:      forever(cfg.MaxConnectionAge),
			MaxConnectionAgeGrace: forever(cfg.MaxConnectionAgeGrace),
			MaxConnectionIdle:     forever(cfg.MaxConnectionIdle),
		}),
		// A connection that never sends gRPC's preface holds a slot of
		// --max-connections until then: gRPC's own bound is 120 s.
		grpc.ConnectionTimeout(cfg.HandshakeTimeout),
	}
	opts = append(opts, windowOptions()...)
	receivingOpts, err := s.receivingOptions()
	if err != nil {
		return nil, err
	}
	// Before the chain, so the end of a call's receipt is its outermost
	// interceptor.
	opts = append(opts, receivingOpts...)
	opts = append(opts, tracingOpts...)
	opts = append(opts, access.options...)
	opts = append(opts, chainOptions(s.instrumented(interceptorChain(log, access.interceptors...)))...)
	s.grpc = grpc.NewServer(opts...)

	reg := strictRegistrar{Server: s.grpc, dec: newRequestDecoder(cfg.MaxJSONDepth)}
	toolguardv1.RegisterToolGuardServiceServer(reg, svc)
	healthpb.RegisterHealthServer(reg, drainingHealth{Server: s.health, stopping: s.stopping})
	// Reflection exposes only the schema, which is public anyway.
	reflection.Register(reg)
	for _, register := range extra {
		register(reg)
	}
	if s.metrics != nil {
		s.grpcMetrics.InitializeMetrics(s.grpc)
	}

	// "" is the whole server; the service name is for probes of the API.
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(toolguardv1.ToolGuardService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	// The store in memory is always there.
	s.health.SetServingStatus(SessionStoreHealthService, healthpb.HealthCheckResponse_SERVING)
	if tg, ok := svc.(*toolGuardService); ok && tg.guard.StoreRemote() {
		quit := make(chan struct{})
		exited := s.watchStore(tg.guard, max(cfg.RedisTimeout, time.Millisecond), storeCheckInterval, quit)
		s.run.Cleanups.Add("session store health", func() error {
			close(quit)
			<-exited
			return nil
		})
	}
	if err := s.limitConns(); err != nil {
		return nil, err
	}
	s.run.Server = &grpcServer{Server: s.grpc}
	s.run.Log, s.run.Name, s.run.Work, s.run.Stopped = log, "gRPC", "calls", "server stopped"
	s.run.ShutdownTimeout, s.run.Drain = cfg.ShutdownTimeout, s.drain
	if s.metrics != nil {
		s.run.Metrics = s.metrics
	}
	return s, nil
}

// Addr returns the address Serve is listening on, or nil before Serve.
func (s *Server) Addr() net.Addr { return s.run.Addr() }

// MetricsAddr returns the metrics endpoint's address, or nil when off.
func (s *Server) MetricsAddr() net.Addr { return s.run.MetricsAddr() }

// MetricNames lists every metric the server can export (none without
// MetricsListen), for checking dashboards and alert rules against.
func (s *Server) MetricNames() []string {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.MetricNames()
}

func (s *Server) instrumented(chain []interceptor) []interceptor {
	if s.metrics == nil {
		return chain
	}
	return withMetricsInterceptor(chain, s.grpcMetrics)
}

// Serve serves on lis until ctx is cancelled, then drains (health turns
// NOT_SERVING for cfg.DrainDelay, so load balancers notice), stops
// gracefully within cfg.ShutdownTimeout, and releases what New acquired.
// It returns nil after a clean stop; Serve closes lis.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	return s.run.Serve(ctx, lis)
}

func (s *Server) drain() {
	// Later status changes are ignored: nothing flips back to SERVING.
	s.health.Shutdown()
	s.log.Info("shutting down: health is NOT_SERVING, draining",
		zap.Duration("drain_delay", s.cfg.DrainDelay))
	if s.cfg.DrainDelay > 0 {
		// Not interruptible: the delay is the point. A second signal kills
		// the process (cmd/toolguard).
		wait := time.Sleep
		if s.cfg.drainWait != nil {
			wait = s.cfg.drainWait
		}
		wait(s.cfg.DrainDelay)
	}
	close(s.stopping)
}

// grpcServer gives a grpc.Server the stops lifecycle.Runner expects.
type grpcServer struct {
	*grpc.Server
	graceful chan struct{} // closed when GracefulStop returns
}

func (g *grpcServer) Serve(lis net.Listener) error {
	if err := g.Server.Serve(lis); !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

func (g *grpcServer) Shutdown(ctx context.Context) error {
	g.graceful = make(chan struct{})
	go func() {
		g.GracefulStop()
		close(g.graceful)
	}()
	select {
	case <-g.graceful:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *grpcServer) Close() error {
	g.Stop()
	if g.graceful != nil {
		<-g.graceful
	}
	return nil
}

// ListenAndServe binds cfg.Listen and serves on it until ctx is cancelled.
func ListenAndServe(ctx context.Context, cfg Config, log *zap.Logger) error {
	// A bad configuration is reported as such, not as a listen error.
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return lifecycle.ListenAndServe(ctx, cfg.Listen, func() (*Server, error) { return New(cfg, log) })
}
