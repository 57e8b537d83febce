package service_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

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

// TestUnknownParamsReplyBounded: a megabyte of unknown parameters is one
// mistake with a bounded answer. Only the arguments, echoed as given, grow
// with the call; the violations are capped and counted and the feedback
// is bounded.
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
	size, reqSize := proto.Size(resp), proto.Size(req)
	if rest := size - proto.Size(v.GetArguments()) - len(v.GetArgumentsJson()); rest > 64<<10 {
		t.Errorf("the reply holds %d bytes besides the arguments, want at most 64 KiB", rest)
	}
	// The arguments come back twice (Struct and JSON), the Struct about
	// 1.7 times the JSON for values this small.
	if size > 3*reqSize+64<<10 {
		t.Errorf("reply of %d bytes for a request of %d", size, reqSize)
	}
}

// TestStreamVerdictCountsOmittedViolations: a streamed call's verdict
// carries the count of the violations past the cap, as ValidateToolCall's
// does.
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
}
