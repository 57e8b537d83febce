// Package service is the toolguard gRPC server: its configuration, the
// server spine (interceptors, health, reflection, graceful shutdown) and the
// ToolGuardService handlers.
package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"sync"
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
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/repair"
)

// Keepalive settings. Agents and orchestrators tend to hold one long-lived
// connection and call it in bursts, so idle pings are allowed (a client that
// pings more often than keepaliveMinTime is disconnected with GOAWAY
// too_many_pings, protecting the server from ping floods), and the server
// pings idle connections itself so dead peers are noticed and closed.
const (
	keepaliveMinTime = 10 * time.Second
	keepaliveTime    = 2 * time.Minute
	keepaliveTimeout = 20 * time.Second
)

// forever maps the configuration's "zero means forever" onto keepalive's
// infinity.
func forever(d time.Duration) time.Duration {
	if d == 0 {
		return time.Duration(math.MaxInt64)
	}
	return d
}

// Server is a toolguard gRPC server: the ToolGuardService, grpc.health.v1 and
// server reflection behind the interceptor chain. Build it with New and run it
// with Serve, once; Serve owns what New acquired and releases it on return.
type Server struct {
	cfg    Config
	log    *zap.Logger
	grpc   *grpc.Server
	health *health.Server
	// stopping is closed when the drain delay is over, just before
	// GracefulStop; it ends health Watch streams (see drainingHealth).
	stopping chan struct{}
	// cleanups release what New acquired, in acquisition order; they run in
	// reverse.
	cleanups []cleanup
	// metrics is the Prometheus endpoint, nil when cfg.MetricsListen is
	// empty; tracing is the span pipeline, nil when cfg.OTLPEndpoint is.
	metrics     *observe.Endpoint
	grpcMetrics *grpcprom.ServerMetrics
	tracing     *sdktrace.TracerProvider

	mu     sync.Mutex
	addr   net.Addr
	served bool
}

// cleanup is a named release function, so a failing one can be reported.
type cleanup struct {
	name string
	fn   func() error
}

// New validates cfg and builds the server. log may be nil (no logging).
func New(cfg Config, log *zap.Logger) (*Server, error) {
	return newServer(cfg, log)
}

// newServer is New with extra services registered after the standard ones.
// Only tests pass any (a service that blocks or panics on demand): the
// production server registers exactly what New documents.
func newServer(cfg Config, log *zap.Logger, extra ...func(grpc.ServiceRegistrar)) (*Server, error) {
	return newServerWith(cfg, log, serverHooks{}, extra...)
}

// newServerWith is newServer with test hooks (see serverHooks).
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
	// Release whatever was acquired if a later step fails.
	defer func() {
		if err != nil {
			_ = s.runCleanups()
		}
	}()

	// Who may call, over what, and how much (auth.go, tls.go, limits.go).
	access, err := newAccessControl(cfg)
	if err != nil {
		return nil, err
	}

	// Tracing first and metrics next, so that they are released last:
	// after the service, the metrics server; after everything, the spans
	// still buffered are flushed.
	tracing, tracingOpts, err := newTracing(cfg, hooks)
	if err != nil {
		return nil, err
	}
	if tracing != nil {
		s.tracing = tracing
		s.cleanups = append(s.cleanups, cleanup{name: "tracing", fn: func() error { return stopTracing(tracing, cfg, log) }})
		log.Info("tracing on: exporting spans over OTLP", zap.String("otlp_endpoint", cfg.OTLPEndpoint), zap.Bool("otlp_insecure", cfg.OTLPInsecure))
	}
	var observer func(*repair.Registry) (guard.Observer, error)
	if cfg.MetricsListen != "" {
		if s.metrics, s.grpcMetrics, err = newMetrics(cfg, log.Named("metrics")); err != nil {
			return nil, err
		}
		s.cleanups = append(s.cleanups, cleanup{name: "metrics server", fn: s.metrics.Stop})
		observer = s.metrics.Observer
	}

	svc, release, err := newToolGuardService(cfg, log.Named("toolguard"), observer, access.streams)
	if err != nil {
		return nil, fmt.Errorf("build ToolGuardService: %w", err)
	}
	if release != nil {
		s.cleanups = append(s.cleanups, cleanup{name: "ToolGuardService", fn: release})
	}

	opts := []grpc.ServerOption{
		// Requests reach the handlers encoded; each service decodes its own
		// (decode.go), so a request that does not decode is refused as the
		// caller's mistake. Responses are sent even when a file they quote
		// is not UTF-8 (codec.go).
		grpc.ForceServerCodecV2(newWireCodec(log)),
		grpc.MaxRecvMsgSize(cfg.MaxRecvMsgBytes),
		grpc.MaxSendMsgSize(cfg.MaxSendMsgBytes),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{
			MinTime:             keepaliveMinTime,
			PermitWithoutStream: true,
		}),
		grpc.KeepaliveParams(keepalive.ServerParameters{
			Time:                  keepaliveTime,
			Timeout:               keepaliveTimeout,
			MaxConnectionAge:      forever(cfg.MaxConnectionAge),
			MaxConnectionAgeGrace: forever(cfg.MaxConnectionAgeGrace),
		}),
	}
	opts = append(opts, tracingOpts...)
	opts = append(opts, access.options...)
	opts = append(opts, chainOptions(s.instrumented(interceptorChain(log, access.interceptors...)))...)
	s.grpc = grpc.NewServer(opts...)

	reg := strictRegistrar{Server: s.grpc, dec: newRequestDecoder(cfg.MaxJSONDepth)}
	toolguardv1.RegisterToolGuardServiceServer(reg, svc)
	healthpb.RegisterHealthServer(reg, drainingHealth{Server: s.health, stopping: s.stopping})
	// Reflection lets grpcurl and similar tools call the server without the
	// .proto files; it exposes only the schema, which is public anyway.
	reflection.Register(reg)
	for _, register := range extra {
		register(reg)
	}
	if s.metrics != nil {
		// Every method's series exist from the start, at zero.
		s.grpcMetrics.InitializeMetrics(s.grpc)
	}

	// "" is the whole server; the service name is for probes that ask about
	// the API itself.
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.health.SetServingStatus(toolguardv1.ToolGuardService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	return s, nil
}

// Addr returns the address Serve is listening on, or nil before Serve.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// MetricsAddr returns the address the metrics endpoint is bound to (New
// binds it; Serve serves it), or nil when metrics are off.
func (s *Server) MetricsAddr() net.Addr {
	if s.metrics == nil {
		return nil
	}
	return s.metrics.Addr()
}

// instrumented returns chain with the gRPC metrics link when metrics are on
// (see withMetricsInterceptor).
func (s *Server) instrumented(chain []interceptor) []interceptor {
	if s.metrics == nil {
		return chain
	}
	return withMetricsInterceptor(chain, s.grpcMetrics)
}

// Serve serves on lis until ctx is cancelled, then shuts down gracefully:
//
//  1. health reports NOT_SERVING for "" and toolguard.v1.ToolGuardService,
//  2. the server keeps serving for cfg.DrainDelay, so load balancers see
//     that and stop sending new calls,
//  3. GracefulStop refuses new calls and waits for in-flight ones, for at
//     most cfg.ShutdownTimeout, after which Stop cancels them,
//  4. the resources New acquired are released in reverse order.
//
// It returns nil when the shutdown was clean; otherwise an error saying what
// went wrong (the listener failed, in-flight calls had to be cancelled, or a
// release failed). Serve closes lis and may be called only once.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	s.mu.Lock()
	if s.served {
		s.mu.Unlock()
		return errors.New("service: Serve called more than once")
	}
	s.served = true
	s.addr = lis.Addr()
	s.mu.Unlock()

	s.log.Info("serving gRPC", zap.String("address", lis.Addr().String()))
	if s.metrics != nil {
		s.metrics.Start()
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- s.grpc.Serve(lis) }()

	select {
	case err := <-serveErr:
		// The listener failed before anyone asked to stop.
		s.grpc.Stop()
		s.log.Error("gRPC server failed", zap.Error(err))
		return errors.Join(fmt.Errorf("serve: %w", err), s.runCleanups())
	case <-ctx.Done():
	}

	stopErr := s.shutdown()
	// grpc.Server.Serve returns nil once Stop or GracefulStop was called, or
	// ErrServerStopped if they were called before it started (ctx cancelled
	// right away): both are a normal end.
	if err := <-serveErr; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		stopErr = errors.Join(stopErr, fmt.Errorf("serve: %w", err))
	}
	err := errors.Join(stopErr, s.runCleanups())
	if err == nil {
		s.log.Info("server stopped")
	}
	return err
}

// shutdown runs steps 1 to 3 of Serve's shutdown. It reports an error only
// when in-flight calls had to be cancelled.
func (s *Server) shutdown() error {
	// Shutdown sets every status NOT_SERVING and ignores later changes, so
	// nothing can flip the server back to SERVING while it drains.
	s.health.Shutdown()
	s.log.Info("shutting down: health is NOT_SERVING, draining",
		zap.Duration("drain_delay", s.cfg.DrainDelay))
	if s.cfg.DrainDelay > 0 {
		// Not interruptible: ctx is already cancelled, and the delay is the
		// point. A second signal kills the process (see cmd/toolguard).
		time.Sleep(s.cfg.DrainDelay)
	}
	close(s.stopping)

	s.log.Info("stopping gracefully: waiting for in-flight calls",
		zap.Duration("shutdown_timeout", s.cfg.ShutdownTimeout))
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	timer := time.NewTimer(s.cfg.ShutdownTimeout)
	defer timer.Stop()
	select {
	case <-done:
		s.log.Info("graceful stop complete")
		return nil
	case <-timer.C:
		s.log.Warn("graceful stop timed out: cancelling in-flight calls",
			zap.Duration("shutdown_timeout", s.cfg.ShutdownTimeout))
		s.grpc.Stop()
		<-done
		return fmt.Errorf("graceful stop did not finish within %s: in-flight calls were cancelled", s.cfg.ShutdownTimeout)
	}
}

// runCleanups releases what New acquired, last acquired first, logging and
// returning every failure. It runs at most once.
func (s *Server) runCleanups() error {
	var errs []error
	for i := len(s.cleanups) - 1; i >= 0; i-- {
		c := s.cleanups[i]
		if err := c.fn(); err != nil {
			s.log.Error("cleanup failed", zap.String("resource", c.name), zap.Error(err))
			errs = append(errs, fmt.Errorf("release %s: %w", c.name, err))
		}
	}
	s.cleanups = nil
	return errors.Join(errs...)
}

// ListenAndServe binds cfg.Listen over TCP and serves on it (see
// Server.Serve) until ctx is cancelled. The bound address is logged, which
// matters when cfg.Listen has port 0.
func ListenAndServe(ctx context.Context, cfg Config, log *zap.Logger) error {
	// Validate before binding, so a bad configuration is reported as such
	// rather than as a listen error.
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	srv, err := New(cfg, log)
	if err != nil {
		_ = lis.Close()
		return err
	}
	return srv.Serve(ctx, lis)
}
