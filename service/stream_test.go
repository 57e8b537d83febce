package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.uber.org/goleak"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// These tests stream model responses through a real loopback server.

// streamRun sends frames on a new stream and collects every event until
// the server closes it.
func streamRun(t *testing.T, c toolguardv1.ToolGuardServiceClient, frames []*toolguardv1.StreamToolCallsRequest) ([]*toolguardv1.StreamToolCallsResponse, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := c.StreamToolCalls(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sendErr := make(chan error, 1)
	go func() { // send while receiving, as a real client does
		for _, f := range frames {
			if err := st.Send(f); err != nil {
				sendErr <- err
				return
			}
		}
		sendErr <- st.CloseSend()
	}()
	var events []*toolguardv1.StreamToolCallsResponse
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			<-sendErr
			return events, nil
		}
		if err != nil {
			cancel()
			<-sendErr
			return events, err
		}
		events = append(events, ev)
	}
}

func startFrame(session string, format toolguardv1.StreamFormat, opts *toolguardv1.StreamOptions) *toolguardv1.StreamToolCallsRequest {
	return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
		Context: &toolguardv1.RequestContext{SessionId: session}, Format: format, Options: opts,
	}}}
}

// pieces splits s into pieces of about n bytes, at character boundaries:
// proto strings must be valid UTF-8, so a gRPC client cannot split a
// character (the parser library can, and its tests do).
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func textFrames(s string, n int) []*toolguardv1.StreamToolCallsRequest {
	var out []*toolguardv1.StreamToolCallsRequest
	for _, p := range pieces(s, n) {
		out = append(out, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{Text: p}}})
	}
	return out
}

func argFrames(index uint32, id, name, args string, n int) []*toolguardv1.StreamToolCallsRequest {
	var out []*toolguardv1.StreamToolCallsRequest
	for i, p := range append(pieces(args, n), "")[:max(1, len(pieces(args, n)))] {
		d := &toolguardv1.ToolCallDelta{Index: index, Arguments: p}
		if i == 0 {
			d.Id, d.Name = id, name
		}
		out = append(out, &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: &toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{d}}}})
	}
	return out
}

func endFrame(reason string) *toolguardv1.StreamToolCallsRequest {
	return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_End{End: &toolguardv1.StreamEnd{FinishReason: reason}}}
}

// streamSummary joins what a client sees: text, each call's previewed
// parameters, completions and the done event.
type streamSummary struct {
	text     string
	started  []*toolguardv1.CallStartedEvent
	params   map[string]string
	complete []*toolguardv1.CallCompleteEvent
	errors   []string
	done     *toolguardv1.StreamDoneEvent
}

func summarize(t *testing.T, events []*toolguardv1.StreamToolCallsResponse) streamSummary {
	t.Helper()
	s := streamSummary{params: map[string]string{}}
	for i, ev := range events {
		if s.done != nil {
			t.Errorf("event %d after done: %v", i, ev)
		}
		switch e := ev.GetEvent().(type) {
		case *toolguardv1.StreamToolCallsResponse_Text:
			s.text += e.Text.GetText()
		case *toolguardv1.StreamToolCallsResponse_CallStarted:
			s.started = append(s.started, e.CallStarted)
		case *toolguardv1.StreamToolCallsResponse_ParamUpdate:
			key := e.ParamUpdate.GetParam()
			if v, ok := e.ParamUpdate.GetValue().(*toolguardv1.ParamUpdateEvent_ValueJson); ok {
				s.params[key] = "json:" + v.ValueJson
			} else {
				s.params[key] += e.ParamUpdate.GetAppend()
			}
		case *toolguardv1.StreamToolCallsResponse_CallComplete:
			s.complete = append(s.complete, e.CallComplete)
		case *toolguardv1.StreamToolCallsResponse_Error:
			s.errors = append(s.errors, e.Error.GetCode())
		case *toolguardv1.StreamToolCallsResponse_Done:
			s.done = e.Done
		}
	}
	if s.done == nil {
		t.Error("no done event")
	}
	return s
}

// bigContent is about 1 MB of source-like text with quotes, backslashes,
// tags and non-ASCII characters.
func bigContent() string {
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString("func f() { s := \"</content> é \\\\ {}\" } // line\n")
	}
	return b.String()
}

func TestStreamLargeWriteExecuted(t *testing.T) {
	t.Parallel()
	c, ws := startWorkspace(t, service.Config{})
	content := bigContent()
	args, err := json.Marshal(map[string]string{"path": "big/openai.go", "content": content})
	if err != nil {
		t.Fatal(err)
	}
	opts := &toolguardv1.StreamOptions{ExecuteOnComplete: true}
	tests := []struct {
		name   string
		frames []*toolguardv1.StreamToolCallsRequest
		path   string
	}{
		{
			name: "openai deltas of 64 bytes",
			frames: append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("big-openai", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, opts)},
				argFrames(0, "call_1", "write_to_file", string(args), 64)...), endFrame("tool_calls")),
			path: "big/openai.go",
		},
		{
			name: "xml_tags text deltas of 64 bytes",
			frames: append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("big-xml", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, opts)},
				textFrames("I'll write the file.\n<write_to_file>\n<path>big/xml.go</path>\n<content>\n"+content+"\n</content>\n</write_to_file>", 64)...), endFrame("stop")),
			path: "big/xml.go",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			events, err := streamRun(t, c, tt.frames)
			if err != nil {
				t.Fatal(err)
			}
			s := summarize(t, events)
			if len(s.started) != 1 || s.started[0].GetToolName() != "write_to_file" || !s.started[0].GetKnown() {
				t.Fatalf("started: %v", s.started)
			}
			if s.params["content"] != content || s.params["path"] != tt.path {
				t.Errorf("previews: path %q, content of %d bytes (want %d), equal=%v", s.params["path"], len(s.params["content"]), len(content), s.params["content"] == content)
			}
			if len(s.complete) != 1 {
				t.Fatalf("%d calls completed", len(s.complete))
			}
			done := s.complete[0]
			if !done.GetVerdict().GetOk() || done.GetExecution() == nil || !done.GetExecution().GetApplied() {
				t.Fatalf("verdict %v, execution applied=%v", done.GetVerdict().GetViolations(), done.GetExecution().GetApplied())
			}
			if got := readFile(t, filepath.Join(ws, tt.path)); got != content {
				t.Errorf("file has %d bytes, want %d", len(got), len(content))
			}
			if s.done.GetCalls() != 1 || s.done.GetMistakes().GetConsecutive() != 0 {
				t.Errorf("done: %v", s.done)
			}
		})
	}
}

func TestStreamFormatsOverTheWire(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{})
	custom := &toolguardv1.ToolDefinition{Name: "add_semantic_memory", Parameters: mustStruct(t, map[string]any{
		"type": "object", "required": []any{"memory_text"},
		"properties": map[string]any{"memory_text": map[string]any{"type": "string"}},
	})}
	tests := []struct {
		name       string
		start      *toolguardv1.StreamToolCallsRequest
		frames     []*toolguardv1.StreamToolCallsRequest
		finish     string
		wantText   string
		wantOK     []bool
		wantArgs   []string
		wantMist   uint32
		wantTrunc  bool
		wantParams map[string]string
	}{
		{
			name: "hermes custom tool and zero-argument call in one delta",
			start: &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
				Context: &toolguardv1.RequestContext{SessionId: "hermes"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_HERMES,
				Tools: []*toolguardv1.ToolDefinition{custom, {Name: "ping", Parameters: mustStruct(t, map[string]any{"type": "object"})}},
			}}},
			frames:     textFrames(`Saving.<tool_call>{"name": "add_semantic_memory", "arguments": {"memory_text": "likes {braces} and </tool_call>"}}</tool_call><tool_call>{"name": "ping", "arguments": {}}</tool_call>`, 1<<20),
			finish:     "stop",
			wantText:   "Saving.",
			wantOK:     []bool{true, true},
			wantArgs:   []string{`{"memory_text":"likes {braces} and </tool_call>"}`, `{}`},
			wantParams: map[string]string{"memory_text": "likes {braces} and </tool_call>"},
		},
		{
			name:       "openai truncated by length: a mistake, TRUNCATED",
			start:      startFrame("trunc", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true}),
			frames:     argFrames(0, "c", "write_to_file", `{"path": "t.txt", "content": "abc`, 3),
			finish:     "length",
			wantOK:     []bool{false},
			wantArgs:   []string{`{"content":"abc","path":"t.txt"}`},
			wantMist:   1,
			wantTrunc:  true,
			wantParams: map[string]string{"path": "t.txt", "content": "abc"},
		},
		{
			name:       "minimax split at every byte",
			start:      startFrame("minimax", toolguardv1.StreamFormat_STREAM_FORMAT_MINIMAX, nil),
			frames:     textFrames("<minimax:tool_call><invoke name=\"write_to_file\"><parameter name=\"path\">src/é.go</parameter><parameter name=\"content\">x</parameter></invoke></minimax:tool_call>", 1),
			finish:     "stop",
			wantOK:     []bool{true},
			wantArgs:   []string{`{"content":"x","path":"src/é.go"}`},
			wantParams: map[string]string{"path": "src/é.go", "content": "x"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			frames := append(append([]*toolguardv1.StreamToolCallsRequest{tt.start}, tt.frames...), endFrame(tt.finish))
			events, err := streamRun(t, c, frames)
			if err != nil {
				t.Fatal(err)
			}
			s := summarize(t, events)
			if s.text != tt.wantText {
				t.Errorf("text %q, want %q", s.text, tt.wantText)
			}
			if len(s.complete) != len(tt.wantOK) {
				t.Fatalf("%d calls completed, want %d", len(s.complete), len(tt.wantOK))
			}
			for i, cc := range s.complete {
				v := cc.GetVerdict()
				if v.GetOk() != tt.wantOK[i] || v.GetArgumentsJson() != tt.wantArgs[i] || cc.GetTruncated() != tt.wantTrunc {
					t.Errorf("call %d: ok=%v args=%s truncated=%v violations=%v", i, v.GetOk(), v.GetArgumentsJson(), cc.GetTruncated(), v.GetViolations())
				}
				if cc.GetTruncated() && cc.GetExecution() != nil {
					t.Errorf("truncated call %d was executed", i)
				}
			}
			for k, want := range tt.wantParams {
				if s.params[k] != want {
					t.Errorf("preview %s = %q, want %q", k, s.params[k], want)
				}
			}
			if s.done.GetMistakes().GetConsecutive() != tt.wantMist {
				t.Errorf("mistakes %d, want %d", s.done.GetMistakes().GetConsecutive(), tt.wantMist)
			}
		})
	}
}

func TestStreamCallerMistakes(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{})
	xmlStart := startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)
	tests := []struct {
		name   string
		frames []*toolguardv1.StreamToolCallsRequest
		code   codes.Code
		reason string
	}{
		{"delta before start", textFrames("hi", 2), codes.InvalidArgument, "START_FRAME_REQUIRED"},
		{"no frames at all", nil, codes.InvalidArgument, "START_FRAME_REQUIRED"},
		{"no session", []*toolguardv1.StreamToolCallsRequest{startFrame("", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)}, codes.InvalidArgument, "SESSION_ID_REQUIRED"},
		{"no format", []*toolguardv1.StreamToolCallsRequest{startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_UNSPECIFIED, nil)}, codes.InvalidArgument, "STREAM_FORMAT_REQUIRED"},
		{"tool calls in a text format", append([]*toolguardv1.StreamToolCallsRequest{xmlStart}, argFrames(0, "a", "b", "{}", 8)...), codes.InvalidArgument, "TOOL_CALLS_NOT_IN_FORMAT"},
		{"closed without end", append([]*toolguardv1.StreamToolCallsRequest{xmlStart}, textFrames("hi", 2)...), codes.InvalidArgument, "END_FRAME_REQUIRED"},
		{"two starts", []*toolguardv1.StreamToolCallsRequest{xmlStart, xmlStart}, codes.InvalidArgument, "START_FRAME_REPEATED"},
		{"unknown workspace", []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
			Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "elsewhere"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI,
			Options: &toolguardv1.StreamOptions{ExecuteOnComplete: true}}}}}, codes.NotFound, "WORKSPACE_NOT_FOUND"},
		{"unknown tool name", []*toolguardv1.StreamToolCallsRequest{{Frame: &toolguardv1.StreamToolCallsRequest_Start{Start: &toolguardv1.StreamStart{
			Context: &toolguardv1.RequestContext{SessionId: "s"}, Format: toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, ToolNames: []string{"teleport"}}}}},
			codes.InvalidArgument, "UNKNOWN_TOOL_NAME"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := streamRun(t, c, tt.frames)
			st, _ := status.FromError(err)
			if st.Code() != tt.code {
				t.Fatalf("status %v, want %v", err, tt.code)
			}
			var reason string
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason = info.GetReason()
				}
			}
			if reason != tt.reason {
				t.Errorf("reason %q, want %q (%v)", reason, tt.reason, err)
			}
		})
	}
}

func TestStreamLimitsAndCancel(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{MaxParamBytes: 1000})
	big := strings.Repeat("x", 5000)
	frames := append(append([]*toolguardv1.StreamToolCallsRequest{startFrame("lim", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)},
		textFrames("<write_to_file><path>a</path><content>"+big+"</content></write_to_file> after <write_to_file><path>b</path><content>x</content></write_to_file>", 100)...), endFrame("stop"))
	events, err := streamRun(t, c, frames)
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, events)
	if len(s.errors) != 1 || s.errors[0] != "PARAM_TOO_LARGE" || len(s.complete) != 1 || s.text != " after " {
		t.Errorf("errors %v, %d completed, text %q", s.errors, len(s.complete), s.text)
	}

	// A client that goes away mid-stream stops the server's work: its
	// handler returns and leaves no goroutine behind, on either side
	// (TestStreamCancelLeak covers the other ways of going away).
	ignore := goleak.IgnoreCurrent()
	for range 20 {
		ctx, cancel := context.WithCancel(context.Background())
		st, err := c.StreamToolCalls(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Send(startFrame("gone", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)); err != nil {
			t.Fatal(err)
		}
		for _, f := range textFrames("<write_to_file><path>a</path><content>"+big, 500) {
			if err := st.Send(f); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Recv(); err != nil {
			t.Fatal(err)
		}
		cancel()
	}
	verifyNoLeaks(t, ignore)
	// The server goes on serving.
	events, err = streamRun(t, c, []*toolguardv1.StreamToolCallsRequest{startFrame("after", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil), endFrame("stop")})
	if err != nil || len(events) != 1 {
		t.Errorf("after cancellations: %v, %v", events, err)
	}
}

func mustStruct(t *testing.T, m map[string]any) *structpb.Struct {
	t.Helper()
	s, err := structpb.NewStruct(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
