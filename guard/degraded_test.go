package guard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/session"
)

// flakyStore is a Memory store that can be switched off: while down, every
// method fails as a shared store does when its server cannot be reached.
type flakyStore struct {
	*session.Memory
	down atomic.Bool
}

var errNoRoute = errors.New("dial tcp 10.0.0.1:6379: connect: no route to host")

func (s *flakyStore) fail() error {
	return fmt.Errorf("%w: %w", session.ErrUnavailable, errNoRoute)
}

func (s *flakyStore) Record(ctx context.Context, id string, o session.Outcome) (session.State, error) {
	if s.down.Load() {
		return session.State{}, s.fail()
	}
	return s.Memory.Record(ctx, id, o)
}

func (s *flakyStore) Get(ctx context.Context, id string) (session.State, error) {
	if s.down.Load() {
		return session.State{}, s.fail()
	}
	return s.Memory.Get(ctx, id)
}

func (s *flakyStore) Reset(ctx context.Context, id string) error {
	if s.down.Load() {
		return s.fail()
	}
	return s.Memory.Reset(ctx, id)
}

type uncountedCall struct {
	id  string
	err error
}

// newFlakyGuard returns a guard over a flakyStore, with a default workspace
// in a temporary folder, and the calls it reported uncounted.
func newFlakyGuard(t *testing.T) (*Guard, *flakyStore, string, func() []uncountedCall) {
	t.Helper()
	store := &flakyStore{Memory: session.NewMemory(session.MemoryOptions{})}
	var mu sync.Mutex
	var seen []uncountedCall
	g, dir := newWorkspaceGuard(t, func(o *Options) {
		o.Sessions = store
		o.Uncounted = func(id string, err error) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, uncountedCall{id, err})
		}
	})
	return g, store, dir, func() []uncountedCall {
		mu.Lock()
		defer mu.Unlock()
		return append([]uncountedCall(nil), seen...)
	}
}

// TestUnreachableStoreDoesNotFailCalls: while the session store cannot be
// reached, calls are still repaired, validated and executed, and come back
// marked NotCounted; reading or resetting the session fails; once the store
// is back, counting goes on from where it was.
func TestUnreachableStoreDoesNotFailCalls(t *testing.T) {
	g, store, dir, uncounted := newFlakyGuard(t)
	ctx := context.Background()
	bad := call(`{"path":"a"}`)
	validate := func(c repair.Call) *Verdict {
		t.Helper()
		v, err := g.Validate(ctx, ValidateRequest{SessionID: "s", Call: c})
		if err != nil {
			t.Fatalf("Validate: %v", err)
		}
		return v
	}

	// Two mistakes counted before the outage.
	validate(bad)
	if v := validate(bad); v.Mistakes != (MistakeState{Consecutive: 2, Limit: 3}) {
		t.Fatalf("before the outage: %+v", v.Mistakes)
	}

	store.down.Store(true)
	for i := range 3 {
		v := validate(bad)
		if v.OK() || v.Mistakes != (MistakeState{Limit: 3, NotCounted: true, StoreUnavailable: true}) {
			t.Fatalf("outage call %d: ok=%v mistakes=%+v, want unusable and not counted", i, v.OK(), v.Mistakes)
		}
		// A repeat cannot be known either: the violations are the call's own.
		if got := violationCodes(v); len(got) != 1 || got[0] != "MISSING_REQUIRED" {
			t.Fatalf("outage call %d: violations %v", i, got)
		}
		if v.Feedback == "" || v.ToolName != "write_to_file" {
			t.Fatalf("outage call %d: verdict incomplete: %+v", i, v)
		}
	}
	if v := validate(call(`{"file_path":"a","text":"x"}`)); !v.OK() || !v.Mistakes.NotCounted || len(v.Repairs) == 0 {
		t.Fatalf("repairable call during the outage: ok=%v mistakes=%+v repairs=%v", v.OK(), v.Mistakes, v.Repairs)
	}
	// Execution needs no session store.
	ex, err := g.ExecuteWrite(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: call(`{"path":"out.txt","content":"hi"}`)}})
	if err != nil || !ex.Applied || !ex.Mistakes.NotCounted {
		t.Fatalf("ExecuteWrite during the outage: %+v, %v", ex, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hi" {
		t.Fatalf("out.txt = %q, %v", b, err)
	}
	if got := uncounted(); len(got) != 5 || got[0].id != "s" || !errors.Is(got[0].err, errNoRoute) {
		t.Fatalf("uncounted calls reported: %+v, want 5 for session s with the cause", got)
	}
	if _, err := g.Session(ctx, "s"); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("Session during the outage: err = %v, want ErrUnavailable", err)
	}
	if _, err := g.ResetSession(ctx, "s"); !errors.Is(err, session.ErrUnavailable) {
		t.Fatalf("ResetSession during the outage: err = %v, want ErrUnavailable", err)
	}

	// Back: the uncounted calls left no trace, the count goes on.
	store.down.Store(false)
	if v := validate(bad); v.Mistakes != (MistakeState{Consecutive: 3, Limit: 3, LimitReached: true}) {
		t.Fatalf("after the outage: %+v", v.Mistakes)
	}
}

func TestUnreachableStoreInStream(t *testing.T) {
	g, store, dir, uncounted := newFlakyGuard(t)
	store.down.Store(true)
	evs, sum := streamed(t, g, StreamRequest{SessionID: "s", Format: stream.XMLTags, ExecuteOnComplete: true},
		"<write_to_file><path>a.txt</path><content>x</content></write_to_file><write_to_file><path>b.txt</path></write_to_file>", 7, nil, "stop")
	done := completed(evs)
	if len(done) != 2 {
		t.Fatalf("%d calls completed, want 2", len(done))
	}
	if v := done[0].Verdict; !v.OK() || !v.Mistakes.NotCounted || done[0].Execution == nil || !done[0].Execution.Applied {
		t.Fatalf("first call: %+v, execution %+v", v, done[0].Execution)
	}
	if v := done[1].Verdict; v.OK() || !v.Mistakes.NotCounted {
		t.Fatalf("second call: ok=%v mistakes=%+v", v.OK(), v.Mistakes)
	}
	if sum.Calls != 2 || sum.Mistakes != (MistakeState{Limit: 3, NotCounted: true, StoreUnavailable: true}) {
		t.Fatalf("summary %+v, want 2 calls and mistakes not counted", sum)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if n := len(uncounted()); n != 2 {
		t.Fatalf("%d uncounted calls reported, want 2", n)
	}
}

// TestOtherStoreErrorsStillFail: only an unreachable store degrades; any
// other store error fails the call as before.
func TestOtherStoreErrorsStillFail(t *testing.T) {
	g, store, _, uncounted := newFlakyGuard(t)
	_ = store.Close()
	if _, err := g.Validate(context.Background(), ValidateRequest{SessionID: "x", Call: call(`{}`)}); !errors.Is(err, session.ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	if n := len(uncounted()); n != 0 {
		t.Fatalf("%d calls reported uncounted", n)
	}
}
