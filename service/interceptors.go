package service

import (
	"context"
	"crypto/rand"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	middleware "github.com/grpc-ecosystem/go-grpc-middleware/v2"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service/protoapi"
)

// The links of the chain by name, as logs and tests know them.
const (
	linkRequestID   = "request-id"
	linkLogging     = "logging"
	linkMetrics     = "metrics"
	linkAuth        = "auth"
	linkRateLimit   = "rate-limit"
	linkUnaryMemory = "unary-memory"
	linkRecovery    = "recovery"
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
func interceptorChain(log *zap.Logger, links ...interceptor) []interceptor {
	access := accessLog{log: log.WithOptions(zap.WithCaller(false))}
	recoveryOpt := recovery.WithRecoveryHandlerContext(recoveryHandler(log))
	chain := []interceptor{
		{name: linkRequestID, unary: unaryRequestID, stream: streamRequestID},
		{name: linkLogging, unary: access.unary, stream: access.stream},
	}
	chain = append(chain, links...)
	return append(chain,
		interceptor{name: linkRecovery, unary: recovery.UnaryServerInterceptor(recoveryOpt), stream: recovery.StreamServerInterceptor(recoveryOpt)})
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

// callInfo is the request id of a call, what the call is, and the log
// fields annotateCall adds.
type callInfo struct {
	id   string
	meta interceptors.CallMeta

	mu     sync.Mutex
	fields logging.Fields
	// buf backs fields: a call's annotations (principal, session) fit
	// without growing a slice.
	buf [12]any
	// verdict, and its tool's label, are the fields logVerdict adds, last:
	// written out only when a line is, so that a server whose level is off
	// pays nothing for them.
	verdict     *guard.Verdict
	verdictTool string
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
	if len(ci.fields) == 0 && ci.verdict == nil {
		return nil
	}
	fields := append(logging.Fields(nil), ci.fields...)
	if ci.verdict != nil {
		fields = appendVerdictFields(fields, ci.verdictTool, ci.verdict)
	}
	return fields
}

// annotateVerdict adds a call's verdict to its log lines (logVerdict).
func annotateVerdict(ctx context.Context, tool string, v *guard.Verdict) {
	ci, _ := ctx.Value(callInfoKey{}).(*callInfo)
	if ci == nil {
		return
	}
	ci.mu.Lock()
	defer ci.mu.Unlock()
	ci.verdict, ci.verdictTool = v, tool
}

// requestID returns the caller's x-request-id when it is short visible ASCII
// (it goes into logs and headers), else a fresh one.
func requestID(ctx context.Context) string {
	if vals := metadata.ValueFromIncomingContext(ctx, requestIDHeader); len(vals) > 0 {
		if id := vals[0]; id != "" && len(id) <= maxRequestIDLen && isVisibleASCII(id) {
			return id
		}
	}
	return requestIDs.next()
}

// requestIDs makes the ids of calls that bring none.
var requestIDs = newIDSource()

// idSource makes request ids as long as rand.Text's and in its alphabet
// (26 base32 characters): 80 random bits drawn once per process, so that
// replicas' ids differ, then a counter. An id only ties a call's log lines
// to its answer and grants nothing, so it must be unique, not
// unpredictable: drawing 130 random bits for every call cost a system call.
type idSource struct {
	prefix [idPrefixLen]byte
	n      atomic.Uint64
}

const (
	idLen       = 26
	idPrefixLen = 16
	// idAlphabet is rand.Text's, RFC 4648 base32.
	idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func newIDSource() *idSource {
	s := new(idSource)
	copy(s.prefix[:], rand.Text())
	return s
}

// next returns a fresh id: the prefix, then the counter in ten base32
// digits (50 bits, which no process reaches).
func (s *idSource) next() string {
	var b [idLen]byte
	copy(b[:], s.prefix[:])
	n := s.n.Add(1)
	for i := idLen - 1; i >= idPrefixLen; i-- {
		b[i] = idAlphabet[n&31]
		n >>= 5
	}
	return string(b[:])
}

func isVisibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// withRequestID puts the call's id and what it is in the context; its log
// fields are made from them only for a line that is written.
func withRequestID(ctx context.Context, id string) context.Context {
	return withCall(ctx, id, interceptors.CallMeta{})
}

func withCall(ctx context.Context, id string, meta interceptors.CallMeta) context.Context {
	ci := &callInfo{id: id, meta: meta}
	ci.fields = ci.buf[:0]
	return context.WithValue(ctx, callInfoKey{}, ci)
}

// unaryRequestID gives each unary call a request id, echoed in the header.
func unaryRequestID(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	id := requestID(ctx)
	setRequestIDHeader(id, func(md metadata.MD) error { return grpc.SetHeader(ctx, md) })
	return handler(withCall(ctx, id, interceptors.NewServerCallMeta(info.FullMethod, nil, nil)), req)
}

func streamRequestID(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	id := requestID(ss.Context())
	setRequestIDHeader(id, ss.SetHeader)
	wrapped := middleware.WrapServerStream(ss)
	wrapped.WrappedContext = withCall(ss.Context(), id, interceptors.NewServerCallMeta(info.FullMethod, info, nil))
	return handler(srv, wrapped)
}

// requestIDHeaders are the headers setRequestIDHeader sends, kept for the
// next call: a one-key metadata map costs a map and its first group (some
// 400 bytes) at every call, health checks included, and gRPC copies what
// it is given (metadata.Join) rather than keeping it.
var requestIDHeaders = sync.Pool{New: func() any { return metadata.MD{requestIDHeader: make([]string, 1)} }}

// setRequestIDHeader sends id as the call's x-request-id header through
// set (grpc.SetHeader or a stream's SetHeader), which fails only once
// headers were sent: not before the handler.
func setRequestIDHeader(id string, set func(metadata.MD) error) {
	md := requestIDHeaders.Get().(metadata.MD)
	md[requestIDHeader][0] = id
	_ = set(md)
	md[requestIDHeader][0] = ""
	requestIDHeaders.Put(md)
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
		fields := append(appendCallFields(zapFields(callAnnotations(ctx)), ctx),
			zap.String("panic", fmt.Sprint(p)),
			zap.ByteString("stack", stack),
		)
		log.Error("recovered from panic in handler", fields...)
		return status.Error(codes.Internal, "internal error")
	}
}
