package logthrottle

import (
	"fmt"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// TestThrottledWarning: however often it fires, at most one warning per
// Every, each saying how many were not logged since the last.
func TestThrottledWarning(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	w := New(zap.New(core), "store down")
	start := time.Now()
	const calls = 10_000
	for i := range calls {
		w.Warn(zap.String("session_id", fmt.Sprint("s", i)))
	}
	elapsed := time.Since(start)
	n := logs.Len()
	if n == 0 || time.Duration(n-1)*Every > elapsed {
		t.Fatalf("%d warnings in %v: want at most one per %v", n, elapsed, Every)
	}
	first := logs.All()[0]
	if first.Level != zapcore.WarnLevel || first.Message != "store down" || first.ContextMap()["session_id"] != "s0" || first.ContextMap()["not_logged_since_last"] != int64(0) {
		t.Fatalf("first warning %v %q %v", first.Level, first.Message, first.ContextMap())
	}
	// The next warning, once the interval has passed, counts the rest.
	w.mu.Lock()
	w.next = time.Time{}
	w.mu.Unlock()
	w.Warn(zap.String("session_id", "last"))
	var skipped int64
	for _, e := range logs.All()[1:] {
		skipped += e.ContextMap()["not_logged_since_last"].(int64)
	}
	if want := int64(calls - n); skipped != want {
		t.Fatalf("warnings account for %d unlogged calls, want %d", skipped, want)
	}
}
