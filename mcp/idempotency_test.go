package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestIdempotencyKeyMeta: a tools/call that changes a file with an
// idempotency key in its _meta runs once; a retry gets the first result and
// changes nothing; the same key with other arguments is refused; a call
// without a key runs each time. Over both transports.
func TestIdempotencyKeyMeta(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, dir := newServer(t, guard.Config{}, mcp.Options{})
			cs := connect(t, s, newClient())
			path := filepath.Join(dir, "log.txt")
			if err := os.WriteFile(path, []byte("start\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			edit := func(key, line string) *sdk.CallToolResult {
				t.Helper()
				p := &sdk.CallToolParams{Name: "edit",
					Arguments: json.RawMessage(`{"path":"log.txt","old_text":"start\n","new_text":"start\n` + line + `\n"}`)}
				if key != "" {
					p.Meta = sdk.Meta{mcp.IdempotencyKeyMeta: key}
				}
				res, err := cs.CallTool(context.Background(), p)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			first := edit("k1", "one")
			if first.IsError {
				t.Fatalf("first edit: %s", text(first))
			}
			if again := edit("k1", "one"); !reflect.DeepEqual(again, first) {
				t.Fatalf("retry: %s, want the first result %s", text(again), text(first))
			}
			if other := edit("k1", "two"); !other.IsError || !strings.Contains(text(other), "different call") {
				t.Fatalf("same key, other arguments: %s", text(other))
			}
			edit("", "three")
			if got, _ := os.ReadFile(path); string(got) != "start\nthree\none\n" {
				t.Fatalf("file %q: the keyed edit applied more than once", got)
			}
		})
	}
}
