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
	"github.com/toolguard/toolguard/session"
)

type serverHooks struct {
	// spanExporter, when set, replaces the OTLP exporter.
	spanExporter sdktrace.SpanExporter
	// sessions, when set, replaces the session store cfg selects.
	sessions session.Store
}

// newTracing returns, when cfg.OTLPEndpoint is set, the TracerProvider and
// the option installing otelgrpc's stats handler: outside the chain, so a
// span covers the whole call and the request-id interceptor logs its id.
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
		// A caller's trace continues here; set on the handler, not globally.
		otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		// Metrics are Prometheus's job.
		otelgrpc.WithMeterProvider(noopmetric.NewMeterProvider()),
		// Probes every few seconds would bury the calls that matter.
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
	)
	return tp, []grpc.ServerOption{grpc.StatsHandler(handler)}, nil
}

func stopTracing(tp *sdktrace.TracerProvider, cfg Config, log *zap.Logger) error {
	if err := observe.StopTracing(tp, cfg.ShutdownTimeout); err != nil {
		return err
	}
	log.Info("tracing stopped: spans flushed", zap.String("otlp_endpoint", cfg.OTLPEndpoint))
	return nil
}
