package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// TestListToolsMirrorsTheRPC checks that the offline listing is the one a
// real server answers, for each model family and with custom tools.
func TestListToolsMirrorsTheRPC(t *testing.T) {
	tools := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(tools, []byte(`
tools:
  - name: add_semantic_memory
    parameters:
      type: object
      properties: {xml_memory: {type: string}}
      required: [xml_memory]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := service.DefaultConfig()
	cfg.ToolsFile = tools
	conn, _ := servicetest.Start(t, cfg)
	client := toolguardv1.NewToolGuardServiceClient(conn)

	for _, model := range []string{"", "claude-sonnet-4-5", "gpt-5", "qwen3-coder"} {
		t.Run("model "+model, func(t *testing.T) {
			want, err := client.ListTools(context.Background(), &toolguardv1.ListToolsRequest{ModelId: model})
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI("list-tools", "--model", model, "--tools-file", tools)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got := &toolguardv1.ListToolsResponse{}
			if err := protojson.Unmarshal([]byte(stdout), got); err != nil {
				t.Fatalf("output is no ListToolsResponse: %v\n%s", err, stdout)
			}
			if !proto.Equal(got, want) {
				t.Errorf("offline listing differs from the RPC's:\n%v\nwant\n%v", got, want)
			}
			if !strings.Contains(stdout, `"add_semantic_memory"`) {
				t.Errorf("the tools file's tool is missing:\n%s", stdout)
			}
		})
	}
}

func TestListToolsRefusesBadCommandLines(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"stray argument", []string{"list-tools", "now"}, `unexpected argument "now"`},
		{"missing tools file", []string{"list-tools", "--tools-file", "/nonexistent/tools.yaml"}, "/nonexistent/tools.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(tt.args...)
			if code != 2 || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, stderr, tt.wantErr)
			}
		})
	}
}
