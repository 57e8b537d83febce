package mcp

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolguard/toolguard/observe"
)

// TestHTTPMaxConnections opens one connection more than --max-connections
// allows: it is closed at once, unanswered, while the one within keeps
// being served, and a client trying again gets in once that one closes.
func TestHTTPMaxConnections(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	srv, err := newHTTPServer(h, HTTPServeOptions{MaxConnections: 1, ShutdownTimeout: time.Minute, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	// dial connects; a connection past the limit may be reset before the
	// dial returns, which get then reports.
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", lis.Addr().String())
		if err != nil {
			return nil, nil
		}
		t.Cleanup(func() { _ = c.Close() })
		return c, bufio.NewReader(c)
	}
	get := func(c net.Conn, r *bufio.Reader) error {
		if c == nil {
			return net.ErrClosed
		}
		if _, err := io.WriteString(c, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}

	first, firstR := dial()
	if err := get(first, firstR); err != nil {
		t.Fatalf("the connection within the limit: %v", err)
	}
	if err := get(dial()); err == nil {
		t.Fatal("a connection past the limit was answered")
	}
	if err := get(first, firstR); err != nil {
		t.Fatalf("the connection within the limit, after a refusal: %v", err)
	}
	for name, want := range map[string]float64{observe.ConnectionsOpenMetric: 1, observe.ConnectionsMaxMetric: 1, observe.ConnectionsRefusedMetric: 1} {
		if got := gathered(t, reg, name); got != want {
			t.Errorf("%s = %g, want %g", name, got, want)
		}
	}

	_ = first.Close()
	for get(dial()) != nil {
		// refused while the server has not yet seen the first close
	}
}

func gathered(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			m := f.GetMetric()[0]
			if c := m.GetCounter(); c != nil {
				return c.GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
