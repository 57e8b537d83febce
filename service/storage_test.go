package service_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestWorkspaceStorageErrors runs writes and edits over gRPC on a workspace
// whose disk is full and on one mounted read-only: each is a status with
// its own code and reason and a message saying nothing was written, never
// INTERNAL; the file stays whole and no temporary file is left.
func TestWorkspaceStorageErrors(t *testing.T) {
	big := strings.Repeat("x", 256<<10)
	for _, tc := range []struct {
		name   string
		dir    func(t *testing.T, prepared string) string // the workspace, from a prepared directory
		code   codes.Code
		reason string
	}{
		{"disk full", func(t *testing.T, prepared string) string {
			dir := workspacetest.SmallTmpfs(t, 64<<10)
			copyFile(t, filepath.Join(prepared, "a.txt"), filepath.Join(dir, "a.txt"))
			return dir
		}, codes.ResourceExhausted, "WORKSPACE_FULL"},
		{"read-only", func(t *testing.T, prepared string) string {
			return workspacetest.ReadOnly(t, prepared)
		}, codes.FailedPrecondition, "WORKSPACE_READ_ONLY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prepared := t.TempDir()
			if err := os.WriteFile(filepath.Join(prepared, "a.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := tc.dir(t, prepared)
			c, _ := startWorkspace(t, service.Config{Config: guard.Config{Workspace: ws}})
			rc := &toolguardv1.RequestContext{SessionId: "s-" + tc.name}
			calls := map[string]func() error{
				"write": func() error {
					_, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: rc,
						Call: jsonCall(t, "write_to_file", map[string]any{"path": "a.txt", "content": big})})
					return err
				},
				"new file": func() error {
					_, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{Context: rc,
						Call: jsonCall(t, "write_to_file", map[string]any{"path": "b.txt", "content": big})})
					return err
				},
				"edit": func() error {
					_, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: rc,
						Call: jsonCall(t, "edit", map[string]any{"path": "a.txt", "old_text": "old", "new_text": big})})
					return err
				},
			}
			for name, call := range calls {
				st := wantRefusal(t, name, call(), tc.code, tc.reason)
				if !strings.Contains(st.Message(), "nothing was written") {
					t.Errorf("%s: message %q does not say nothing was written", name, st.Message())
				}
			}
			if got := readFile(t, filepath.Join(ws, "a.txt")); got != "old\n" {
				t.Errorf("a.txt = %q", got)
			}
			entries, err := os.ReadDir(ws)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 {
				t.Errorf("the workspace holds %v, want a.txt alone", entries)
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
