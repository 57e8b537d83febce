package service

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

// warnEvery is the least time between two warnings of one throttledWarning.
const warnEvery = time.Second

// throttledWarning is a warning that can fire on every call during an
// outage or under a flood: the first is written at once, then at most one
// per warnEvery, carrying the number left unwritten since the last
// (not_logged_since_last), so the log stays readable and nothing goes
// uncounted.
type throttledWarning struct {
	log *zap.Logger
	msg string

	mu      sync.Mutex
	next    time.Time
	skipped int
}

func newThrottledWarning(log *zap.Logger, msg string) *throttledWarning {
	return &throttledWarning{log: log, msg: msg}
}

func (w *throttledWarning) warn(fields ...zap.Field) {
	w.mu.Lock()
	now := time.Now()
	if now.Before(w.next) {
		w.skipped++
		w.mu.Unlock()
		return
	}
	skipped := w.skipped
	w.skipped, w.next = 0, now.Add(warnEvery)
	w.mu.Unlock()
	w.log.Warn(w.msg, append(fields, zap.Int("not_logged_since_last", skipped))...)
}
