package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/session/redistest"
)

// storeGuards are guards whose sessions (idempotency answers, open turns)
// live in memory and in a real redis-server the test starts.
func storeGuards(t *testing.T) map[string]func(t *testing.T) (*Guard, string) {
	srv := redistest.Start(t)
	return map[string]func(t *testing.T) (*Guard, string){
		"memory": func(t *testing.T) (*Guard, string) { return newWorkspaceGuard(t) },
		"redis": func(t *testing.T) (*Guard, string) {
			r, err := session.NewRedis(context.Background(), session.RedisOptions{URL: srv.URL(),
				// Not a test of outages: room for a loaded machine.
				ReadTimeout: 5 * time.Second, WriteTimeout: 5 * time.Second,
				KeyPrefix: fmt.Sprintf("idem:%s:%d:", t.Name(), time.Now().UnixNano())})
			if err != nil {
				t.Fatal(err)
			}
			return newWorkspaceGuard(t, func(o *Options) { o.Sessions = r })
		},
	}
}

// appendCall is an edit that applied twice would add its line twice.
func appendCall(line string) ExecuteRequest {
	args := fmt.Sprintf(`{"path":"log.txt","old_text":"start\n","new_text":"start\n%s\n"}`, line)
	return ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "idem", Call: repair.Call{Name: "edit", Form: repair.FormText, Text: args}}}
}

// onceEdit runs ExecuteEdit under key as a front end does: the request is
// the call's identity, the rendered answer what is kept.
func onceEdit(g *Guard, key string, req ExecuteRequest) ([]byte, error) {
	call, _ := json.Marshal(req)
	return g.Once(context.Background(), req.SessionID, key, call, func(ctx context.Context) ([]byte, error) {
		ex, err := g.ExecuteEdit(ctx, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			OK       bool
			Applied  bool
			Diff     string
			Changes  []FileChange
			Mistakes MistakeState
		}{ex.OK(), ex.Applied, ex.Diff, ex.Changes, ex.Mistakes})
	})
}

// TestOnceAppliesOnce: a retry with the same key and call gets the first
// answer and changes nothing; the same key with another call is refused;
// another key runs; concurrent duplicates apply once, the others refused
// as in flight or answered the first answer.
func TestOnceAppliesOnce(t *testing.T) {
	for name, open := range storeGuards(t) {
		t.Run(name, func(t *testing.T) {
			g, dir := open(t)
			path := filepath.Join(dir, "log.txt")
			if err := os.WriteFile(path, []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			first, err := onceEdit(g, "k1", appendCall("one"))
			if err != nil {
				t.Fatal(err)
			}
			again, err := onceEdit(g, "k1", appendCall("one"))
			if err != nil || string(again) != string(first) {
				t.Fatalf("retry: %s, %v; want the first answer %s", again, err, first)
			}
			var ie *IdempotencyError
			if _, err := onceEdit(g, "k1", appendCall("two")); !errors.As(err, &ie) || !errors.Is(err, session.ErrKeyReused) {
				t.Fatalf("same key, other call: %v, want ErrKeyReused", err)
			}
			if _, err := onceEdit(g, "k2", appendCall("one")); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var mu sync.Mutex
			answers := map[string]int{}
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a, err := onceEdit(g, "k3", appendCall("three"))
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						answers[string(a)]++
					case errors.Is(err, session.ErrInFlight):
					default:
						t.Errorf("concurrent duplicate: %v", err)
					}
				}()
			}
			wg.Wait()
			if len(answers) != 1 {
				t.Errorf("concurrent duplicates answered %d different answers, want 1", len(answers))
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(data), "start\nthree\none\none\n"; got != want {
				t.Fatalf("file %q, want %q: each key applied once", got, want)
			}
			if _, err := onceEdit(g, strings.Repeat("k", session.MaxIdempotencyKeyBytes+1), appendCall("four")); !errors.As(err, new(*IdempotencyKeyTooLongError)) {
				t.Fatalf("long key: %v", err)
			}
		})
	}
}

// TestValidateIdempotencyBounds: negative bounds are refused; 0 is the
// default.
func TestValidateIdempotencyBounds(t *testing.T) {
	for _, edit := range []func(*Config){
		func(c *Config) { c.IdempotencyReplyBytes = -1 },
		func(c *Config) { c.IdempotencyKeys = -1 },
		func(c *Config) { c.IdempotencyTTL = -time.Second },
	} {
		cfg := DefaultConfig()
		cfg.Workspace = t.TempDir()
		edit(&cfg)
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "idempotency bounds") {
			t.Fatalf("Validate = %v, want the idempotency bounds refused", err)
		}
	}
	cfg := DefaultConfig()
	cfg.Workspace = t.TempDir()
	cfg.IdempotencyReplyBytes, cfg.IdempotencyKeys, cfg.IdempotencyTTL = 0, 0, 0
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestOnceErrorFreesTheKey: an error answer is not kept: nothing was
// changed, so the retry runs, and its answer is the one kept.
func TestOnceErrorFreesTheKey(t *testing.T) {
	g, _ := newWorkspaceGuard(t)
	ctx := context.Background()
	runs := 0
	run := func(fail bool) func(context.Context) ([]byte, error) {
		return func(context.Context) ([]byte, error) {
			runs++
			if fail {
				return nil, errors.New("the store went away before the change")
			}
			return []byte("answer"), nil
		}
	}
	if _, err := g.Once(ctx, "s", "k", []byte("call"), run(true)); err == nil {
		t.Fatal("the run's error was not returned")
	}
	for range 2 {
		if a, err := g.Once(ctx, "s", "k", []byte("call"), run(false)); err != nil || string(a) != "answer" {
			t.Fatalf("retry: %q, %v", a, err)
		}
	}
	if runs != 2 {
		t.Fatalf("ran %d times, want 2: the failed run, then once", runs)
	}
}
