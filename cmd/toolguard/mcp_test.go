package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
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

// TestMCPCommandStdioMalformed: a line that is no JSON-RPC message gets a
// JSON-RPC error and the server keeps serving; before, the first such line
// ended `toolguard mcp` with exit 1.
func TestMCPCommandStdioMalformed(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		// --max-file-bytes 1: messages up to 1 MiB and 2 bytes.
		code := run([]string{"mcp", "--workspace", t.TempDir(), "--log-level", "error", "--max-file-bytes", "1"}, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	replies := bufio.NewReaderSize(outR, 1<<20)
	send := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("write: %v", err)
		}
		reply, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no reply to %.40q: %v (stderr: %s)", line, err, stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(reply, &m); err != nil {
			t.Fatalf("reply %q: %v", reply, err)
		}
		return m
	}
	oversized := `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", 2<<20) + `"}}`
	for _, tt := range []struct {
		name, line string
		code       float64
		id         any
		says       string
	}{
		{"garbage", "hello?", -32700, nil, "not one JSON value"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, nil, "UTF-8"},
		{"too deep", strings.Repeat("[", 1001) + strings.Repeat("]", 1001), -32700, nil, "deeper than 1000"},
		{"oversized", oversized, -32700, nil, "longer than"},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, -32700, nil, "one JSON value"},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, -32600, nil, "batches"},
		{"no version", `{"id":"x","method":"ping"}`, -32600, "x", "version"},
		{"method not a string", `{"jsonrpc":"2.0","id":7,"method":5}`, -32600, 7.0, "invalid request"},
	} {
		reply := send(tt.line)
		e, _ := reply["error"].(map[string]any)
		if e == nil || e["code"] != tt.code || reply["id"] != tt.id || !strings.Contains(e["message"].(string), tt.says) {
			t.Errorf("%s: reply %v, want code %v, id %v, saying %q", tt.name, reply, tt.code, tt.id, tt.says)
		}
	}
	// The session goes on: initialize, then list the tools.
	reply := send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if _, ok := reply["result"].(map[string]any)["serverInfo"]; !ok {
		t.Fatalf("initialize: %v", reply)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	// A response to no request of the server's is no reason to stop.
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","id":99,"result":{}}`+"\n"); err != nil {
		t.Fatal(err)
	}
	reply = send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if tools, _ := reply["result"].(map[string]any)["tools"].([]any); len(tools) == 0 {
		t.Fatalf("tools/list: %v", reply)
	}
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestMCPSettings: the MCP server's own variables are TOOLGUARD_MCP_ and
// the flag; its HTTP bounds are validated.
func TestMCPSettings(t *testing.T) {
	own := map[string]bool{}
	for _, s := range mcpSettings() {
		if !slices.Contains(mcpCoreSettings, s.flag) {
			own[s.flag] = true
		}
		if want := "TOOLGUARD_MCP_" + strings.ToUpper(strings.ReplaceAll(s.flag, "-", "_")); (own[s.flag] || mcpOwnWorkspaceEnv[s.flag]) && s.env != want {
			t.Errorf("--%s has env %s, want %s", s.flag, s.env, want)
		}
	}
	if len(own) != 9 {
		t.Errorf("%d MCP flags of its own, want 9: %v", len(own), own)
	}
	for _, tt := range []struct {
		args []string
		env  map[string]string
		says string
	}{
		{args: []string{"--http", "127.0.0.1:0", "--max-http-sessions", "0"}, says: "--max-http-sessions and --max-connections must be positive"},
		{args: []string{"--http", "127.0.0.1:0"}, env: map[string]string{"TOOLGUARD_MCP_HTTP_SESSION_TIMEOUT": "0s"}, says: "must be positive durations"},
		{args: []string{"--http", "127.0.0.1:0", "--max-http-sessions-per-principal", "4"}, says: "needs --auth-tokens-file"},
		{args: []string{"--http", "127.0.0.1:0", "--rate-limit", "5", "--rate-burst", "0"}, says: "--rate-burst must be at least 1"},
		{args: []string{"--http", "127.0.0.1:0", "--allowed-origins", "app.example.com"}, says: "--allowed-origins: origin \"app.example.com\""},
		{args: []string{"--http", "127.0.0.1:0", "--allowed-origins", "https://app.example.com", "--max-connections", "8"}},
	} {
		fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		cfg, err := parseSettings(fs, mcpSettings(), defaultMCPConfig(), tt.args, env(tt.env))
		if err == nil {
			err = cfg.Validate()
		}
		if tt.says == "" && err != nil || tt.says != "" && (err == nil || !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("%v %v: %v, want %q", tt.args, tt.env, err, tt.says)
		}
	}
}

// TestServeMCPHTTPBounds runs the command's HTTP server with two sessions
// at most: a third is refused with 503, and a page from another origin with
// 403. Before, every session was kept and every origin served.
func TestServeMCPHTTPBounds(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0") // a free loopback port
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	cfg := defaultMCPConfig()
	cfg.Workspace, cfg.HTTP, cfg.MaxHTTPSessions = t.TempDir(), addr, 2
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serveMCP(ctx, cfg, zap.NewNop(), nil, nil) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serveMCP: %v", err)
		}
	}()
	initialize := func(origin string) int {
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	code := 0
	for range 3000 { // until the server listens (30 s on a busy machine)
		if code = initialize(""); code != 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := []int{code, initialize(""), initialize(""), initialize("http://evil.example")}; !slices.Equal(got, []int{200, 200, 503, 403}) {
		t.Fatalf("statuses %v, want [200 200 503 403]", got)
	}
}
