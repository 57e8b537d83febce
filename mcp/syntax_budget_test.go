package mcp_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestSyntaxCheckPastMemory: a write whose check needs more than
// --syntax-check-max-memory is written, over each transport, its check
// NOT_CHECKED with the reason, as the gRPC answer has it.
func TestSyntaxCheckPastMemory(t *testing.T) {
	const content = "{\n  \"a\": 1\n}\n"
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			cfg := guard.DefaultConfig()
			cfg.SyntaxMaxMemory = 3 // under a JSON file of 13 bytes, at 1 byte a byte
			s, ws := newServer(t, cfg, mcp.Options{})
			cs := connect(t, s, newClient())
			res, sc := call(t, cs, "write_to_file", `{"path": "c.json", "content": "{\n  \"a\": 1\n}\n"}`)
			got, _ := os.ReadFile(filepath.Join(ws, "c.json"))
			if res.IsError || string(got) != content {
				t.Fatalf("isError %v, file %q: want written", res.IsError, got)
			}
			checks, _ := sc["syntax_checks"].([]any)
			if len(checks) != 1 {
				t.Fatalf("syntax_checks %v", sc["syntax_checks"])
			}
			c := checks[0].(map[string]any)
			reason, _ := c["reason"].(string)
			if c["outcome"] != "NOT_CHECKED" || c["language"] != "json" ||
				reason != "the syntax check of this file would take about 13 bytes of memory, more than all syntax checks may hold at once (3 bytes, --syntax-check-max-memory)" {
				t.Errorf("check %v, want NOT_CHECKED for memory", c)
			}
		})
	}
}
