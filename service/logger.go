package service

import (
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewLogger builds the process logger: format is "json" (one object per line,
// for log collectors) or "console" (tab-separated, for people); level is a zap
// level name (debug, info, warn, error; empty means info). It writes to
// standard error.
func NewLogger(format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}

	cfg := zap.NewProductionConfig()
	cfg.Level = zap.NewAtomicLevelAt(lvl)
	// Sampling would drop repeated messages above 100 a second; "finished
	// call" is the access log, and silently losing access-log lines under
	// load is worse than the cost of writing them.
	cfg.Sampling = nil
	// The production default attaches a stack trace to every error-level
	// line; for an access log that is the logging middleware's own stack on
	// every Internal error. The one place a stack matters (a recovered panic)
	// adds it explicitly.
	cfg.DisableStacktrace = true
	cfg.EncoderConfig.TimeKey = "ts"
	cfg.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder

	switch format {
	case "json":
		cfg.Encoding = "json"
	case "console":
		cfg.Encoding = "console"
		cfg.EncoderConfig.EncodeLevel = zapcore.CapitalLevelEncoder
		// People read "500ms"; JSON keeps seconds as numbers for machines.
		cfg.EncoderConfig.EncodeDuration = zapcore.StringDurationEncoder
	default:
		return nil, fmt.Errorf("log format %q: want json or console", format)
	}

	log, err := cfg.Build()
	if err != nil {
		return nil, fmt.Errorf("build logger: %w", err)
	}
	return log, nil
}

// warnEvery is the least time between two warnings of one throttledWarning.
const warnEvery = time.Second

// throttledWarning is a warning that can fire on every call during an
// outage or under a flood: the first is written at once, then at most one
// per warnEvery, carrying the number left unwritten since the last
// (not_logged_since_last), so the log stays readable and nothing goes
// uncounted.
type throttledWarning struct {
	log *zap.Logger
	msg string

	mu      sync.Mutex
	next    time.Time
	skipped int
}

func newThrottledWarning(log *zap.Logger, msg string) *throttledWarning {
	return &throttledWarning{log: log, msg: msg}
}

func (w *throttledWarning) warn(fields ...zap.Field) {
	w.mu.Lock()
	now := time.Now()
	if now.Before(w.next) {
		w.skipped++
		w.mu.Unlock()
		return
	}
	skipped := w.skipped
	w.skipped, w.next = 0, now.Add(warnEvery)
	w.mu.Unlock()
	w.log.Warn(w.msg, append(fields, zap.Int("not_logged_since_last", skipped))...)
}
