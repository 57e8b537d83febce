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

// interceptor is one named link of the server's interceptor chain, in its
// unary and stream forms.
type interceptor struct {
	name   string
	unary  grpc.UnaryServerInterceptor
	stream grpc.StreamServerInterceptor
}

// interceptorChain returns the server's interceptors, outermost first. The
// order matters and is part of the design:
//
//   - request-id is outermost so every log line of the call, including the
//     access log, carries the request id, and the id reaches the response
//     header even when the call fails;
//   - logging comes next so it sees the final status of everything inside it;
//   - then access, the links that decide whether a call may run at all
//     (accessInterceptors: auth, then rate-limit, which needs the principal
//     auth found). Inside logging, every refusal is logged with its request
//     id and code, and the principal reaches the log line (annotateCall);
//     grpc.health.v1 and reflection pass through them untouched;
//   - recovery is innermost so a panic becomes an ordinary Internal error
//     that the logging interceptor then records like any other failure. This
//     is go-grpc-middleware's own example order (logging, selector(auth),
//     recovery): recovery guards the handlers, which take the request apart;
//     the access links only read metadata.
//
// With metrics on, withMetricsInterceptor puts the gRPC metrics link right
// after logging (see metrics.go). Tracing is no link: it is a stats handler,
// outside the whole chain (see tracing.go).
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

// chainOptions turns a chain into the grpc.Server options that install it,
// keeping its order (the first interceptor is the outermost).
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

// Request ids.

// requestIDHeader is the metadata key of the request id, read from the
// request and written to the response header.
const requestIDHeader = "x-request-id"

// requestIDField is the log field that carries the request id.
const requestIDField = "request_id"

// maxRequestIDLen bounds a caller-supplied request id; longer ones are
// replaced so a caller cannot bloat every log line of its call.
const maxRequestIDLen = 128

// callInfo is what the request-id interceptor keeps for one call: its id,
// and the log fields added once the call is under way (annotateCall).
type callInfo struct {
	id string

	mu     sync.Mutex
	fields logging.Fields
}

type callInfoKey struct{}

// requestIDFromContext returns the id the request-id interceptor gave the
// call, or "" outside an intercepted call.
func requestIDFromContext(ctx context.Context) string {
	if ci, _ := ctx.Value(callInfoKey{}).(*callInfo); ci != nil {
		return ci.id
	}
	return ""
}

// sessionIDField is the log field that carries a call's session id.
const sessionIDField = "session_id"

// annotateCall adds key=value to the call's "finished call" line (and to a
// recovered panic's), from anywhere inside the call: handlers add the session
// id once they have read it, and an interceptor inside logging can add, say,
// the principal. logging.InjectFields cannot do this: the logging
// interceptor writes its line from its own context, which never sees a
// context derived inside it; zapLogger reads these from that context. A
// later value for a key replaces the earlier one. Outside an intercepted
// call (the CLI) it does nothing.
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

// logSessionID adds a call's session id to its log lines (annotateCall),
// when it is one checkSessionID accepts: bounded, valid UTF-8.
func logSessionID(ctx context.Context, id string) {
	if protoapi.CheckSessionID(id, "") == nil {
		annotateCall(ctx, sessionIDField, id)
	}
}

// callAnnotation returns the value annotateCall gave key in the call, or
// nil.
func callAnnotation(ctx context.Context, key string) any {
	it := callAnnotations(ctx).Iterator()
	for it.Next() {
		if k, v := it.At(); k == key {
			return v
		}
	}
	return nil
}

// callAnnotations returns a copy of the fields annotateCall added to the
// call, nil when none.
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

// requestID returns the caller's x-request-id when it is acceptable, else a
// fresh one. Only visible ASCII is accepted: the id is copied into log lines
// and response headers, so control characters or spaces could forge log
// entries in the console format.
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

// traceIDField is the log field that carries a call's trace id when tracing
// is on, so log lines lead to the trace.
const traceIDField = "trace_id"

// withRequestID puts id in the context both for handlers and as a logging
// field, so the logging interceptor and anything using logging.ExtractFields
// log it; with it, the call's trace id when the tracing stats handler
// started a span, and the room for annotateCall's fields.
func withRequestID(ctx context.Context, id string) context.Context {
	ctx = context.WithValue(ctx, callInfoKey{}, &callInfo{id: id})
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return logging.InjectFields(ctx, logging.Fields{requestIDField, id, traceIDField, sc.TraceID().String()})
	}
	return logging.InjectLogField(ctx, requestIDField, id)
}

// unaryRequestID gives each unary call a request id (see requestID), puts it
// in the context and sends it back in the response header.
func unaryRequestID(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	id := requestID(ctx)
	// SetHeader only fails once headers were sent, which cannot have
	// happened before the handler ran.
	_ = grpc.SetHeader(ctx, metadata.Pairs(requestIDHeader, id))
	return handler(withRequestID(ctx, id), req)
}

// streamRequestID is unaryRequestID for streams.
func streamRequestID(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	id := requestID(ss.Context())
	_ = ss.SetHeader(metadata.Pairs(requestIDHeader, id))
	wrapped := middleware.WrapServerStream(ss)
	wrapped.WrappedContext = withRequestID(ss.Context(), id)
	return handler(srv, wrapped)
}

// Logging.

// healthMethodPrefix starts the full method name of every grpc.health.v1 call.
const healthMethodPrefix = "/grpc.health.v1.Health/"

// loggingInterceptors returns the access-log interceptors: one line per
// finished call with its code and duration. Health calls are logged at debug
// level (unless they fail as a server fault) so load-balancer and kubelet
// probes do not flood the log.
func loggingInterceptors(log *zap.Logger) (grpc.UnaryServerInterceptor, grpc.StreamServerInterceptor) {
	logger := zapLogger(log)
	// Only FinishCall: "started call" would double the volume of a service
	// whose calls are all short unary calls, and the finished line carries
	// everything the started one does plus the outcome.
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

// accessCodeToLevel is the middleware's level for each code, except that
// UNAVAILABLE is info: the server answers it while its session store is
// down or while it shuts down, to every call at once, and each cause is
// logged where it arises (once, or throttled), not once more per call.
func accessCodeToLevel(code codes.Code) logging.Level {
	if code == codes.Unavailable {
		return logging.LevelInfo
	}
	return logging.DefaultServerCodeToLevel(code)
}

// healthCodeToLevel maps a health call's code to debug, except the codes that
// mean a server fault, which keep their usual (error) level.
func healthCodeToLevel(code codes.Code) logging.Level {
	if lvl := logging.DefaultServerCodeToLevel(code); lvl >= logging.LevelError {
		return lvl
	}
	return logging.LevelDebug
}

// zapLogger adapts a zap logger to the go-grpc-middleware logging.Logger
// interface, as the middleware's provider examples do. Each line also
// carries the fields annotateCall added to the call (ctx is the logging
// interceptor's, inside the request-id one), such as session_id.
func zapLogger(log *zap.Logger) logging.Logger {
	// The caller would be this adapter (or the middleware behind it), which
	// says nothing about the call, so it is left out.
	log = log.WithOptions(zap.WithCaller(false))
	return logging.LoggerFunc(func(ctx context.Context, lvl logging.Level, msg string, fields ...any) {
		zl := zapLevel(lvl)
		// Checked before converting fields: at the production level most
		// health-check lines are dropped, and converting costs allocations.
		if ce := log.Check(zl, msg); ce != nil {
			ce.Write(append(zapFields(fields), zapFields(callAnnotations(ctx))...)...)
		}
	})
}

// zapLevel maps a middleware (slog) level to the zap level at or below it.
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

// zapFields converts middleware key/value pairs to zap fields.
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

// Recovery.

// recoveryHandler turns a handler panic into codes.Internal "internal error".
// The panic value and stack go to the log at error level, never to the
// client: they can hold request data, paths or internals.
func recoveryHandler(log *zap.Logger) recovery.RecoveryHandlerFuncContext {
	log = log.WithOptions(zap.WithCaller(false))
	return func(ctx context.Context, p any) error {
		// This runs in the deferred recover of the panicking goroutine, before
		// its stack unwinds, so the stack still shows where the panic began.
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
