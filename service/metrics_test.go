package service

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"go.uber.org/zap"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"

	"github.com/toolguard/toolguard/observe"
)

// TestMetricsInterceptorPlacement checks that the metrics link goes right
// after logging, before the access links and recovery.
func TestMetricsInterceptorPlacement(t *testing.T) {
	names := func(chain []interceptor) []string {
		var out []string
		for _, ic := range chain {
			out = append(out, ic.name)
			if ic.unary == nil || ic.stream == nil {
				t.Errorf("interceptor %q lacks a unary or stream form", ic.name)
			}
		}
		return out
	}
	m := grpcprom.NewServerMetrics()
	got := names(withMetricsInterceptor(interceptorChain(zap.NewNop()), m))
	logging, metrics, recovery := slices.Index(got, "logging"), slices.Index(got, "metrics"), slices.Index(got, "recovery")
	if got[0] != "request-id" || logging < 0 || metrics != logging+1 || recovery != len(got)-1 {
		t.Fatalf("chain with metrics = %v, want request-id, logging, metrics, ..., recovery", got)
	}
	if got := names(withMetricsInterceptor([]interceptor{{name: "a", unary: unaryRequestID, stream: streamRequestID}}, m)); !slices.Equal(got, []string{"metrics", "a"}) {
		t.Fatalf("chain without logging = %v, want metrics first", got)
	}
}

func TestValidateObservability(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(*Config)
		wantErr string
	}{
		{name: "off by default", edit: func(*Config) {}},
		{name: "metrics on their own port", edit: func(c *Config) { c.MetricsListen = "0.0.0.0:9464" }},
		{name: "both ports picked by the system", edit: func(c *Config) { c.Listen, c.MetricsListen = "127.0.0.1:0", "127.0.0.1:0" }},
		{name: "metrics on the gRPC port", edit: func(c *Config) { c.MetricsListen = ":7700" }, wantErr: "gRPC port 7700"},
		{name: "metrics address without a port", edit: func(c *Config) { c.MetricsListen = "localhost" }, wantErr: "want host:port"},
		{name: "OTLP host and port", edit: func(c *Config) { c.OTLPEndpoint = "otel-collector:4317"; c.OTLPInsecure = true }},
		{name: "OTLP URL", edit: func(c *Config) { c.OTLPEndpoint = "https://otel.example.com:4317" }},
		{name: "OTLP without a port", edit: func(c *Config) { c.OTLPEndpoint = "otel-collector" }, wantErr: "OTLP endpoint"},
		{name: "OTLP URL of another scheme", edit: func(c *Config) { c.OTLPEndpoint = "ftp://otel:4317" }, wantErr: "OTLP endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.edit(&cfg)
			err := cfg.Validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Validate: %v, want an error mentioning %q", err, tt.wantErr)
			}
		})
	}
}

// getMetrics fetches /metrics from addr.
func getMetrics(ctx context.Context, addr string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+observe.MetricsPath, nil)
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", resp.Status, body)
	}
	return string(body), err
}

// TestMetricsServerLifecycle follows the metrics server through a server's
// life: bound by New, served by Serve, stopped in the ordered cleanups after
// the graceful stop, and logged at each step.
func TestMetricsServerLifecycle(t *testing.T) {
	cfg := testConfig(t)
	cfg.MetricsListen = "127.0.0.1:0"
	svc := newTestService()
	ts := startTestServer(t, cfg, svc.register)
	ctx := testContext(t)
	addr := ts.srv.MetricsAddr().String()
	if addr == "127.0.0.1:0" || ts.srv.MetricsAddr() == nil {
		t.Fatalf("MetricsAddr = %v, want the bound port", addr)
	}

	// A panicking handler is counted as Internal: recovery is inside metrics.
	if _, err := testgrpc.NewTestServiceClient(ts.conn).EmptyCall(ctx, &testgrpc.Empty{}); err == nil {
		t.Fatal("panicking EmptyCall succeeded")
	}
	body, err := getMetrics(ctx, addr)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	if want := `grpc_server_handled_total{grpc_code="Internal",grpc_method="EmptyCall",grpc_service="grpc.testing.TestService",grpc_type="unary"} 1`; !strings.Contains(body, want) {
		t.Errorf("scrape lacks %s", want)
	}
	if !strings.Contains(body, `grpc_server_handling_seconds_bucket{grpc_method="EmptyCall"`) {
		t.Error("scrape lacks the handling-time histogram")
	}
	if got := waitForLog(t, ts.logs, "serving metrics").ContextMap()["address"]; got != addr {
		t.Errorf("logged metrics address %v, want %s", got, addr)
	}

	if err := ts.stop(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := getMetrics(ctx, addr); err == nil {
		t.Fatal("metrics still served after shutdown")
	}
	var order []string
	for _, e := range ts.logs.All() {
		switch e.Message {
		case "graceful stop complete", "metrics server stopped", "server stopped":
			order = append(order, e.Message)
		}
	}
	if want := []string{"graceful stop complete", "metrics server stopped", "server stopped"}; !slices.Equal(order, want) {
		t.Errorf("shutdown logged %v, want %v", order, want)
	}
}

// TestMetricsBindFailureFailsStartup checks that a metrics port that cannot
// be bound fails New (and ListenAndServe, which releases the gRPC port).
func TestMetricsBindFailureFailsStartup(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()

	cfg := testConfig(t)
	cfg.MetricsListen = taken.Addr().String()
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "metrics: listen on "+cfg.MetricsListen) {
		t.Fatalf("New with a taken metrics port: %v, want a metrics listen error", err)
	}

	grpcLis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Listen = grpcLis.Addr().String()
	_ = grpcLis.Close()
	if err := ListenAndServe(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), "metrics") {
		t.Fatalf("ListenAndServe with a taken metrics port: %v, want a metrics listen error", err)
	}
	again, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		t.Fatalf("the gRPC port was not released: %v", err)
	}
	_ = again.Close()
}

// TestMetricsOffIsOff checks that without MetricsListen nothing is built:
// no registry, no chain link, no observer.
func TestMetricsOffIsOff(t *testing.T) {
	srv, err := New(testConfig(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if srv.metrics != nil || srv.MetricsAddr() != nil {
		t.Fatal("metrics built with MetricsListen empty")
	}
	if got := srv.instrumented(interceptorChain(zap.NewNop())); slices.ContainsFunc(got, func(ic interceptor) bool { return ic.name == "metrics" }) {
		t.Fatal("metrics link in the chain with metrics off")
	}
	if err := srv.run.Cleanups.Run(); err != nil {
		t.Fatal(err)
	}
}
