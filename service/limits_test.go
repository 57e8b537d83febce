package service_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// These tests hold a real loopback server to its limits: each refusal's
// code and ErrorInfo reason, and that other callers are still served.

// TestOversizeMessageRefused checks the message size limit. Its refusal is
// gRPC's own RESOURCE_EXHAUSTED, which carries no ErrorInfo: grpc-go writes
// it before any of toolguard's code runs (see limits.go).
func TestOversizeMessageRefused(t *testing.T) {
	c, _, _ := startAuthenticated(t, service.Config{MaxRecvMsgBytes: 4096})
	big := &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s"},
		Call: textCall("Write", `{"file_path": "a.txt", "content": "`+strings.Repeat("x", 8192)+`"}`)}

	_, err := c.ValidateToolCall(as(alice), big)
	st := wantRefusal(t, "8 KiB request, 4 KiB limit", err, codes.ResourceExhausted, "")
	if !strings.Contains(st.Message(), "larger than max") || !strings.Contains(st.Message(), "4096") {
		t.Errorf("message %q does not say the request is over the limit", st.Message())
	}
	stillServes(t, c, alice)
	stillServes(t, c, bob)

	// A stream frame over the limit ends the stream the same way.
	_, err = streamAs(as(alice), c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil),
		&toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{Text: strings.Repeat("x", 8192)}}},
		endFrame("stop"))
	wantRefusal(t, "8 KiB stream frame", err, codes.ResourceExhausted, "")
	stillServes(t, c, bob)
}

// deepSchema returns a JSON Schema nesting properties levels deep (two
// levels of Struct each).
func deepSchema(t *testing.T, levels int) *structpb.Struct {
	t.Helper()
	schema := map[string]any{"type": "string"}
	for range levels {
		schema = map[string]any{"type": "object", "properties": map[string]any{"p": schema}}
	}
	s, err := structpb.NewStruct(schema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTooDeepJSONRefused(t *testing.T) {
	c, _, _ := startAuthenticated(t, service.Config{MaxJSONDepth: 16})
	rc := &toolguardv1.RequestContext{SessionId: "s"}
	deep := `{"file_path": "a.txt", "content": ` + strings.Repeat("[", 16) + strings.Repeat("]", 16) + `}` // 17 levels

	refusals := []struct {
		name  string
		call  func() error
		field string
	}{
		{"arguments_text", func() error {
			_, err := c.ValidateToolCall(as(alice), &toolguardv1.ValidateToolCallRequest{Context: rc, Call: textCall("Write", deep)})
			return err
		}, "call.arguments_text"},
		{"ExecuteWrite arguments_text", func() error {
			_, err := c.ExecuteWrite(as(alice), &toolguardv1.ExecuteWriteRequest{Context: rc, Call: textCall("Write", deep)})
			return err
		}, "call.arguments_text"},
		{"tool schema", func() error {
			_, err := c.ValidateToolCall(as(alice), &toolguardv1.ValidateToolCallRequest{Context: rc, Call: textCall("t", "{}"),
				Tools: []*toolguardv1.ToolDefinition{{Name: "t", Parameters: deepSchema(t, 8)}}})
			return err
		}, "tools[0].parameters"},
		{"stream tool schema", func() error {
			start := startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)
			start.GetStart().Tools = []*toolguardv1.ToolDefinition{{Name: "t", Parameters: deepSchema(t, 8)}}
			_, err := streamAs(as(alice), c, start, endFrame("stop"))
			return err
		}, "start.tools[0].parameters"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			st := wantRefusal(t, tt.name, tt.call(), codes.InvalidArgument, "JSON_TOO_DEEP")
			var field string
			for _, d := range st.Details() {
				if br, ok := d.(*errdetails.BadRequest); ok {
					field = br.GetFieldViolations()[0].GetField()
				}
			}
			if field != tt.field || !strings.Contains(st.Message(), "more than 16 levels deep") {
				t.Errorf("field %q, message %q; want field %q and the limit", field, st.Message(), tt.field)
			}
			stillServes(t, c, bob)
		})
	}

	// At the limit, and brackets inside strings, are fine.
	for _, args := range []string{
		`{"file_path": "a.txt", "content": ` + strings.Repeat("[", 15) + strings.Repeat("]", 15) + `}`,
		`{"file_path": "a.txt", "content": "` + strings.Repeat("[", 100) + `"}`,
	} {
		if _, err := c.ValidateToolCall(as(alice), &toolguardv1.ValidateToolCallRequest{Context: rc, Call: textCall("Write", args)}); err != nil {
			t.Errorf("arguments %.60q: %v", args, err)
		}
	}
	if _, err := c.ValidateToolCall(as(alice), &toolguardv1.ValidateToolCallRequest{Context: rc, Call: textCall("t", "{}"),
		Tools: []*toolguardv1.ToolDefinition{{Name: "t", Parameters: deepSchema(t, 7)}}}); err != nil {
		t.Errorf("schema 15 levels deep: %v", err)
	}
}

func TestRateLimit(t *testing.T) {
	// One token every 1000 seconds: after its burst, a principal is refused
	// for the rest of the test.
	c, conn, _ := startAuthenticated(t, service.Config{RateLimit: 0.001, RateBurst: 3})
	for i := range 3 {
		if _, err := c.ListTools(as(alice), &toolguardv1.ListToolsRequest{}); err != nil {
			t.Fatalf("call %d of the burst: %v", i+1, err)
		}
	}
	_, err := c.ListTools(as(alice), &toolguardv1.ListToolsRequest{})
	st := wantRefusal(t, "call after the burst", err, codes.ResourceExhausted, "RATE_LIMITED")
	var retry *errdetails.RetryInfo
	for _, d := range st.Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if retry == nil || retry.GetRetryDelay().AsDuration() <= 0 {
		t.Fatalf("RetryInfo %v, want a positive delay (%v)", retry, err)
	}
	if !strings.Contains(st.Message(), `"alice"`) {
		t.Errorf("message %q does not name the principal", st.Message())
	}
	// Streams count too.
	_, err = streamAs(as(alice), c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop"))
	wantRefusal(t, "stream after the burst", err, codes.ResourceExhausted, "RATE_LIMITED")

	// Each principal has its own bucket; health is never limited.
	stillServes(t, c, bob)
	for range 10 {
		if _, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
			t.Fatalf("health under a rate limit: %v", err)
		}
	}
}

func TestTooManyStreamsRefused(t *testing.T) {
	c, _, _ := startAuthenticated(t, service.Config{MaxStreams: 1})

	// alice holds the one stream: the text event shows its handler runs.
	held, err := c.StreamToolCalls(as(alice))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]*toolguardv1.StreamToolCallsRequest{startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)}, textFrames("plain text\n", 100)...) {
		if err := held.Send(f); err != nil {
			t.Fatal(err)
		}
	}
	if ev, err := held.Recv(); err != nil || ev.GetText() == nil {
		t.Fatalf("first event of the held stream: %v, %v", ev, err)
	}

	_, err = streamAs(as(bob), c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop"))
	wantRefusal(t, "a second stream", err, codes.ResourceExhausted, "TOO_MANY_STREAMS")
	stillServes(t, c, bob) // unary calls are not streams

	// Once alice's stream has ended (its status arrives after the handler
	// gave the slot back), bob's stream runs.
	if err := held.Send(endFrame("stop")); err != nil {
		t.Fatal(err)
	}
	for {
		_, err := held.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("held stream: %v", err)
		}
	}
	events, err := streamAs(as(bob), c, startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop"))
	if err != nil || len(events) == 0 || events[len(events)-1].GetDone() == nil {
		t.Fatalf("bob's stream after alice's ended: %v, %v", events, err)
	}
}

// TestStreamCallsRateLimited checks that each call a stream completes is
// charged to its principal's bucket, as a unary call is: one stream cannot
// run past the rate limit. The rate is one token every 1000 seconds, so the
// counts do not depend on how fast the machine is: the stream's opening
// takes one of the burst of 4, its first three calls the rest, and every
// later call is dropped with RATE_LIMITED, neither executed nor counted as a
// mistake.
func TestStreamCallsRateLimited(t *testing.T) {
	const calls, admitted = 10, 3
	tests := []struct {
		name    string
		execute bool
	}{
		{"executed writes", true},
		// A validated call costs what ValidateToolCall costs.
		{"validated only", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, cfg := startAuthenticated(t, service.Config{RateLimit: 0.001, RateBurst: admitted + 1})
			// Calls past the burst alternate usable and unusable ones (no
			// content): neither kind may count.
			var text strings.Builder
			for i := range calls {
				content := "<content>\nhello\n</content>\n"
				if i >= admitted && i%2 == 0 {
					content = ""
				}
				fmt.Fprintf(&text, "<write_to_file>\n<path>f%d.txt</path>\n%s</write_to_file>\n", i, content)
			}
			frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("limited", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS,
				&toolguardv1.StreamOptions{ExecuteOnComplete: tt.execute})}, textFrames(text.String(), 64)...), endFrame("stop"))
			events, err := streamAs(as(alice), c, frames...)
			if err != nil {
				t.Fatal(err)
			}
			var complete, limited []uint32
			var done *toolguardv1.StreamDoneEvent
			for _, ev := range events {
				switch {
				case ev.GetCallComplete() != nil:
					cc := ev.GetCallComplete()
					complete = append(complete, cc.GetIndex())
					if !cc.GetVerdict().GetOk() || tt.execute != cc.GetExecution().GetApplied() {
						t.Errorf("call %d: ok=%v applied=%v", cc.GetIndex(), cc.GetVerdict().GetOk(), cc.GetExecution().GetApplied())
					}
				case ev.GetError() != nil:
					e := ev.GetError()
					if e.GetCode() != "RATE_LIMITED" || e.Index == nil || !strings.Contains(e.GetMessage(), "retry in") || !strings.Contains(e.GetMessage(), `"alice"`) {
						t.Errorf("error event %v, want RATE_LIMITED for a call, naming alice and when to retry", e)
						continue
					}
					limited = append(limited, e.GetIndex())
				case ev.GetDone() != nil:
					done = ev.GetDone()
				}
			}
			if want := []uint32{0, 1, 2}; !slices.Equal(complete, want) {
				t.Errorf("calls completed %v, want %v", complete, want)
			}
			if want := []uint32{3, 4, 5, 6, 7, 8, 9}; !slices.Equal(limited, want) {
				t.Errorf("calls refused %v, want %v", limited, want)
			}
			if done == nil || done.GetCalls() != admitted || done.GetMistakes().GetConsecutive() != 0 {
				t.Errorf("done %v, want %d calls and no mistake", done, admitted)
			}
			for i := range calls {
				_, err := os.Stat(filepath.Join(cfg.Workspace, fmt.Sprintf("f%d.txt", i)))
				if written := err == nil; written != (tt.execute && i < admitted) {
					t.Errorf("f%d.txt written=%v", i, written)
				}
			}
			// The stream drew on the bucket the interceptor uses; bob's is
			// his own.
			_, err = c.ListTools(as(alice), &toolguardv1.ListToolsRequest{})
			wantRefusal(t, "alice's call after her stream", err, codes.ResourceExhausted, "RATE_LIMITED")
			stillServes(t, c, bob)
		})
	}
}
