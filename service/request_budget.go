package service

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/internal/budget"
)

// The memory of the unary calls handled at once. A large request costs
// several times its size while it is handled (its decoded message, the
// arguments parsed out of it, a write's diff, the answer), and nothing else
// bounds how many are handled at once: a connection runs up to
// --max-conn-streams calls, on any number of connections. So each request
// of chargeMinBytes or more draws its size times its RPC's factor from one
// server-wide budget (--max-unary-memory-bytes) before its handler runs,
// and gives it back when the handler returns, however it returns (answer,
// error, panic, cancel). A request the budget cannot grant is refused at
// once with SERVER_MEMORY_BUSY, having done nothing. Waiting instead would
// keep the waiting request's message in memory, the very memory bounded:
// the caller keeps it better.

// chargeMinBytes is the least request size charged: the calls of every
// day (a tool call, a few tool definitions) pay nothing, and a connection's
// uncharged calls hold at most --max-conn-streams × 16 KiB × the factor
// (12 MiB at the defaults).
const chargeMinBytes = 16 << 10

// Peak memory per request byte while a call is handled: the server's peak
// resident set above its settled one over the request's size, for 16 MiB
// requests at GOGC=100 (bench BenchmarkLargeUnaryMemory, 3 to 5 calls
// each, median and range).
//
//	RPC               request                              measured          factor
//	ValidateToolCall  a write's content as JSON, a Python   2.94-3.05         3
//	                  dict, an XML block or params
//	ExecuteWrite      a new file, JSON or a Python dict     2.94-3.07         3
//	ExecuteWrite      over a file whose every line changes  17.4-21.0 (19.9)  20
//	ExecuteEdit       an 8 MB file replaced whole            11.6-14.8 (13.0)  13
//	any other         the request decoded and parsed                          3
//
// A write or an edit of an existing file costs what its diff does, the
// file's size rather than the request's: charged for the worst case
// measured, they run several at once only when small.
const baseMemoryFactor = 3

var unaryMemoryFactors = map[string]int64{
	toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName: baseMemoryFactor,
	toolguardv1.ToolGuardService_ExecuteWrite_FullMethodName:     20,
	toolguardv1.ToolGuardService_ExecuteEdit_FullMethodName:      13,
}

// unaryMemory is the budget; safe for concurrent use.
type unaryMemory struct {
	held  *budget.Bytes
	limit int64
	// decided is Config.memoryDecided.
	decided func(granted bool, held int64)
}

func newUnaryMemory(limit int) *unaryMemory {
	return &unaryMemory{held: budget.New(int64(limit)), limit: int64(limit)}
}

// charge is what a request of size bytes to method draws: its size times
// the RPC's factor, at most the whole budget, so that a call costing more
// still runs, alone.
func (m *unaryMemory) charge(method string, size int) int64 {
	f, ok := unaryMemoryFactors[method]
	if !ok {
		f = baseMemoryFactor
	}
	return min(int64(size)*f, m.limit)
}

// acquire draws the charge of a request of size bytes to method, or
// refuses with SERVER_MEMORY_BUSY.
func (m *unaryMemory) acquire(method string, size int) (charged int64, err error) {
	n := m.charge(method, size)
	granted := m.held.Grow64(n)
	if m.decided != nil {
		m.decided(granted, m.held.Used())
	}
	if granted {
		return n, nil
	}
	return 0, &LimitError{
		Reason: string(failure.ServerMemoryBusy),
		Message: fmt.Sprintf("the server is handling other large requests: this one (%d bytes) needs %d bytes of the %d it gives large requests at once (--max-unary-memory-bytes); nothing was done, send it again shortly",
			size, n, m.limit),
		Metadata: map[string]string{"max_unary_memory_bytes": strconv.FormatInt(m.limit, 10), "request_bytes": strconv.Itoa(size)},
	}
}

// collector exports the bytes held and the budget, so an alert can fire
// before callers are refused.
func (m *unaryMemory) collector() prometheus.Collector {
	return collectorFuncs{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "unary_memory_bytes",
			Help: "Memory the unary calls being handled hold of the budget (request bytes times their RPC's factor)."},
			func() float64 { return float64(m.held.Used()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "unary_memory_max_bytes",
			Help: "The memory large unary calls may hold at once (--max-unary-memory-bytes)."},
			func() float64 { return float64(m.limit) }),
	}
}

type requestSizeKey struct{}

// largeInFlight counts the calls withRequestSize marked that have not
// ended: while there are none, which is most of the time, the link need not
// look for a size in the context (a walk up its values).
var largeInFlight atomic.Int64

// withRequestSize tells the budget's link the size of the call's request,
// when it is large enough to be charged; otherwise it returns ctx. Call
// done when the call has ended.
func withRequestSize(ctx context.Context, size int) (_ context.Context, done func()) {
	if size < chargeMinBytes {
		return ctx, func() {}
	}
	largeInFlight.Add(1)
	return context.WithValue(ctx, requestSizeKey{}, size), endLarge
}

func endLarge() { largeInFlight.Add(-1) }

// unaryMemoryInterceptor charges each large unary request to m for as long
// as its handler runs. Streams have their own budget (MaxStreamBufferBytes).
func unaryMemoryInterceptor(m *unaryMemory) interceptor {
	unary := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if largeInFlight.Load() == 0 {
			return handler(ctx, req)
		}
		size, _ := ctx.Value(requestSizeKey{}).(int)
		if size == 0 {
			return handler(ctx, req)
		}
		n, err := m.acquire(info.FullMethod, size)
		if err != nil {
			return nil, refusalStatus(err)
		}
		defer m.held.Release64(n)
		return handler(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return handler(srv, ss)
	}
	return interceptor{name: linkUnaryMemory, unary: unary, stream: stream}
}
