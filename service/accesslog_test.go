package service

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zapcore"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// TestFinishedCallLine pins the access-log line: its fields in order, the
// fixed values exactly, the varying ones (address, times) by form.
func TestFinishedCallLine(t *testing.T) {
	ts := startTestServer(t, testConfig(t))
	tg := toolguardv1.NewToolGuardServiceClient(ts.conn)
	md := metadata.Pairs(requestIDHeader, "req-9")
	// A client of the project's names itself; the line says which.
	withDeadline := func() context.Context {
		ctx, cancel := context.WithTimeout(metadata.NewOutgoingContext(context.Background(), metadata.Join(md, metadata.Pairs(ClientHeader, "python/0.1.0"))), time.Minute)
		t.Cleanup(cancel)
		return ctx
	}
	noDeadline := metadata.NewOutgoingContext(context.Background(), md)

	tests := []struct {
		method string
		call   func() error
		level  zapcore.Level
		keys   []string
		fixed  map[string]string
	}{
		{
			method: "ValidateToolCall",
			call: func() error {
				_, err := tg.ValidateToolCall(withDeadline(), &toolguardv1.ValidateToolCallRequest{
					Context: &toolguardv1.RequestContext{SessionId: "s-1"},
					Call:    &toolguardv1.ToolCall{Name: "Write", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: `{'file_path': 'a.txt', 'text': 'x'}`}},
				})
				return err
			},
			level: zapcore.InfoLevel,
			keys: []string{"protocol", "grpc.component", "grpc.service", "grpc.method", "grpc.method_type", "request_id", "peer.address", "client",
				"grpc.start_time", "grpc.request.deadline", "grpc.code", "grpc.time_ms", "principal", "session_id", "tool", "usable", "repairs"},
			fixed: map[string]string{"protocol": "grpc", "grpc.component": "server", "grpc.service": "toolguard.v1.ToolGuardService", "client": "python/0.1.0",
				"grpc.method_type": "unary", "request_id": "req-9", "grpc.code": "OK", "session_id": "s-1", "tool": "write_to_file", "usable": "true",
				"repairs": "[PYTHON_LITERAL TOOL_ALIAS ALIAS_RENAMED]", "principal": "anonymous"},
		},
		{
			method: "GetSession",
			call: func() error {
				_, err := tg.GetSession(noDeadline, &toolguardv1.GetSessionRequest{SessionId: ""})
				if err == nil {
					return fmt.Errorf("GetSession with no id succeeded")
				}
				return nil
			},
			level: zapcore.InfoLevel,
			keys: []string{"protocol", "grpc.component", "grpc.service", "grpc.method", "grpc.method_type", "request_id", "peer.address",
				"grpc.start_time", "grpc.code", "grpc.error", "grpc.time_ms", "principal"},
			fixed: map[string]string{"grpc.service": "toolguard.v1.ToolGuardService", "grpc.method_type": "unary", "request_id": "req-9",
				"grpc.code": "InvalidArgument"},
		},
		{
			method: "Check",
			call: func() error {
				_, err := healthpb.NewHealthClient(ts.conn).Check(noDeadline, &healthpb.HealthCheckRequest{})
				return err
			},
			level: zapcore.DebugLevel,
			keys: []string{"protocol", "grpc.component", "grpc.service", "grpc.method", "grpc.method_type", "request_id", "peer.address",
				"grpc.start_time", "grpc.code", "grpc.time_ms"},
			fixed: map[string]string{"grpc.service": "grpc.health.v1.Health", "grpc.method_type": "unary", "grpc.code": "OK"},
		},
		{
			method: "StreamToolCalls",
			call: func() error {
				st, err := tg.StreamToolCalls(noDeadline)
				if err != nil {
					return err
				}
				_ = st.CloseSend()
				for {
					if _, err := st.Recv(); err != nil {
						return nil
					}
				}
			},
			level: zapcore.InfoLevel,
			keys: []string{"protocol", "grpc.component", "grpc.service", "grpc.method", "grpc.method_type", "request_id", "peer.address",
				"grpc.start_time", "grpc.code", "grpc.error", "grpc.time_ms", "principal"},
			fixed: map[string]string{"grpc.method_type": "bidi_stream", "grpc.code": "InvalidArgument"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			if err := tt.call(); err != nil {
				t.Fatal(err)
			}
			e := finishedCall(t, ts.logs, tt.method)
			if e.Level != tt.level {
				t.Errorf("level %v, want %v", e.Level, tt.level)
			}
			var keys []string
			for _, f := range e.Context {
				keys = append(keys, f.Key)
			}
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("fields\n got %v\nwant %v", keys, tt.keys)
			}
			got := e.ContextMap()
			tt.fixed["grpc.method"] = tt.method
			for k, want := range tt.fixed {
				if s := fmt.Sprint(got[k]); s != want {
					t.Errorf("%s = %q, want %q", k, s, want)
				}
			}
			checkVaryingFields(t, got)
		})
	}
}

// TestClientVersionBounded: a caller's client header adds at most
// maxClientBytes to a log line, cut on a character boundary.
func TestClientVersionBounded(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", ""},
		{"typescript/0.1.0", "typescript/0.1.0"},
		{strings.Repeat("x", maxClientBytes), strings.Repeat("x", maxClientBytes)},
		{strings.Repeat("x", maxClientBytes+1), strings.Repeat("x", maxClientBytes) + "…"},
		{strings.Repeat("x", maxClientBytes-1) + "é", strings.Repeat("x", maxClientBytes-1) + "…"},
	}
	for _, tt := range tests {
		ctx := context.Background()
		if tt.header != "" {
			ctx = metadata.NewIncomingContext(ctx, metadata.Pairs(ClientHeader, tt.header))
		}
		if got := clientVersion(ctx); got != tt.want {
			t.Errorf("clientVersion(%q) = %q, want %q", tt.header, got, tt.want)
		}
	}
}

func checkVaryingFields(t *testing.T, fields map[string]any) {
	t.Helper()
	for _, k := range []string{"grpc.start_time", "grpc.request.deadline"} {
		if v, ok := fields[k]; ok {
			if _, err := time.Parse(time.RFC3339, v.(string)); err != nil {
				t.Errorf("%s = %q, not RFC 3339", k, v)
			}
		}
	}
	if ms, err := strconv.ParseFloat(fields["grpc.time_ms"].(string), 32); err != nil || ms < 0 {
		t.Errorf("grpc.time_ms = %q, want milliseconds", fields["grpc.time_ms"])
	}
	if addr, _ := fields["peer.address"].(string); addr == "" {
		t.Error("no peer.address")
	}
}

// TestStreamRateLimitedCallsLogged checks that a stream's access-log line
// counts the calls its rate limit dropped: each is an error event to the
// client, not a status the log would show.
func TestStreamRateLimitedCallsLogged(t *testing.T) {
	cfg := testConfig(t)
	cfg.RateLimit, cfg.RateBurst = 0.001, 2 // the stream, then one call
	ts := startTestServer(t, cfg)
	st, err := toolguardv1.NewToolGuardServiceClient(ts.conn).StreamToolCalls(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	frames := []*toolguardv1.StreamToolCallsRequest{
		{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
			Context: &toolguardv1.RequestContext{SessionId: "s"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS}}},
		{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{
			Text: strings.Repeat("<write_to_file><path>a.txt</path><content>x</content></write_to_file>\n", 3)}}},
		{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: "stop"}}},
	}
	for _, f := range frames {
		if err := st.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	_ = st.CloseSend()
	for {
		if _, err := st.Recv(); err != nil {
			break
		}
	}
	if got := finishedCall(t, ts.logs, "StreamToolCalls").ContextMap()["rate_limited_calls"]; fmt.Sprint(got) != "2" {
		t.Errorf("rate_limited_calls = %v, want 2", got)
	}
}
