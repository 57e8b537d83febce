// Package servicetest starts real toolguard servers for tests, on loopback,
// with a temporary workspace, stopped when the test ends.
package servicetest

import (
	"context"
	"net"
	"path/filepath"
	"reflect"
	"testing"

	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/toolguard/toolguard/service"
)

// Start starts a server and returns a connection to it and its
// configuration. Zero fields of cfg take their defaults; Listen (and
// MetricsListen, when set) get free loopback ports; Workspace is a fresh
// temporary directory unless absolute and not the default. The server logs
// through t, and the test fails unless it stops cleanly.
func Start(t testing.TB, cfg service.Config) (*grpc.ClientConn, service.Config) {
	t.Helper()
	cfg = withDefaults(cfg)
	if !filepath.IsAbs(cfg.Workspace) || cfg.Workspace == service.DefaultWorkspaceDir() {
		cfg.Workspace = t.TempDir()
	}

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servicetest: listen: %v", err)
	}
	cfg.Listen = lis.Addr().String()
	if cfg.MetricsListen != "" {
		cfg.MetricsListen = "127.0.0.1:0"
	}

	// At the configured level, so a "warn" benchmark does not measure info
	// logging.
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		t.Fatalf("servicetest: log level: %v", err)
	}
	srv, err := service.New(cfg, zaptest.NewLogger(t, zaptest.Level(level)))
	if err != nil {
		_ = lis.Close()
		t.Fatalf("servicetest: new server: %v", err)
	}
	if addr := srv.MetricsAddr(); addr != nil {
		cfg.MetricsListen = addr.String()
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	// Last registered runs first: the connection closes before the server
	// stops, so no client stream holds up the graceful stop.
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("servicetest: server did not shut down cleanly: %v", err)
		}
	})

	conn, err := grpc.NewClient(cfg.Listen, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("servicetest: dial %s: %v", cfg.Listen, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, cfg
}

// withDefaults sets every zero field of cfg, embedded ones included, from
// service.DefaultConfig.
func withDefaults(cfg service.Config) service.Config {
	fillZero(reflect.ValueOf(&cfg).Elem(), reflect.ValueOf(service.DefaultConfig()))
	return cfg
}

func fillZero(v, def reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case !f.CanSet():
		case v.Type().Field(i).Anonymous && f.Kind() == reflect.Struct:
			fillZero(f, def.Field(i))
		case f.IsZero():
			f.Set(def.Field(i))
		}
	}
}
