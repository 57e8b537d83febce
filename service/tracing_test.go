package service

import (
	"context"
	"net"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/observe"
	"github.com/toolguard/toolguard/service/protoapi"
)

// keptSpans is an in-memory exporter that keeps its spans through Shutdown,
// so a test can read them after the server flushed them on its way out.
type keptSpans struct{ *tracetest.InMemoryExporter }

func (keptSpans) Shutdown(context.Context) error { return nil }

// startHookedServer is startTestServer with test hooks.
func startHookedServer(t *testing.T, cfg Config, hooks serverHooks) *testServer {
	t.Helper()
	log, logs := testLogger(t)
	srv, err := newServerWith(cfg, log, hooks)
	if err != nil {
		t.Fatalf("newServerWith: %v", err)
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

func validateRequest(session string) *toolguardv1.ValidateToolCallRequest {
	return &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: session},
		Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{"file_path":"a.py","text":"x"}`}},
	}
}

// TestTracingSpans runs calls through a server with tracing on and an
// in-memory exporter: a ValidateToolCall gets a server span under the
// toolguard resource that continues the caller's W3C trace, its access-log
// line carries the trace id, health checks get none, and the spans are
// flushed at shutdown.
func TestTracingSpans(t *testing.T) {
	exporter := keptSpans{tracetest.NewInMemoryExporter()}
	cfg := testConfig(t)
	cfg.OTLPEndpoint = "collector.invalid:4317" // on; the hook replaces the exporter
	ts := startHookedServer(t, cfg, serverHooks{spanExporter: exporter})
	ctx := testContext(t)

	checkHealth(ctx, t, ts.conn, "", healthpb.HealthCheckResponse_SERVING)
	const callerTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	callCtx := metadata.AppendToOutgoingContext(ctx, "traceparent", "00-"+callerTrace+"-00f067aa0ba902b7-01")
	if _, err := toolguardv1.NewToolGuardServiceClient(ts.conn).ValidateToolCall(callCtx, validateRequest("traced")); err != nil {
		t.Fatalf("ValidateToolCall: %v", err)
	}
	if err := ts.stop(t); err != nil {
		t.Fatalf("Serve: %v", err)
	}

	spans := exporter.GetSpans()
	var found *tracetest.SpanStub
	for i, s := range spans {
		if strings.HasPrefix(s.Name, "grpc.health.v1.Health/") {
			t.Errorf("health check traced: %s", s.Name)
		}
		if s.Name == "toolguard.v1.ToolGuardService/ValidateToolCall" {
			found = &spans[i]
		}
	}
	if found == nil {
		t.Fatalf("no ValidateToolCall span among %d spans", len(spans))
	}
	if found.SpanKind != trace.SpanKindServer {
		t.Errorf("span kind %v, want server", found.SpanKind)
	}
	if got := found.SpanContext.TraceID().String(); got != callerTrace {
		t.Errorf("span trace id %s, want the caller's %s", got, callerTrace)
	}
	attrs := map[attribute.Key]string{}
	for _, kv := range found.Resource.Attributes() {
		attrs[kv.Key] = kv.Value.String()
	}
	if attrs["service.name"] != "toolguard" || attrs["service.version"] != observe.Version {
		t.Errorf("resource service.name=%q service.version=%q, want toolguard %q", attrs["service.name"], attrs["service.version"], observe.Version)
	}

	access := finishedCall(t, ts.logs, "ValidateToolCall")
	if got := access.ContextMap()[traceIDField]; got != callerTrace {
		t.Errorf("access log trace_id = %v, want %s", got, callerTrace)
	}
	waitForLog(t, ts.logs, "tracing stopped: spans flushed")
}

// TestTracingOffByDefault checks that without an endpoint nothing is built:
// no provider, no stats handler, no trace id in the logs.
func TestTracingOffByDefault(t *testing.T) {
	tp, opts, err := newTracing(DefaultConfig(), serverHooks{})
	if tp != nil || opts != nil || err != nil {
		t.Fatalf("newTracing with no endpoint = %v, %v, %v; want nothing", tp, opts, err)
	}
	ts := startTestServer(t, testConfig(t))
	if ts.srv.tracing != nil {
		t.Fatal("tracing built with OTLPEndpoint empty")
	}
	if _, err := toolguardv1.NewToolGuardServiceClient(ts.conn).ValidateToolCall(testContext(t), validateRequest("untraced")); err != nil {
		t.Fatalf("ValidateToolCall: %v", err)
	}
	if _, ok := finishedCall(t, ts.logs, "ValidateToolCall").ContextMap()[traceIDField]; ok {
		t.Error("trace_id logged with tracing off")
	}
}

// TestLogsCarrySessionID checks that the access-log line of each call that
// names a session carries its session_id beside the request_id, and that
// a session id the request checks refuse is not logged.
func TestLogsCarrySessionID(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	ctx := metadata.AppendToOutgoingContext(testContext(t), requestIDHeader, "req-7")
	client := toolguardv1.NewToolGuardServiceClient(ts.conn)

	if _, err := client.ValidateToolCall(ctx, validateRequest("sess-42")); err != nil {
		t.Fatalf("ValidateToolCall: %v", err)
	}
	if _, err := client.GetSession(ctx, &toolguardv1.GetSessionRequest{SessionId: "sess-43"}); err != nil {
		t.Fatalf("GetSession: %v", err)
	}
	stream, err := client.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []*toolguardv1.StreamToolCallsRequest{
		{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
			Context: &toolguardv1.RequestContext{SessionId: "sess-44"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS}}},
		{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: "stop"}}},
	} {
		if err := stream.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	_ = stream.CloseSend()
	for {
		if _, err := stream.Recv(); err != nil {
			break
		}
	}
	// Refused: too long to log.
	if _, err := client.ResetSession(ctx, &toolguardv1.ResetSessionRequest{SessionId: strings.Repeat("s", protoapi.MaxSessionIDBytes+1)}); err == nil {
		t.Fatal("ResetSession with an overlong session id succeeded")
	}

	for method, want := range map[string]string{"ValidateToolCall": "sess-42", "GetSession": "sess-43", "StreamToolCalls": "sess-44"} {
		fields := finishedCall(t, ts.logs, method).ContextMap()
		if fields[sessionIDField] != want || fields[requestIDField] != "req-7" {
			t.Errorf("%s finished-call line: session_id=%v request_id=%v, want %s req-7", method, fields[sessionIDField], fields[requestIDField], want)
		}
	}
	if got, ok := finishedCall(t, ts.logs, "ResetSession").ContextMap()[sessionIDField]; ok {
		t.Errorf("refused session id logged: %.20v...", got)
	}
}

// TestAnnotateCall covers the helper outside and inside a call.
func TestAnnotateCall(t *testing.T) {
	annotateCall(context.Background(), "k", "v") // no call: nothing to do, no panic
	if got := callAnnotations(context.Background()); got != nil {
		t.Fatalf("annotations outside a call = %v", got)
	}
	ctx := withRequestID(context.Background(), "id")
	annotateCall(ctx, "principal", "alice")
	annotateCall(ctx, sessionIDField, "s1")
	annotateCall(ctx, sessionIDField, "s2")
	got := callAnnotations(ctx)
	if len(got) != 4 || got[0] != "principal" || got[1] != "alice" || got[2] != sessionIDField || got[3] != "s2" {
		t.Fatalf("annotations = %v, want principal=alice session_id=s2", got)
	}
	if requestIDFromContext(ctx) != "id" {
		t.Fatalf("request id = %q", requestIDFromContext(ctx))
	}
}
