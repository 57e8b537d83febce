package service

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"golang.org/x/time/rate"
	"google.golang.org/grpc"

	"github.com/toolguard/toolguard/repair"
)

// Limits beyond the request checks of requests.go: the open streams
// (MaxStreams, and each principal's share of them) and each principal's
// rate of calls (RateLimit, RateBurst).
// Each refusal is a LimitError: RESOURCE_EXHAUSTED with a stable reason.
//
// The message size (MaxRecvMsgBytes) is gRPC's own limit, and its refusal
// gRPC's own RESOURCE_EXHAUSTED without an ErrorInfo: grpc-go's RecvMsg
// writes that status to the client itself, before any interceptor or
// handler could put a reason on it, and a status the handler returns after
// is dropped. Raising gRPC's limit to check sizes here instead would let a
// client make the server buffer more than the limit.

// LimitError refuses a call over one of the server's limits. RetryAfter,
// when positive, is how long the caller should wait (a google.rpc.RetryInfo
// detail).
type LimitError struct {
	Reason     string
	Message    string
	Metadata   map[string]string
	RetryAfter time.Duration
}

func (e *LimitError) Error() string { return e.Message }

// validateLimits checks the limit settings.
func (c Config) validateLimits() []error {
	var errs []error
	if c.MaxJSONDepth <= 0 {
		errs = append(errs, errors.New("max JSON depth must be positive"))
	}
	if c.MaxJSONDepth > repair.MaxJSONDepth {
		// Deeper text would pass the request check and then fail to parse:
		// a model's mistake where the caller's was meant.
		errs = append(errs, fmt.Errorf("max JSON depth must be at most %d, the deepest the JSON repair reads", repair.MaxJSONDepth))
	}
	if c.MaxStreams <= 0 || c.MaxConnStreams == 0 {
		errs = append(errs, errors.New("stream limits must be positive"))
	}
	if c.MaxStreamBufferBytes <= 0 || c.MaxStreamBufferBytes < c.MaxCallBytes {
		errs = append(errs, fmt.Errorf("max stream buffer bytes (%d) must be at least max call bytes (%d), or no call of the largest size could ever be held",
			c.MaxStreamBufferBytes, c.MaxCallBytes))
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

// Open streams.

// streamSlots bounds the StreamToolCalls streams open at once: max
// server-wide, and share for each authenticated principal, so that one
// caller cannot take every slot and refuse everybody else. A stream holds
// what it has read of its open calls (see the stream budget) and a
// goroutine or two; the bound keeps many streams from holding much at once.
type streamSlots struct {
	max, share int // share 0: no share

	mu   sync.Mutex
	open int
	held map[string]int // by principal, when shared
}

// newStreamSlots returns the slots of cfg for a server whose tokens file
// names principals principals (0 without authentication).
func newStreamSlots(cfg Config, principals int) *streamSlots {
	return &streamSlots{max: cfg.MaxStreams, share: streamShare(cfg, principals), held: map[string]int{}}
}

// streamShare is how many streams one authenticated principal may hold; 0
// means no share. Without a tokens file every caller is the one anonymous
// principal, and a share would only lower MaxStreams; a tokens file of one
// principal is the same case, unless the share is set explicitly.
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

// acquire takes a slot for the caller, or refuses with
// TOO_MANY_STREAMS_FOR_PRINCIPAL when the caller holds its share, or
// TOO_MANY_STREAMS when the server has no slot left. It never waits, so a
// refused client can retry or go elsewhere. release gives the slot back.
func (s *streamSlots) acquire(c *Caller) (release func(), err error) {
	shared := s.share > 0 && c.authenticated
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

// The stream budget.

// streamBudget is the server-wide budget of the bytes open streams hold of
// their calls (Config.MaxStreamBufferBytes), which every stream's parser
// draws on. Without it each of MaxStreams streams could hold MaxCallBytes
// of each of its open calls.
type streamBudget struct {
	limit int64
	used  atomic.Int64
}

func (b *streamBudget) Grow(n int) bool {
	for {
		used := b.used.Load()
		if used+int64(n) > b.limit {
			return false
		}
		if b.used.CompareAndSwap(used, used+int64(n)) {
			return true
		}
	}
}

func (b *streamBudget) Release(n int) { b.used.Add(-int64(n)) }

// Rate limits.

// rateLimiter is a token bucket per principal (x/time/rate). Principals
// come from the tokens file, or are the one anonymous caller, so the
// buckets are few and never evicted. A nil rateLimiter limits nothing.
type rateLimiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// newRateLimiter returns a limiter of perSecond calls per second with
// bursts of burst calls, or nil when perSecond is 0 (no limit).
func newRateLimiter(perSecond float64, burst int) *rateLimiter {
	if perSecond <= 0 {
		return nil
	}
	return &rateLimiter{limit: rate.Limit(perSecond), burst: burst, buckets: map[string]*rate.Limiter{}}
}

func (l *rateLimiter) bucket(principal string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[principal]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[principal] = b
	}
	return b
}

// allow takes a token from the principal's bucket, or refuses with
// RATE_LIMITED and the time until the next token.
func (l *rateLimiter) allow(principal string) error {
	if l == nil {
		return nil
	}
	r := l.bucket(principal).Reserve()
	delay := r.Delay()
	if r.OK() && delay == 0 {
		return nil
	}
	// Refused calls cost nothing: the reservation is given back, so a client
	// that retries too early does not push its next token further away.
	r.Cancel()
	if !r.OK() {
		delay = time.Duration(float64(time.Second) / float64(l.limit))
	}
	return &LimitError{
		Reason: "RATE_LIMITED",
		Message: fmt.Sprintf("principal %q is over its rate limit of %g calls per second (bursts of %d); retry in %s",
			principal, float64(l.limit), l.burst, delay.Round(time.Millisecond)),
		Metadata:   map[string]string{"principal": principal},
		RetryAfter: delay,
	}
}

// rateLimitInterceptor limits each principal's calls, after authentication
// named the principal. It is this package's own rather than
// go-grpc-middleware's ratelimit interceptor, which replaces the limiter's
// error with a status of its own and so could not carry the reason and the
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
		name:   "rate-limit",
		unary:  selector.UnaryServerInterceptor(unary, guardedCall),
		stream: selector.StreamServerInterceptor(stream, guardedCall),
	}
}

// accessInterceptors are the links of the interceptor chain that decide
// whether a call may run at all, in order: who the caller is, then whether
// it is over its rate (which needs the principal).
func accessInterceptors(a *authenticator, l *rateLimiter) []interceptor {
	return []interceptor{authInterceptor(a), rateLimitInterceptor(l)}
}
