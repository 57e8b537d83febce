package service_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// TestMaxConnections opens one gRPC connection more than --max-connections
// allows: that client's call fails at once with UNAVAILABLE, the others
// keep being served, the gauges count them, and once one closes the client
// refused gets in on its own reconnection.
func TestMaxConnections(t *testing.T) {
	first, cfg := servicetest.Start(t, service.Config{MaxConnections: 2, MetricsListen: "on"})
	dial := func() *grpc.ClientConn {
		t.Helper()
		// A short reconnection backoff, so the refused client's next try
		// comes soon after a slot is free; its outcome does not depend on it.
		conn, err := grpc.NewClient(cfg.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1.6, MaxDelay: 100 * time.Millisecond}}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = conn.Close() })
		return conn
	}
	check := func(conn *grpc.ClientConn, opts ...grpc.CallOption) error {
		_, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}, opts...)
		return err
	}

	second, third := dial(), dial()
	for i, conn := range []*grpc.ClientConn{first, second} {
		if err := check(conn); err != nil {
			t.Fatalf("client %d within the limit: %v", i+1, err)
		}
	}
	if err := check(third); status.Code(err) != codes.Unavailable {
		t.Fatalf("client past the limit: %v, want UNAVAILABLE", err)
	}
	for i, conn := range []*grpc.ClientConn{first, second} {
		if err := check(conn); err != nil {
			t.Fatalf("client %d within the limit, after a refusal: %v", i+1, err)
		}
	}
	_, families := scrape(t, cfg.MetricsListen)
	gauge := func(name string) float64 {
		m := families[name].GetMetric()
		if len(m) != 1 {
			t.Fatalf("%s: %d series, want 1", name, len(m))
		}
		if c := m[0].GetCounter(); c != nil {
			return c.GetValue()
		}
		return m[0].GetGauge().GetValue()
	}
	if open, most, refused := gauge(observe.ConnectionsOpenMetric), gauge(observe.ConnectionsMaxMetric), gauge(observe.ConnectionsRefusedMetric); open != 2 || most != 2 || refused < 1 {
		t.Fatalf("connections open %g, max %g, refused %g; want 2, 2 and at least 1", open, most, refused)
	}

	// The first client leaves; the third, waiting for its channel to be
	// ready, is let in by one of its reconnections.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if err := check(third, grpc.WaitForReady(true)); err != nil {
		t.Fatalf("client refused before, once a connection closed: %v", err)
	}
	if err := check(second); err != nil {
		t.Fatalf("client within the limit, at the end: %v", err)
	}
}

// TestSilentAndIdleConnectionsLeave: a connection that never sends gRPC's
// preface is closed once --handshake-timeout has passed, and one without a
// call for --max-connection-idle is asked to close, so neither holds a slot
// of --max-connections for ever; a client asked to close reconnects on its
// next call.
func TestSilentAndIdleConnectionsLeave(t *testing.T) {
	// The client's own connection may be cut too when the machine is slow to
	// take its preface: its calls wait for a connection that is ready.
	conn, cfg := servicetest.Start(t, service.Config{HandshakeTimeout: 500 * time.Millisecond, MaxConnectionIdle: 100 * time.Millisecond})

	silent, err := net.Dial("tcp", cfg.Listen)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	// Only a bound on a broken server's hang: the server closes it first.
	_ = silent.SetReadDeadline(time.Now().Add(time.Minute))
	// The server's own settings come first, then its close.
	if n, err := io.Copy(io.Discard, silent); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a connection that never sent the preface: read %d bytes, %v; want it closed by the server", n, err)
	}

	check := func() error {
		_, err := healthpb.NewHealthClient(conn).Check(context.Background(), &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
		return err
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for conn.GetState() == connectivity.Ready {
		if !conn.WaitForStateChange(ctx, connectivity.Ready) {
			t.Fatal("an idle connection was not asked to close")
		}
	}
	if err := check(); err != nil {
		t.Fatalf("the client's next call, after its idle connection closed: %v", err)
	}
}
