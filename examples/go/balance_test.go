package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// TestBalancedSpreadsCalls: one client connection with the example's
// service config, over a name resolving to two servers (as a headless
// Service's does to its pods), sends calls to both, in turn once both are
// connected. Each server has its own workspace, so the files written show
// which one served each call.
func TestBalancedSpreadsCalls(t *testing.T) {
	var addrs []resolver.Address
	var dirs []string
	for range 2 {
		_, cfg := servicetest.Start(t, service.DefaultConfig())
		addrs = append(addrs, resolver.Address{Addr: cfg.Listen})
		dirs = append(dirs, cfg.Workspace)
	}
	r := manual.NewBuilderWithScheme("toolguard-test")
	r.InitialState(resolver.State{Addresses: addrs})
	conn, err := grpc.NewClient(r.Scheme()+":///toolguard", grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultServiceConfig(balanced))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	client := toolguardv1.NewToolGuardServiceClient(conn)
	ctx := context.Background()
	n := 0
	write := func() {
		t.Helper()
		_, err := client.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{
			Context: &toolguardv1.RequestContext{SessionId: "balanced"},
			Call:    textCall("write_to_file", fmt.Sprintf(`{"path": "f%d.txt", "content": "x"}`, n)),
		})
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	// Until both servers have had a call: the second may connect a little
	// after the first. Bounded: round_robin reaches it long before.
	for ; n < 1000 && (count(t, dirs[0]) == 0 || count(t, dirs[1]) == 0); write() {
	}
	a, b := count(t, dirs[0]), count(t, dirs[1])
	if a == 0 || b == 0 {
		t.Fatalf("%d calls, %d and %d per server: not spread", n, a, b)
	}
	for range 10 {
		write()
	}
	if da, db := count(t, dirs[0])-a, count(t, dirs[1])-b; da != 5 || db != 5 {
		t.Errorf("10 calls with both servers connected: %d and %d, want 5 each", da, db)
	}
}

func count(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Type().IsRegular() {
			n++
		}
	}
	return n
}
