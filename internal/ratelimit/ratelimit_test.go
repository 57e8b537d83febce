package ratelimit

import (
	"testing"
	"time"
)

func TestTakePerPrincipal(t *testing.T) {
	if New(0, 10) != nil || New(0, 10).Take("x") != 0 {
		t.Fatal("a zero rate limits calls")
	}
	l := New(0.001, 2) // a token every 1000s
	for i := range 2 {
		if d := l.Take("alice"); d != 0 {
			t.Fatalf("call %d within the burst: wait %s", i+1, d)
		}
	}
	d := l.Take("alice")
	if d <= 0 || d > 1000*time.Second {
		t.Fatalf("call over the burst: wait %s, want up to 1000s", d)
	}
	// A refusal took no token: the next one is no further away.
	if again := l.Take("alice"); again <= 0 || again > d {
		t.Fatalf("retry: wait %s after %s", again, d)
	}
	if d := l.Take("bob"); d != 0 {
		t.Fatalf("another principal: wait %s", d)
	}
}

func TestBurstAtLeastOne(t *testing.T) {
	l := New(1, 0)
	if l.Burst() != 1 || l.PerSecond() != 1 {
		t.Fatalf("burst %d, rate %g", l.Burst(), l.PerSecond())
	}
	if d := l.Take("alice"); d != 0 {
		t.Fatalf("first call: wait %s", d)
	}
}
