package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/grpc"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// The 16 MB Python-dict write of BenchmarkLargePythonDictServer, executed:
// through ExecuteWrite, and streamed through StreamToolCalls, with and
// without execute_on_complete. Same harness, same figures (runLargeCalls):
//
//	TOOLGUARD_BENCH_BEFORE=/tmp/before.test go test -run '^$' -bench 'LargePythonDict(Execute|Stream)' -benchtime 8x ./bench/

// largeWrite is pythonDictWrite(16 MB) writing a file of its own, named by
// n: every call creates one, as a model writing a new file does.
func largeWrite(args string, n int) string {
	return strings.Replace(args, "'src/big.py'", fmt.Sprintf("'src/big-%d.py'", n), 1)
}

// createdFile says why ch is not the creation of a file of contentBytes.
func createdFile(ch *toolguardv1.FileChange, contentBytes int) error {
	if ch.GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED || ch.GetSize() != uint64(contentBytes) {
		return fmt.Errorf("not a file of %d bytes created: %v", contentBytes, ch)
	}
	return nil
}

// BenchmarkLargePythonDictExecute sends the call to ExecuteWrite, which
// also writes the file durably into the server's workspace.
func BenchmarkLargePythonDictExecute(b *testing.B) {
	args, contentBytes := pythonDictWrite(16 << 20)
	runLargeCalls(b, len(args), func(conn *grpc.ClientConn, n int) error {
		resp, err := toolguardv1.NewToolGuardServiceClient(conn).ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
			Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("bench-large-%d", n)},
			Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: largeWrite(args, n)}},
		})
		if err != nil {
			return err
		}
		if err := usableElided(resp.GetVerdict(), contentBytes); err != nil {
			return err
		}
		return createdFile(resp.GetChange(), contentBytes)
	})
}

// streamDeltaBytes is the size of each streamed fragment of the arguments.
const streamDeltaBytes = 4 << 10

// BenchmarkLargePythonDictStream streams the call to StreamToolCalls as
// OpenAI tool-call deltas of 4 KB, validated only and executed on
// completion.
func BenchmarkLargePythonDictStream(b *testing.B) {
	args, contentBytes := pythonDictWrite(16 << 20)
	for _, execute := range []bool{false, true} {
		name := "validate"
		if execute {
			name = "execute_on_complete"
		}
		b.Run(name, func(b *testing.B) {
			runLargeCalls(b, len(args), func(conn *grpc.ClientConn, n int) error {
				done, err := streamLarge(conn, n, largeWrite(args, n), execute)
				if err != nil {
					return err
				}
				if err := usableElided(done.GetVerdict(), contentBytes); err != nil {
					return err
				}
				if !execute {
					return nil
				}
				if chs := done.GetExecution().GetChanges(); len(chs) != 1 {
					return fmt.Errorf("executed: %d changes", len(chs))
				}
				return createdFile(done.GetExecution().GetChanges()[0], contentBytes)
			})
		})
	}
}

// streamLarge streams args as the arguments of the n-th session's one
// write_to_file call, in streamDeltaBytes fragments, and returns its
// call_complete event. Events are read while the deltas are sent: the
// server streams the content back as it grows.
func streamLarge(conn *grpc.ClientConn, n int, args string, execute bool) (*toolguardv1.CallCompleteEvent, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := toolguardv1.NewToolGuardServiceClient(conn).StreamToolCalls(ctx)
	if err != nil {
		return nil, err
	}
	sent := make(chan error, 1)
	go func() { sent <- sendLarge(st, n, args, execute) }()
	var complete *toolguardv1.CallCompleteEvent
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch {
		case ev.GetCallComplete() != nil:
			complete = ev.GetCallComplete()
		case ev.GetError() != nil:
			return nil, fmt.Errorf("stream error event: %v", ev.GetError())
		}
	}
	if err := <-sent; err != nil {
		return nil, err
	}
	if complete == nil {
		return nil, errors.New("no call_complete event")
	}
	return complete, nil
}

func sendLarge(st grpc.BidiStreamingClient[toolguardv1.StreamToolCallsRequest, toolguardv1.StreamToolCallsResponse], n int, args string, execute bool) error {
	err := st.Send(&toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
		Context: &toolguardv1.RequestContext{SessionId: fmt.Sprintf("bench-large-%d", n)},
		Format:  toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI,
		Options: &toolguardv1.StreamOptions{ExecuteOnComplete: execute},
	}}})
	for i, j := 0, 0; err == nil && i < len(args); i = j {
		j = min(i+streamDeltaBytes, len(args))
		for j < len(args) && !utf8.RuneStart(args[j]) {
			j-- // a fragment is valid UTF-8: a protobuf string
		}
		d := &toolguardv1.ToolCallDelta{Arguments: args[i:j], Done: j == len(args)}
		if i == 0 {
			d.Id, d.Name = "call_0", "write_to_file"
		}
		err = st.Send(&toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{d}}}})
	}
	if err == nil {
		err = st.Send(&toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: "tool_calls"}}})
	}
	if err == nil {
		err = st.CloseSend()
	}
	return err
}
