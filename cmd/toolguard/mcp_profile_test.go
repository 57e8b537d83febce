package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPProfileFilesystem runs `toolguard mcp --profile filesystem DIR
// DIR` as a client configured for the reference file server spawns it: the
// directories are the allowed ones, an absolute path acts in its own.
func TestMCPProfileFilesystem(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	args := documentedProfileArgs(t)
	for i, arg := range args {
		if arg == "/path/to/project" {
			args[i] = a
		}
	}
	args = append(args, "--log-level", "error", b)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run(args, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"list_allowed_directories", map[string]any{}, "Allowed directories:\n" + a + "\n" + b},
		{"write_file", map[string]any{"path": filepath.Join(b, "b.txt"), "content": "in b\n"}, "Successfully wrote to " + filepath.Join(b, "b.txt")},
		{"write_file", map[string]any{"path": "a.txt", "content": "in a\n"}, "Successfully wrote to a.txt"},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != tc.want {
			t.Fatalf("%s: %v %+v", tc.tool, err, res)
		}
	}
	for dir, want := range map[string]string{filepath.Join(b, "b.txt"): "in b\n", filepath.Join(a, "a.txt"): "in a\n"} {
		if got, _ := os.ReadFile(dir); string(got) != want {
			t.Errorf("%s = %q", dir, got)
		}
	}
	_ = cs.Close()
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestMCPProfileArguments: directories after the flags belong to the
// filesystem profile; a profile is one of the known ones.
func TestMCPProfileArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", t.TempDir()}, "--profile filesystem"},
		{[]string{"mcp", "--profile", "nope"}, `--profile "nope"`},
		{[]string{"mcp", "--profile", "filesystem", "--workspaces", "x=" + t.TempDir(), t.TempDir()}, "not both"},
	} {
		var stderr strings.Builder
		if code := run(tc.args, strings.NewReader(""), io.Discard, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr.String())
		}
	}
}

// documentedProfileArgs are the arguments docs/mcp.md tells a client to
// start toolguard with in place of the reference server.
func documentedProfileArgs(t *testing.T) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/mcp.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(doc), "\n") {
		_, cfg, ok := strings.Cut(line, `"command": "toolguard", "args": `)
		if !ok || !strings.Contains(cfg, `"filesystem"`) {
			continue
		}
		var args []string
		if err := json.Unmarshal([]byte(strings.TrimSpace(cfg)), &args); err != nil {
			t.Fatalf("docs/mcp.md: %q: %v", cfg, err)
		}
		return args
	}
	t.Fatal("docs/mcp.md has no toolguard command for the filesystem profile")
	return nil
}
