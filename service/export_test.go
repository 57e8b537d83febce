package service

// The idle timer's clock, for tests that move time themselves.
type (
	IdleClock = idleClock
	IdleTimer = idleTimer
)

// WithIdleClock returns cfg with its streams' idle timeout timed by c.
func WithIdleClock(cfg Config, c IdleClock) Config {
	cfg.idleClock = c
	return cfg
}
