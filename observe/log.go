package observe

import (
	"fmt"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// NewLogger builds the process logger on standard error: format is json or
// console; level a zap level name (empty means info).
func NewLogger(format, level string) (*zap.Logger, error) {
	return NewLoggerTo(zapcore.Lock(os.Stderr), format, level)
}

// NewLoggerTo is NewLogger writing to w: a benchmark measures the encoding
// of every line without a terminal's cost.
func NewLoggerTo(w zapcore.WriteSyncer, format, level string) (*zap.Logger, error) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}

	// Unsampled: sampling would drop access-log lines under load.
	enc := zap.NewProductionEncoderConfig()
	enc.TimeKey = "ts"
	enc.EncodeTime = zapcore.ISO8601TimeEncoder

	var encoder zapcore.Encoder
	switch format {
	case "json":
		encoder = zapcore.NewJSONEncoder(enc)
	case "console":
		enc.EncodeLevel = zapcore.CapitalLevelEncoder
		enc.EncodeDuration = zapcore.StringDurationEncoder
		encoder = zapcore.NewConsoleEncoder(enc)
	default:
		return nil, fmt.Errorf("log format %q: want json or console", format)
	}
	// No stack traces: else every error line would carry the logging
	// middleware's stack.
	return zap.New(zapcore.NewCore(encoder, w, zap.NewAtomicLevelAt(lvl)),
		zap.AddCaller(), zap.ErrorOutput(zapcore.Lock(os.Stderr))), nil
}
