package service

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

const warnEvery = time.Second

// throttledWarning is a warning that may fire on every call during an
// outage: the first at once, then at most one per warnEvery, counting those
// left unwritten (not_logged_since_last).
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
