package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/toolguard/toolguard/guard"
)

// Config is the whole configuration of a toolguard server. Every field has a
// flag and a TOOLGUARD_* variable, whose usage text in cmd/toolguard says
// what it does; DefaultConfig gives the defaults.
type Config struct {
	Listen string

	// AuthTokensFile holds the callers' hashed bearer tokens (auth.go);
	// empty disables authentication.
	AuthTokensFile string
	// AllowUnauthenticated allows a non-loopback address without tokens.
	AllowUnauthenticated bool
	// TLSCert and TLSKey empty mean plaintext; TLSClientCA requires client
	// certificates (mutual TLS).
	TLSCert        string
	TLSKey         string
	TLSClientCA    string
	MaxJSONDepth   int
	MaxStreams     int
	MaxConnStreams uint32
	// StreamWorkers is the number of goroutines kept to run calls on;
	// zero, the default, starts a goroutine per call. Workers spare each
	// call its stack growth, but measured no cheaper per call
	// (docs/benchmarks.md).
	StreamWorkers uint32
	// MaxStreamsPerPrincipal: zero is a quarter of MaxStreams when the tokens
	// file names two principals or more, else no bound (limits.go).
	MaxStreamsPerPrincipal int
	StreamIdleTimeout      time.Duration
	RateLimit              float64
	RateBurst              int
	// idleClock times StreamIdleTimeout; nil is the real clock. Tests set
	// their own (export_test.go), so no test waits on the wall clock.
	idleClock idleClock
	// drainWait waits out DrainDelay; nil sleeps. A test ends the drain
	// once its checks within it are done, so none races the delay.
	drainWait func(time.Duration)
	// memoryDecided, when set, hears what the unary memory budget does
	// with each charge (grant, wait, refusal), with the bytes held after
	// it, before the call goes on: a test holds calls there. memoryWait,
	// when set, replaces the longest wait for room (negative: none).
	memoryDecided func(d memoryDecision, held int64)
	memoryWait    time.Duration

	guard.Config
	// CreateWorkspaces creates workspace folders that do not exist; without
	// it only the default folder (DefaultWorkspaceDir) is created, so a
	// mistyped path fails at start.
	CreateWorkspaces bool

	LogFormat string
	LogLevel  string

	MetricsListen string
	OTLPEndpoint  string
	OTLPInsecure  bool

	MaxRecvMsgBytes int
	MaxSendMsgBytes int

	ShutdownTimeout time.Duration
	// DrainDelay keeps serving after NOT_SERVING, so load balancers stop
	// sending new calls first.
	DrainDelay time.Duration
	// MaxConnectionAge asks long-lived clients to reconnect (GOAWAY) so
	// they rebalance across replicas; zero means forever.
	MaxConnectionAge      time.Duration
	MaxConnectionAgeGrace time.Duration
	// MaxConnectionIdle asks a connection without a call for this long to
	// close (GOAWAY), so idle clients do not hold MaxConnections' slots;
	// zero means forever.
	MaxConnectionIdle time.Duration
	// HandshakeTimeout closes a new connection that has not finished its
	// TLS handshake and sent gRPC's preface within it.
	HandshakeTimeout time.Duration
	// MaxConnections bounds the client connections open at once; more are
	// closed at once (conns.go).
	MaxConnections int
	// MaxReceivingCalls bounds the calls whose request is still arriving;
	// zero bounds nothing (receiving.go).
	MaxReceivingCalls int

	MaxCallBytes  int
	MaxParamBytes int
	// MaxStreamBufferBytes bounds the open calls of all streams together,
	// keeping memory within the pod's (docs/limits.md).
	MaxStreamBufferBytes int
	// MaxUnaryMemoryBytes bounds the memory of the large unary requests
	// handled at once (request_budget.go, docs/limits.md).
	MaxUnaryMemoryBytes int
}

// DefaultConfig returns the defaults: loopback port 7700, the workspace
// DefaultWorkspaceDir, in-memory sessions.
func DefaultConfig() Config {
	core := guard.DefaultConfig()
	core.Workspace = DefaultWorkspaceDir()
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
		MaxConnectionIdle:     5 * time.Minute,
		HandshakeTimeout:      10 * time.Second,
		MaxConnections:        2048,
		MaxCallBytes:          16 << 20,
		MaxParamBytes:         16 << 20,
		StreamIdleTimeout:     time.Minute,
		MaxStreamBufferBytes:  64 << 20,
		MaxUnaryMemoryBytes:   96 << 20,
	}
}

// DefaultWorkspaceDir is the user's data folder for toolguard, never a
// source tree the server happens to start in: $XDG_DATA_HOME/toolguard/
// workspace, else ~/.local/share/toolguard/workspace, else one under the
// temporary directory.
func DefaultWorkspaceDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "toolguard", "workspace")
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) && home != "/" {
		return filepath.Join(home, ".local", "share", "toolguard", "workspace")
	}
	return filepath.Join(os.TempDir(), "toolguard", "workspace")
}

// Validate reports every setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen address is empty"))
	}
	errs = append(errs, c.validateAccess()...)
	errs = append(errs, c.validateLimits()...)
	errs = append(errs, c.validateConns()...)
	errs = append(errs, c.validateReceiving()...)
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
	if c.MaxConnectionAge < 0 || c.MaxConnectionAgeGrace < 0 || c.MaxConnectionIdle < 0 {
		errs = append(errs, errors.New("connection age settings must not be negative"))
	}
	if c.HandshakeTimeout <= 0 {
		errs = append(errs, errors.New("handshake timeout must be positive"))
	}
	if c.MaxCallBytes <= 0 || c.MaxParamBytes <= 0 {
		errs = append(errs, errors.New("stream call and parameter limits must be positive"))
	}
	return errors.Join(errs...)
}
