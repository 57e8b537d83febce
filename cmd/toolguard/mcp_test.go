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

// TestMCPCommandStdio runs `toolguard mcp` on pipes as a client would spawn
// it, and calls it with the SDK's client.
func TestMCPCommandStdio(t *testing.T) {
	ws := t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run([]string{"mcp", "--workspace", ws, "--log-level", "error"}, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "write_to_file",
		Arguments: json.RawMessage(`{"path": "a.txt", "content": "one\\ntwo\\n"}`)})
	if err != nil || res.IsError {
		t.Fatalf("write: %v %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "one\ntwo\n" {
		t.Fatalf("a.txt = %q", got)
	}
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "a.txt", "limit": 1}})
	if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "one\n" {
		t.Fatalf("read: %v %+v", err, res)
	}
	_ = cs.Close()
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestMCPCommandRefusesOpenHTTP: beyond loopback a token file is required.
func TestMCPCommandRefusesOpenHTTP(t *testing.T) {
	var stderr strings.Builder
	code := run([]string{"mcp", "--workspace", t.TempDir(), "--http", "0.0.0.0:0"}, strings.NewReader(""), io.Discard, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), "without authentication") {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestMCPCommandDefaultWorkspace: without --workspace the server acts in the
// directory it was started in, as a client's project.
func TestMCPCommandDefaultWorkspace(t *testing.T) {
	ws := t.TempDir()
	t.Chdir(ws)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run([]string{"mcp", "--log-level", "error"}, inR, outW, io.Discard)
		_ = outW.Close()
		done <- code
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "write_to_file", Arguments: map[string]any{"path": "here.txt", "content": "x\n"}})
	if err != nil || res.IsError {
		t.Fatalf("write: %v %+v", err, res)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "here.txt")); string(got) != "x\n" {
		t.Fatalf("here.txt = %q", got)
	}
	_ = cs.Close()
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}
