package proxy

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestMaxConnections opens one connection more than --max-connections
// allows: it is closed at once, without an answer, while the connection
// within the limit keeps being served; the metrics count both; once that
// one closes, a client trying again gets in.
func TestMaxConnections(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"object":"list","data":[]}`)
	}))
	defer up.Close()
	addr, srv, _, _ := startServer(t, up.URL, func(c *Config) { c.MaxConnections = 1 })
	// dial connects; a connection past the limit may be reset before the
	// dial returns.
	tryDial := func() (net.Conn, error) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			t.Cleanup(func() { _ = c.Close() })
		}
		return c, err
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := tryDial()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// get sends a request on c and reads its answer.
	get := func(c net.Conn, r *bufio.Reader) (*http.Response, error) {
		if _, err := io.WriteString(c, "GET /v1/models HTTP/1.1\r\nHost: proxy\r\n\r\n"); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return resp, err
	}
	served := func(c net.Conn, r *bufio.Reader) {
		t.Helper()
		if resp, err := get(c, r); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("a connection within the limit: %v, %v", resp, err)
		}
	}

	first := dial()
	firstR := bufio.NewReader(first)
	served(first, firstR)
	if past, err := tryDial(); err == nil {
		if resp, err := get(past, bufio.NewReader(past)); err == nil {
			t.Fatalf("a connection past the limit was answered: %v", resp.Status)
		}
	}
	served(first, firstR)
	metrics := scrapeText(t, srv)
	for _, want := range []string{"toolguard_connections_open 1\n", "toolguard_connections_max 1\n"} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if strings.Contains(metrics, "toolguard_connections_refused_total 0\n") {
		t.Error("no refused connection counted")
	}

	// A client retrying, as the SDKs do after a connection error, gets in
	// once the first connection is closed.
	_ = first.Close()
	for {
		c, err := tryDial()
		if err != nil {
			continue
		}
		if resp, err := get(c, bufio.NewReader(c)); err == nil {
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("after a close: %s", resp.Status)
			}
			break
		}
	}
}

func scrapeText(t *testing.T, srv *Server) string {
	t.Helper()
	resp, err := http.Get("http://" + srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}
