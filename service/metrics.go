package service

import (
	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/observe"
)

// Validation takes well under a millisecond, large edits and streams far
// longer.
var grpcHandlingBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// newMetrics binds cfg.MetricsListen, with the gRPC server metrics.
func newMetrics(cfg Config, log *zap.Logger) (*observe.Endpoint, *grpcprom.ServerMetrics, error) {
	grpcMetrics := grpcprom.NewServerMetrics(
		grpcprom.WithServerHandlingTimeHistogram(grpcprom.WithHistogramBuckets(grpcHandlingBuckets)),
	)
	ep, err := observe.NewEndpoint(cfg.MetricsListen, cfg.ShutdownTimeout, log, grpcMetrics)
	if err != nil {
		return nil, nil, err
	}
	return ep, grpcMetrics, nil
}

// withMetricsInterceptor puts the metrics link right after logging: the
// time it measures leaves out the access log, and a panic or a refusal is
// counted with its code. Without logging it goes first.
func withMetricsInterceptor(chain []interceptor, m *grpcprom.ServerMetrics) []interceptor {
	link := interceptor{name: linkMetrics, unary: m.UnaryServerInterceptor(), stream: m.StreamServerInterceptor()}
	at := 0
	for i, ic := range chain {
		if ic.name == linkLogging {
			at = i + 1
			break
		}
	}
	out := make([]interceptor, 0, len(chain)+1)
	out = append(out, chain[:at]...)
	out = append(out, link)
	return append(out, chain[at:]...)
}

func (c Config) validateObservability() []error {
	var errs []error
	if c.MetricsListen != "" {
		if err := observe.CheckListen(c.MetricsListen, c.Listen, "gRPC port"); err != nil {
			errs = append(errs, err)
		}
	}
	if c.OTLPEndpoint != "" {
		if err := observe.CheckOTLPEndpoint(c.OTLPEndpoint); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
