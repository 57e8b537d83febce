package proxy

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/observe"
)

// Config is the whole configuration of a proxy. Every field has a
// command-line flag and a TOOLGUARD_* environment twin (see cmd/toolguard,
// "toolguard proxy"); DefaultConfig gives the defaults.
type Config struct {
	// Listen is the TCP address the proxy's HTTP server binds: loopback
	// unless AllowUnauthenticated. The proxy authenticates no one (clients
	// send their own API keys through it), so whoever can reach it can use
	// the upstream through it and spend its memory and connections.
	Listen string
	// AllowUnauthenticated allows a Listen address beyond loopback, as
	// serve's and mcp's flag of the same name does: say so when an open
	// proxy on that address is intended (behind a gateway that
	// authenticates, in a private network).
	AllowUnauthenticated bool
	// Upstream is the model server every request goes to: an http or https
	// URL of its origin, optionally with a path prefix the request's path
	// is appended to (https://api.openai.com). Requests carry /v1 in their
	// own path, so a trailing /v1, as agents' base URLs are written, is
	// dropped (UpstreamBase), and then given back to a request whose path
	// lacks it. It is fixed here: nothing in a request can send it
	// elsewhere.
	Upstream string
	// UpstreamTimeout bounds the wait for the upstream's response headers
	// (a non-streamed answer sends them when the whole completion is done;
	// a stream, when it starts). A stream may then run as long as it runs.
	UpstreamTimeout time.Duration

	// Tools names the tools whose calls are repaired, as requests declare
	// them; empty means every tool a request declares.
	Tools []string
	// Strict makes a repaired call that still breaks its schema a failure
	// (see Fallback); without it such a call is sent repaired all the same,
	// as long as its arguments could be parsed.
	Strict bool
	// Mode is ModeEnforce (repair, refuse, mark) or ModeObserve: every
	// answer passes through as the upstream sent it, and what enforce would
	// have done is only logged and counted (mode="observe"). Empty is
	// enforce.
	Mode string
	// Fallback sends a call that could not be repaired (unparseable, or
	// still invalid under Strict) as the model wrote it, byte for byte;
	// without it the client gets an error instead of the broken call.
	Fallback bool
	// Rescue turns a complete, valid call to a declared tool that the
	// model server left in the answer's text (its own parser missed it)
	// into a tool call; any other text goes as written.
	Rescue bool

	// SessionHeader is the request header naming the session a request's
	// calls are counted in (consecutive mistakes); without the header
	// nothing is counted. The header is not forwarded upstream.
	SessionHeader string
	// MistakeLimit is the number of consecutive mistakes at which a
	// session's limit is reached (logged, and counted in the metrics).
	MistakeLimit uint32
	// SessionTTL is how long an idle session is kept; MaxSessions bounds
	// the number kept (least recently seen evicted first).
	SessionTTL  time.Duration
	MaxSessions int

	// MaxRequestBytes bounds a request body (413 beyond it).
	MaxRequestBytes int64
	// MaxResponseBytes bounds the non-streamed answer the proxy reads to
	// repair; a larger one is passed through unrepaired.
	MaxResponseBytes int64
	// MaxCallBytes bounds one streamed call's arguments held back while
	// they arrive; a larger call is passed through unrepaired (and the
	// events held for calls never exceed 8 times this).
	MaxCallBytes int
	// MaxHeldBytes bounds what all requests hold together: request bodies,
	// answers read to repair, and in streams the events held behind open
	// calls, their arguments and an event still arriving. A request whose
	// body does not fit is refused with 503; an answer or a held call that
	// does not fit passes through unrepaired.
	MaxHeldBytes int64
	// MaxConcurrentRequests bounds the requests handled at once, of every
	// path; past it a request is refused with 503.
	MaxConcurrentRequests int
	// MaxConnections bounds the client connections open at once; past it
	// a new one is closed at once (internal/lifecycle.ConnLimit).
	MaxConnections int

	// Record is the file every exchange whose calls the proxy judges is
	// appended to, as the upstream sent it, in toolguard eval's input
	// format (record.go); empty records nothing. The credentials headers
	// and RecordRedactHeaders are recorded as redacted, the query not at
	// all.
	Record string
	// RecordMaxBytes is the size at which the record file is rotated
	// (FILE.1, FILE.2, ...); RecordFiles the number of rotated files kept.
	RecordMaxBytes int64
	RecordFiles    int
	// RecordRedactHeaders are request headers recorded as redacted besides
	// the credential headers (Authorization, X-Api-Key, ...).
	RecordRedactHeaders []string

	// MetricsListen is the TCP address of the Prometheus /metrics endpoint,
	// apart from Listen; empty turns metrics off.
	MetricsListen string
	// LogFormat is "json" or "console"; LogLevel a zap level.
	LogFormat string
	LogLevel  string
	// ShutdownTimeout bounds the graceful stop: requests and streams in
	// flight may finish within it, then they are cut.
	ShutdownTimeout time.Duration
}

// The modes of Config.Mode.
const (
	ModeEnforce = "enforce"
	ModeObserve = "observe"
)

// DefaultSessionHeader is the header that names a request's session.
const DefaultSessionHeader = "X-Toolguard-Session"

// DefaultConfig returns the defaults: loopback port 7701, strict
// validation and fallback on, every declared tool repaired.
func DefaultConfig() Config {
	return Config{
		Listen:                "127.0.0.1:7701",
		UpstreamTimeout:       10 * time.Minute,
		Strict:                true,
		Mode:                  ModeEnforce,
		Fallback:              true,
		Rescue:                true,
		SessionHeader:         DefaultSessionHeader,
		MistakeLimit:          3,
		SessionTTL:            time.Hour,
		MaxSessions:           100_000,
		MaxRequestBytes:       32 << 20,
		MaxResponseBytes:      32 << 20,
		MaxCallBytes:          16 << 20,
		MaxHeldBytes:          256 << 20,
		MaxConcurrentRequests: 256,
		MaxConnections:        2048,
		RecordMaxBytes:        64 << 20,
		RecordFiles:           3,
		LogFormat:             "json",
		LogLevel:              "info",
		ShutdownTimeout:       30 * time.Second,
	}
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		errs = append(errs, fmt.Errorf("listen address %q: want host:port", c.Listen))
	} else if !c.AllowUnauthenticated && !auth.IsLoopback(c.Listen) {
		errs = append(errs, fmt.Errorf("refusing to listen on %s: it is not a loopback address, and the proxy authenticates no one, so anyone who can reach it could use the upstream through it; "+
			"set --allow-unauthenticated (TOOLGUARD_PROXY_ALLOW_UNAUTHENTICATED=true) if an open proxy on this address is intended", c.Listen))
	}
	if _, err := c.upstreamURL(); err != nil {
		errs = append(errs, err)
	}
	if c.UpstreamTimeout <= 0 {
		errs = append(errs, errors.New("upstream timeout must be positive"))
	}
	if c.Mode != "" && c.Mode != ModeEnforce && c.Mode != ModeObserve {
		errs = append(errs, fmt.Errorf("mode %q: want %s or %s", c.Mode, ModeEnforce, ModeObserve))
	}
	for _, t := range c.Tools {
		if strings.TrimSpace(t) == "" {
			errs = append(errs, errors.New("tools: empty tool name"))
		}
	}
	if h := c.SessionHeader; h == "" || !validHeaderName(h) {
		errs = append(errs, fmt.Errorf("session header %q: want an HTTP header name", h))
	}
	if c.MistakeLimit == 0 {
		errs = append(errs, errors.New("mistake limit must be at least 1"))
	}
	if c.SessionTTL <= 0 || c.MaxSessions <= 0 {
		errs = append(errs, errors.New("session TTL and max sessions must be positive"))
	}
	if c.MaxRequestBytes <= 0 || c.MaxResponseBytes <= 0 || c.MaxCallBytes <= 0 {
		errs = append(errs, errors.New("request, response and call size limits must be positive"))
	}
	if largest := max(c.MaxRequestBytes, c.MaxResponseBytes, int64(c.MaxCallBytes)); c.MaxHeldBytes < largest {
		errs = append(errs, fmt.Errorf("max held bytes (%d) must be at least the largest request, response and call limit (%d), or a request or answer of that size could never be held",
			c.MaxHeldBytes, largest))
	}
	if c.MaxConcurrentRequests <= 0 || c.MaxConnections <= 0 {
		errs = append(errs, errors.New("max concurrent requests and max connections must be positive"))
	}
	errs = append(errs, c.validateRecord()...)
	if c.MetricsListen != "" {
		if err := observe.CheckListen(c.MetricsListen, c.Listen, "proxy's port"); err != nil {
			errs = append(errs, err)
		}
	}
	if c.LogFormat != "json" && c.LogFormat != "console" {
		errs = append(errs, fmt.Errorf("log format %q: want json or console", c.LogFormat))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("shutdown timeout must be positive"))
	}
	return errors.Join(errs...)
}

// validateRecord reports the recording settings that cannot work.
func (c Config) validateRecord() []error {
	var errs []error
	if c.RecordMaxBytes < 1<<10 || c.RecordFiles < 0 || c.RecordFiles > 1000 {
		errs = append(errs, errors.New("record: max bytes must be at least 1024, and files from 0 to 1000"))
	}
	for _, h := range c.RecordRedactHeaders {
		if h = strings.TrimSpace(h); h == "" || !validHeaderName(h) {
			errs = append(errs, fmt.Errorf("record redact headers: %q is not an HTTP header name", h))
		}
	}
	return errs
}

// upstreamURL parses Upstream. The error never quotes it whole: a URL may
// hold credentials.
func (c Config) upstreamURL() (*url.URL, error) {
	if c.Upstream == "" {
		return nil, errors.New("upstream URL is required (--upstream http://host:port)")
	}
	u, err := url.Parse(c.Upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("upstream: want an http:// or https:// URL with a host")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("upstream: the URL may not have a query or fragment")
	}
	if u.User != nil {
		return nil, errors.New("upstream: the URL may not hold credentials; clients send their own keys")
	}
	// Clients send /v1/chat/completions and /v1/messages: the /v1 of a base
	// URL written for a client would be doubled.
	u.Path = trimV1(u.Path)
	u.RawPath = trimV1(u.RawPath)
	return u, nil
}

// trimV1 drops a trailing /v1 (or /v1/) segment from a URL path.
func trimV1(p string) string {
	if t := strings.TrimSuffix(p, "/"); strings.HasSuffix(t, "/v1") {
		return strings.TrimSuffix(t, "/v1")
	}
	return p
}

// UpstreamBase returns the URL requests' paths are appended to (Upstream
// without a trailing /v1), and whether a /v1 was dropped; "" when Upstream
// is not valid.
func (c Config) UpstreamBase() (base string, trimmedV1 bool) {
	u, err := c.upstreamURL()
	if err != nil {
		return "", false
	}
	orig, _ := url.Parse(c.Upstream)
	return u.String(), strings.TrimSuffix(orig.Path, "/") != strings.TrimSuffix(u.Path, "/")
}

// validHeaderName reports whether s is an HTTP header field name (a token).
func validHeaderName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	return http.CanonicalHeaderKey(s) != ""
}
