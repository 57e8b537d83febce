package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestSyntaxCheck: an edit that breaks a JSON file, over each transport,
// in report mode (written; the result's text and syntax_checks say so)
// and refuse mode (an error result, SYNTAX_ERROR, nothing written).
func TestSyntaxCheck(t *testing.T) {
	const clean = "{\n  \"a\": 1\n}\n"
	for _, mode := range []string{guard.SyntaxReport, guard.SyntaxRefuse} {
		for name, connect := range transports {
			t.Run(mode+"/"+name, func(t *testing.T) {
				cfg := guard.DefaultConfig()
				cfg.SyntaxCheck = mode
				s, ws := newServer(t, cfg, mcp.Options{})
				file := filepath.Join(ws, "c.json")
				if err := os.WriteFile(file, []byte(clean), 0o644); err != nil {
					t.Fatal(err)
				}
				cs := connect(t, s, newClient())
				res, sc := call(t, cs, "edit", `{"path": "c.json", "old_text": "\"a\": 1", "new_text": "\"a\": 1,"}`)
				got, _ := os.ReadFile(file)
				if !strings.Contains(text(res), "parsed cleanly before") || !strings.Contains(text(res), ">    3 | }") {
					t.Errorf("text lacks the syntax report:\n%s", text(res))
				}
				checks, _ := sc["syntax_checks"].([]any)
				if len(checks) != 1 || checks[0].(map[string]any)["outcome"] != "ADDED" {
					t.Errorf("syntax_checks %v", sc["syntax_checks"])
				}
				switch mode {
				case guard.SyntaxReport:
					if res.IsError || string(got) == clean {
						t.Errorf("report: isError %v, file %q", res.IsError, got)
					}
				case guard.SyntaxRefuse:
					if !res.IsError || string(got) != clean || !strings.Contains(strings.Join(codes(sc, "violations"), ","), guard.CodeSyntaxError) {
						t.Errorf("refuse: isError %v, file %q, violations %v", res.IsError, got, sc["violations"])
					}
				}
			})
		}
	}
}
