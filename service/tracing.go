package service

import (
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	noopmetric "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/zap"
	"google.golang.org/grpc"

	"github.com/toolguard/toolguard/observe"
)

// serverHooks are seams of the server's construction for tests.
type serverHooks struct {
	// spanExporter, when set, receives the spans instead of the OTLP
	// exporter (tracing still needs cfg.OTLPEndpoint to be on).
	spanExporter sdktrace.SpanExporter
}

// newTracing returns, when cfg.OTLPEndpoint is set, the TracerProvider and
// the server option installing otelgrpc's stats handler with it; nothing
// when tracing is off, so it then costs nothing. The handler sits outside
// the interceptor chain, so a call's span covers the whole call and the
// request-id interceptor can log its trace id.
func newTracing(cfg Config, hooks serverHooks) (*sdktrace.TracerProvider, []grpc.ServerOption, error) {
	if cfg.OTLPEndpoint == "" {
		return nil, nil, nil
	}
	tp, err := observe.NewTracerProvider(cfg.OTLPEndpoint, cfg.OTLPInsecure, hooks.spanExporter)
	if err != nil {
		return nil, nil, err
	}
	handler := otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(tp),
		// W3C trace context and baggage, so a caller's trace continues
		// here; set on the handler, not globally.
		otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		// Metrics are Prometheus's job; OpenTelemetry's would be an
		// unexported copy.
		otelgrpc.WithMeterProvider(noopmetric.NewMeterProvider()),
		// Probes every few seconds would bury the calls that matter.
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
	)
	return tp, []grpc.ServerOption{grpc.StatsHandler(handler)}, nil
}

// stopTracing flushes the spans still buffered and shuts the exporter down.
func stopTracing(tp *sdktrace.TracerProvider, cfg Config, log *zap.Logger) error {
	if err := observe.StopTracing(tp, cfg.ShutdownTimeout); err != nil {
		return err
	}
	log.Info("tracing stopped: spans flushed", zap.String("otlp_endpoint", cfg.OTLPEndpoint))
	return nil
}
