package guard

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// TestSweepLoop: each tick sweeps every workspace with the tick's time, so
// a crash's leftover older than the bound goes while serving, a write in
// progress (younger) stays; after quit the loop has ended.
func TestSweepLoop(t *testing.T) {
	const tmp = ".toolguard-tmp-x"
	wss := map[string]*workspace.Workspace{}
	dirs := map[string]string{}
	for _, name := range []string{"a", "b"} {
		dirs[name] = t.TempDir()
		ws, err := workspace.Open(dirs[name], workspace.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ws.Close() })
		wss[name] = ws
	}
	now := time.Now()
	age := map[string]time.Duration{"a": workspace.DefaultCleanupMinAge + time.Second, "b": workspace.DefaultCleanupMinAge - time.Minute}
	for name, d := range age {
		p := filepath.Join(dirs[name], tmp)
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-d), now.Add(-d)); err != nil {
			t.Fatal(err)
		}
	}
	tick, quit, done := make(chan time.Time), make(chan struct{}), make(chan struct{})
	go sweepLoop(wss, tick, quit, done)
	tick <- now
	tick <- now // unbuffered: taken once the first round is done
	close(quit)
	<-done
	for name, want := range map[string]bool{"a": false, "b": true} {
		_, err := os.Stat(filepath.Join(dirs[name], tmp))
		if got := err == nil; got != want {
			t.Errorf("workspace %s: temporary file %s aged %v kept %v, want %v", name, tmp, age[name], got, want)
		}
	}
}

// TestSweeperStops: the guard's sweeper goroutine ends with its cleanup.
func TestSweeperStops(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workspace = t.TempDir()
	store := session.NewMemory(session.MemoryOptions{})
	defer func() { _ = store.Close() }()
	ignore := goleak.IgnoreCurrent()
	_, cleanup, err := New(cfg, Options{Sessions: store})
	if err != nil {
		t.Fatal(err)
	}
	// The sweeper's goroutine may not have run yet on a busy machine: wait
	// for it, within a bound no machine needs.
	running := func() bool {
		buf := make([]byte, 1<<20)
		return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "guard.sweepLoop")
	}
	for deadline := time.Now().Add(30 * time.Second); !running(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no sweeper goroutine runs while the guard serves")
		}
	}
	if err := cleanup(); err != nil {
		t.Fatal(err)
	}
	goleak.VerifyNone(t, ignore)
}
