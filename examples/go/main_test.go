package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// TestExample runs the example against a real loopback server and checks
// what it printed and wrote.
func TestExample(t *testing.T) {
	conn, cfg := servicetest.Start(t, service.DefaultConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out strings.Builder
	if err := run(ctx, toolguardv1.NewToolGuardServiceClient(conn), &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"== ValidateToolCall\nok=true tool=write_to_file",
		"repair JSON_REPAIRED",
		"== ExecuteWrite\nok=true",
		"call_started write_to_file",
		"call_complete ok=true truncated=false",
		"done calls=1",
		`text "I'll add"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	got, err := os.ReadFile(filepath.Join(cfg.Workspace, "src", "app.py"))
	if err != nil || string(got) != "print(\"hello\")\n" {
		t.Errorf("src/app.py = %q, %v", got, err)
	}
}
