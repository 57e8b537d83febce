package service

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

const toolGuardServiceName = "toolguard.v1.ToolGuardService"

// secretPanicText is what the test service panics with; it must never reach
// a client.
const secretPanicText = "secret panic text: /etc/shadow"

// testService is a test-only gRPC service registered next to the real ones
// (through newServer's extra registrations) to drive the server spine:
//   - UnaryCall blocks until release is closed or the call is cancelled, and
//     reports on entered when it starts;
//   - CacheableUnaryCall succeeds at once;
//   - EmptyCall and StreamingOutputCall panic.
type testService struct {
	testgrpc.UnimplementedTestServiceServer
	entered chan struct{}
	release chan struct{}
}

func newTestService() *testService {
	return &testService{entered: make(chan struct{}, 16), release: make(chan struct{})}
}

func (s *testService) register(r grpc.ServiceRegistrar) { testgrpc.RegisterTestServiceServer(r, s) }

func (s *testService) UnaryCall(ctx context.Context, _ *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	s.entered <- struct{}{}
	select {
	case <-s.release:
		return &testgrpc.SimpleResponse{}, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	}
}

func (s *testService) CacheableUnaryCall(context.Context, *testgrpc.SimpleRequest) (*testgrpc.SimpleResponse, error) {
	return &testgrpc.SimpleResponse{}, nil
}

func (s *testService) EmptyCall(context.Context, *testgrpc.Empty) (*testgrpc.Empty, error) {
	panic(secretPanicText)
}

func (s *testService) StreamingOutputCall(*testgrpc.StreamingOutputCallRequest, grpc.ServerStreamingServer[testgrpc.StreamingOutputCallResponse]) error {
	panic(secretPanicText)
}

// testServer is a real server on 127.0.0.1:0 with a client connection and
// its observed logs.
type testServer struct {
	srv    *Server
	conn   *grpc.ClientConn
	logs   *observer.ObservedLogs
	cancel context.CancelFunc

	served   chan error
	stopOnce sync.Once
	stopErr  error
}

// testConfig is the default configuration bound to loopback with a temporary
// workspace.
func testConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Listen = "127.0.0.1:0"
	cfg.Workspace = t.TempDir()
	// Only a hang guard here: tests of the shutdown timeout set their own.
	cfg.ShutdownTimeout = 2 * time.Minute
	return cfg
}

// testLogger logs through t and records every entry, debug included.
func testLogger(t *testing.T) (*zap.Logger, *observer.ObservedLogs) {
	core, logs := observer.New(zapcore.DebugLevel)
	return zap.New(zapcore.NewTee(core, zaptest.NewLogger(t).Core())), logs
}

func startTestServer(t *testing.T, cfg Config, extra ...func(grpc.ServiceRegistrar)) *testServer {
	t.Helper()
	log, logs := testLogger(t)
	srv, err := newServer(cfg, log, extra...)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{srv: srv, logs: logs, cancel: cancel, served: make(chan error, 1)}
	go func() { ts.served <- srv.Serve(ctx, lis) }()
	t.Cleanup(func() { _ = ts.stop(t) })

	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	ts.conn = conn
	t.Cleanup(func() { _ = conn.Close() })
	return ts
}

// stop cancels the server's context and returns Serve's result.
func (ts *testServer) stop(t *testing.T) error {
	ts.stopOnce.Do(func() {
		ts.cancel()
		select {
		case ts.stopErr = <-ts.served:
		case <-time.After(3 * time.Minute):
			t.Fatal("Serve did not return within 3 minutes of cancellation")
		}
	})
	return ts.stopErr
}

// waitForLog waits until an entry with message msg is logged.
func waitForLog(t *testing.T, logs *observer.ObservedLogs, msg string) observer.LoggedEntry {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if entries := logs.FilterMessage(msg).All(); len(entries) > 0 {
			return entries[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no log entry %q within 2 minutes", msg)
	return observer.LoggedEntry{}
}

// finishedCall returns the access-log entry of the one finished call of
// method.
func finishedCall(t *testing.T, logs *observer.ObservedLogs, method string) observer.LoggedEntry {
	t.Helper()
	var found []observer.LoggedEntry
	for _, e := range logs.FilterMessage("finished call").All() {
		if e.ContextMap()["grpc.method"] == method {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("got %d finished-call entries for %s, want 1", len(found), method)
	}
	return found[0]
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func checkHealth(ctx context.Context, t *testing.T, conn *grpc.ClientConn, service string, want healthpb.HealthCheckResponse_ServingStatus) {
	t.Helper()
	resp, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatalf("health Check(%q): %v", service, err)
	}
	if resp.GetStatus() != want {
		t.Fatalf("health Check(%q) = %v, want %v", service, resp.GetStatus(), want)
	}
}

func TestNewRejectsInvalidConfig(t *testing.T) {
	cfg := testConfig(t)
	cfg.MistakeLimit = 0
	if _, err := New(cfg, nil); err == nil || !strings.Contains(err.Error(), "mistake limit") {
		t.Fatalf("New with MistakeLimit 0: err = %v, want a mistake-limit error", err)
	}
}

func TestHealthServing(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	ctx := testContext(t)
	checkHealth(ctx, t, ts.conn, "", healthpb.HealthCheckResponse_SERVING)
	checkHealth(ctx, t, ts.conn, toolGuardServiceName, healthpb.HealthCheckResponse_SERVING)

	_, err := healthpb.NewHealthClient(ts.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "no.such.Service"})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("health Check of an unknown service: %v, want NotFound", err)
	}
	if err := ts.stop(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func TestReflectionListsService(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	ctx := testContext(t)
	stream, err := reflectionpb.NewServerReflectionClient(ts.conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatalf("ServerReflectionInfo: %v", err)
	}
	err = stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	})
	if err != nil {
		t.Fatalf("send ListServices: %v", err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatalf("receive ListServices: %v", err)
	}
	if err := stream.CloseSend(); err != nil {
		t.Fatalf("CloseSend: %v", err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{toolGuardServiceName, "grpc.health.v1.Health"} {
		if !slices.Contains(names, want) {
			t.Errorf("reflection lists %v, want it to include %s", names, want)
		}
	}
}

func TestOversizeMessageIsResourceExhausted(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxRecvMsgBytes = 1024
	ts := startTestServer(t, cfg)
	ctx := testContext(t)
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)

	request := func(argBytes int) *toolguardv1.ValidateToolCallRequest {
		return &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: "s"},
			Call: &toolguardv1.ToolCall{
				Name:      "Write",
				Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: strings.Repeat("x", argBytes)},
			},
		}
	}
	_, err := client.ValidateToolCall(ctx, request(4096))
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("4 KiB request with a 1 KiB limit: %v, want ResourceExhausted", err)
	}
	// A request under the limit gets past the size check (whatever the
	// handler then answers).
	if _, err := client.ValidateToolCall(ctx, request(100)); status.Code(err) == codes.ResourceExhausted {
		t.Fatalf("100-byte request with a 1 KiB limit: %v", err)
	}
}

// TestGracefulShutdown follows one shutdown: health flips to NOT_SERVING
// (seen by a Watch and by Check during the drain delay), the Watch stream is
// ended so it cannot hold up the stop, an in-flight call keeps running
// through GracefulStop and completes, and Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	cfg := testConfig(t)
	// The drain lasts until the checks made within it are done, however
	// slow the machine: the test ends it, after seeing the delay asked for.
	cfg.DrainDelay = 2 * time.Second
	drainAsked, drainEnd := make(chan time.Duration, 1), make(chan struct{})
	cfg.drainWait = func(d time.Duration) {
		drainAsked <- d
		<-drainEnd
	}
	svc := newTestService()
	ts := startTestServer(t, cfg, svc.register)
	ctx := testContext(t)

	watch, err := healthpb.NewHealthClient(ts.conn).Watch(ctx, &healthpb.HealthCheckRequest{Service: ""})
	if err != nil {
		t.Fatalf("health Watch: %v", err)
	}
	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("first Watch response = %v, %v; want SERVING", resp, err)
	}

	callErr := make(chan error, 1)
	go func() {
		_, err := testgrpc.NewTestServiceClient(ts.conn).UnaryCall(ctx, &testgrpc.SimpleRequest{})
		callErr <- err
	}()
	<-svc.entered

	ts.cancel()

	if resp, err := watch.Recv(); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("Watch response after cancellation = %v, %v; want NOT_SERVING", resp, err)
	}
	// Still within the drain delay: the server answers, and says NOT_SERVING.
	checkHealth(ctx, t, ts.conn, "", healthpb.HealthCheckResponse_NOT_SERVING)
	checkHealth(ctx, t, ts.conn, toolGuardServiceName, healthpb.HealthCheckResponse_NOT_SERVING)
	if d := <-drainAsked; d != cfg.DrainDelay {
		t.Fatalf("the drain waited %v, want the DrainDelay %v", d, cfg.DrainDelay)
	}
	close(drainEnd)

	// After the drain delay the Watch stream is ended by the server.
	if _, err := watch.Recv(); status.Code(err) != codes.Unavailable {
		t.Fatalf("Watch after the drain delay: %v, want Unavailable", err)
	}

	// GracefulStop is now waiting for the in-flight call.
	waitForLog(t, ts.logs, "stopping gracefully: waiting for in-flight calls")
	select {
	case err := <-ts.served:
		t.Fatalf("Serve returned (%v) while a call was in flight", err)
	case err := <-callErr:
		t.Fatalf("in-flight call ended (%v) before it was released", err)
	case <-time.After(100 * time.Millisecond):
	}

	close(svc.release)
	if err := <-callErr; err != nil {
		t.Fatalf("in-flight call: %v, want success", err)
	}
	if err := ts.stop(t); err != nil {
		t.Fatalf("Serve: %v, want nil", err)
	}
	if n := ts.logs.FilterMessage("graceful stop complete").Len(); n != 1 {
		t.Fatalf("got %d 'graceful stop complete' entries, want 1", n)
	}
}

// TestShutdownTimeout checks that a call outliving ShutdownTimeout is
// cancelled and Serve reports it.
func TestShutdownTimeout(t *testing.T) {
	cfg := testConfig(t)
	cfg.ShutdownTimeout = 200 * time.Millisecond
	svc := newTestService()
	ts := startTestServer(t, cfg, svc.register)
	ctx := testContext(t)

	callErr := make(chan error, 1)
	go func() {
		_, err := testgrpc.NewTestServiceClient(ts.conn).UnaryCall(ctx, &testgrpc.SimpleRequest{})
		callErr <- err
	}()
	<-svc.entered

	start := time.Now()
	err := ts.stop(t)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Fatalf("Serve: %v, want a shutdown-timeout error", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Fatalf("Serve took %v to return after a 200ms shutdown timeout", elapsed)
	}
	if err := <-callErr; err == nil {
		t.Fatal("call cut off by the hard stop succeeded")
	}
}

// TestCleanupsRunInReverseOrder checks that Serve releases resources last
// acquired first, runs every cleanup even when one fails, and reports the
// failure.
func TestCleanupsRunInReverseOrder(t *testing.T) {
	log, logs := testLogger(t)
	srv, err := newServer(testConfig(t), log)
	if err != nil {
		t.Fatalf("newServer: %v", err)
	}
	var order []string
	record := func(name string, err error) {
		srv.run.Cleanups.Add(name, func() error { order = append(order, name); return err })
	}
	record("first", errors.New("boom"))
	record("second", nil)

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // shut down at once
	err = srv.Serve(ctx, lis)
	if err == nil || !strings.Contains(err.Error(), "release first: boom") {
		t.Fatalf("Serve: %v, want the failing cleanup's error", err)
	}
	if want := []string{"second", "first"}; !slices.Equal(order, want) {
		t.Fatalf("cleanups ran in order %v, want %v", order, want)
	}
	if logs.FilterMessage("cleanup failed").Len() != 1 {
		t.Fatal("failing cleanup was not logged")
	}
	if err := srv.Serve(context.Background(), lis); err == nil {
		t.Fatal("second Serve succeeded")
	}
}

func TestInterceptorOrder(t *testing.T) {
	chain := interceptorChain(zap.NewNop())
	var names []string
	for _, ic := range chain {
		names = append(names, ic.name)
		if ic.unary == nil || ic.stream == nil {
			t.Errorf("interceptor %q lacks a unary or stream form", ic.name)
		}
	}
	if want := []string{"request-id", "logging", "recovery"}; !slices.Equal(names, want) {
		t.Fatalf("interceptor chain = %v, want %v", names, want)
	}
}

// TestRecovery checks that a panicking handler returns Internal "internal
// error" without the panic text, that the panic and its stack are logged at
// error level with the call's request id, and that the access log records the
// call as Internal (recovery is inside logging).
func TestRecovery(t *testing.T) {
	svc := newTestService()
	ts := startTestServer(t, testConfig(t), svc.register)
	ctx := metadata.AppendToOutgoingContext(testContext(t), requestIDHeader, "req-42")
	client := testgrpc.NewTestServiceClient(ts.conn)

	var header metadata.MD
	_, err := client.EmptyCall(ctx, &testgrpc.Empty{}, grpc.Header(&header))
	assertInternal(t, "unary", err)
	if got := header.Get(requestIDHeader); !slices.Equal(got, []string{"req-42"}) {
		t.Errorf("response header %s = %v, want [req-42]", requestIDHeader, got)
	}

	stream, err := client.StreamingOutputCall(ctx, &testgrpc.StreamingOutputCallRequest{})
	if err != nil {
		t.Fatalf("StreamingOutputCall: %v", err)
	}
	_, err = stream.Recv()
	assertInternal(t, "stream", err)

	panics := ts.logs.FilterMessage("recovered from panic in handler").All()
	if len(panics) != 2 {
		t.Fatalf("got %d panic log entries, want 2", len(panics))
	}
	for _, e := range panics {
		fields := e.ContextMap()
		if e.Level != zapcore.ErrorLevel {
			t.Errorf("panic logged at %v, want error", e.Level)
		}
		if fields["panic"] != secretPanicText {
			t.Errorf("panic field = %v, want %q", fields["panic"], secretPanicText)
		}
		if stack, _ := fields["stack"].(string); !strings.Contains(stack, "(*testService).") {
			t.Errorf("stack does not show the panicking handler:\n%s", stack)
		}
		if fields[requestIDField] != "req-42" {
			t.Errorf("panic entry request_id = %v, want req-42", fields[requestIDField])
		}
	}

	access := finishedCall(t, ts.logs, "EmptyCall")
	if access.Level != zapcore.ErrorLevel || access.ContextMap()["grpc.code"] != "Internal" {
		t.Errorf("access log of the panicking call: level %v, code %v; want error, Internal",
			access.Level, access.ContextMap()["grpc.code"])
	}
	if access.ContextMap()[requestIDField] != "req-42" {
		t.Errorf("access log request_id = %v, want req-42", access.ContextMap()[requestIDField])
	}
}

func assertInternal(t *testing.T, kind string, err error) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.Internal || st.Message() != "internal error" {
		t.Errorf("%s panic: got %v %q, want Internal \"internal error\"", kind, st.Code(), st.Message())
	}
	if err != nil && strings.Contains(err.Error(), "secret") {
		t.Errorf("%s panic text leaked to the client: %v", kind, err)
	}
}

func TestRequestID(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	health := healthpb.NewHealthClient(ts.conn)
	tests := []struct {
		name    string
		given   string // "" sends no x-request-id
		keepsIt bool
	}{
		{name: "caller's id is kept", given: "6f1c-Ab_9.z:1", keepsIt: true},
		{name: "missing id is generated"},
		{name: "id with a space is replaced", given: "a b"},
		{name: "overlong id is replaced", given: strings.Repeat("x", maxRequestIDLen+1)},
		{name: "longest id is kept", given: strings.Repeat("y", maxRequestIDLen), keepsIt: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := testContext(t)
			if tt.given != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, requestIDHeader, tt.given)
			}

			var header metadata.MD
			if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{}, grpc.Header(&header)); err != nil {
				t.Fatalf("unary Check: %v", err)
			}
			checkRequestID(t, "unary", header.Get(requestIDHeader), tt.given, tt.keepsIt)

			watch, err := health.Watch(ctx, &healthpb.HealthCheckRequest{})
			if err != nil {
				t.Fatalf("Watch: %v", err)
			}
			header, err = watch.Header()
			if err != nil {
				t.Fatalf("Watch header: %v", err)
			}
			checkRequestID(t, "stream", header.Get(requestIDHeader), tt.given, tt.keepsIt)
		})
	}
}

// TestRequestIDRejectsUnsafeValues covers ids a well-behaved gRPC client
// refuses to send, straight through the function that vets them.
func TestRequestIDRejectsUnsafeValues(t *testing.T) {
	for _, id := range []string{"a\tb", "line\nbreak", "caf\u00e9", "\x7f"} {
		ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs(requestIDHeader, id))
		if got := requestID(ctx); got == id || len(got) != 26 {
			t.Errorf("requestID with incoming %q = %q, want a fresh id", id, got)
		}
	}
}

func checkRequestID(t *testing.T, kind string, got []string, given string, keepsIt bool) {
	t.Helper()
	if len(got) != 1 || got[0] == "" {
		t.Fatalf("%s: response %s = %q, want one non-empty id", kind, requestIDHeader, got)
	}
	if keepsIt && got[0] != given {
		t.Errorf("%s: response id %q, want the caller's %q", kind, got[0], given)
	}
	if !keepsIt && (got[0] == given || len(got[0]) != 26) {
		t.Errorf("%s: response id %q, want a fresh 26-character id", kind, got[0])
	}
}

// TestHealthLoggedAtDebug checks that probe calls are logged at debug level
// while other calls keep the normal levels.
func TestHealthLoggedAtDebug(t *testing.T) {
	svc := newTestService()
	ts := startTestServer(t, testConfig(t), svc.register)
	ctx := testContext(t)
	checkHealth(ctx, t, ts.conn, "", healthpb.HealthCheckResponse_SERVING)
	if _, err := testgrpc.NewTestServiceClient(ts.conn).CacheableUnaryCall(ctx, &testgrpc.SimpleRequest{}); err != nil {
		t.Fatalf("CacheableUnaryCall: %v", err)
	}

	if e := finishedCall(t, ts.logs, "Check"); e.Level != zapcore.DebugLevel {
		t.Errorf("health Check logged at %v, want debug", e.Level)
	}
	if e := finishedCall(t, ts.logs, "CacheableUnaryCall"); e.Level != zapcore.InfoLevel {
		t.Errorf("successful call logged at %v, want info", e.Level)
	}
	if got := healthCodeToLevel(codes.Internal); got < healthCodeToLevel(codes.OK) {
		t.Errorf("failing health call level %v is below a successful one's", got)
	}
}

// TestListenAndServe checks that ListenAndServe logs the address it bound
// (port 0 here), serves on it and stops cleanly.
func TestListenAndServe(t *testing.T) {
	cfg := testConfig(t)
	log, logs := testLogger(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- ListenAndServe(ctx, cfg, log) }()

	addr, _ := waitForLog(t, logs, "serving gRPC").ContextMap()["address"].(string)
	if !strings.HasPrefix(addr, "127.0.0.1:") || addr == "127.0.0.1:0" {
		t.Fatalf("logged address %q, want the bound 127.0.0.1 port", addr)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer conn.Close()
	checkHealth(testContext(t), t, conn, "", healthpb.HealthCheckResponse_SERVING)
	_ = conn.Close()

	cancel()
	if err := <-served; err != nil {
		t.Fatalf("ListenAndServe: %v, want nil", err)
	}
}

func TestListenAndServeRejectsInvalidConfig(t *testing.T) {
	cfg := testConfig(t)
	cfg.Listen = ""
	if err := ListenAndServe(context.Background(), cfg, nil); err == nil {
		t.Fatal("ListenAndServe with an empty listen address succeeded")
	}
}

// TestRequestIDsDiffer: fresh ids are rand.Text's length and alphabet,
// each call's its own, and another process (a new source) starts elsewhere.
func TestRequestIDsDiffer(t *testing.T) {
	seen := map[string]bool{}
	for _, src := range []*idSource{requestIDs, newIDSource()} {
		for range 1000 {
			id := src.next()
			if len(id) != idLen || strings.Trim(id, idAlphabet) != "" {
				t.Fatalf("id %q: want %d characters of %s", id, idLen, idAlphabet)
			}
			if seen[id] {
				t.Fatalf("id %q made twice", id)
			}
			seen[id] = true
		}
	}
}
