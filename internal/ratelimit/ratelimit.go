// Package ratelimit is the per-principal rate limit every front end
// applies: a token bucket for each principal. How a refusal is told (a gRPC
// status, an HTTP 429) is the front end's.
package ratelimit

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a token bucket per principal. Principals come from the tokens
// file (or are the one anonymous caller), so buckets are few and never
// evicted. A nil *Limiter limits nothing.
type Limiter struct {
	limit rate.Limit
	burst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

// New returns a limit of perSecond calls a second in bursts of burst (at
// least 1: a bucket that held no token would refuse every call), or nil for
// no limit when perSecond is not positive.
func New(perSecond float64, burst int) *Limiter {
	if perSecond <= 0 {
		return nil
	}
	return &Limiter{limit: rate.Limit(perSecond), burst: max(burst, 1), buckets: map[string]*rate.Limiter{}}
}

// PerSecond is the calls a second each principal may make.
func (l *Limiter) PerSecond() float64 { return float64(l.limit) }

// Burst is the calls a principal may make at once.
func (l *Limiter) Burst() int { return l.burst }

func (l *Limiter) bucket(principal string) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[principal]
	if !ok {
		b = rate.NewLimiter(l.limit, l.burst)
		l.buckets[principal] = b
	}
	return b
}

// Take takes a token from the principal's bucket and returns 0, or takes
// none and returns the time until the next one. Refused calls cost nothing:
// an early retry does not push the next token further away.
func (l *Limiter) Take(principal string) time.Duration {
	if l == nil {
		return 0
	}
	r := l.bucket(principal).Reserve()
	delay := r.Delay()
	if delay == 0 {
		return 0
	}
	r.Cancel()
	return delay
}
