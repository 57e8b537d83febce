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
	// stopping is closed when the drain delay is over, just before the
	// graceful stop; it ends health Watch streams (see drainingHealth).
	stopping chan struct{}
	// run serves and stops the server and holds what New acquired.
	run lifecycle.Runner
	// metrics is nil when cfg.MetricsListen is empty, tracing when
	// cfg.OTLPEndpoint is.
	metrics     *observe.Endpoint
	grpcMetrics *grpcprom.ServerMetrics
	tracing     *sdktrace.TracerProvider
}

// New validates cfg and builds the server. log may be nil (no logging).
func New(cfg Config, log *zap.Logger) (*Server, error) {
	return newServer(cfg, log)
}

// newServer is New with extra services registered after the standard ones.
// Only tests pass any (a service that blocks or panics on demand).
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
			_ = s.run.Cleanups.Run()
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
		s.run.Cleanups.Add("tracing", func() error { return stopTracing(tracing, cfg, log) })
		log.Info("tracing on: exporting spans over OTLP", zap.String("otlp_endpoint", cfg.OTLPEndpoint), zap.Bool("otlp_insecure", cfg.OTLPInsecure))
	}
	var observer func(*repair.Registry) (guard.Observer, error)
	if cfg.MetricsListen != "" {
		if s.metrics, s.grpcMetrics, err = newMetrics(cfg, log.Named("metrics")); err != nil {
			return nil, err
		}
		s.run.Cleanups.Add("metrics server", s.metrics.Stop)
		observer = s.metrics.Observer
	}

	svc, release, err := newToolGuardService(cfg, log.Named("toolguard"), observer, access.streams)
	if err != nil {
		return nil, fmt.Errorf("build ToolGuardService: %w", err)
	}
	s.run.Cleanups.Add("ToolGuardService", release)

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

// MetricsAddr returns the address the metrics endpoint is bound to (New
// binds it; Serve serves it), or nil when metrics are off.
func (s *Server) MetricsAddr() net.Addr { return s.run.MetricsAddr() }

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
// It returns nil when the shutdown was clean, otherwise what went wrong.
// Serve closes lis and may be called only once.
func (s *Server) Serve(ctx context.Context, lis net.Listener) error {
	return s.run.Serve(ctx, lis)
}

// drain runs steps 1 and 2 of Serve's shutdown.
func (s *Server) drain() {
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
}

// grpcServer gives a grpc.Server the stops lifecycle.Runner expects.
type grpcServer struct {
	*grpc.Server
	graceful chan struct{} // closed when GracefulStop returns; nil before Shutdown
}

func (g *grpcServer) Serve(lis net.Listener) error {
	// ErrServerStopped: stopped before it started (ctx cancelled at once).
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

// ListenAndServe binds cfg.Listen over TCP and serves on it (see
// Server.Serve) until ctx is cancelled.
func ListenAndServe(ctx context.Context, cfg Config, log *zap.Logger) error {
	// Validate before binding, so a bad configuration is reported as such
	// rather than as a listen error.
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("invalid configuration: %w", err)
	}
	return lifecycle.ListenAndServe(ctx, cfg.Listen, func() (*Server, error) { return New(cfg, log) })
}
