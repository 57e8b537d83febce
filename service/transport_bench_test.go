package service

import (
	"context"
	"net"
	"testing"
	"time"

	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
)

// payloadEcho answers UnaryCall with a body of the requested size and does
// nothing else: the cost of moving a ValidateToolCall's bytes, without
// validating anything.
type payloadEcho struct {
	testgrpc.UnimplementedTestServiceServer
}

func (payloadEcho) UnaryCall(_ context.Context, r *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{Payload: &testgrpc.Payload{Body: make([]byte, r.GetResponseSize())}}, nil
}

// BenchmarkTransportBaseline puts a number on what the bare transport costs
// for ValidateToolCall-sized messages (about 1.1 KB in, 2.5 KB out for the 1
// KB write in bench/) beside grpc.health.v1.Health/Check, on the same server
// with the production interceptor chain, in the same run. echo_vs_health is
// the ceiling any RPC carrying that payload can reach against the health
// check on this machine, before doing any work.
func BenchmarkTransportBaseline(b *testing.B) {
	cfg := DefaultConfig()
	cfg.Workspace = b.TempDir()
	srv, err := newServer(cfg, zap.NewNop(), func(r grpc.ServiceRegistrar) { testgrpc.RegisterTestServiceServer(r, payloadEcho{}) })
	if err != nil {
		b.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, lis) }()
	defer func() { cancel(); <-served }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	echo := testgrpc.NewTestServiceClient(conn)
	health := healthpb.NewHealthClient(conn)
	req := &testgrpc.SimpleRequest{ResponseSize: 2500, Payload: &testgrpc.Payload{Body: make([]byte, 1100)}}

	var healthNs, echoNs time.Duration
	const round = 64
	for b.Loop() {
		start := time.Now()
		for range round {
			if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
				b.Fatal(err)
			}
		}
		healthNs += time.Since(start)
		start = time.Now()
		for range round {
			if _, err := echo.UnaryCall(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
		echoNs += time.Since(start)
	}
	n := float64(b.N * round)
	b.ReportMetric(float64(healthNs)/n, "health-ns/call")
	b.ReportMetric(float64(echoNs)/n, "echo-ns/call")
	b.ReportMetric(float64(healthNs)/float64(echoNs), "echo_vs_health")
}
