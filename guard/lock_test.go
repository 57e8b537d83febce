//go:build unix

package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// lockedGuard returns a guard whose default workspace shares its lock
// directory with another opener holding a.txt, as another server would.
func lockedGuard(t *testing.T) (g *Guard, dir string) {
	t.Helper()
	dir, locks := t.TempDir(), filepath.Join(t.TempDir(), "locks")
	cfg := DefaultConfig()
	cfg.Workspace, cfg.LockDir, cfg.LockTimeout = dir, locks, 20*time.Millisecond
	store := session.NewMemory(session.MemoryOptions{})
	t.Cleanup(func() { _ = store.Close() })
	g, cleanup, err := New(cfg, Options{Sessions: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	other, err := workspace.Open(dir, workspace.Options{LockDir: filepath.Join(locks, workspace.LockDirName(DefaultWorkspaceName))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	unlock, err := other.Lock("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unlock)
	return g, dir
}

// TestLockTimeoutExecute: a file another server holds past the lock timeout
// is a *workspace.LockTimeoutError for writes and edits, nothing written.
func TestLockTimeoutExecute(t *testing.T) {
	g, dir := lockedGuard(t)
	ctx := context.Background()
	for name, run := range map[string]func() (*Execution, error){
		"write": func() (*Execution, error) {
			return g.ExecuteWrite(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: call(`{"path":"a.txt","content":"new\n"}`)}})
		},
		"edit": func() (*Execution, error) {
			return g.ExecuteEdit(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "s", Call: repair.Call{Name: "edit", Form: repair.FormText, Text: `{"path":"a.txt","old_text":"old","new_text":"new"}`}}})
		},
	} {
		_, err := run()
		var te *workspace.LockTimeoutError
		if !errors.As(err, &te) || te.Path != "a.txt" {
			t.Errorf("%s: err = %v, want a *workspace.LockTimeoutError for a.txt", name, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "old\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// TestLockTimeoutInStream: in a stream the locked call is reported and not
// executed, and the stream goes on to the next call.
func TestLockTimeoutInStream(t *testing.T) {
	g, dir := lockedGuard(t)
	evs, _ := streamed(t, g, StreamRequest{SessionID: "s", Format: stream.XMLTags, ExecuteOnComplete: true},
		"<write_to_file><path>a.txt</path><content>new</content></write_to_file><write_to_file><path>b.txt</path><content>b</content></write_to_file>", 7, nil, "stop")
	var failed []StreamEvent
	for _, e := range evs {
		if e.Kind == stream.EventError && e.Code == CodeExecutionFailed {
			failed = append(failed, e)
		}
	}
	if len(failed) != 1 || failed[0].Index != 0 || !strings.Contains(failed[0].Text, `file "a.txt" is being changed by another call`) {
		t.Fatalf("execution failures %+v, want one for call 0 naming a.txt", failed)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "old\n" {
		t.Errorf("a.txt = %q", b)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != "b" {
		t.Errorf("b.txt = %q, %v: the stream did not go on", b, err)
	}
}

// TestLockDirInOtherWorkspace: a lock directory inside any workspace, not
// only its own, is refused at Validate and at New, and a refused or failed
// setup leaves no lock folder it made behind.
func TestLockDirInOtherWorkspace(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(b, filepath.Join(base, "blink")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, lockDir string
		extra         []string
		want          string
		gone          string // must not exist after the refusal
	}{
		{"inside another workspace", filepath.Join(b, "locks"), nil,
			`lock directory ` + filepath.Join(b, "locks") + ` is inside workspace "b" (` + b + `)`, filepath.Join(b, "locks")},
		{"through a link", filepath.Join(base, "blink", "x", "locks"), nil,
			`is inside workspace "b"`, filepath.Join(b, "x")},
		{"a workspace's folder is another workspace", base, []string{"b=" + filepath.Join(base, "b")},
			`the folder of workspace "b"'s lock files, ` + b + `, is workspace "b"`, ""},
		{"a later workspace fails", filepath.Join(base, "new", "locks"), []string{"z=" + filepath.Join(base, "missing")}, // after "default"
			`workspace "z"`, filepath.Join(base, "new")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Workspace, cfg.LockDir = a, tc.lockDir
			cfg.Workspaces = tc.extra
			if tc.extra == nil {
				cfg.Workspaces = []string{"b=" + b}
			}
			store := session.NewMemory(session.MemoryOptions{})
			defer func() { _ = store.Close() }()
			_, _, err := New(cfg, Options{Sessions: store})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: %v, want %q", err, tc.want)
			}
			if verr := cfg.Validate(); tc.name != "a later workspace fails" && (verr == nil || !strings.Contains(verr.Error(), tc.want)) {
				t.Errorf("Validate: %v, want %q", verr, tc.want)
			}
			if _, err := os.Stat(tc.gone); tc.gone != "" && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s left behind by the refused setup (%v)", tc.gone, err)
			}
		})
	}
}
