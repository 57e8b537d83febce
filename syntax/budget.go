package syntax

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/toolguard/toolguard/internal/budget"
)

// A parse holds tens of times its file's size (Cost), for as long as it
// runs: a caller that checks several files at once bounds what its checks
// hold together with a Budget. A check reserves its cost before it parses
// and gives it back when the parse has ended; a check the budget cannot
// grant is not made (its Result says why), and never waits: what would
// free the memory is other parses, which take up to Limits.Timeout.

// Budget is the memory the checks of a process may hold at once; safe for
// concurrent use. A nil Budget grants everything.
type Budget struct {
	limit int64
	pool  *budget.Bytes
	holds atomic.Int64 // reservations held now
}

// NewBudget returns a budget of limit bytes (at least 1).
func NewBudget(limit int64) *Budget {
	limit = max(limit, 1)
	return &Budget{limit: limit, pool: budget.New(limit)}
}

// Reserve draws n bytes for one check (its parses), or draws nothing and
// returns the reason the check is not made, worded for the model and its
// user as the Reason of a Result.
func (b *Budget) Reserve(n int64) (*Hold, string) {
	if b == nil || n <= 0 {
		return nil, ""
	}
	if n > b.limit {
		return nil, fmt.Sprintf("the syntax check of this file would take about %s of memory, more than all syntax checks may hold at once (%s, --syntax-check-max-memory)",
			mib(n), mib(b.limit))
	}
	if !b.pool.Grow64(n) {
		others := fmt.Sprintf("%d other syntax checks were", b.holds.Load())
		if b.holds.Load() == 1 {
			others = "1 other syntax check was"
		}
		return nil, fmt.Sprintf("%s holding the memory all syntax checks may hold at once (%s of %s, --syntax-check-max-memory; this one needs about %s)",
			others, mib(b.pool.Used()), mib(b.limit), mib(n))
	}
	b.holds.Add(1)
	h := &Hold{b: b, n: n, done: make(chan struct{})}
	h.refs.Store(1)
	return h, ""
}

// Used is the memory reserved now.
func (b *Budget) Used() int64 { return b.pool.Used() }

// Holds is the reservations held now.
func (b *Budget) Holds() int64 { return b.holds.Load() }

// Limit is the budget's bound.
func (b *Budget) Limit() int64 { return b.limit }

func mib(n int64) string {
	switch {
	case n == 1:
		return "1 byte"
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KiB", (n+1023)>>10)
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// Hold is one reservation. Its owner releases it once, when its checks
// have returned; a parse that outlives its check (past its deadline: see
// bounded) keeps it until the parse ends, so that memory still in use is
// never granted to another check. A nil Hold is a reservation of nothing.
type Hold struct {
	b    *Budget
	n    int64
	refs atomic.Int32
	done chan struct{} // closed when the memory is given back
}

// Release gives the owner's share back: the memory returns to the budget
// when no parse holds it any more.
func (h *Hold) Release() {
	if h == nil {
		return
	}
	if h.refs.Add(-1) == 0 {
		h.b.pool.Release64(h.n)
		h.b.holds.Add(-1)
		close(h.done)
	}
}

// retain keeps the memory held for a parse that may outlive its check.
func (h *Hold) retain() {
	if h != nil {
		h.refs.Add(1)
	}
}

type holdKey struct{}

// WithHold returns ctx carrying h: the checks made with it (Check,
// Compare) hold it until their parses end.
func WithHold(ctx context.Context, h *Hold) context.Context {
	if h == nil {
		return ctx
	}
	return context.WithValue(ctx, holdKey{}, h)
}

func holdOf(ctx context.Context) *Hold {
	h, _ := ctx.Value(holdKey{}).(*Hold)
	return h
}
