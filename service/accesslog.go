package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

const healthMethodPrefix = "/grpc.health.v1.Health/"

// traceIDField leads from log lines to the trace when tracing is on.
const traceIDField = "trace_id"

// accessLog writes one "finished call" line per call, with go-grpc-middleware's
// logging fields; health calls at debug unless a server fault, so probes do
// not flood the log. Its level is known only once the call ends, and a line
// is built only if that level is on: a server at --log-level error pays a
// clock read per call, where the middleware built every field, formatted
// times and allocated a context for each call, logged or not.
type accessLog struct {
	// log has no caller: it would be this file, which says nothing.
	log *zap.Logger
}

func (a accessLog) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	a.finished(ctx, info.FullMethod, start, err)
	return resp, err
}

func (a accessLog) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := time.Now()
	err := handler(srv, ss)
	a.finished(ss.Context(), info.FullMethod, start, err)
	return err
}

func (a accessLog) finished(ctx context.Context, fullMethod string, start time.Time, err error) {
	if errors.Is(err, io.EOF) {
		err = nil
	}
	code := logging.DefaultErrorToCode(err)
	lvl := accessCodeToLevel(code)
	if strings.HasPrefix(fullMethod, healthMethodPrefix) {
		lvl = healthCodeToLevel(code)
	}
	ce := a.log.Check(zapLevel(lvl), "finished call")
	if ce == nil {
		return
	}
	elapsed := time.Since(start)
	fields := make([]zap.Field, 0, 20)
	fields = appendCallFields(fields, ctx)
	fields = append(fields, zap.String("grpc.start_time", start.Format(time.RFC3339)))
	if d, ok := ctx.Deadline(); ok {
		fields = append(fields, zap.String("grpc.request.deadline", d.Format(time.RFC3339)))
	}
	fields = append(fields, zap.String("grpc.code", code.String()))
	if err != nil {
		fields = append(fields, zap.String("grpc.error", err.Error()))
	}
	// As the middleware writes it: microseconds, as milliseconds.
	ms := float32(elapsed.Nanoseconds()/1000) / 1000
	fields = append(fields, zap.String("grpc.time_ms", fmt.Sprint(ms)))
	ce.Write(append(fields, zapFields(callAnnotations(ctx))...)...)
}

// appendCallFields appends what the call is, from the context the
// request-id link made: method, request and trace ids, peer.
func appendCallFields(fields []zap.Field, ctx context.Context) []zap.Field {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	if ci == nil {
		return fields
	}
	fields = append(fields,
		zap.String(logging.SystemTag[0], logging.SystemTag[1]),
		zap.String(logging.ComponentFieldKey, logging.KindServerFieldValue),
		zap.String(logging.ServiceFieldKey, ci.meta.Service),
		zap.String(logging.MethodFieldKey, ci.meta.Method),
		zap.String(logging.MethodTypeFieldKey, string(ci.meta.Typ)),
		zap.String(requestIDField, ci.id),
	)
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		fields = append(fields, zap.String(traceIDField, sc.TraceID().String()))
	}
	if p, ok := peer.FromContext(ctx); ok {
		fields = append(fields, zap.String("peer.address", p.Addr.String()))
	}
	if c := clientVersion(ctx); c != "" {
		fields = append(fields, zap.String(clientField, c))
	}
	return fields
}

// ClientHeader is the metadata key in which the project's clients send their
// language and version ("python/0.1.0"), logged with each call so an
// operator sees which clients call and which need upgrading.
const ClientHeader = "x-toolguard-client"

const (
	clientField = "client"
	// maxClientBytes bounds what a caller's header adds to each log line.
	maxClientBytes = 64
)

// clientVersion returns the caller's ClientHeader, cut to maxClientBytes.
func clientVersion(ctx context.Context) string {
	v := metadata.ValueFromIncomingContext(ctx, ClientHeader)
	if len(v) == 0 {
		return ""
	}
	c := v[0]
	if len(c) > maxClientBytes {
		c = strings.ToValidUTF8(c[:maxClientBytes], "") + "…"
	}
	return c
}

// accessCodeToLevel puts UNAVAILABLE at info: every call gets it while the
// store is down, and the cause is logged where it arises.
func accessCodeToLevel(code codes.Code) logging.Level {
	if code == codes.Unavailable {
		return logging.LevelInfo
	}
	return logging.DefaultServerCodeToLevel(code)
}

// healthCodeToLevel keeps only server faults above debug.
func healthCodeToLevel(code codes.Code) logging.Level {
	if lvl := logging.DefaultServerCodeToLevel(code); lvl >= logging.LevelError {
		return lvl
	}
	return logging.LevelDebug
}

func zapLevel(lvl logging.Level) zapcore.Level {
	switch {
	case lvl >= logging.LevelError:
		return zapcore.ErrorLevel
	case lvl >= logging.LevelWarn:
		return zapcore.WarnLevel
	case lvl >= logging.LevelInfo:
		return zapcore.InfoLevel
	default:
		return zapcore.DebugLevel
	}
}

func zapFields(kv []any) []zap.Field {
	fields := make([]zap.Field, 0, len(kv)/2)
	it := logging.Fields(kv).Iterator()
	for it.Next() {
		k, v := it.At()
		switch v := v.(type) {
		case string:
			fields = append(fields, zap.String(k, v))
		case int:
			fields = append(fields, zap.Int(k, v))
		case bool:
			fields = append(fields, zap.Bool(k, v))
		default:
			fields = append(fields, zap.Any(k, v))
		}
	}
	return fields
}
