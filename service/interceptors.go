package service

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	middleware "github.com/grpc-ecosystem/go-grpc-middleware/v2"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/toolguard/toolguard/service/protoapi"
)

// interceptor is one named link of the chain, in unary and stream forms.
type interceptor struct {
	name   string
	unary  grpc.UnaryServerInterceptor
	stream grpc.StreamServerInterceptor
}

// interceptorChain returns the interceptors, outermost first: request-id (on
// every line and response), logging (sees every final status), the access
// links (auth, then rate limit: refusals are logged), recovery innermost (a
// panic is an Internal error like any other). Metrics follow logging.
func interceptorChain(log *zap.Logger, access ...interceptor) []interceptor {
	loggingUnary, loggingStream := loggingInterceptors(log)
	recoveryOpt := recovery.WithRecoveryHandlerContext(recoveryHandler(log))
	chain := []interceptor{
		{name: "request-id", unary: unaryRequestID, stream: streamRequestID},
		{name: "logging", unary: loggingUnary, stream: loggingStream},
	}
	chain = append(chain, access...)
	return append(chain,
		interceptor{name: "recovery", unary: recovery.UnaryServerInterceptor(recoveryOpt), stream: recovery.StreamServerInterceptor(recoveryOpt)})
}

// chainOptions installs a chain, first interceptor outermost.
func chainOptions(chain []interceptor) []grpc.ServerOption {
	unary := make([]grpc.UnaryServerInterceptor, 0, len(chain))
	stream := make([]grpc.StreamServerInterceptor, 0, len(chain))
	for _, ic := range chain {
		unary = append(unary, ic.unary)
		stream = append(stream, ic.stream)
	}
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream...),
	}
}

// requestIDHeader is the metadata key of the request id, in and out.
const requestIDHeader = "x-request-id"

const requestIDField = "request_id"

// maxRequestIDLen bounds a caller's request id, repeated on every log line.
const maxRequestIDLen = 128

// callInfo is the request id of a call and the log fields annotateCall adds.
type callInfo struct {
	id string

	mu     sync.Mutex
	fields logging.Fields
}

type callInfoKey struct{}

// requestIDFromContext returns the call's request id, or "" outside a call.
func requestIDFromContext(ctx context.Context) string {
	if ci, _ := ctx.Value(callInfoKey{}).(*callInfo); ci != nil {
		return ci.id
	}
	return ""
}

const sessionIDField = "session_id"

// annotateCall adds key=value to the call's "finished call" line from inside
// the call; logging.InjectFields cannot, as the logging interceptor never
// sees a context derived inside it. Outside a call it does nothing.
func annotateCall(ctx context.Context, key string, value any) {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	if ci == nil {
		return
	}
	ci.mu.Lock()
	defer ci.mu.Unlock()
	for i := 0; i+1 < len(ci.fields); i += 2 {
		if ci.fields[i] == key {
			ci.fields[i+1] = value
			return
		}
	}
	ci.fields = append(ci.fields, key, value)
}

// logSessionID adds a valid session id to the call's log lines.
func logSessionID(ctx context.Context, id string) {
	if protoapi.CheckSessionID(id, "") == nil {
		annotateCall(ctx, sessionIDField, id)
	}
}

func callAnnotation(ctx context.Context, key string) any {
	it := callAnnotations(ctx).Iterator()
	for it.Next() {
		if k, v := it.At(); k == key {
			return v
		}
	}
	return nil
}

func callAnnotations(ctx context.Context) logging.Fields {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	if ci == nil {
		return nil
	}
	ci.mu.Lock()
	defer ci.mu.Unlock()
	if len(ci.fields) == 0 {
		return nil
	}
	return append(logging.Fields(nil), ci.fields...)
}

// requestID returns the caller's x-request-id when it is short visible ASCII
// (it goes into logs and headers), else a fresh one.
func requestID(ctx context.Context) string {
	if vals := metadata.ValueFromIncomingContext(ctx, requestIDHeader); len(vals) > 0 {
		if id := vals[0]; id != "" && len(id) <= maxRequestIDLen && isVisibleASCII(id) {
			return id
		}
	}
	return rand.Text()
}

func isVisibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// traceIDField leads from log lines to the trace when tracing is on.
const traceIDField = "trace_id"

// withRequestID puts id in the context and the log fields, with the trace id.
func withRequestID(ctx context.Context, id string) context.Context {
	ctx = context.WithValue(ctx, callInfoKey{}, &callInfo{id: id})
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return logging.InjectFields(ctx, logging.Fields{requestIDField, id, traceIDField, sc.TraceID().String()})
	}
	return logging.InjectLogField(ctx, requestIDField, id)
}

// unaryRequestID gives each unary call a request id, echoed in the header.
func unaryRequestID(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	id := requestID(ctx)
	// SetHeader fails only once headers were sent: not before the handler.
	_ = grpc.SetHeader(ctx, metadata.Pairs(requestIDHeader, id))
	return handler(withRequestID(ctx, id), req)
}

func streamRequestID(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	id := requestID(ss.Context())
	_ = ss.SetHeader(metadata.Pairs(requestIDHeader, id))
	wrapped := middleware.WrapServerStream(ss)
	wrapped.WrappedContext = withRequestID(ss.Context(), id)
	return handler(srv, wrapped)
}

const healthMethodPrefix = "/grpc.health.v1.Health/"

// loggingInterceptors write one line per finished call; health calls at
// debug unless a server fault, so probes do not flood the log.
func loggingInterceptors(log *zap.Logger) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	logger := zapLogger(log)
	// Only FinishCall: its line carries everything "started call" would.
	events := logging.WithLogOnEvents(logging.FinishCall)
	unary := logging.UnaryServerInterceptor(logger, events, logging.WithLevels(accessCodeToLevel))
	stream := logging.StreamServerInterceptor(logger, events, logging.WithLevels(accessCodeToLevel))
	healthUnary := logging.UnaryServerInterceptor(logger, events, logging.WithLevels(healthCodeToLevel))
	healthStream := logging.StreamServerInterceptor(logger, events, logging.WithLevels(healthCodeToLevel))

	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
				return healthUnary(ctx, req, info, handler)
			}
			return unary(ctx, req, info, handler)
		}, func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			if strings.HasPrefix(info.FullMethod, healthMethodPrefix) {
				return healthStream(srv, ss, info, handler)
			}
			return stream(srv, ss, info, handler)
		}
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

// zapLogger adapts zap to go-grpc-middleware's logging.Logger, adding the
// call's annotations.
func zapLogger(log *zap.Logger) logging.Logger {
	// The caller would be this adapter, which says nothing about the call.
	log = log.WithOptions(zap.WithCaller(false))
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		zl := zapLevel(lvl)
		// Checked first: most health lines are dropped, and converting allocates.
		if ce := log.Check(zl, msg); ce != nil {
			ce.Write(append(zapFields(fields), zapFields(callAnnotations(ctx))...)...)
		}
	})
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

// recoveryHandler turns a panic into Internal; the value and stack go to the
// log only, as they can hold request data.
func recoveryHandler(log *zap.Logger) recovery.RecoveryHandlerFuncContext {
	log = log.WithOptions(zap.WithCaller(false))
	return func(ctx context.Context, p any) error {
		// Still in the deferred recover: the stack shows where it began.
		stack := debug.Stack()
		if f, ok := p.(*forwardedPanic); ok { // from a goroutine of the handler's
			p, stack = f.value, f.stack
		}
		fields := append(zapFields(callAnnotations(ctx).AppendUnique(logging.ExtractFields(ctx))),
			zap.String("panic", fmt.Sprint(p)),
			zap.ByteString("stack", stack),
		)
		log.Error("recovered from panic in handler", fields...)
		return status.Error(codes.Internal, "internal error")
	}
}
