package service

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/toolguard/toolguard/guard/failure"
	"github.com/toolguard/toolguard/observe"
	"google.golang.org/grpc"
	"google.golang.org/grpc/tap"
)

// The calls whose request is still arriving, bounded on request
// (--max-receiving-calls; 0, the default, bounds nothing). grpc-go reads a
// call's request whole before any interceptor runs, up to
// --max-recv-msg-bytes, and tells nobody its size first; so the one bound
// it allows is on how many are read at once, counted from the call's
// headers (grpc.InTapHandle, before any of its request is read) until its
// first interceptor runs or it ends. Past the bound a call is refused at
// once, having sent at most its stream window. The count cannot tell a
// small request, whose bytes came with its headers, from a large one: a
// client with many calls in flight on one connection has them all counted
// at once (docs/limits.md#memory-requests-being-received), hence off by
// default.

// receivingRetry is the RetryInfo of a refusal: calls leave the count as
// soon as their request is read.
const receivingRetry = 200 * time.Millisecond

type receiving struct {
	max     int64
	open    atomic.Int64
	refused atomic.Uint64
	refusal error
}

type receiptKey struct{}

func newReceiving(max, maxRecvMsgBytes int) *receiving {
	return &receiving{max: int64(max), refusal: refusalStatus(&LimitError{
		Reason: string(failure.ServerReceivingBusy),
		Message: fmt.Sprintf("the server is already receiving its maximum of %d requests at once (up to %d bytes each); retry shortly",
			max, maxRecvMsgBytes),
		Metadata:   map[string]string{"max_receiving_calls": strconv.Itoa(max)},
		RetryAfter: receivingRetry,
	})}
}

// tap admits a call while fewer than max are being received.
func (r *receiving) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	if r.open.Add(1) > r.max {
		r.open.Add(-1)
		r.refused.Add(1)
		return nil, r.refusal
	}
	done := sync.OnceFunc(func() { r.open.Add(-1) })
	// A call that ends before its request is read (the client gone, a
	// message over the size limit) leaves the count when its stream does.
	context.AfterFunc(ctx, done)
	return context.WithValue(ctx, receiptKey{}, done), nil
}

// received takes the call out of the count: its request has been read.
func received(ctx context.Context) {
	if done, ok := ctx.Value(receiptKey{}).(func()); ok {
		done()
	}
}

// options installs the tap and, outermost of all interceptors, the end of
// the count.
func (r *receiving) options() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.InTapHandle(r.tap),
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			received(ctx)
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			received(ss.Context())
			return h(srv, ss)
		}),
	}
}

func (r *receiving) collector() prometheus.Collector {
	return observe.Collectors{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "receiving_calls",
			Help: "Calls whose request is still being received (--max-receiving-calls)."},
			func() float64 { return float64(r.open.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "receiving_calls_max",
			Help: "Most calls whose request may be received at once (--max-receiving-calls)."},
			func() float64 { return float64(r.max) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "toolguard", Name: "receiving_refused_total",
			Help: "Calls refused before their request was read, --max-receiving-calls being received (SERVER_RECEIVING_BUSY)."},
			func() float64 { return float64(r.refused.Load()) }),
	}
}

func (c Config) validateReceiving() []error {
	if c.MaxReceivingCalls < 0 {
		return []error{errors.New("max receiving calls must not be negative (0: no bound)")}
	}
	return nil
}

// receivingOptions bounds the calls being received when configured, and
// exports their count with the metrics.
func (s *Server) receivingOptions() ([]grpc.ServerOption, error) {
	if s.cfg.MaxReceivingCalls == 0 {
		return nil, nil
	}
	r := newReceiving(s.cfg.MaxReceivingCalls, s.cfg.MaxRecvMsgBytes)
	if s.metrics != nil {
		if err := s.metrics.Register(r.collector()); err != nil {
			return nil, fmt.Errorf("register receiving metrics: %w", err)
		}
	}
	return r.options(), nil
}
