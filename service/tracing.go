package service

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc/filters"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	noopmetric "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// Version is the toolguard version the server reports in its telemetry (the
// service.version of its spans). The binary sets it from its build stamp
// before it builds the server.
var Version = "dev"

// serviceName is the service.name of the server's spans.
const serviceName = "toolguard"

// releaseTimeout bounds flushing spans and stopping the metrics server at
// shutdown (or cfg.ShutdownTimeout when shorter): both run after the
// graceful stop, and the whole shutdown must fit in the orchestrator's grace
// period.
const releaseTimeout = 5 * time.Second

// serverHooks are seams of the server's construction for tests.
type serverHooks struct {
	// spanExporter, when set, receives the spans instead of the OTLP
	// exporter (tracing still needs cfg.OTLPEndpoint to be on).
	spanExporter sdktrace.SpanExporter
}

// newTracing builds what tracing needs when cfg.OTLPEndpoint is set: a
// TracerProvider exporting in batches through OTLP/gRPC (or hooks'
// exporter), and the server option installing otelgrpc's stats handler with
// it. The handler sits outside the interceptor chain, so every call's span
// covers the whole call, and the request-id interceptor can log its trace
// id. It returns nil and no option when tracing is off, so it then costs
// nothing.
//
// The exporter connects lazily: an unreachable collector does not fail
// startup, spans are dropped after the exporter's retries. Headers,
// certificates and timeouts come from the standard OTEL_EXPORTER_OTLP_*
// variables, and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the
// resource.
func newTracing(cfg Config, hooks serverHooks) (*sdktrace.TracerProvider, []grpc.ServerOption, error) {
	if cfg.OTLPEndpoint == "" {
		return nil, nil, nil
	}
	ctx := context.Background()
	exporter := hooks.spanExporter
	if exporter == nil {
		exp, err := otlptracegrpc.New(ctx, otlpOptions(cfg)...)
		if err != nil {
			return nil, nil, fmt.Errorf("OTLP exporter for %s: %w", cfg.OTLPEndpoint, err)
		}
		exporter = exp
	}
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceName(serviceName), semconv.ServiceVersion(Version)),
		resource.WithFromEnv(),
	)
	if err != nil {
		_ = exporter.Shutdown(ctx)
		return nil, nil, fmt.Errorf("tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	handler := otelgrpc.NewServerHandler(
		otelgrpc.WithTracerProvider(tp),
		// W3C trace context and baggage, so a caller's trace continues
		// here; set on the handler, not globally.
		otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		// Metrics are Prometheus's job (metrics.go); OpenTelemetry's
		// would be a second, unexported copy.
		otelgrpc.WithMeterProvider(noopmetric.NewMeterProvider()),
		// Probes every few seconds would bury the calls that matter.
		otelgrpc.WithFilter(filters.Not(filters.HealthCheck())),
	)
	return tp, []grpc.ServerOption{grpc.StatsHandler(handler)}, nil
}

// otlpOptions turns the endpoint settings into exporter options: host:port,
// or a URL (http:// is plaintext); --otlp-insecure makes either plaintext.
func otlpOptions(cfg Config) []otlptracegrpc.Option {
	var opts []otlptracegrpc.Option
	if strings.Contains(cfg.OTLPEndpoint, "://") {
		opts = append(opts, otlptracegrpc.WithEndpointURL(cfg.OTLPEndpoint))
	} else {
		opts = append(opts, otlptracegrpc.WithEndpoint(cfg.OTLPEndpoint))
	}
	if cfg.OTLPInsecure {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	return opts
}

// stopTracing flushes the spans still buffered and shuts the exporter down,
// within releaseTimeout.
func stopTracing(tp *sdktrace.TracerProvider, cfg Config, log *zap.Logger) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(cfg.ShutdownTimeout, releaseTimeout))
	defer cancel()
	if err := tp.Shutdown(ctx); err != nil {
		return err
	}
	log.Info("tracing stopped: spans flushed", zap.String("otlp_endpoint", cfg.OTLPEndpoint))
	return nil
}
