package service

import (
	"errors"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/guard"
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

	// Config holds the core's settings: tools, workspaces, sessions.
	guard.Config

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

// DefaultConfig returns the configuration used when nothing is set: loopback
// on port 7700, ./workspace, in-memory sessions.
func DefaultConfig() Config {
	core := guard.DefaultConfig()
	core.Workspace = "./workspace"
	return Config{
		Config:                core,
		Listen:                "127.0.0.1:7700",
		MaxJSONDepth:          64,
		MaxStreams:            256,
		MaxConnStreams:        256,
		RateBurst:             50,
		LogFormat:             "json",
		LogLevel:              "info",
		MaxRecvMsgBytes:       16 << 20,
		MaxSendMsgBytes:       32 << 20,
		ShutdownTimeout:       10 * time.Second,
		DrainDelay:            0,
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
	if err := c.Config.Validate(); err != nil {
		errs = append(errs, err)
	}
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
	return errors.Join(errs...)
}
