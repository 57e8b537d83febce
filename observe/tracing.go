package observe

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Version is the toolguard version in telemetry; the binary sets it.
var Version = "dev"

const serviceName = "toolguard"

// NewTracerProvider exports spans in batches over OTLP/gRPC to endpoint
// (host:port or URL; insecure for plaintext), or to exporter when not nil.
// The exporter connects lazily: an unreachable collector does not fail
// startup. OTEL_* variables tune the exporter and the resource.
func NewTracerProvider(endpoint string, insecure bool, exporter sdktrace.SpanExporter) (*sdktrace.TracerProvider, error) {
	ctx := context.Background()
	if exporter == nil {
		exp, err := otlptracegrpc.New(ctx, otlpOptions(endpoint, insecure)...)
		if err != nil {
			return nil, fmt.Errorf("OTLP exporter for %s: %w", endpoint, err)
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
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

func otlpOptions(endpoint string, insecure bool) []otlptracegrpc.Option {
	var opts []otlptracegrpc.Option
	if strings.Contains(endpoint, "://") {
		opts = append(opts, otlptracegrpc.WithEndpointURL(endpoint))
	} else {
		opts = append(opts, otlptracegrpc.WithEndpoint(endpoint))
	}
	if insecure {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	return opts
}

// StopTracing flushes the spans still buffered within shutdownTimeout (5 s
// at most).
func StopTracing(tp *sdktrace.TracerProvider, shutdownTimeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), min(shutdownTimeout, releaseTimeout))
	defer cancel()
	return tp.Shutdown(ctx)
}

// CheckOTLPEndpoint reports an OTLP endpoint that is neither host:port nor
// an http(s):// URL.
func CheckOTLPEndpoint(e string) error {
	if strings.Contains(e, "://") {
		if u, err := url.Parse(e); err == nil && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https") {
			return nil
		}
	} else if _, _, err := net.SplitHostPort(e); err == nil {
		return nil
	}
	return fmt.Errorf("OTLP endpoint %q: want host:port or an http(s):// URL", e)
}
