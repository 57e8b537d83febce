package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

// startServer runs a Server on loopback until the returned cancel; done
// gets Serve's result.
func startServer(t *testing.T, upstream string, edit func(*Config)) (addr string, srv *Server, cancel context.CancelFunc, done chan error) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Upstream = upstream
	cfg.MetricsListen = "127.0.0.1:0"
	if edit != nil {
		edit(&cfg)
	}
	srv, err := NewServer(cfg, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return lis.Addr().String(), srv, cancel, done
}

// halfStream is an upstream that sends a call's first half, waits for
// release (or for its request to end), then sends the rest.
func halfStream(release <-chan struct{}, ended chan<- struct{}) http.HandlerFunc {
	full := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt',`, ` 'content': 'hi'}`}}}, "tool_calls")
	cut := bytes.Index(full, []byte(`'content'`))
	cut = bytes.LastIndex(full[:cut], []byte("data: "))
	return func(w http.ResponseWriter, r *http.Request) {
		defer close(ended)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(full[:cut])
		_ = http.NewResponseController(w).Flush()
		select {
		case <-release:
			_, _ = w.Write(full[cut:])
		case <-r.Context().Done():
		}
	}
}

// TestGracefulShutdown: at shutdown the proxy stops accepting connections
// and lets a stream in flight finish; the metrics were served until then.
func TestGracefulShutdown(t *testing.T) {
	release, ended := make(chan struct{}), make(chan struct{})
	up := httptest.NewServer(halfStream(release, ended))
	defer up.Close()
	addr, srv, cancel, done := startServer(t, up.URL, nil)

	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(requestBody("openai", true, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "Planning.") {
		t.Fatalf("first line %q, %v", line, err)
	}
	cancel()
	// The listener closes: new connections are refused.
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			break
		}
		c.Close()
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || !bytes.HasSuffix(rest, []byte("data: [DONE]\n\n")) || !bytes.Contains(rest, []byte(`{\"content\":\"hi\",\"path\":\"a.txt\"}`)) {
		t.Fatalf("the stream in flight did not finish repaired (%v):\n%s", err, rest)
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	done <- nil // for the cleanup
	if srv.MetricsAddr() == nil {
		t.Fatal("no metrics endpoint")
	}
}

// TestShutdownCutsLongStreams: a stream still running when the shutdown
// timeout ends is cut, and its upstream request cancelled.
func TestShutdownCutsLongStreams(t *testing.T) {
	release, ended := make(chan struct{}), make(chan struct{})
	defer close(release)
	up := httptest.NewServer(halfStream(release, ended))
	defer up.Close()
	addr, _, cancel, done := startServer(t, up.URL, func(c *Config) { c.ShutdownTimeout = 100 * time.Millisecond })
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(requestBody("openai", true, true)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err == nil || !strings.Contains(err.Error(), "were cut") {
		t.Fatalf("Serve: %v, want the streams cut", err)
	}
	done <- nil
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the upstream request of the cut stream was not cancelled")
	}
	if _, err := io.ReadAll(br); err == nil {
		t.Error("the cut stream ended cleanly")
	}
}

// TestMetricsEndpoint: the proxy's counters and the product's, on the
// metrics port.
func TestMetricsEndpoint(t *testing.T) {
	in := openAIStream([]synthCall{{index: 0, name: "Write", frags: []string{`{'path': 'a.txt', 'content': 'hi'}`}}}, "tool_calls")
	up := httptest.NewServer(sseUpstream(in, nil))
	defer up.Close()
	addr, srv, _, _ := startServer(t, up.URL, nil)
	resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", bytes.NewReader(requestBody("openai", true, true)))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	mresp, err := http.Get("http://" + srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer mresp.Body.Close()
	text, _ := io.ReadAll(mresp.Body)
	for _, want := range []string{
		`toolguard_proxy_calls_total{action="repaired",api="openai",mode="enforce"} 1`,
		`toolguard_repairs_total{code="PYTHON_LITERAL",model_family="generic"} 1`,
		`toolguard_verdicts_total{outcome="usable",tool="custom"} 1`,
		`toolguard_stream_calls_total{format="openai",outcome="usable"} 1`,
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(string(text), "grpc_server_") {
		t.Error("the proxy serves gRPC metrics")
	}
}
