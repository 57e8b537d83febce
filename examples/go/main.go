// Command example shows toolguard's Go client: repair and validate a broken
// tool call, write a file in the server's workspace, and follow a streamed
// model response. Start a server (make run), then:
//
//	go run ./examples/go 127.0.0.1:7700
//
// Against several replicas, give a name resolving to every pod (a headless
// Service, docs/deployment.md): dns:///toolguard-headless.toolguard:7700.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// balanced spreads calls over every address the target resolves to: a
// gRPC connection otherwise stays on one server (pick_first), so replicas
// added later get none of a long-lived client's calls.
const balanced = `{"loadBalancingConfig": [{"round_robin": {}}]}`

func main() {
	addr := "127.0.0.1:7700"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(balanced))
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		os.Exit(1)
	}
	defer func() { _ = conn.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := run(ctx, toolguardv1.NewToolGuardServiceClient(conn), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, client toolguardv1.ToolGuardServiceClient, out io.Writer) error {
	session := &toolguardv1.RequestContext{SessionId: "example-go"}

	// Claude Code's names, a Python dict instead of JSON: repaired, and said so.
	v, err := client.ValidateToolCall(ctx, &toolguardv1.ValidateToolCallRequest{Context: session, Call: textCall("Write",
		`{'file_path': 'src/app.py', 'text': 'print(1)\n',}`)})
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	show(out, "ValidateToolCall", v.GetVerdict())

	w, err := client.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: session, Call: textCall("write_to_file",
		`{"path": "src/app.py", "content": "print(\"hello\")\n"}`)})
	if err != nil {
		return fmt.Errorf("write: %w", err)
	}
	show(out, "ExecuteWrite", w.GetVerdict())
	if c := w.GetChange(); c != nil {
		fmt.Fprintf(out, "  %s %s, sha256 %s\n", c.GetKind(), c.GetPath(), c.GetSha256())
	}
	return stream(ctx, client, session, out)
}

// stream sends a response in the xml_tags format in 8-byte chunks and
// prints the events as they come.
func stream(ctx context.Context, client toolguardv1.ToolGuardServiceClient, session *toolguardv1.RequestContext, out io.Writer) error {
	s, err := client.StreamToolCalls(ctx)
	if err != nil {
		return fmt.Errorf("stream: %w", err)
	}
	response := "I'll add a test.\n<write_to_file>\n<path>src/test_app.py</path>\n" +
		"<content>\ndef test_app():\n    assert True\n</content>\n</write_to_file>\nDone."
	frames := []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
		Context: session, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS}}}}
	for i := 0; i < len(response); i += 8 {
		frames = append(frames, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{
			Delta: &toolguardv1.StreamDelta{Text: response[i:min(i+8, len(response))]}}})
	}
	frames = append(frames, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_End{
		End: &toolguardv1.StreamEnd{FinishReason: "stop"}}})
	// A real client sends while it reads; these frames are small enough to
	// send first.
	for _, f := range frames {
		if err := s.Send(f); err != nil {
			return fmt.Errorf("stream send: %w", err)
		}
	}
	if err := s.CloseSend(); err != nil {
		return fmt.Errorf("stream close: %w", err)
	}
	fmt.Fprintln(out, "== StreamToolCalls")
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("stream receive: %w", err)
		}
		switch e := ev.GetEvent().(type) {
		case *toolguardv1.StreamToolCallsResponse_Text:
			fmt.Fprintf(out, "  text %q\n", e.Text.GetText())
		case *toolguardv1.StreamToolCallsResponse_CallStarted:
			fmt.Fprintf(out, "  call_started %s\n", e.CallStarted.GetToolName())
		case *toolguardv1.StreamToolCallsResponse_CallComplete:
			fmt.Fprintf(out, "  call_complete ok=%v truncated=%v\n", e.CallComplete.GetVerdict().GetOk(), e.CallComplete.GetTruncated())
		case *toolguardv1.StreamToolCallsResponse_Done:
			fmt.Fprintf(out, "  done calls=%d\n", e.Done.GetCalls())
		}
	}
}

func textCall(name, args string) *toolguardv1.ToolCall {
	return &toolguardv1.ToolCall{Name: name, Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}}
}

func show(out io.Writer, title string, v *toolguardv1.Verdict) {
	fmt.Fprintf(out, "== %s\nok=%v tool=%s arguments=%s\n", title, v.GetOk(), v.GetToolName(), v.GetArgumentsJson())
	for _, r := range v.GetRepairs() {
		fmt.Fprintf(out, "  repair %s: %s\n", r.GetCode(), r.GetDetail())
	}
	for _, x := range v.GetViolations() {
		fmt.Fprintf(out, "  violation %s: %s\n", x.GetCode(), x.GetMessage())
	}
}
