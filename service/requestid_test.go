package service

import (
	"fmt"
	"sync"
	"testing"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
)

// TestRequestIDHeadersNotShared: concurrent calls, unary and streaming,
// each get their own id back and no other, though the header maps that
// carry them are reused from call to call.
func TestRequestIDHeadersNotShared(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	health := healthpb.NewHealthClient(ts.conn)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				id := fmt.Sprintf("caller-%d-%d", g, i)
				ctx := metadata.AppendToOutgoingContext(testContext(t), requestIDHeader, id)
				var header metadata.MD
				if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header)); err != nil {
					errs <- err
					return
				}
				if got := header.Get(requestIDHeader); len(got) != 1 || got[0] != id {
					errs <- fmt.Errorf("unary call %s: header %q", id, got)
					return
				}
				if i%8 != 0 {
					continue
				}
				watch, err := health.Watch(ctx, &healthpb.HealthCheckRequest{})
				if err == nil {
					header, err = watch.Header()
				}
				if err != nil {
					errs <- err
					return
				}
				if got := header.Get(requestIDHeader); len(got) != 1 || got[0] != id {
					errs <- fmt.Errorf("stream %s: header %q", id, got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
