package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/internal/auth"
	"github.com/toolguard/toolguard/mcp"
	"github.com/toolguard/toolguard/session"
	"github.com/toolguard/toolguard/workspace"
)

// newServer returns an MCP server over a guard on a fresh workspace.
func newServer(t *testing.T, cfg guard.Config, opts mcp.Options) (*mcp.Server, string) {
	t.Helper()
	if cfg.MistakeLimit == 0 {
		def := guard.DefaultConfig()
		def.ToolsFile, def.Workspaces = cfg.ToolsFile, cfg.Workspaces
		cfg = def
	}
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	store := session.NewMemory(session.MemoryOptions{})
	t.Cleanup(func() { _ = store.Close() })
	g, cleanup, err := guard.New(cfg, guard.Options{Sessions: store})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	dirs, err := cfg.WorkspaceDirs()
	if err != nil {
		t.Fatal(err)
	}
	opts.Workspaces = dirs
	s, err := mcp.New(g, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, cfg.Workspace
}

// transports connects a client to s in memory (as over stdio) and over
// streamable HTTP.
var transports = map[string]func(t *testing.T, s *mcp.Server, c *sdk.Client) *sdk.ClientSession{
	"in memory": func(t *testing.T, s *mcp.Server, c *sdk.Client) *sdk.ClientSession {
		st, ct := sdk.NewInMemoryTransports()
		if _, err := s.Connect(context.Background(), st); err != nil {
			t.Fatal(err)
		}
		cs, err := c.Connect(context.Background(), ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	},
	"streamable HTTP": func(t *testing.T, s *mcp.Server, c *sdk.Client) *sdk.ClientSession {
		h, err := s.HTTPHandler(nil)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(h)
		t.Cleanup(hs.Close)
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	},
}

func newClient() *sdk.Client {
	return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
}

func call(t *testing.T, cs *sdk.ClientSession, name, args string) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var sc map[string]any
	raw, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(raw, &sc)
	return res, sc
}

func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func codes(sc map[string]any, key string) []string {
	var out []string
	list, _ := sc[key].([]any)
	for _, x := range list {
		out = append(out, x.(map[string]any)["code"].(string))
	}
	return out
}

func consecutive(sc map[string]any) float64 {
	m, _ := sc["mistakes"].(map[string]any)
	n, _ := m["consecutive"].(float64)
	return n
}

// TestSession drives one MCP session through the guard over each
// transport: the tools listed, a repaired write, a fuzzy edit, a read, a
// refused escape and the third mistake in a row.
func TestSession(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, ws := newServer(t, guard.Config{}, mcp.Options{})
			cs := connect(t, s, newClient())
			ctx := context.Background()

			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range lt.Tools {
				names = append(names, tool.Name)
				if tool.Description == "" || tool.InputSchema == nil {
					t.Errorf("tool %s lacks its description or schema", tool.Name)
				}
			}
			if want := []string{"apply_patch", "create_directory", "delete_file", "edit", "find_files", "get_file_info", "insert_text", "list_directory", "move_file", "multi_edit", "read_file", "read_media_file", "read_multiple_files", "replace_in_file", "search_files", "undo_edit", "write_to_file"}; !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}

			// A fenced, aliased write: repaired, written, reported.
			res, sc := call(t, cs, "write_to_file", `{"file_path": "app.py", "text": "`+"```python\\ndef main():\\n    print(\\\"hello\\\")\\n```"+`"}`)
			want := "def main():\n    print(\"hello\")\n"
			if res.IsError || sc["ok"] != true {
				t.Fatalf("write: %s", text(res))
			}
			if got := codes(sc, "repairs"); !slices.Equal(got, []string{"ALIAS_RENAMED", "ALIAS_RENAMED", "CODE_FENCE_STRIPPED"}) {
				t.Errorf("write repairs %v", got)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "app.py")); string(got) != want {
				t.Fatalf("app.py = %q, want %q", got, want)
			}
			if !strings.Contains(text(res), "app.py: created") || !strings.Contains(text(res), "+    print(\"hello\")") {
				t.Errorf("write text %q", text(res))
			}

			// An edit whose old text drifted in indentation: the ladder finds it.
			res, sc = call(t, cs, "edit", `{"path": "app.py", "old_text": "def main():\n  print(\"hello\")", "new_text": "def main():\n  print(\"hi\")"}`)
			if res.IsError {
				t.Fatalf("edit: %s", text(res))
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "app.py")); string(got) != "def main():\n    print(\"hi\")\n" {
				t.Fatalf("app.py after the edit = %q", got)
			}
			edits, _ := sc["edits"].([]any)
			if len(edits) != 1 || edits[0].(map[string]any)["strategy"] == "EXACT" {
				t.Errorf("edit outcome %v", sc["edits"])
			}

			// A read: the text, the hash of the whole file.
			res, sc = call(t, cs, "read_file", `{"path": "app.py", "offset": 2, "line_numbers": true}`)
			if res.IsError || len(res.Content) != 2 || res.Content[0].(*sdk.TextContent).Text != "   2 |     print(\"hi\")\n" {
				t.Fatalf("read: %q", text(res))
			}
			read, _ := sc["read"].(map[string]any)
			if h := workspace.SHA256Hex([]byte("def main():\n    print(\"hi\")\n")); read["sha256"] != h || read["total_lines"] != 2.0 {
				t.Errorf("read %v, want sha256 %s of 2 lines", read, h)
			}

			// Three mistakes in a row: an escape, a denied path, a missing parameter.
			for i, tc := range []struct{ tool, args, code string }{
				{"write_to_file", `{"path": "../escape.txt", "content": "x"}`, "OUTSIDE_WORKSPACE"},
				{"read_file", `{"path": ".git/config"}`, "DENIED_PATH"},
				{"edit", `{"path": "app.py", "new_text": "y"}`, "MISSING_REQUIRED"},
			} {
				res, sc = call(t, cs, tc.tool, tc.args)
				if !res.IsError || !slices.Contains(codes(sc, "violations"), tc.code) || consecutive(sc) != float64(i+1) {
					t.Fatalf("mistake %d: error %v, violations %v, mistakes %v: %s", i+1, res.IsError, codes(sc, "violations"), sc["mistakes"], text(res))
				}
			}
			if m := sc["mistakes"].(map[string]any); m["limit_reached"] != true {
				t.Errorf("third mistake: %v", m)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(ws), "escape.txt")); err == nil {
				t.Fatal("the escape was written")
			}
		})
	}
}

// TestSessionsCountApart: each MCP session has its own mistake counter.
func TestSessionsCountApart(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{})
	connect := transports["streamable HTTP"]
	a, b := connect(t, s, newClient()), connect(t, s, newClient())
	_, sc := call(t, a, "read_file", `{"path": "../x"}`)
	_, sc2 := call(t, b, "read_file", `{"path": "../x"}`)
	if consecutive(sc) != 1 || consecutive(sc2) != 1 {
		t.Errorf("mistakes %v and %v, want 1 each", sc["mistakes"], sc2["mistakes"])
	}
}

// TestModelFamily: the tools are rendered for the model's family, and the
// names shown are accepted back.
func TestModelFamily(t *testing.T) {
	s, ws := newServer(t, guard.Config{}, mcp.Options{ModelID: "claude-sonnet-4-5"})
	cs := transports["in memory"](t, s, newClient())
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, tool := range lt.Tools {
		if tool.Name == "write_to_file" {
			raw, _ := json.Marshal(tool.InputSchema)
			_ = json.Unmarshal(raw, &schema)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	if _, ok := props["absolutePath"]; !ok {
		t.Fatalf("write_to_file for claude: %v", schema)
	}
	res, _ := call(t, cs, "write_to_file", `{"absolutePath": "`+filepath.Join(ws, "f.txt")+`", "content": "x\n"}`)
	if res.IsError {
		t.Fatalf("write with absolutePath: %s", text(res))
	}
}

// TestToolsFileTool: a tools file's tool is listed and validated; its
// normalised arguments come back.
func TestToolsFileTool(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(file, []byte("tools:\n  - name: add_memory\n    description: Remember a fact.\n    parameters:\n      type: object\n      properties:\n        fact: {type: string}\n        weight: {type: integer}\n      required: [fact]\n      additionalProperties: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, guard.Config{ToolsFile: file}, mcp.Options{})
	cs := transports["in memory"](t, s, newClient())
	res, sc := call(t, cs, "add_memory", `{"fact": "sky is blue", "weight": "3"}`)
	if res.IsError || string(mustJSON(sc["arguments"])) != `{"fact":"sky is blue","weight":3}` {
		t.Fatalf("add_memory: %s %v", text(res), sc)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// TestRootsNarrow: a client's roots choose among the server's workspaces
// and never add one.
func TestRootsNarrow(t *testing.T) {
	docs := t.TempDir()
	s, ws := newServer(t, guard.Config{Workspaces: []string{"docs=" + docs}}, mcp.Options{})
	for _, tc := range []struct {
		name string
		root string
		into string // workspace the write lands in; "" refused
	}{
		{"a root holding the docs workspace", docs, docs},
		{"a root above the default", filepath.Dir(ws), ws},
		{"a root elsewhere", t.TempDir(), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClient()
			c.AddRoots(&sdk.Root{URI: "file://" + tc.root}) //nolint:staticcheck // SA1019: roots still narrow clients on protocol versions before 2026-07-28
			// Servers may ask for roots only before protocol 2026-07-28.
			st, ct := sdk.NewInMemoryTransports()
			if _, err := s.Connect(context.Background(), st); err != nil {
				t.Fatal(err)
			}
			cs, err := c.Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cs.Close() }()
			res, _ := call(t, cs, "write_to_file", `{"path": "r.txt", "content": "`+tc.name+`"}`)
			if tc.into == "" {
				if !res.IsError || !strings.Contains(text(res), "roots") {
					t.Fatalf("want a refusal naming the roots: %s", text(res))
				}
				return
			}
			if res.IsError {
				t.Fatal(text(res))
			}
			if got, _ := os.ReadFile(filepath.Join(tc.into, "r.txt")); string(got) != tc.name {
				t.Errorf("%s/r.txt = %q", tc.into, got)
			}
		})
	}
}

// bearer adds a token to every request of a client transport.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestHTTPTokens: over HTTP with a verifier, a request needs a valid token,
// and a caller acts only in its granted workspaces.
func TestHTTPTokens(t *testing.T) {
	docs := t.TempDir()
	s, ws := newServer(t, guard.Config{Workspaces: []string{"docs=" + docs}}, mcp.Options{})
	callers := map[string]*auth.Caller{
		"docs-token": auth.NewCaller("writer", "docs"),
		"none-token": auth.NewCaller("nobody"),
	}
	h, err := s.HTTPHandler(func(token string) (*auth.Caller, error) {
		if c := callers[token]; c != nil {
			return c, nil
		}
		return nil, errors.New("unknown token")
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	connect := func(token string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
		return newClient().Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc, MaxRetries: -1}, nil)
	}
	if _, err := connect("wrong"); err == nil {
		t.Fatal("a wrong token connected")
	}
	cs, err := connect("docs-token")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cs.Close() }()
	if res, _ := call(t, cs, "write_to_file", `{"path": "d.txt", "content": "granted\n"}`); res.IsError {
		t.Fatal(text(res))
	}
	if got, _ := os.ReadFile(filepath.Join(docs, "d.txt")); string(got) != "granted\n" {
		t.Errorf("docs/d.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "d.txt")); err == nil {
		t.Error("the write landed in the default workspace, which the caller is not granted")
	}
	none, err := connect("none-token")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = none.Close() }()
	if res, _ := call(t, none, "read_file", `{"path": "d.txt"}`); !res.IsError || !strings.Contains(text(res), "granted none") {
		t.Errorf("a caller without grants: %s", text(res))
	}
}

// TestProgress: a call sent with a progress token reports its steps.
func TestProgress(t *testing.T) {
	s, _ := newServer(t, guard.Config{}, mcp.Options{})
	got := make(chan float64, 8)
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			got <- req.Params.Progress
		},
	})
	cs := transports["in memory"](t, s, c)
	params := &sdk.CallToolParams{Name: "write_to_file", Arguments: map[string]any{"path": "p.txt", "content": "x\n"}}
	params.SetProgressToken("tok")
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("write: %v %v", err, res)
	}
	// Notifications may trail the result: wait for both.
	var steps []float64
	for len(steps) < 2 {
		steps = append(steps, <-got)
	}
	if !slices.Equal(steps, []float64{1, 2}) {
		t.Errorf("progress %v, want [1 2]", steps)
	}
}
