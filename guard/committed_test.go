package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/sessiontest"
)

// TestStoreFailureAfterChange: once a write or an edit changed a file, no
// way the session store fails turns the answer into an error: the
// execution is applied, not counted, and the failure reported. A call that
// changed nothing still fails on an unclassified store error.
func TestStoreFailureAfterChange(t *testing.T) {
	for _, f := range sessiontest.Failures() {
		t.Run(f.Name, func(t *testing.T) {
			store := sessiontest.NewFailing()
			var mu sync.Mutex
			var reported []error
			g, dir := newWorkspaceGuard(t, func(o *Options) {
				o.Sessions = store
				o.Uncounted = func(_ string, err error) {
					mu.Lock()
					defer mu.Unlock()
					reported = append(reported, err)
				}
			})
			writeFile(t, dir, "e.txt", "one\ntwo\n")
			store.Fail(f.Err)
			ctx := context.Background()
			for _, tt := range []struct {
				name string
				run  func(context.Context, ExecuteRequest) (*Execution, error)
				call repair.Call
				file string
				want string
			}{
				{"write", g.ExecuteWrite, call(`{"path":"w.txt","content":"hi"}`), "w.txt", "hi"},
				{"edit", g.ExecuteEdit, repair.Call{Name: "edit", Form: repair.FormText,
					Text: `{"path":"e.txt","old_text":"two","new_text":"TWO"}`}, "e.txt", "one\nTWO\n"},
			} {
				ex, err := tt.run(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: tt.call}})
				if err != nil {
					t.Fatalf("%s: err = %v, want an answer", tt.name, err)
				}
				if !ex.Applied || !ex.OK() || ex.Mistakes != (MistakeState{Limit: 3, NotCounted: true, StoreUnavailable: true}) {
					t.Fatalf("%s: applied=%v ok=%v mistakes=%+v, want applied and not counted", tt.name, ex.Applied, ex.OK(), ex.Mistakes)
				}
				if b, err := os.ReadFile(filepath.Join(dir, tt.file)); err != nil || string(b) != tt.want {
					t.Fatalf("%s: %s = %q, %v", tt.name, tt.file, b, err)
				}
			}
			mu.Lock()
			got := append([]error(nil), reported...)
			mu.Unlock()
			if len(got) != 2 || !errors.Is(got[0], f.Err) {
				t.Fatalf("reported %v, want the cause twice", got)
			}

			// A call that changed nothing: unavailable degrades, the rest fails.
			_, err := g.ExecuteWrite(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: call(`{"path":"w.txt"}`)}})
			if errors.Is(f.Err, session.ErrUnavailable) != (err == nil) {
				t.Fatalf("unusable write: err = %v", err)
			}
			// The store back, counting goes on.
			store.Fail(nil)
			ex, err := g.ExecuteWrite(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: call(`{"path":"w.txt"}`)}})
			if err != nil || ex.Mistakes != (MistakeState{Consecutive: 1, Limit: 3}) {
				t.Fatalf("after the failure: %+v, %v", ex, err)
			}
		})
	}
}
