package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/internal/ratelimit"
)

// Bounds of the streamable HTTP transport (issue 27): every session the SDK
// keeps costs memory until it ends, so sessions are counted, capped in total
// and per principal, and closed when idle; requests are rate-limited per
// principal, bodies must arrive in time, and browsers' requests must come
// from an allowed origin. A session over a cap is refused, never made room
// for by evicting another's: eviction would let one principal (or any local
// process, without tokens) end everyone else's sessions.

// Defaults for the zero values of the Options' HTTP bounds.
const (
	DefaultSessionTimeout = 30 * time.Minute
	DefaultMaxSessions    = 1024
	DefaultBodyTimeout    = time.Minute
)

// sessionRetryAfter is the delay a refused new session is told to wait:
// sessions end when their client deletes them or at the idle timeout, so no
// exact time can be given.
const sessionRetryAfter = 10 * time.Second

// sessionSlots counts the HTTP sessions the SDK holds, in total and per
// principal. A new session takes its slot before the SDK builds it; the
// slot is freed when the session ends (deleted, idle, or never initialised).
type sessionSlots struct {
	max, share int // share 0: no per-principal bound

	mu   sync.Mutex
	open int
	held map[string]int // by principal, when shared
}

func newSessionSlots(total, share int) *sessionSlots {
	return &sessionSlots{max: total, share: share, held: map[string]int{}}
}

// limitRefusal is an HTTP refusal with the delay to retry after.
type limitRefusal struct {
	status     int
	message    string
	retryAfter time.Duration
}

func (s *sessionSlots) acquire(principal string, authenticated bool) (*sessionSlot, *limitRefusal) {
	shared := s.share > 0 && authenticated
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case shared && s.held[principal] >= s.share:
		return nil, &limitRefusal{http.StatusTooManyRequests, fmt.Sprintf(
			"principal %q already holds its share of %d open MCP sessions (of %d server-wide); end one (HTTP DELETE) or retry later",
			principal, s.share, s.max), sessionRetryAfter}
	case s.open >= s.max:
		return nil, &limitRefusal{http.StatusServiceUnavailable, fmt.Sprintf(
			"the server already holds its maximum of %d open MCP sessions; retry later", s.max), sessionRetryAfter}
	}
	s.open++
	if shared {
		s.held[principal]++
	}
	return &sessionSlot{release: sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.open--
		if shared {
			if s.held[principal]--; s.held[principal] == 0 {
				delete(s.held, principal)
			}
		}
	})}, nil
}

// Open reports how many sessions hold a slot.
func (s *sessionSlots) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// sessionSlot is one new session's place. The request that creates the
// session carries it in its context; the SDK derives every handler context
// of the session from that request's, so the initialize handler claims it
// for the session, and a request that made no session gives it back.
type sessionSlot struct {
	release func()

	mu    sync.Mutex
	state int // slotPending, slotClaimed, slotReleased
}

const (
	slotPending = iota
	slotClaimed
	slotReleased
)

type slotKey struct{}

// claim binds the slot to ss until ss ends. A session whose slot was
// already given back (an initialize sent as a notification, handled after
// its request returned) would be uncounted: it is closed instead.
func (sl *sessionSlot) claim(ss *sdk.ServerSession) {
	sl.mu.Lock()
	state := sl.state
	if state == slotPending {
		sl.state = slotClaimed
	}
	sl.mu.Unlock()
	switch state {
	case slotPending:
		go func() {
			_ = ss.Wait()
			sl.release()
		}()
	case slotReleased:
		_ = ss.Close()
	}
}

// settle gives the slot back unless a session claimed it.
func (sl *sessionSlot) settle() {
	sl.mu.Lock()
	pending := sl.state == slotPending
	if pending {
		sl.state = slotReleased
	}
	sl.mu.Unlock()
	if pending {
		sl.release()
	}
}

// claimSlot is the SDK middleware that hands a new session its slot when it
// is initialised.
func claimSlot(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "initialize" {
			if sl, ok := ctx.Value(slotKey{}).(*sessionSlot); ok {
				if ss, ok := req.GetSession().(*sdk.ServerSession); ok {
					sl.claim(ss)
				}
			}
		}
		return next(ctx, method, req)
	}
}

// limitSessions refuses a request that would create a session past a cap
// (503 in total, 429 for the principal), before the SDK allocates anything.
func (s *sessionSlots) limitSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only a POST without a session id creates a session.
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		principal, authenticated := principalOf(r)
		sl, refusal := s.acquire(principal, authenticated)
		if refusal != nil {
			refuse(w, refusal)
			return
		}
		defer sl.settle()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), slotKey{}, sl)))
	})
}

func principalOf(r *http.Request) (string, bool) {
	if ti := auth.TokenInfoFromContext(r.Context()); ti != nil {
		return ti.UserID, true
	}
	return "", false
}

// refuse answers a JSON-RPC error (id null: the request was not read), with
// Retry-After. The SDK's client takes 429 and 503 as transient: the call
// fails, the session stays.
func refuse(w http.ResponseWriter, r *limitRefusal) {
	if r.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(r.retryAfter.Seconds()))))
	}
	writeRPCError(w, r.status, -32000, r.message)
}

// writeRPCError refuses a request whose body was not read, and closes the
// connection: the server would otherwise read the rest of the body before
// it answered, as slowly as the client sends it.
func writeRPCError(w http.ResponseWriter, status, code int, message string) {
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	w.Header().Set("Connection", "close")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// limitRate holds each principal to the limit l (internal/ratelimit),
// refusing with 429 and Retry-After; a nil l limits nothing.
func limitRate(l *ratelimit.Limiter, next http.Handler) http.Handler {
	if l == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		principal, _ := principalOf(r)
		if d := l.Take(principal); d > 0 {
			who := "this server's callers"
			if principal != "" {
				who = fmt.Sprintf("principal %q", principal)
			}
			refuse(w, &limitRefusal{http.StatusTooManyRequests, fmt.Sprintf(
				"%s made more than %g requests a second (burst %d); retry in %s", who, l.PerSecond(), l.Burst(), d.Round(time.Millisecond)), d})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ParseOrigin normalises an allowed origin (scheme://host[:port], the form
// browsers send), or says why it is none.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("origin %q: want scheme://host[:port], e.g. https://app.example.com", s)
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "80" && u.Scheme == "http" || port == "443" && u.Scheme == "https" {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return u.Scheme + "://" + host, nil
}

// originChecker refuses a request whose Origin header names a page not
// allowed to call (the MCP transport's rule against DNS rebinding: a
// browser sends Origin, other clients need not). Loopback pages are allowed
// on a request that arrived on a loopback address.
type originChecker struct {
	allowed map[string]bool
}

func newOriginChecker(origins []string) (*originChecker, error) {
	c := &originChecker{allowed: map[string]bool{}}
	for _, o := range origins {
		n, err := ParseOrigin(o)
		if err != nil {
			return nil, err
		}
		c.allowed[n] = true
	}
	return c, nil
}

func (c *originChecker) check(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || c.allows(r, origin) {
			next.ServeHTTP(w, r)
			return
		}
		writeRPCError(w, http.StatusForbidden, -32000, fmt.Sprintf(
			"origin %q may not call this server: only pages from an allowed origin may (--allowed-origins; loopback pages on a loopback address)", origin))
	})
}

func (c *originChecker) allows(r *http.Request, origin string) bool {
	n, err := ParseOrigin(origin)
	if err != nil {
		return false // "null", or no origin at all
	}
	if c.allowed[n] {
		return true
	}
	u, _ := url.Parse(n)
	return isLoopbackHost(u.Hostname()) && arrivedOnLoopback(r)
}

func arrivedOnLoopback(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	return err == nil && isLoopbackHost(host)
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// bodyDeadline bounds the time a request's body may take to arrive: slow
// bodies otherwise hold their connection for ever. Not the server's
// ReadTimeout: that deadline would stay on the connection while the handler
// runs, and cancel streams and long calls when it passed. The deadline is
// lifted once the body has been read.
func bodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		next.ServeHTTP(w, r)
	})
}

type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}
