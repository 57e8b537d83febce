package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/observe"
)

// The memory of the unary calls handled at once. A large request costs
// several times its size while it is handled (its decoded message, the
// arguments parsed out of it, a write's diff, the answer), and nothing else
// bounds how many are handled at once: a connection runs up to
// --max-conn-streams calls, on any number of connections. So each request
// of chargeMinBytes or more draws its size times its RPC's factor from one
// server-wide budget (--max-unary-memory-bytes) before it is decoded
// (decodeFirst) and handled, and gives it back when the handler returns,
// however it returns (answer, error, panic, cancel). A request the budget
// has no room for waits in line, holding its frames only, for at most
// maxMemoryWait and never past its deadline, while the requests waiting
// hold less than a third of the budget; else it is refused with
// SERVER_MEMORY_BUSY, having done nothing. Refused at once, callers send
// their requests again, and each is received into memory again: measured,
// that saved little memory and took twice as long (docs/limits.md).

// chargeMinBytes is the least request size charged: the calls of every
// day (a tool call, a few tool definitions) pay nothing, and a connection's
// uncharged calls hold at most --max-conn-streams × 16 KiB × the factor
// (12 MiB at the defaults).
const chargeMinBytes = 16 << 10

// Peak memory per request byte while a call is handled: the server's peak
// resident set above its settled one over the request's size, for 16 MiB
// requests at GOGC=100 (bench BenchmarkLargeUnaryMemory, three runs of 4
// calls each: range, and medians).
//
//	RPC               request                                measured                factor
//	ValidateToolCall  a write's content as JSON, a Python      2.93-3.05               3
//	                  dict, an XML block or params
//	ExecuteWrite      a new file, JSON or a Python dict        2.96-3.00               7, the worse
//	ExecuteWrite      over a file whose every line changes     6.62-6.78 (6.76-6.77)
//	ExecuteEdit       an 8 MB file replaced whole              6.58-8.48 (7.63-7.80)   8
//	any other         the request decoded and parsed                                   3
//
// A write or an edit of an existing file costs more than its request: the
// edit's copies of the file and, for a change of every line, the lines
// of both contents its diff compares (the diff itself is sized and hashed
// without being built, edit.Unified). Before, udiff's diff made these 17
// to 30 and 11.6 to 15.0, and the factors 20 and 13.
const baseMemoryFactor = 3

var unaryMemoryFactors = map[string]int64{
	toolguardv1.ToolGuardService_ValidateToolCall_FullMethodName: baseMemoryFactor,
	toolguardv1.ToolGuardService_ExecuteWrite_FullMethodName:     7,
	toolguardv1.ToolGuardService_ExecuteEdit_FullMethodName:      8,
}

// unaryMemory is the budget; safe for concurrent use.
type unaryMemory struct {
	limit int64
	// maxWait bounds a request's wait for room (0: refused at once), and
	// maxWaiting the bytes of the requests waiting: each keeps its message
	// in memory meanwhile.
	maxWait    time.Duration
	maxWaiting int64
	// decided is Config.memoryDecided.
	decided func(d memoryDecision, held int64)

	mu      sync.Mutex
	held    int64
	waiting int64
	queue   []*memoryWaiter // first come, first served
}

// memoryWaiter is a request waiting for room.
type memoryWaiter struct {
	n, size int64
	ready   chan struct{} // closed when granted
	granted bool
}

// memoryDecision is what the budget did with a request, for a test.
type memoryDecision int

const (
	memoryGranted memoryDecision = iota
	memoryWaiting
	memoryRefused
)

// maxMemoryWait bounds a request's wait for room: about what a few large
// calls take to be handled.
const maxMemoryWait = 5 * time.Second

func newUnaryMemory(limit int) *unaryMemory {
	return &unaryMemory{limit: int64(limit), maxWait: maxMemoryWait, maxWaiting: int64(limit) / baseMemoryFactor}
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

// used is the bytes held now.
func (m *unaryMemory) used() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.held
}

// acquire draws the charge of a request of size bytes to method. When the
// budget has no room, the request waits in line for it, for at most
// maxWait and never past ctx's end, unless the requests waiting already
// hold maxWaiting bytes; else it is refused with SERVER_MEMORY_BUSY.
func (m *unaryMemory) acquire(ctx context.Context, method string, size int) (charged int64, err error) {
	n := m.charge(method, size)
	m.mu.Lock()
	if len(m.queue) == 0 && m.held+n <= m.limit {
		m.held += n
		held := m.held
		m.mu.Unlock()
		m.note(memoryGranted, held)
		return n, nil
	}
	wait := m.maxWait
	if deadline, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(deadline))
	}
	if wait <= 0 || m.waiting+int64(size) > m.maxWaiting {
		held := m.held
		m.mu.Unlock()
		m.note(memoryRefused, held)
		return 0, m.busy(size, n)
	}
	w := &memoryWaiter{n: n, size: int64(size), ready: make(chan struct{})}
	m.queue = append(m.queue, w)
	m.waiting += w.size
	held := m.held
	m.mu.Unlock()
	m.note(memoryWaiting, held)

	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-w.ready:
	case <-ctx.Done():
	case <-timer.C:
	}
	m.mu.Lock()
	granted := w.granted
	if !granted {
		m.queue = slices.DeleteFunc(m.queue, func(q *memoryWaiter) bool { return q == w })
		m.waiting -= w.size
		m.grantLocked() // the ones behind it may fit
	}
	held = m.held
	m.mu.Unlock()
	if granted {
		m.note(memoryGranted, held)
		return n, nil
	}
	m.note(memoryRefused, held)
	return 0, m.busy(size, n)
}

// release gives back what acquire charged, and lets in the requests
// waiting that now fit.
func (m *unaryMemory) release(n int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held -= n
	m.grantLocked()
}

// grantLocked grants the requests at the head of the line while they fit:
// in order, so that a large one is not passed over for ever by smaller
// ones behind it.
func (m *unaryMemory) grantLocked() {
	for len(m.queue) > 0 && m.held+m.queue[0].n <= m.limit {
		w := m.queue[0]
		m.queue = m.queue[1:]
		m.held += w.n
		m.waiting -= w.size
		w.granted = true
		close(w.ready)
	}
}

func (m *unaryMemory) note(d memoryDecision, held int64) {
	if m.decided != nil {
		m.decided(d, held)
	}
}

// busy is the refusal of a request of size bytes charged n.
func (m *unaryMemory) busy(size int, n int64) error {
	return &LimitError{
		Reason: string(failure.ServerMemoryBusy),
		Message: fmt.Sprintf("the server is handling other large requests: this one (%d bytes) needs %d bytes of the %d it gives large requests at once (--max-unary-memory-bytes); nothing was done, send it again shortly",
			size, n, m.limit),
		Metadata:   map[string]string{"max_unary_memory_bytes": strconv.FormatInt(m.limit, 10), "request_bytes": strconv.Itoa(size)},
		RetryAfter: memoryBusyRetry(),
	}
}

// memoryBusyRetry is the RetryInfo of a refusal: about a second, what a
// large call takes, spread from half to one and a half so that the callers
// refused together do not all send their requests again at once (each
// one's bytes are in the server's memory again as it is received).
func memoryBusyRetry() time.Duration {
	return time.Second/2 + rand.N(time.Second)
}

// collector exports the bytes held and the budget, so an alert can fire
// before callers are refused.
func (m *unaryMemory) collector() prometheus.Collector {
	return observe.Collectors{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "unary_memory_bytes",
			Help: "Memory the unary calls being handled hold of the budget (request bytes times their RPC's factor)."},
			func() float64 { return float64(m.used()) }),
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

// decodeFirst decodes a large request's frames w into m, then runs method:
// at the end of the chain, once the access links and the budget let the
// call in, so that a call refused, or waiting for room, holds its frames
// only, not their decoded copy as well.
func decodeFirst(method grpc.UnaryHandler, dec requestDecoder, w *wireMessage, m any) grpc.UnaryHandler {
	return func(ctx context.Context, req any) (any, error) {
		if refusal := dec.decode(w, m); refusal != nil {
			return nil, fieldStatus(refusal)
		}
		return method(ctx, req)
	}
}

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
		n, err := m.acquire(ctx, info.FullMethod, size)
		if err != nil {
			return nil, refusalStatus(err)
		}
		defer m.release(n)
		return handler(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return handler(srv, ss)
	}
	return interceptor{name: linkUnaryMemory, unary: unary, stream: stream}
}
