package service_test

import (
	"sync"
	"time"

	"github.com/toolguard/toolguard/service"
)

// fakeClock times the streams' idle timeout in time that moves only when a
// test advances it, so no test races the machine's speed.
type fakeClock struct {
	mu   sync.Mutex
	cond *sync.Cond
	now  time.Duration
	// advances counts the advances; a timer armed since the last one runs
	// out a whole timeout after the clock's present time.
	advances int
	timers   []*fakeTimer
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Duration
	armed bool
	// since is the clock's advances when the timer was last armed.
	since int
	f     func()
}

func newFakeClock() *fakeClock {
	c := &fakeClock{}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) service.IdleTimer {
	t := &fakeTimer{c: c, f: f}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed, t.since = t.c.now+d, true, t.c.advances
	t.c.cond.Broadcast()
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

// advance waits until a stream waits on its client with a timer armed
// since the last advance, then moves the clock by d and runs the timers that
// ran out. So a stream whose frames keep arming its timer again is never
// ended by advances shorter than its timeout, and one left waiting is ended
// by an advance as long as it.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	for !c.waiting() {
		c.cond.Wait()
	}
	c.now += d
	c.advances++
	var due []func()
	for _, t := range c.timers {
		if t.armed && t.at <= c.now {
			t.armed = false
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// waiting says whether a timer armed since the last advance runs now.
func (c *fakeClock) waiting() bool {
	for _, t := range c.timers {
		if t.armed && t.since == c.advances {
			return true
		}
	}
	return false
}
