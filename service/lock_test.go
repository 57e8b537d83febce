//go:build unix

package service_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace"
)

// TestFileLockedAborts holds a file's lock from another opener of the
// workspace (as another replica would) past the server's lock timeout:
// writes and edits of it are ABORTED with FILE_LOCKED, its path and a retry
// delay, nothing is written and no mistake is counted; once released, the
// same calls succeed.
func TestFileLockedAborts(t *testing.T) {
	dir, lockDir := t.TempDir(), filepath.Join(t.TempDir(), "locks")
	c, _ := startWorkspace(t, service.Config{Config: guard.Config{Workspace: dir, LockDir: lockDir, LockTimeout: 50 * time.Millisecond}})
	other, err := workspace.Open(dir, workspace.Options{LockDir: filepath.Join(lockDir, workspace.LockDirName(guard.DefaultWorkspaceName))})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.WriteFile("a.txt", []byte("old\n"), workspace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	unlock, err := other.Lock("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	rc := &toolguardv1.RequestContext{SessionId: "locked"}
	write := func() error {
		_, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: rc,
			Call: jsonCall(t, "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"})})
		return err
	}
	edit := func() error {
		_, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: rc,
			Call: jsonCall(t, "edit", map[string]any{"path": "a.txt", "old_text": "old", "new_text": "edited"})})
		return err
	}
	for name, call := range map[string]func() error{"write": write, "edit": edit} {
		st := wantRefusal(t, name, call(), codes.Aborted, "FILE_LOCKED")
		checkLockedDetails(t, name, st)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "old\n" {
		t.Errorf("a.txt = %q while locked", got)
	}
	s, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "locked"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.GetSession().GetMistakes().GetConsecutive(); n != 0 {
		t.Errorf("%d mistakes counted for calls refused on a lock", n)
	}
	unlock()
	if err := edit(); err != nil {
		t.Fatalf("edit after unlock: %v", err)
	}
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "edited\n" {
		t.Errorf("a.txt = %q after the edit", got)
	}
}

func checkLockedDetails(t *testing.T, name string, st *status.Status) {
	t.Helper()
	var retry bool
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetMetadata()["path"] != "a.txt" || d.GetMetadata()["waited"] == "" {
				t.Errorf("%s: ErrorInfo metadata %v", name, d.GetMetadata())
			}
		case *errdetails.RetryInfo:
			retry = d.GetRetryDelay().AsDuration() > 0
		}
	}
	if !retry {
		t.Errorf("%s: no RetryInfo in %v", name, st.Details())
	}
}

// TestLockDirMismatchRefused: a server without a lock directory, once
// another opener of its workspace names one (a replica started beside it
// with --lock-dir), refuses writes and edits with FAILED_PRECONDITION and
// LOCK_DIR_MISMATCH: nothing written, no mistake counted.
func TestLockDirMismatchRefused(t *testing.T) {
	dir := t.TempDir()
	c, _ := startWorkspace(t, service.Config{Config: guard.Config{Workspace: dir}})
	other, err := workspace.Open(dir, workspace.Options{LockDir: filepath.Join(t.TempDir(), "locks")})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.WriteFile("a.txt", []byte("old\n"), workspace.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	rc := &toolguardv1.RequestContext{SessionId: "mismatch"}
	_, err = c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: rc,
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "a.txt", "content": "new\n"})})
	wantRefusal(t, "write", err, codes.FailedPrecondition, "LOCK_DIR_MISMATCH")
	_, err = c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: rc,
		Call: jsonCall(t, "edit", map[string]any{"path": "a.txt", "old_text": "old", "new_text": "edited"})})
	wantRefusal(t, "edit", err, codes.FailedPrecondition, "LOCK_DIR_MISMATCH")
	if got := readFile(t, filepath.Join(dir, "a.txt")); got != "old\n" {
		t.Errorf("a.txt = %q after refused changes", got)
	}
	s, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "mismatch"})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.GetSession().GetMistakes().GetConsecutive(); n != 0 {
		t.Errorf("%d mistakes counted for refused changes", n)
	}
}
