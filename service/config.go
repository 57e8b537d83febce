package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolguard/toolguard/session"
)

// Config is the whole configuration of a toolguard server. Every field has a
// command-line flag and a TOOLGUARD_* environment twin (see cmd/toolguard);
// DefaultConfig gives the defaults.
type Config struct {
	// Listen is the TCP address the gRPC server binds.
	Listen string

	// AuthTokensFile is a YAML or JSON file of the bearer tokens callers
	// present, stored as SHA-256 hashes, each with its principal and the
	// workspaces it may use (see auth.go). Empty disables authentication:
	// every caller is "anonymous" and may use every workspace.
	AuthTokensFile string
	// AllowUnauthenticated lets the server listen on a non-loopback address
	// without AuthTokensFile; Validate refuses that otherwise.
	AllowUnauthenticated bool
	// TLSCert and TLSKey are the PEM files of the server's certificate and
	// key; both empty means plaintext. TLSClientCA is a PEM bundle of the
	// CAs client certificates must chain to: when set, every client must
	// present a valid certificate (mutual TLS).
	TLSCert     string
	TLSKey      string
	TLSClientCA string
	// MaxJSONDepth bounds how deeply JSON objects and arrays nest in a
	// call's arguments and in tool definitions' schemas.
	MaxJSONDepth int
	// MaxStreams bounds the StreamToolCalls streams open at once, server-wide;
	// MaxConnStreams bounds the concurrent calls (HTTP/2 streams) of one
	// client connection.
	MaxStreams     int
	MaxConnStreams uint32
	// MaxStreamsPerPrincipal bounds the streams one authenticated principal
	// holds at once, so that one caller cannot take every slot. Zero is a
	// quarter of MaxStreams (at least 1) when the tokens file names two
	// principals or more, and no bound otherwise: a lone principal, or the
	// one anonymous caller, shares with nobody (see limits.go).
	MaxStreamsPerPrincipal int
	// StreamIdleTimeout ends a stream that waits this long on its client,
	// for a frame or to take an event, with DEADLINE_EXCEEDED (reason
	// STREAM_IDLE_TIMEOUT), and frees its slot. Zero means never.
	StreamIdleTimeout time.Duration
	// RateLimit is each principal's sustained rate of calls per second (0:
	// unlimited); RateBurst is how many calls it may make at once above it.
	RateLimit float64
	RateBurst int

	// Workspace is the directory of the default workspace.
	Workspace string
	// ToolsFile is an optional YAML or JSON file of custom tool definitions.
	ToolsFile string

	// LogFormat is "json" or "console".
	LogFormat string
	// LogLevel is a zap level: debug, info, warn, error.
	LogLevel string

	// MetricsListen is the TCP address of the Prometheus /metrics endpoint,
	// an HTTP server apart from the gRPC port; empty turns metrics off.
	MetricsListen string
	// OTLPEndpoint is the OTLP/gRPC collector spans are exported to, as
	// host:port or a URL; empty turns tracing off. OTLPInsecure exports
	// in plaintext instead of TLS.
	OTLPEndpoint string
	OTLPInsecure bool

	// MistakeLimit is the number of consecutive mistakes at which a verdict
	// reports limit_reached. Requests may lower it, never raise it.
	MistakeLimit uint32
	// SessionTTL is how long an idle session is kept.
	SessionTTL time.Duration
	// MaxSessions bounds the number of sessions kept in memory; the least
	// recently seen is evicted first.
	MaxSessions int
	// SessionStore is where the counters live: "memory" (this replica's
	// own, the default) or "redis" (shared by every replica with the same
	// RedisURL and RedisKeyPrefix; MaxSessions does not apply). See
	// sessions.go.
	SessionStore string
	// RedisURL locates the "redis" store's server: redis://[user:password@]
	// host[:port][/db], or rediss:// for TLS. It may hold a password, so it
	// is never logged (only its host) nor quoted in errors.
	RedisURL string
	// RedisKeyPrefix is prepended to a session id to make its Redis key.
	RedisKeyPrefix string
	// RedisTimeout bounds each Redis dial, read and write; a call whose
	// count does not come back in time is answered uncounted.
	RedisTimeout time.Duration

	// MaxRecvMsgBytes and MaxSendMsgBytes bound gRPC message sizes.
	MaxRecvMsgBytes int
	MaxSendMsgBytes int

	// ShutdownTimeout bounds the graceful stop after the drain delay; after
	// it the server stops hard.
	ShutdownTimeout time.Duration
	// DrainDelay is how long the server keeps serving after reporting
	// NOT_SERVING, so load balancers stop sending it new calls first.
	DrainDelay time.Duration
	// MaxConnectionAge is how long a client connection may live before the
	// server asks it to reconnect (GOAWAY), so long-lived clients rebalance
	// across replicas; MaxConnectionAgeGrace is how long calls still running
	// on it may go on after that. Zero means forever.
	MaxConnectionAge      time.Duration
	MaxConnectionAgeGrace time.Duration

	// Workspaces are more named workspaces, as "name=dir"; Workspace is
	// the one named "default".
	Workspaces []string
	// AgentRoot is the workspace root as the agent sees it: absolute paths
	// under it map onto the workspace.
	AgentRoot string
	// MaxFileBytes bounds the files read and written.
	MaxFileBytes int64
	// Deny holds gitignore-style patterns no call may touch, beside .git/
	// and each workspace's .toolguardignore.
	Deny []string
	// FuzzyThreshold is the lowest similarity a fuzzy edit match needs.
	FuzzyThreshold float64

	// MaxCallBytes bounds one streamed tool call (its arguments or whole
	// block); MaxParamBytes bounds one parameter value in it.
	MaxCallBytes  int
	MaxParamBytes int
	// MaxStreamBufferBytes bounds the text of open calls that all streams
	// hold together; a call growing past what is left is dropped with
	// CALL_TOO_LARGE. It keeps the server's memory within its pod's
	// whatever the number of streams (docs/limits.md has the arithmetic).
	MaxStreamBufferBytes int
}

// DefaultWorkspaceName is the name of the workspace --workspace opens.
const DefaultWorkspaceName = "default"

// WorkspaceDirs returns the workspace directories by name. An empty
// Workspace means no default workspace (the offline validate command needs
// none).
func (c Config) WorkspaceDirs() (map[string]string, error) {
	dirs := map[string]string{}
	if c.Workspace != "" {
		dirs[DefaultWorkspaceName] = c.Workspace
	}
	for _, w := range c.Workspaces {
		name, dir, ok := strings.Cut(w, "=")
		name, dir = strings.TrimSpace(name), strings.TrimSpace(dir)
		if !ok || name == "" || dir == "" {
			return nil, fmt.Errorf("workspace %q: want name=dir", w)
		}
		if _, dup := dirs[name]; dup {
			return nil, fmt.Errorf("workspace %q is defined twice", name)
		}
		dirs[name] = dir
	}
	return dirs, nil
}

// DefaultConfig returns the configuration used when nothing is set: loopback
// on port 7700, ./workspace, in-memory sessions.
func DefaultConfig() Config {
	return Config{
		Listen:                "127.0.0.1:7700",
		MaxJSONDepth:          64,
		MaxStreams:            256,
		MaxConnStreams:        256,
		RateBurst:             50,
		Workspace:             "./workspace",
		LogFormat:             "json",
		LogLevel:              "info",
		MistakeLimit:          3,
		SessionTTL:            time.Hour,
		MaxSessions:           100_000,
		SessionStore:          SessionStoreMemory,
		RedisKeyPrefix:        session.DefaultRedisKeyPrefix,
		RedisTimeout:          session.DefaultRedisTimeout,
		MaxRecvMsgBytes:       16 << 20,
		MaxSendMsgBytes:       32 << 20,
		ShutdownTimeout:       10 * time.Second,
		DrainDelay:            0,
		MaxFileBytes:          10 << 20,
		FuzzyThreshold:        0.9,
		MaxConnectionAge:      30 * time.Minute,
		MaxConnectionAgeGrace: 5 * time.Minute,
		MaxCallBytes:          16 << 20,
		MaxParamBytes:         16 << 20,
		StreamIdleTimeout:     time.Minute,
		MaxStreamBufferBytes:  64 << 20,
	}
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen address is empty"))
	}
	errs = append(errs, c.validateAccess()...)
	errs = append(errs, c.validateLimits()...)
	if c.Workspace == "" {
		errs = append(errs, errors.New("workspace directory is empty"))
	}
	if c.LogFormat != "json" && c.LogFormat != "console" {
		errs = append(errs, fmt.Errorf("log format %q: want json or console", c.LogFormat))
	}
	errs = append(errs, c.validateObservability()...)
	if c.MistakeLimit == 0 {
		errs = append(errs, errors.New("mistake limit must be at least 1"))
	}
	if c.SessionTTL <= 0 {
		errs = append(errs, errors.New("session TTL must be positive"))
	}
	if c.MaxSessions <= 0 {
		errs = append(errs, errors.New("max sessions must be positive"))
	}
	errs = append(errs, c.validateSessionStore()...)
	if c.MaxRecvMsgBytes <= 0 || c.MaxSendMsgBytes <= 0 {
		errs = append(errs, errors.New("message size limits must be positive"))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("shutdown timeout must be positive"))
	}
	if c.DrainDelay < 0 {
		errs = append(errs, errors.New("drain delay must not be negative"))
	}
	if c.MaxConnectionAge < 0 || c.MaxConnectionAgeGrace < 0 {
		errs = append(errs, errors.New("connection age settings must not be negative"))
	}
	if c.MaxCallBytes <= 0 || c.MaxParamBytes <= 0 {
		errs = append(errs, errors.New("stream call and parameter limits must be positive"))
	}
	if _, err := c.WorkspaceDirs(); err != nil {
		errs = append(errs, err)
	}
	if c.AgentRoot != "" && !filepath.IsAbs(c.AgentRoot) {
		errs = append(errs, fmt.Errorf("agent root %q must be an absolute path", c.AgentRoot))
	}
	if c.MaxFileBytes <= 0 {
		errs = append(errs, errors.New("max file bytes must be positive"))
	}
	if c.FuzzyThreshold <= 0 || c.FuzzyThreshold > 1 {
		errs = append(errs, errors.New("fuzzy threshold must be in (0, 1]"))
	}
	return errors.Join(errs...)
}
