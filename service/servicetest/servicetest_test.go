package servicetest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

func TestStart(t *testing.T) {
	conn, cfg := servicetest.Start(t, service.Config{Config: guard.Config{MistakeLimit: 1}})

	if !strings.HasPrefix(cfg.Listen, "127.0.0.1:") || cfg.Listen == "127.0.0.1:0" {
		t.Errorf("Listen = %q, want the bound loopback address", cfg.Listen)
	}
	if info, err := os.Stat(cfg.Workspace); err != nil || !info.IsDir() || !filepath.IsAbs(cfg.Workspace) {
		t.Errorf("Workspace %q is not an existing absolute directory (%v)", cfg.Workspace, err)
	}
	if cfg.MistakeLimit != 1 || cfg.MaxSessions != service.DefaultConfig().MaxSessions {
		t.Errorf("got MistakeLimit %d, MaxSessions %d; want the given 1 and the default", cfg.MistakeLimit, cfg.MaxSessions)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "toolguard.v1.ToolGuardService"})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health Check = %v, %v; want SERVING", resp, err)
	}
}

func TestStartKeepsAbsoluteWorkspace(t *testing.T) {
	dir := t.TempDir()
	_, cfg := servicetest.Start(t, service.Config{Config: guard.Config{Workspace: dir}})
	if cfg.Workspace != dir {
		t.Errorf("Workspace = %q, want %q", cfg.Workspace, dir)
	}
}
