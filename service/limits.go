package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/internal/ratelimit"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/repair"
)

// Limits beyond the request checks: the open streams and each principal's
// rate of calls. Each refusal is a LimitError. The message size is gRPC's
// own limit: grpc-go refuses it before any interceptor could add a reason,
// and checking sizes here instead would buffer more than the limit.

// LimitError refuses a call over one of the server's limits
// (RESOURCE_EXHAUSTED). RetryAfter, when positive, becomes a RetryInfo.
type LimitError struct {
	Reason     string
	Message    string
	Metadata   map[string]string
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return e.Message }

func (c Config) validateLimits() []error {
	var errs []error
	if c.MaxJSONDepth <= 0 {
		errs = append(errs, errors.New("max JSON depth must be positive"))
	}
	if c.MaxJSONDepth > repair.MaxJSONDepth {
		// Deeper text would pass the request check, then fail to parse: a
		// model's mistake where the caller's was meant.
		errs = append(errs, fmt.Errorf("max JSON depth must be at most %d, the deepest the JSON repair reads", repair.MaxJSONDepth))
	}
	if c.MaxStreams <= 0 || c.MaxConnStreams == 0 {
		errs = append(errs, errors.New("stream limits must be positive"))
	}
	if c.MaxStreamBufferBytes <= 0 || c.MaxStreamBufferBytes < c.MaxCallBytes {
		errs = append(errs, fmt.Errorf("max stream buffer bytes (%d) must be at least max call bytes (%d), or no call of the largest size could ever be held",
			c.MaxStreamBufferBytes, c.MaxCallBytes))
	}
	if least := int64(c.MaxRecvMsgBytes) * baseMemoryFactor; int64(c.MaxUnaryMemoryBytes) < least {
		errs = append(errs, fmt.Errorf("max unary memory bytes (%d) must be at least %d times max recv msg bytes (%d), or no request of the largest size could ever be handled",
			c.MaxUnaryMemoryBytes, baseMemoryFactor, c.MaxRecvMsgBytes))
	}
	if c.StreamIdleTimeout < 0 {
		errs = append(errs, errors.New("stream idle timeout must not be negative (0: never)"))
	}
	switch {
	case c.MaxStreamsPerPrincipal < 0:
		errs = append(errs, errors.New("max streams per principal must not be negative (0: the default share)"))
	case c.MaxStreamsPerPrincipal > 0 && c.AuthTokensFile == "":
		errs = append(errs, errors.New("max streams per principal needs a tokens file: without one every caller is the one anonymous principal, bounded by max streams"))
	}
	if c.RateLimit < 0 || math.IsNaN(c.RateLimit) || math.IsInf(c.RateLimit, 0) {
		errs = append(errs, errors.New("rate limit must be a number of calls per second, or 0 for no limit"))
	}
	if c.RateBurst < 0 || c.RateLimit > 0 && c.RateBurst == 0 {
		errs = append(errs, errors.New("rate burst must be at least 1 when a rate limit is set"))
	}
	return errs
}

// streamSlots bounds the streams open at once, server-wide and for each
// authenticated principal, so one caller cannot take every slot.
type streamSlots struct {
	max, share int // share 0: no share

	mu   sync.Mutex
	open int
	held map[string]int // by principal, when shared
}

func newStreamSlots(cfg Config, principals int) *streamSlots {
	return &streamSlots{max: cfg.MaxStreams, share: streamShare(cfg, principals), held: map[string]int{}}
}

// streamShare is how many streams one principal may hold (0: no share).
// With one principal or none, a share would only lower MaxStreams, unless
// set explicitly.
func streamShare(cfg Config, principals int) int {
	switch {
	case principals == 0:
		return 0
	case cfg.MaxStreamsPerPrincipal > 0:
		return min(cfg.MaxStreamsPerPrincipal, cfg.MaxStreams)
	case principals >= 2:
		return max(1, cfg.MaxStreams/4)
	}
	return 0
}

// collector exports the open streams and the cap, so an alert can fire
// before callers are refused.
func (s *streamSlots) collector() prometheus.Collector {
	return observe.Collectors{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "streams_open",
			Help: "StreamToolCalls streams open now."}, func() float64 {
			s.mu.Lock()
			defer s.mu.Unlock()
			return float64(s.open)
		}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "toolguard", Name: "streams_max",
			Help: "Most StreamToolCalls streams the server holds open at once (--max-streams)."},
			func() float64 { return float64(s.max) }),
	}
}

// acquire takes a slot for the caller without waiting, or refuses with
// TOO_MANY_STREAMS_FOR_PRINCIPAL or TOO_MANY_STREAMS.
func (s *streamSlots) acquire(c *auth.Caller) (release func(), err error) {
	shared := s.share > 0 && c.Authenticated()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case shared && s.held[c.Principal] >= s.share:
		return nil, &LimitError{
			Reason: "TOO_MANY_STREAMS_FOR_PRINCIPAL",
			Message: fmt.Sprintf("principal %q already holds its share of %d open StreamToolCalls streams (of %d server-wide); end one of them, or retry later",
				c.Principal, s.share, s.max),
			Metadata: map[string]string{"principal": c.Principal, "max_streams_per_principal": strconv.Itoa(s.share)},
		}
	case s.open >= s.max:
		return nil, &LimitError{
			Reason:   "TOO_MANY_STREAMS",
			Message:  fmt.Sprintf("the server already has its maximum of %d open StreamToolCalls streams; retry later", s.max),
			Metadata: map[string]string{"max_streams": strconv.Itoa(s.max)},
		}
	}
	s.open++
	if shared {
		s.held[c.Principal]++
	}
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.open--
		if shared {
			if s.held[c.Principal]--; s.held[c.Principal] == 0 {
				delete(s.held, c.Principal)
			}
		}
	}), nil
}

// rateLimiter is the per-principal limit (internal/ratelimit), refusing
// with a LimitError. nil limits nothing.
type rateLimiter struct{ *ratelimit.Limiter }

func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	l := ratelimit.New(perSecond, burst)
	if l == nil {
		return nil
	}
	return &rateLimiter{l}
}

// allow takes a token, or refuses with RATE_LIMITED and the time until the
// next one.
func (l *rateLimiter) allow(principal string) error {
	if l == nil {
		return nil
	}
	delay := l.Take(principal)
	if delay == 0 {
		return nil
	}
	return &LimitError{
		Reason: "RATE_LIMITED",
		Message: fmt.Sprintf("principal %q is over its rate limit of %g calls per second (bursts of %d); retry in %s",
			principal, l.PerSecond(), l.Burst(), delay.Round(time.Millisecond)),
		Metadata:   map[string]string{"principal": principal},
		RetryAfter: delay,
	}
}

// rateLimitInterceptor limits each principal's calls. go-grpc-middleware's
// would replace the error with its own status, losing the reason and the
// RetryInfo.
func rateLimitInterceptor(l *rateLimiter) interceptor {
	unary := func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := l.allow(PrincipalFromContext(ctx)); err != nil {
			return nil, refusalStatus(err)
		}
		return handler(ctx, req)
	}
	stream := func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		if err := l.allow(PrincipalFromContext(ss.Context())); err != nil {
			return refusalStatus(err)
		}
		return handler(srv, ss)
	}
	return interceptor{
		name:   linkRateLimit,
		unary:  selector.UnaryServerInterceptor(unary, guardedCall),
		stream: selector.StreamServerInterceptor(stream, guardedCall),
	}
}

// accessInterceptors decide whether a call may run: who the caller is,
// whether it is over its rate, then whether the memory for its request is
// there (request_budget.go).
func accessInterceptors(tokens *auth.Tokens, l *rateLimiter, m *unaryMemory) []interceptor {
	return []interceptor{authInterceptor(tokens), rateLimitInterceptor(l), unaryMemoryInterceptor(m)}
}
