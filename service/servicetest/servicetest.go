// Package servicetest starts real toolguard servers for tests: bound to
// loopback on a free port, with a temporary workspace, shut down when the test
// ends.
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

// Start starts a toolguard server for the test and returns a client
// connection to it and the configuration it runs with.
//
// Zero fields of cfg take their service.DefaultConfig values, so
// service.Config{} and service.DefaultConfig() both work. Listen is always
// 127.0.0.1:0 (the returned Config holds the bound address). Workspace is a
// fresh t.TempDir() unless cfg.Workspace is an absolute path: a test that
// prepares its own directory passes it, and the relative default
// ("./workspace") would otherwise land in the source tree. A non-empty
// MetricsListen turns metrics on, on a free loopback port (the returned
// Config holds the bound address).
//
// The server logs through t.Log. When the test ends the connection is closed,
// the server is shut down gracefully, and the test fails if Serve did not
// return nil.
func Start(t testing.TB, cfg service.Config) (*grpc.ClientConn, service.Config) {
	t.Helper()
	cfg = withDefaults(cfg)
	if !filepath.IsAbs(cfg.Workspace) {
		cfg.Workspace = t.TempDir()
	}

	// Only loopback: tests must never expose a server on other interfaces.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("servicetest: listen: %v", err)
	}
	cfg.Listen = lis.Addr().String()
	if cfg.MetricsListen != "" {
		cfg.MetricsListen = "127.0.0.1:0"
	}

	// The server logs through t at the configured level, so a benchmark
	// that asks for "warn" does not measure per-call info logging.
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
	// Cleanups run last-registered first: the connection closes before the
	// server stops, so no client stream holds up the graceful stop, and Serve
	// has returned (and stopped logging through t) before the test ends.
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
	// The error is ignored: it only says the test closed the connection itself.
	t.Cleanup(func() { _ = conn.Close() })
	return conn, cfg
}

// withDefaults returns cfg with every zero field set from
// service.DefaultConfig, field by field through reflection (embedded
// configurations included), so fields added later are covered too.
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
