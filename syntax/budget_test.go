package syntax

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestBudgetReserve: a reservation is granted whole or not at all, with a
// reason naming the checks holding the budget, or the bound a single check
// would pass; releases make room again.
func TestBudgetReserve(t *testing.T) {
	type step struct {
		reserve int64 // > 0: reserve; 0: release the oldest held
		granted bool
		reason  string // part of the refusal's reason
	}
	tests := []struct {
		name  string
		limit int64
		steps []step
	}{
		{"within", 100, []step{{reserve: 60, granted: true}, {reserve: 40, granted: true}}},
		{"over the rest", 100, []step{{reserve: 60, granted: true}, {reserve: 41, reason: "1 other syntax check was holding the memory"}}},
		{"over the whole", 100, []step{{reserve: 101, reason: "more than all syntax checks may hold at once"}}},
		{"released makes room", 100, []step{{reserve: 60, granted: true}, {reserve: 60, reason: "this one needs"}, {}, {reserve: 60, granted: true}}},
		{"nothing to reserve", 1, []step{{reserve: 1, granted: true}, {reserve: -1, granted: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget(tt.limit)
			var held []*Hold
			want := int64(0)
			for i, s := range tt.steps {
				if s.reserve == 0 {
					want -= held[0].n
					held[0].Release()
					held = held[1:]
				} else {
					h, why := b.Reserve(s.reserve)
					if granted := why == ""; granted != s.granted || !strings.Contains(why, s.reason) {
						t.Fatalf("step %d: reserve %d: granted %v (%q), want %v (%q)", i, s.reserve, granted, why, s.granted, s.reason)
					}
					if h != nil {
						held, want = append(held, h), want+h.n
					}
				}
				if b.Used() != want || b.Holds() != int64(len(held)) {
					t.Fatalf("step %d: used %d in %d holds, want %d in %d", i, b.Used(), b.Holds(), want, len(held))
				}
			}
			for _, h := range held {
				h.Release()
			}
			if b.Used() != 0 || b.Holds() != 0 {
				t.Errorf("used %d in %d holds after every release", b.Used(), b.Holds())
			}
		})
	}
	var none *Budget
	if h, why := none.Reserve(1 << 40); h != nil || why != "" {
		t.Errorf("a nil budget: %v, %q; want everything granted, nothing held", h, why)
	}
}

// TestBudgetHeldUntilParseEnds: a check that returns at its deadline while
// its parse goes on (bounded) keeps the memory held until the parse ends;
// a parse that fails or ends in time holds nothing after its check.
func TestBudgetHeldUntilParseEnds(t *testing.T) {
	tests := []struct {
		name    string
		cancel  bool // the check's deadline passes during the parse
		parse   error
		wantErr error
	}{
		{"parsed", false, nil, nil},
		{"the parser failed", false, errors.New("broken"), errors.New("broken")},
		{"past the deadline", true, nil, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBudget(100)
			h, why := b.Reserve(100)
			if why != "" {
				t.Fatal(why)
			}
			ctx, cancel := context.WithCancel(WithHold(context.Background(), h))
			defer cancel()
			started, finish := make(chan struct{}), make(chan struct{})
			var returned sync.WaitGroup
			returned.Add(1)
			var err error
			go func() {
				defer returned.Done()
				_, err = bounded(ctx, func() ([]Error, error) {
					close(started)
					<-finish
					return nil, tt.parse
				})
			}()
			<-started
			if tt.cancel {
				cancel()
				returned.Wait() // the check is back, its parse still running
				h.Release()
				if b.Used() != 100 {
					t.Fatalf("used %d while the parse runs on, want 100", b.Used())
				}
				close(finish)
			} else {
				close(finish)
				returned.Wait()
				h.Release()
			}
			<-h.done
			if b.Used() != 0 || b.Holds() != 0 {
				t.Errorf("used %d in %d holds after the parse", b.Used(), b.Holds())
			}
			if (err == nil) != (tt.wantErr == nil) || err != nil && err.Error() != tt.wantErr.Error() {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
		})
	}
}

// TestCostFromRegistration: every language this build checks has a memory
// factor, and Cost is it times the size; a language not checked costs
// nothing.
func TestCostFromRegistration(t *testing.T) {
	for _, l := range Languages() {
		switch {
		case l.Checked && l.MemoryFactor <= 0:
			t.Errorf("%s: checked, memory factor %d", l.Name, l.MemoryFactor)
		case l.Checked && Cost(l.Name, 1000) != int64(l.MemoryFactor)*1000:
			t.Errorf("%s: cost of 1000 bytes %d, factor %d", l.Name, Cost(l.Name, 1000), l.MemoryFactor)
		case !l.Checked && Cost(l.Name, 1000) != 0:
			t.Errorf("%s: not checked, cost %d", l.Name, Cost(l.Name, 1000))
		}
	}
	if Cost("no such language", 1000) != 0 {
		t.Error("an unknown language has a cost")
	}
}

// TestMiB: the sizes a reason names, in the unit that reads best.
func TestMiB(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 14: "14 bytes", 1 << 10: "1 KiB", 1<<10 + 1: "2 KiB", 1<<20 - 1: "1024 KiB", 160 << 20: "160.0 MiB", 1 << 30: "1.0 GiB", 3 << 29: "1.5 GiB"} {
		if got := mib(n); got != want {
			t.Errorf("mib(%d) = %q, want %q", n, got, want)
		}
	}
}
