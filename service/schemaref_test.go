//go:build unix

package service_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

const refSentinel = "s3ntinel-7f3a"

// refTargets makes files for schemas to point at: a JSON file holding the
// sentinel, and a FIFO, whose open blocks until a writer comes. It returns
// the $ref values to try, by name.
func refTargets(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	secret, fifo := filepath.Join(dir, "secret.json"), filepath.Join(dir, "fifo")
	if err := os.WriteFile(secret, []byte(`{"v":"`+refSentinel+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A server thread stuck in open(2) on the FIFO is let go by a writer.
	t.Cleanup(func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			_ = f.Close()
		}
	})
	return map[string]string{
		"missing file":  "file:///nonexistent/x.json",
		"existing file": "file://" + secret + "#/v",
		"fifo":          "file://" + fifo,
		"relative":      "secret.json",
		"https":         "https://example.com/s.json",
	}
}

// refTool is a tool whose parameter x refers to ref.
func refTool(t *testing.T, ref string) *toolguardv1.ToolDefinition {
	return &toolguardv1.ToolDefinition{Name: "probe", Parameters: mustStruct(t, map[string]any{
		"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": ref}},
	})}
}

// checkRefRefusal asserts the refusal of a tools[index] referring to ref:
// INVALID_ARGUMENT, reason SCHEMA_REF_NOT_ALLOWED naming the ref, a field
// violation at tools[index], and no operating-system text anywhere.
func checkRefRefusal(t *testing.T, err error, ref string, index int) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("code %v (%v), want InvalidArgument", st.Code(), err)
	}
	texts := []string{st.Message()}
	var reason, field, fieldReason string
	for _, d := range st.Details() {
		switch x := d.(type) {
		case *errdetails.ErrorInfo:
			reason = x.GetReason()
			if x.GetMetadata()["ref"] != ref {
				t.Errorf("metadata %v, want ref %q", x.GetMetadata(), ref)
			}
		case *errdetails.BadRequest:
			for _, v := range x.GetFieldViolations() {
				field, fieldReason = v.GetField(), v.GetReason()
				texts = append(texts, v.GetDescription())
			}
		}
	}
	if reason != "SCHEMA_REF_NOT_ALLOWED" || fieldReason != reason || field != fmt.Sprintf("tools[%d]", index) {
		t.Errorf("reason %q, field %q (%q), want SCHEMA_REF_NOT_ALLOWED at tools[%d]: %v", reason, field, fieldReason, index, err)
	}
	for _, text := range texts {
		if !strings.Contains(text, ref) {
			t.Errorf("%q does not name the ref %q", text, ref)
		}
		for _, s := range []string{"no such file", "open /", "invalid character", refSentinel} {
			if strings.Contains(text, s) {
				t.Errorf("%q leaks %q", text, s)
			}
		}
	}
}

func TestToolSchemaRefsRefusedOverGRPC(t *testing.T) {
	c := startClient(t, service.Config{})
	valid := &toolguardv1.ToolDefinition{Name: "ok", Parameters: mustStruct(t, map[string]any{"type": "object"})}
	for name, ref := range refTargets(t) {
		t.Run(name, func(t *testing.T) {
			// A generous bound: the answer must come, not come fast.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			start := time.Now()
			_, err := c.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{
				Context: &toolguardv1.RequestContext{SessionId: "refs"}, Call: textCall("probe", `{"x":"y"}`),
				Tools: []*toolguardv1.ToolDefinition{valid, refTool(t, ref)},
			})
			t.Logf("%s: answered in %v", name, time.Since(start))
			checkRefRefusal(t, err, ref, 1)
		})
	}
}

func TestStreamToolSchemaRefsRefused(t *testing.T) {
	c := startClient(t, service.Config{})
	for name, ref := range refTargets(t) {
		t.Run(name, func(t *testing.T) {
			frames := []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
				Context: &toolguardv1.RequestContext{SessionId: "refs"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI,
				Tools: []*toolguardv1.ToolDefinition{refTool(t, ref)},
			}}}, endFrame("stop")}
			// A generous bound: the answer must come, not come fast.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			st, err := c.StreamToolCalls(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range frames {
				if err := st.Send(f); err != nil {
					break // the server ended the stream: Recv says why
				}
			}
			for err == nil {
				_, err = st.Recv()
			}
			checkRefRefusal(t, err, ref, 0)
		})
	}
}
