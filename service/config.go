package service

import (
	"errors"
	"fmt"
	"time"
)

// Config is the whole configuration of a toolguard server. Every field has a
// command-line flag and a TOOLGUARD_* environment twin (see cmd/toolguard);
// DefaultConfig gives the defaults.
type Config struct {
	// Listen is the TCP address the gRPC server binds.
	Listen string
	// Workspace is the directory of the default workspace.
	Workspace string
	// ToolsFile is an optional YAML or JSON file of custom tool definitions.
	ToolsFile string

	// LogFormat is "json" or "console".
	LogFormat string
	// LogLevel is a zap level: debug, info, warn, error.
	LogLevel string

	// MistakeLimit is the number of consecutive mistakes at which a verdict
	// reports limit_reached. Requests may lower it, never raise it.
	MistakeLimit uint32
	// SessionTTL is how long an idle session is kept.
	SessionTTL time.Duration
	// MaxSessions bounds the number of sessions kept in memory; the least
	// recently seen is evicted first.
	MaxSessions int

	// MaxRecvMsgBytes and MaxSendMsgBytes bound gRPC message sizes.
	MaxRecvMsgBytes int
	MaxSendMsgBytes int

	// ShutdownTimeout bounds the graceful stop after the drain delay; after
	// it the server stops hard.
	ShutdownTimeout time.Duration
	// DrainDelay is how long the server keeps serving after reporting
	// NOT_SERVING, so load balancers stop sending it new calls first.
	DrainDelay time.Duration
}

// DefaultConfig returns the configuration used when nothing is set: loopback
// on port 7700, ./workspace, in-memory sessions.
func DefaultConfig() Config {
	return Config{
		Listen:          "127.0.0.1:7700",
		Workspace:       "./workspace",
		LogFormat:       "json",
		LogLevel:        "info",
		MistakeLimit:    3,
		SessionTTL:      time.Hour,
		MaxSessions:     100_000,
		MaxRecvMsgBytes: 16 << 20,
		MaxSendMsgBytes: 32 << 20,
		ShutdownTimeout: 10 * time.Second,
		DrainDelay:      0,
	}
}

// Validate reports the first setting that cannot work.
func (c Config) Validate() error {
	var errs []error
	if c.Listen == "" {
		errs = append(errs, errors.New("listen address is empty"))
	}
	if c.Workspace == "" {
		errs = append(errs, errors.New("workspace directory is empty"))
	}
	if c.LogFormat != "json" && c.LogFormat != "console" {
		errs = append(errs, fmt.Errorf("log format %q: want json or console", c.LogFormat))
	}
	if c.MistakeLimit == 0 {
		errs = append(errs, errors.New("mistake limit must be at least 1"))
	}
	if c.SessionTTL <= 0 {
		errs = append(errs, errors.New("session TTL must be positive"))
	}
	if c.MaxSessions <= 0 {
		errs = append(errs, errors.New("max sessions must be positive"))
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
	return errors.Join(errs...)
}
