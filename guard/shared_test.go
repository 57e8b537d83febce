//go:build unix

package guard

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// TestReplicasShareLockDir: two guards on one workspace, as two replicas
// would be. The second starts only with the first's lock directory; one
// started without any before the first refuses its changes.
func TestReplicasShareLockDir(t *testing.T) {
	start := func(dir, locks string) (*Guard, error) {
		cfg := DefaultConfig()
		cfg.Workspace, cfg.LockDir = dir, locks
		store := session.NewMemory(session.MemoryOptions{})
		t.Cleanup(func() { _ = store.Close() })
		g, cleanup, err := New(cfg, Options{Sessions: store})
		if err == nil {
			t.Cleanup(func() { _ = cleanup() })
		}
		return g, err
	}
	for _, tc := range []struct {
		name          string
		first, second string
		refused       bool
	}{
		{"same lock directory", "locks", "locks", false},
		{"different lock directories", "locks", "other", true},
		{"none beside one", "locks", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, base := t.TempDir(), t.TempDir()
			in := func(s string) string {
				if s == "" {
					return ""
				}
				return filepath.Join(base, s)
			}
			if _, err := start(dir, in(tc.first)); err != nil {
				t.Fatal(err)
			}
			_, err := start(dir, in(tc.second))
			if tc.refused != errors.Is(err, workspace.ErrLockDirMismatch) || (!tc.refused && err != nil) {
				t.Fatalf("second start: %v, refused want %v", err, tc.refused)
			}
		})
	}
	t.Run("none, then one started beside it", func(t *testing.T) {
		dir := t.TempDir()
		plain, err := start(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := start(dir, filepath.Join(t.TempDir(), "locks")); err != nil {
			t.Fatal(err)
		}
		ws := plain.workspaces[DefaultWorkspaceName]
		_, err = ws.WriteFile("a.txt", []byte("x"), workspace.WriteOptions{})
		if !errors.Is(err, workspace.ErrLockDirMismatch) {
			t.Fatalf("write by the replica without a lock directory: %v", err)
		}
	})
}
