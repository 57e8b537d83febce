// Package logthrottle writes a warning that may fire on every call during an
// outage at most once a second, for every front end that has one.
package logthrottle

import (
	"sync"
	"time"

	"go.uber.org/zap"
)

// Every is the least interval between two warnings of one Warning.
const Every = time.Second

// Warning is a warning that may fire on every call during an
// outage: the first at once, then at most one per Every, counting those
// left unwritten (not_logged_since_last).
type Warning struct {
	log *zap.Logger
	msg string

	mu      sync.Mutex
	next    time.Time
	skipped int
}

// New returns a warning that logs msg on log.
func New(log *zap.Logger, msg string) *Warning {
	return &Warning{log: log, msg: msg}
}

// Warn logs the warning with fields, unless one was logged less than
// Every ago.
func (w *Warning) Warn(fields ...zap.Field) {
	w.mu.Lock()
	now := time.Now()
	if now.Before(w.next) {
		w.skipped++
		w.mu.Unlock()
		return
	}
	skipped := w.skipped
	w.skipped, w.next = 0, now.Add(Every)
	w.mu.Unlock()
	w.log.Warn(w.msg, append(fields, zap.Int("not_logged_since_last", skipped))...)
}
