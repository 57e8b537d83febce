package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/service"
)

// unknownParams is write_to_file arguments with n parameters the tool does
// not declare.
func unknownParams(n int) string {
	var b strings.Builder
	b.WriteString(`{"path":"a.txt","content":"x"`)
	for i := range n {
		fmt.Fprintf(&b, `,"unknown_%07d":1`, i)
	}
	return b.String() + "}"
}

// maxVerdictReply is the bound of a ValidateToolCall reply whatever the
// request under the receive limit.
const maxVerdictReply = 512 << 10

// TestUnknownParamsReplyBounded: a megabyte of unknown parameters is one
// mistake with a bounded answer. The unknown parameters are named in the
// violations (capped and counted), not copied back in the arguments.
func TestUnknownParamsReplyBounded(t *testing.T) {
	c := startClient(t, service.Config{})
	const n = 100_000
	req := &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "many-keys"},
		Call: textCall("write_to_file", unknownParams(n))}
	// A large receive limit, so a reply too large fails on its size below
	// and not in the client.
	resp, err := c.ValidateToolCall(context.Background(), req, grpc.MaxCallRecvMsgSize(256<<20))
	if err != nil {
		t.Fatalf("ValidateToolCall: %v", err)
	}
	v := resp.GetVerdict()
	if v.GetOk() || len(v.GetViolations()) != repair.MaxViolations || v.GetViolationsOmitted() != n-repair.MaxViolations {
		t.Errorf("ok=%v, %d violations listed, %d omitted; want false, %d, %d",
			v.GetOk(), len(v.GetViolations()), v.GetViolationsOmitted(), repair.MaxViolations, n-repair.MaxViolations)
	}
	if got := v.GetMistakes().GetConsecutive(); got != 1 {
		t.Errorf("counted as %d consecutive mistakes, want 1", got)
	}
	if len(v.GetFeedback()) > repair.MaxFeedbackBytes || !strings.Contains(v.GetFeedback(), "more problems not listed") {
		t.Errorf("feedback of %d bytes (at most %d) without the count of the rest:\n%.500s", len(v.GetFeedback()), repair.MaxFeedbackBytes, v.GetFeedback())
	}
	if size := proto.Size(resp); size > maxVerdictReply {
		t.Errorf("reply of %d bytes for a request of %d, want at most %d", size, proto.Size(req), maxVerdictReply)
	}
	if got, want := v.GetArgumentsJson(), `{"content":"x","path":"a.txt"}`; got != want {
		t.Errorf("arguments_json %.200s, want %s: the unknown parameters left out", got, want)
	}
	if keys := len(v.GetArguments().GetFields()); keys != 2 || len(v.GetElided()) != 0 {
		t.Errorf("arguments hold %d parameters, %d elided; want path and content, none", keys, len(v.GetElided()))
	}
}

// TestVerdictReplyBounded: whatever grows in a call under the receive
// limit, a ValidateToolCall reply stays under 512 KiB; what it leaves out
// is listed with its size and hash, and a usable call's arguments come
// whole in arguments_json while they fit, once.
func TestVerdictReplyBounded(t *testing.T) {
	t.Parallel()
	content := func(n int) string { return strings.Repeat("x", n) }
	openTool, err := structpb.NewStruct(map[string]any{"type": "object", "additionalProperties": true})
	if err != nil {
		t.Fatal(err)
	}
	var todos strings.Builder
	todos.WriteString(`{"todos":[`)
	for i := range 60_000 {
		if i > 0 {
			todos.WriteString(",")
		}
		fmt.Fprintf(&todos, `{"id":"%d","content":"task %d","status":"pending"}`, i, i)
	}
	todos.WriteString("]}")
	tests := []struct {
		name   string
		call   *toolguardv1.ToolCall
		open   bool   // the call is for a caller's tool that takes any parameter
		whole  string // a value arguments_json carries whole, and the Struct as a marker
		elided string // a field left out of both
	}{
		{name: "a 400 KB content, once", call: textCall("write_to_file", `{"path":"a.txt","content":"`+content(400_000)+`"}`), whole: "content"},
		{name: "a 10 MB content", call: textCall("write_to_file", `{"path":"a.txt","content":"`+content(10<<20)+`"}`), elided: "content"},
		{name: "a 10 MB content as parameters", call: &toolguardv1.ToolCall{Name: "write_to_file",
			Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{Values: map[string]string{"path": "a.txt", "content": content(10 << 20)}}}},
			elided: "content"},
		{name: "300,000 unknown parameters", call: textCall("write_to_file", unknownParams(300_000))},
		{name: "60,000 todos", call: textCall("todo_write", todos.String()), elided: "todos"},
		{name: "200,000 parameters a tool accepts", call: textCall("open_tool", unknownParams(200_000)), open: true, elided: ""},
	}
	c := startClient(t, service.Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "bounded"}, Call: tt.call}
			if tt.open {
				req.Tools = []*toolguardv1.ToolDefinition{{Name: "open_tool", Parameters: openTool}}
			}
			resp, err := c.ValidateToolCall(context.Background(), req, grpc.MaxCallRecvMsgSize(256<<20))
			if err != nil {
				t.Fatalf("ValidateToolCall: %v", err)
			}
			v := resp.GetVerdict()
			if size := proto.Size(resp); size > maxVerdictReply {
				t.Errorf("reply of %d bytes for a request of %d, want at most %d", size, proto.Size(req), maxVerdictReply)
			}
			elided := map[string]*toolguardv1.Elision{}
			for _, e := range v.GetElided() {
				elided[e.GetField()] = e
			}
			args := v.GetArguments().AsMap()
			if tt.whole != "" {
				e, value := elided[tt.whole], argAt(jsonArgs(t, v), tt.whole)
				if !v.GetOk() || e.GetSize() != uint64(len(value)) || e.GetSha256() != sha(value) || argAt(args, tt.whole) != marker(value) {
					t.Errorf("ok=%v %s: %d bytes in arguments_json, elision %v, Struct %.100q; want it whole once", v.GetOk(), tt.whole, len(value), e, argAt(args, tt.whole))
				}
			}
			if e, ok := elided[tt.elided]; tt.elided != "" || tt.open {
				if !ok || e.GetSha256() == "" || e.GetSize() == 0 {
					t.Fatalf("elided %v, want %q listed", v.GetElided(), tt.elided)
				}
				if tt.elided != "" && (argAt(args, tt.elided) != marker0(e) || !strings.Contains(v.GetArgumentsJson(), marker0(e))) {
					t.Errorf("%s is not its marker in both forms", tt.elided)
				}
			}
		})
	}
}

// TestRefusedWriteReplyBounded: an ExecuteWrite refused for its unknown
// parameters answers as ValidateToolCall does: they are named in the
// violations, not copied back, and nothing is written.
func TestRefusedWriteReplyBounded(t *testing.T) {
	c, dir := startWorkspace(t, service.Config{})
	const n = 100_000
	req := &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "refused-many-keys"},
		Call: textCall("write_to_file", unknownParams(n))}
	resp, err := c.ExecuteWrite(context.Background(), req, grpc.MaxCallRecvMsgSize(256<<20))
	if err != nil {
		t.Fatalf("ExecuteWrite: %v", err)
	}
	v := resp.GetVerdict()
	if size := proto.Size(resp); size > maxVerdictReply {
		t.Errorf("reply of %d bytes for a request of %d, want at most %d", size, proto.Size(req), maxVerdictReply)
	}
	if v.GetOk() || v.GetViolationsOmitted() != n-repair.MaxViolations || strings.Contains(v.GetArgumentsJson(), "unknown_") {
		t.Errorf("ok=%v, %d violations omitted, arguments_json %.200s", v.GetOk(), v.GetViolationsOmitted(), v.GetArgumentsJson())
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a.txt: %v, want it not written", err)
	}
}

func jsonArgs(t *testing.T, v *toolguardv1.Verdict) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(v.GetArgumentsJson()), &m); err != nil {
		t.Fatalf("arguments_json: %v", err)
	}
	return m
}

// marker0 is an elision's marker as it stands in the arguments.
func marker0(e *toolguardv1.Elision) string {
	return fmt.Sprintf("<elided %d bytes sha256:%s>", e.GetSize(), e.GetSha256())
}

// TestStreamVerdictCountsOmittedViolations: a streamed call's verdict
// carries the count of the violations past the cap, and leaves the unknown
// parameters out of its arguments, as ValidateToolCall's does.
func TestStreamVerdictCountsOmittedViolations(t *testing.T) {
	c := startClient(t, service.Config{})
	const n = repair.MaxViolations + 10
	frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("stream-many-keys", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, nil)},
		argFrames(0, "call_1", "write_to_file", unknownParams(n), 4096)...), endFrame("tool_calls"))
	events, err := streamRun(t, c, frames)
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, events)
	if len(s.complete) != 1 {
		t.Fatalf("%d calls completed, want 1", len(s.complete))
	}
	v := s.complete[0].GetVerdict()
	if v.GetOk() || len(v.GetViolations()) != repair.MaxViolations || v.GetViolationsOmitted() != 10 {
		t.Errorf("ok=%v, %d violations listed, %d omitted; want false, %d, 10", v.GetOk(), len(v.GetViolations()), v.GetViolationsOmitted(), repair.MaxViolations)
	}
	if got := len(v.GetArguments().GetFields()); got != 2 || strings.Contains(v.GetArgumentsJson(), "unknown_") {
		t.Errorf("the streamed verdict echoes %d parameters, want path and content alone: %.200s", got, v.GetArgumentsJson())
	}
}
