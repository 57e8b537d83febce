package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/service"
)

// TestWorkspaceDefaults holds the commands to the one rule of
// docs/configuration.md ("Which workspace"): mcp and the offline commands
// act on the directory they run in unless --workspace says otherwise, and
// TOOLGUARD_WORKSPACE, exported for a server, moves none of them; mcp has
// its own TOOLGUARD_MCP_WORKSPACE; serve reads TOOLGUARD_WORKSPACE.
func TestWorkspaceDefaults(t *testing.T) {
	here, elsewhere := t.TempDir(), t.TempDir()
	t.Chdir(here)
	t.Setenv("TOOLGUARD_WORKSPACE", elsewhere)
	t.Setenv("TOOLGUARD_WORKSPACES", "other="+elsewhere)

	cli := func(stdin string, args ...string) (int, string) {
		var out, errOut strings.Builder
		code := run(args, strings.NewReader(stdin), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	steps := []struct {
		name  string
		stdin string
		args  []string
		file  string // written in the current directory
	}{
		{"write", `{"path": "w.txt", "content": "w\n"}`, []string{"write", "--tool", "write_to_file"}, "w.txt"},
		{"edit", `{"path": "w.txt", "old_text": "w", "new_text": "e"}`, []string{"edit", "--tool", "edit"}, "w.txt"},
		{"stream --execute", "<write_to_file><path>s.txt</path><content>s\n</content></write_to_file>",
			[]string{"stream", "--format", "xml_tags", "--raw", "--execute"}, "s.txt"},
		{"read", "", []string{"read", "--path", "w.txt"}, ""},
		{"list", "", []string{"list"}, ""},
	}
	for _, s := range steps {
		if code, out := cli(s.stdin, s.args...); code != 0 {
			t.Fatalf("%s: exit %d: %s", s.name, code, out)
		} else if s.name == "read" && !strings.Contains(out, `e\n`) {
			t.Errorf("read: %s, want the edited w.txt of the current directory", out)
		} else if s.name == "list" && (!strings.Contains(out, "w.txt") || !strings.Contains(out, "s.txt")) {
			t.Errorf("list: %s, want the current directory's files", out)
		}
		if s.file == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(here, s.file)); err != nil {
			t.Errorf("%s: %v, want %s in the current directory", s.name, err, s.file)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("TOOLGUARD_WORKSPACE's folder got %v", entries)
	}
	// mcp: TOOLGUARD_WORKSPACE(S) are serve's; TOOLGUARD_MCP_WORKSPACE(S)
	// are its own. serve reads TOOLGUARD_WORKSPACE(S).
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"TOOLGUARD_WORKSPACE": elsewhere, "TOOLGUARD_WORKSPACES": "o=" + elsewhere}, ". []"},
		{map[string]string{"TOOLGUARD_MCP_WORKSPACE": elsewhere, "TOOLGUARD_MCP_WORKSPACES": "o=" + here}, elsewhere + " [o=" + here + "]"},
	} {
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg, err := parseSettings(fs, mcpSettings(), defaultMCPConfig(), nil, env(tt.env))
		if got := fmt.Sprint(cfg.Workspace, " ", cfg.Workspaces); err != nil || got != tt.want {
			t.Errorf("mcp with %v: workspaces %s, %v; want %s", tt.env, got, err, tt.want)
		}
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg, err := parseSettings(fs, serveSettings, service.DefaultConfig(), nil, env(map[string]string{"TOOLGUARD_WORKSPACE": elsewhere}))
	if err != nil || cfg.Workspace != elsewhere {
		t.Errorf("serve with TOOLGUARD_WORKSPACE: %q, %v; want %s", cfg.Workspace, err, elsewhere)
	}
}
