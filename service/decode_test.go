package service_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/proto" // registers the proto codec rawCodec defers to
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// These tests send requests no ordinary client would marshal (strings that
// are not UTF-8, a schema nested thousands deep, broken wire bytes) over a
// real loopback connection: each is the caller's mistake, INVALID_ARGUMENT
// with a reason and the field, never INTERNAL.

// wireBytes is a request already on the wire; rawCodec sends it as it is.
type wireBytes []byte

// rawCodec is a client codec that sends wireBytes untouched and everything
// else, responses included, as the proto codec does.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	if b, ok := v.(wireBytes); ok {
		return mem.BufferSlice{mem.SliceBuffer(b)}, nil
	}
	return encoding.GetCodecV2("proto").Marshal(v)
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return encoding.GetCodecV2("proto").Unmarshal(data, v)
}

func (rawCodec) Name() string { return "proto" }

// badMark stands in a request for the string that is not UTF-8: notUTF8
// replaces it, byte for byte, once the request is marshalled.
const badMark = "BADUTF8"

// notUTF8 marshals m and puts an invalid UTF-8 byte in place of badMark's
// first letter; m must hold badMark exactly once.
func notUTF8(t *testing.T, m proto.Message) wireBytes {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(badMark)); n != 1 {
		t.Fatalf("%T holds the mark %d times, want once", m, n)
	}
	return bytes.Replace(b, []byte(badMark), []byte("\xff"+badMark[1:]), 1)
}

func marshal(t *testing.T, m proto.Message) wireBytes {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const toolGuardPrefix = "/toolguard.v1.ToolGuardService/"

// invokeRaw sends one unary request's wire bytes.
func invokeRaw(conn *grpc.ClientConn, method string, req wireBytes, resp proto.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return conn.Invoke(ctx, toolGuardPrefix+method, req, resp, grpc.ForceCodecV2(rawCodec{}))
}

// streamRaw sends the frames' wire bytes on one StreamToolCalls stream and
// returns how the stream ended.
func streamRaw(conn *grpc.ClientConn, frames ...wireBytes) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, err := conn.NewStream(ctx, &toolguardv1.ToolGuardService_ServiceDesc.Streams[0], toolGuardPrefix+"StreamToolCalls", grpc.ForceCodecV2(rawCodec{}))
	if err != nil {
		return err
	}
	for _, f := range frames {
		if err := st.SendMsg(f); err != nil {
			break // the server ended the stream: RecvMsg says why
		}
	}
	_ = st.CloseSend()
	for {
		if err := st.RecvMsg(&toolguardv1.StreamToolCallsResponse{}); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// wantFieldRefusal checks an INVALID_ARGUMENT with reason and a BadRequest
// naming field ("" for none), the field named in the message too.
func wantFieldRefusal(t *testing.T, err error, reason, field string) {
	t.Helper()
	st := status.Convert(err)
	if st.Code() != codes.InvalidArgument {
		t.Fatalf("got %v, want INVALID_ARGUMENT", err)
	}
	var gotReason, gotField string
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			gotReason = d.GetReason()
		case *errdetails.BadRequest:
			gotField = d.GetFieldViolations()[0].GetField()
		}
	}
	if gotReason != reason || gotField != field {
		t.Fatalf("reason %q, field %q; want %q, %q (%v)", gotReason, gotField, reason, field, err)
	}
	if !strings.Contains(st.Message(), field) {
		t.Fatalf("message %q does not name the field %q", st.Message(), field)
	}
}

func ctxWith(session string) *toolguardv1.RequestContext {
	return &toolguardv1.RequestContext{SessionId: session}
}

func paramsCall(name string, values map[string]string) *toolguardv1.ToolCall {
	return &toolguardv1.ToolCall{Name: name, Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{Values: values}}}
}

// toolDef is a valid tool definition; edit may put the mark in it.
func toolDef(t *testing.T, edit func(d *toolguardv1.ToolDefinition)) *toolguardv1.ToolDefinition {
	t.Helper()
	schema, err := structpb.NewStruct(map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	d := &toolguardv1.ToolDefinition{Name: "lookup", Description: "looks up", Parameters: schema,
		Aliases: []string{"find"}, ContentParams: []string{"q"},
		ParamAliases: []*toolguardv1.ParamAliases{{Param: "q", Aliases: []string{"query", "term"}}}}
	if edit != nil {
		edit(d)
	}
	return d
}

func TestInvalidUTF8Refused(t *testing.T) {
	conn, _ := servicetest.Start(t, service.Config{})
	write := textCall("Write", `{"file_path":"a.txt","content":"x"}`)
	unary := []struct {
		name, method string
		req          proto.Message
		resp         proto.Message
		field        string
	}{
		{"session_id", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith(badMark), Call: write},
			&toolguardv1.ValidateToolCallResponse{}, "context.session_id"},
		{"model_id", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "s", ModelId: badMark}, Call: write},
			&toolguardv1.ValidateToolCallResponse{}, "context.model_id"},
		{"call.name", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: textCall(badMark, "{}")},
			&toolguardv1.ValidateToolCallResponse{}, "call.name"},
		{"arguments_text", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: textCall("Write", `{"content":"`+badMark+`"}`)},
			&toolguardv1.ValidateToolCallResponse{}, "call.arguments_text"},
		{"xml_block", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"),
			Call: &toolguardv1.ToolCall{Arguments: &toolguardv1.ToolCall_XmlBlock{XmlBlock: "<write_to_file><path>" + badMark + "</path></write_to_file>"}}},
			&toolguardv1.ValidateToolCallResponse{}, "call.xml_block"},
		{"call.id", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: &toolguardv1.ToolCall{Name: "Write", Id: badMark}},
			&toolguardv1.ValidateToolCallResponse{}, "call.id"},
		{"params value", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: paramsCall("write_to_file", map[string]string{"path": badMark})},
			&toolguardv1.ValidateToolCallResponse{}, `call.params.values["path"]`},
		{"params key", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: paramsCall("write_to_file", map[string]string{badMark: "a.txt"})},
			&toolguardv1.ValidateToolCallResponse{}, "call.params.values"},
		{"tool name", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.Name = badMark })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].name"},
		{"tool description", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, nil), toolDef(t, func(d *toolguardv1.ToolDefinition) { d.Name, d.Description = "other", badMark })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[1].description"},
		{"tool alias", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.Aliases = append(d.Aliases, badMark) })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].aliases[1]"},
		{"param alias", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.ParamAliases[0].Aliases[1] = badMark })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].param_aliases[0].aliases[1]"},
		{"content param", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.ContentParams = []string{badMark} })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].content_params[0]"},
		{"schema key", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.Parameters.Fields[badMark] = structpb.NewBoolValue(true) })}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].parameters"},
		{"schema string", "ValidateToolCall", &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: write,
			Tools: []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) {
				d.Parameters.Fields["description"] = structpb.NewStringValue(badMark)
			})}},
			&toolguardv1.ValidateToolCallResponse{}, "tools[0].parameters"},
		{"ExecuteWrite workspace", "ExecuteWrite", &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: badMark}, Call: write},
			&toolguardv1.ExecuteWriteResponse{}, "context.workspace"},
		{"ExecuteWrite content", "ExecuteWrite", &toolguardv1.ExecuteWriteRequest{Context: ctxWith("s"), Call: textCall("Write", `{"file_path":"a.txt","content":"`+badMark+`"}`)},
			&toolguardv1.ExecuteWriteResponse{}, "call.arguments_text"},
		{"ExecuteWrite expected_sha256", "ExecuteWrite", &toolguardv1.ExecuteWriteRequest{Context: ctxWith("s"), Call: write, ExpectedSha256: badMark},
			&toolguardv1.ExecuteWriteResponse{}, "expected_sha256"},
		{"ExecuteEdit new_text", "ExecuteEdit", &toolguardv1.ExecuteEditRequest{Context: ctxWith("s"),
			Call: paramsCall("edit", map[string]string{"path": "a.txt", "old_text": "x", "new_text": badMark})},
			&toolguardv1.ExecuteEditResponse{}, `call.params.values["new_text"]`},
		{"ExecuteEdit session_id", "ExecuteEdit", &toolguardv1.ExecuteEditRequest{Context: ctxWith(badMark), Call: paramsCall("edit", nil)},
			&toolguardv1.ExecuteEditResponse{}, "context.session_id"},
		{"GetSession", "GetSession", &toolguardv1.GetSessionRequest{SessionId: badMark}, &toolguardv1.GetSessionResponse{}, "session_id"},
		{"ResetSession", "ResetSession", &toolguardv1.ResetSessionRequest{SessionId: badMark}, &toolguardv1.ResetSessionResponse{}, "session_id"},
		{"ListTools", "ListTools", &toolguardv1.ListToolsRequest{ModelId: badMark}, &toolguardv1.ListToolsResponse{}, "model_id"},
	}
	for _, tt := range unary {
		t.Run(tt.name, func(t *testing.T) {
			wantFieldRefusal(t, invokeRaw(conn, tt.method, notUTF8(t, tt.req), tt.resp), "INVALID_UTF8", tt.field)
		})
	}

	start := func(edit func(s *toolguardv1.StreamStart)) *toolguardv1.StreamToolCallsRequest {
		f := startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, nil)
		if edit != nil {
			edit(f.GetStart())
		}
		return f
	}
	delta := func(d *toolguardv1.StreamDelta) *toolguardv1.StreamToolCallsRequest {
		return &toolguardv1.StreamToolCallsRequest{Frame: &toolguardv1.StreamToolCallsRequest_Delta{Delta: d}}
	}
	streams := []struct {
		name   string
		frames func(t *testing.T) []wireBytes
		field  string
	}{
		{"start session_id", func(t *testing.T) []wireBytes {
			return []wireBytes{notUTF8(t, start(func(s *toolguardv1.StreamStart) { s.Context.SessionId = badMark }))}
		}, "start.context.session_id"},
		{"start tool definition", func(t *testing.T) []wireBytes {
			return []wireBytes{notUTF8(t, start(func(s *toolguardv1.StreamStart) {
				s.Tools = []*toolguardv1.ToolDefinition{toolDef(t, func(d *toolguardv1.ToolDefinition) { d.Description = badMark })}
			}))}
		}, "start.tools[0].description"},
		{"start tool_names", func(t *testing.T) []wireBytes {
			return []wireBytes{notUTF8(t, start(func(s *toolguardv1.StreamStart) { s.ToolNames = []string{"edit", badMark} }))}
		}, "start.tool_names[1]"},
		{"delta text", func(t *testing.T) []wireBytes {
			return []wireBytes{marshal(t, start(nil)), notUTF8(t, delta(&toolguardv1.StreamDelta{Text: "hello " + badMark}))}
		}, "delta.text"},
		{"delta call name", func(t *testing.T) []wireBytes {
			return []wireBytes{marshal(t, start(nil)), notUTF8(t, delta(&toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{{Index: 0, Id: "c1", Name: badMark}}}))}
		}, "delta.tool_calls[0].name"},
		{"delta arguments", func(t *testing.T) []wireBytes {
			return []wireBytes{marshal(t, start(nil)),
				marshal(t, delta(&toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{{Index: 0, Id: "c1", Name: "write_to_file"}}})),
				notUTF8(t, delta(&toolguardv1.StreamDelta{ToolCalls: []*toolguardv1.ToolCallDelta{{Index: 0}, {Index: 0, Arguments: `{"path":"` + badMark}}}))}
		}, "delta.tool_calls[1].arguments"},
		{"end finish_reason", func(t *testing.T) []wireBytes {
			return []wireBytes{marshal(t, start(nil)), notUTF8(t, endFrame(badMark))}
		}, "end.finish_reason"},
	}
	for _, tt := range streams {
		t.Run("StreamToolCalls "+tt.name, func(t *testing.T) {
			wantFieldRefusal(t, streamRaw(conn, tt.frames(t)...), "INVALID_UTF8", tt.field)
		})
	}

	// The server goes on serving.
	if _, err := toolguardv1.NewToolGuardServiceClient(conn).GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "s"}); err != nil {
		t.Fatalf("GetSession after the refusals: %v", err)
	}
}

// nestedStruct returns a Struct nesting levels deep: {"a": {"a": ...}}.
func nestedStruct(levels int) *structpb.Struct {
	s := &structpb.Struct{Fields: map[string]*structpb.Value{"type": structpb.NewStringValue("object")}}
	for range levels - 1 {
		s = &structpb.Struct{Fields: map[string]*structpb.Value{"a": structpb.NewStructValue(s)}}
	}
	return s
}

// TestDeepStructRefused sends a schema nested thousands of levels deep,
// past protobuf's recursion limit: refused like any schema deeper than
// MaxJSONDepth, in unary calls and in a stream's start frame.
func TestDeepStructRefused(t *testing.T) {
	conn, _ := servicetest.Start(t, service.Config{})
	for _, levels := range []int{65, 100, 5000} {
		tools := []*toolguardv1.ToolDefinition{{Name: "deep", Parameters: nestedStruct(levels)}}
		err := invokeRaw(conn, "ValidateToolCall", marshal(t, &toolguardv1.ValidateToolCallRequest{Context: ctxWith("s"), Call: textCall("deep", "{}"), Tools: tools}),
			&toolguardv1.ValidateToolCallResponse{})
		wantFieldRefusal(t, err, "JSON_TOO_DEEP", "tools[0].parameters")
		if !strings.Contains(status.Convert(err).Message(), "more than 64 levels deep") {
			t.Errorf("%d levels: message %q does not give the limit", levels, status.Convert(err).Message())
		}

		start := startFrame("s", toolguardv1.StreamFormat_STREAM_FORMAT_XML_TAGS, nil)
		start.GetStart().Tools = tools
		wantFieldRefusal(t, streamRaw(conn, marshal(t, start), marshal(t, endFrame("stop"))), "JSON_TOO_DEEP", "start.tools[0].parameters")
	}
	// At the limit, the schema is read.
	_, err := toolguardv1.NewToolGuardServiceClient(conn).ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
		Context: ctxWith("s"), Call: textCall("deep", "{}"), Tools: []*toolguardv1.ToolDefinition{{Name: "deep", Parameters: nestedStruct(64)}}})
	if err != nil {
		t.Fatalf("a schema 64 levels deep: %v", err)
	}
}

// TestMalformedRequestRefused sends bytes that are no protobuf message.
func TestMalformedRequestRefused(t *testing.T) {
	conn, _ := servicetest.Start(t, service.Config{})
	tests := []struct {
		name  string
		req   wireBytes
		field string
	}{
		// Field 1 (context) says 5 bytes follow; 2 do.
		{"truncated", wireBytes{0x0a, 0x05, 0x0a, 0x01}, "context"},
		// A tag with field number 0.
		{"field zero", wireBytes{0x00, 0x01}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := invokeRaw(conn, "ValidateToolCall", tt.req, &toolguardv1.ValidateToolCallResponse{})
			wantFieldRefusal(t, err, "MALFORMED_REQUEST", tt.field)
		})
	}
}
