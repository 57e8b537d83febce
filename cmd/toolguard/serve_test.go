package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/toolguard/toolguard/service"
)

// TestPrepareWorkspaces checks that only the default folder, or any with
// --create-workspaces, is created, and that a mistyped one stops the start.
func TestPrepareWorkspaces(t *testing.T) {
	tests := []struct {
		name       string
		workspace  string // "" is the default folder; "new/..." under a temp dir that lacks it
		extra      []string
		create     bool
		wantErr    string
		wantExists []string
	}{
		{name: "the default folder is created", wantExists: []string{"<default>"}},
		{name: "an existing folder is used", workspace: "existing", wantExists: []string{"existing"}},
		{name: "a missing folder is refused", workspace: "new/a/b", wantErr: "does not exist: create it, fix the path, or pass --create-workspaces"},
		{name: "a missing named workspace is refused", workspace: "existing", extra: []string{"docs=new/docs"}, wantErr: `workspace "docs"`},
		{name: "--create-workspaces creates them", workspace: "new/a/b", extra: []string{"docs=new/docs"}, create: true,
			wantExists: []string{"new/a/b", "new/docs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", t.TempDir())
			base := t.TempDir()
			if err := os.Mkdir(filepath.Join(base, "existing"), 0o750); err != nil {
				t.Fatal(err)
			}
			abs := func(p string) string {
				if p == "<default>" {
					return service.DefaultWorkspaceDir()
				}
				return filepath.Join(base, p)
			}
			cfg := service.DefaultConfig()
			if !strings.HasPrefix(cfg.Workspace, os.Getenv("XDG_DATA_HOME")) {
				t.Fatalf("default workspace %s is not under XDG_DATA_HOME", cfg.Workspace)
			}
			if tt.workspace != "" {
				cfg.Workspace = abs(tt.workspace)
			}
			for _, w := range tt.extra {
				name, dir, _ := strings.Cut(w, "=")
				cfg.Workspaces = append(cfg.Workspaces, name+"="+abs(dir))
			}
			cfg.CreateWorkspaces = tt.create
			err := prepareWorkspaces(cfg, zap.NewNop())
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if _, statErr := os.Stat(filepath.Join(base, "new")); statErr == nil {
					t.Error("a refused start created a folder")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.wantExists {
				if fi, err := os.Stat(abs(p)); err != nil || !fi.IsDir() {
					t.Errorf("%s is not a folder: %v", abs(p), err)
				}
			}
		})
	}
}

func TestDefaultWorkspaceIsNeverTheWorkingDirectory(t *testing.T) {
	for _, env := range []map[string]string{
		{"XDG_DATA_HOME": "/data", "HOME": "/home/u"},
		{"XDG_DATA_HOME": "", "HOME": "/home/u"},
		{"XDG_DATA_HOME": "relative", "HOME": "/"},
	} {
		for k, v := range env {
			t.Setenv(k, v)
		}
		dir := service.DefaultWorkspaceDir()
		if !filepath.IsAbs(dir) || !strings.HasSuffix(dir, filepath.Join("toolguard", "workspace")) {
			t.Errorf("with %v the default workspace is %s", env, dir)
		}
	}
}

// TestServeRefusesLockDirInAnyWorkspace: a lock directory inside another
// workspace than its own folder's, named directly or through a link, stops
// the start as a configuration error, and nothing is created.
func TestServeRefusesLockDirInAnyWorkspace(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o750); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(b, filepath.Join(base, "blink")); err != nil {
		t.Fatal(err)
	}
	for _, lockDir := range []string{filepath.Join(b, "locks"), filepath.Join(base, "blink", "locks"), base + "/a/../b/locks"} {
		code, _, stderr := runCLI("serve", "--listen", "127.0.0.1:0", "--workspace", a, "--workspaces", "b="+b, "--lock-dir", lockDir)
		want := fmt.Sprintf("invalid configuration: lock directory %s is inside workspace \"b\" (%s)", lockDir, b)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("--lock-dir %s: exit %d, stderr %q; want 2 and %q", lockDir, code, stderr, want)
		}
		if _, err := os.Stat(filepath.Join(b, "locks")); !os.IsNotExist(err) {
			t.Errorf("--lock-dir %s: the refused start left %s/locks (%v)", lockDir, b, err)
		}
	}
}
