package mcp_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/mcp"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// httpServer serves s's HTTP handler on 127.0.0.1, with tokens naming
// principals when tokens is not nil.
func httpServer(t *testing.T, s *mcp.Server, tokens map[string]string) *httptest.Server {
	t.Helper()
	var verify auth.Verifier
	if tokens != nil {
		verify = func(token string) (*auth.Caller, error) {
			if p, ok := tokens[token]; ok {
				return auth.NewCaller(p, auth.AllWorkspaces), nil
			}
			return nil, errors.New("unknown token")
		}
	}
	h, err := s.HTTPHandler(verify)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs
}

// post sends one JSON-RPC body as a raw HTTP request and returns the
// response, its body read.
func post(t *testing.T, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	return do(t, http.MethodPost, url, body, header)
}

func do(t *testing.T, method, url, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp, string(b)
}

// eventually waits for cond, which a goroutine of the server makes true
// (a session's slot is given back once the SDK has ended the session).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still not %s after 30s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestSessionCap: sessions past --max-http-sessions are refused with 503
// and a Retry-After, none is evicted, and a deleted session frees its slot.
// A request that creates no session (no initialize) holds none.
func TestSessionCap(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{MaxSessions: 3})
	hs := httpServer(t, s, nil)
	// A POST without a session id that is no initialize holds no slot
	// once answered.
	if resp, body := post(t, hs.URL, `{"jsonrpc":"2.0","id":3,"method":"ping"}`, nil); resp.StatusCode >= 500 {
		t.Fatalf("ping without a session: %d %s", resp.StatusCode, body)
	}
	eventually(t, "0 sessions held", func() bool { return s.OpenHTTPSessions() == 0 })
	var ids []string
	for i := range 3 {
		resp, body := post(t, hs.URL, initializeBody, nil)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
			t.Fatalf("session %d: %d %s", i, resp.StatusCode, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	if n := s.OpenHTTPSessions(); n != 3 {
		t.Fatalf("%d sessions held, want 3", n)
	}
	resp, body := post(t, hs.URL, initializeBody, nil)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(body, "maximum of 3 open MCP sessions") || !strings.Contains(body, `"id":null`) {
		t.Fatalf("a fourth session: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	// The first sessions still work: nothing was evicted.
	for _, id := range ids {
		resp, body := post(t, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`, map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ping on %s: %d %s", id, resp.StatusCode, body)
		}
	}
	if resp, _ := do(t, http.MethodDelete, hs.URL, "", map[string]string{"Mcp-Session-Id": ids[0]}); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	eventually(t, "2 sessions held", func() bool { return s.OpenHTTPSessions() == 2 })
	if resp, body := post(t, hs.URL, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("a session after one was deleted: %d %s", resp.StatusCode, body)
	}
	if n := s.OpenHTTPSessions(); n != 3 {
		t.Fatalf("%d sessions held, want 3", n)
	}
}

// TestSessionCapPerPrincipal: with two principals or more, one principal
// holds at most its share (a quarter by default); past it, 429, while
// another principal still opens sessions.
func TestSessionCapPerPrincipal(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{MaxSessions: 8, Principals: 2})
	hs := httpServer(t, s, map[string]string{"a-token": "alice", "b-token": "bob"})
	as := map[string]string{"Authorization": "Bearer a-token"}
	for i := range 2 {
		if resp, body := post(t, hs.URL, initializeBody, as); resp.StatusCode != http.StatusOK {
			t.Fatalf("alice's session %d: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := post(t, hs.URL, initializeBody, as)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `principal \"alice\" already holds its share of 2`) {
		t.Fatalf("alice's third session: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, body := post(t, hs.URL, initializeBody, map[string]string{"Authorization": "Bearer b-token"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's session: %d %s", resp.StatusCode, body)
	}
	if n := s.OpenHTTPSessions(); n != 3 {
		t.Fatalf("%d sessions held, want 3", n)
	}
}

// TestSessionIdleTimeout: a session without requests for the idle timeout
// is closed, its slot given back; its id is then unknown (404).
func TestSessionIdleTimeout(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{SessionTimeout: 20 * time.Millisecond})
	hs := httpServer(t, s, nil)
	resp, body := post(t, hs.URL, initializeBody, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	eventually(t, "0 sessions held", func() bool { return s.OpenHTTPSessions() == 0 })
	resp, body = post(t, hs.URL, `{"jsonrpc":"2.0","id":2,"method":"ping"}`,
		map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a request on the idle session: %d %s", resp.StatusCode, body)
	}
}

// TestRateLimit: each principal's requests past its bucket get 429 with a
// Retry-After; another principal's bucket is its own.
func TestRateLimit(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{RateLimit: 0.01, RateBurst: 2})
	hs := httpServer(t, s, map[string]string{"a-token": "alice", "b-token": "bob"})
	as := map[string]string{"Authorization": "Bearer a-token"}
	for i := range 2 {
		if resp, body := post(t, hs.URL, initializeBody, as); resp.StatusCode != http.StatusOK {
			t.Fatalf("alice's request %d: %d %s", i, resp.StatusCode, body)
		}
	}
	resp, body := post(t, hs.URL, initializeBody, as)
	retry, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
	if resp.StatusCode != http.StatusTooManyRequests || retry < 1 || !strings.Contains(body, `principal \"alice\" made more than 0.01 requests a second`) {
		t.Fatalf("alice's third request: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if resp, body := post(t, hs.URL, initializeBody, map[string]string{"Authorization": "Bearer b-token"}); resp.StatusCode != http.StatusOK {
		t.Fatalf("bob's request: %d %s", resp.StatusCode, body)
	}
}

// TestOrigin: a request carrying an Origin header is served only from an
// allowed origin, or from a loopback page on a loopback address (DNS
// rebinding); a request without one (no browser) is served.
func TestOrigin(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{AllowedOrigins: []string{"https://app.example.com"}})
	hs := httpServer(t, s, nil)
	for _, tt := range []struct {
		origin string
		want   int
	}{
		{"", http.StatusOK},
		{"http://localhost:5173", http.StatusOK},
		{"http://127.0.0.1", http.StatusOK},
		{"http://[::1]:8080", http.StatusOK},
		{"https://app.example.com", http.StatusOK},
		{"https://APP.example.com:443", http.StatusOK},
		{"http://app.example.com", http.StatusForbidden},
		{"https://app.example.com:8443", http.StatusForbidden},
		{"http://evil.example", http.StatusForbidden},
		{"http://localhost.evil.example", http.StatusForbidden},
		{"null", http.StatusForbidden},
	} {
		t.Run(tt.origin, func(t *testing.T) {
			var h map[string]string
			if tt.origin != "" {
				h = map[string]string{"Origin": tt.origin}
			}
			resp, body := post(t, hs.URL, initializeBody, h)
			if resp.StatusCode != tt.want {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, tt.want, body)
			}
			if tt.want == http.StatusForbidden && !strings.Contains(body, "--allowed-origins") {
				t.Errorf("the refusal does not say what to set: %s", body)
			}
		})
	}
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://App.Example.com":     "https://app.example.com",
		"https://app.example.com/":    "https://app.example.com",
		"http://app.example.com:80":   "http://app.example.com",
		"http://app.example.com:8080": "http://app.example.com:8080",
		"http://[::1]:3000":           "http://[::1]:3000",
		"app.example.com":             "",
		"ftp://app.example.com":       "",
		"https://app.example.com/x":   "",
		"null":                        "",
	} {
		got, err := mcp.ParseOrigin(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestSlowBody: a body that does not arrive within the body timeout ends
// its request and its connection, instead of holding them.
func TestSlowBody(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{BodyTimeout: 50 * time.Millisecond})
	hs := httpServer(t, s, nil)
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", hs.Listener.Addr())
	// The server answers (400) and closes, or closes: either way the read
	// ends; it would block for ever on a held connection.
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err == nil {
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode < 400 {
			t.Fatalf("a slow body was served: %d %s", resp.StatusCode, b)
		}
	}
	if n, _ := c.Read(make([]byte, 1)); n != 0 {
		t.Fatal("the connection stayed open")
	}
}

// TestRefusalDoesNotWaitForBody: a request refused past the session cap is
// answered at once and its connection closed, however slowly its body
// comes (the server would otherwise read the rest of the body first).
func TestRefusalDoesNotWaitForBody(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{MaxSessions: 1, BodyTimeout: time.Hour})
	hs := httpServer(t, s, nil)
	if resp, body := post(t, hs.URL, initializeBody, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	c, err := net.Dial("tcp", hs.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{", hs.Listener.Addr())
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || !resp.Close {
		t.Fatalf("%d, close %v; want 503 and the connection closed", resp.StatusCode, resp.Close)
	}
}
