package service_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// These tests run the ToolGuardService over a real loopback server.

const memoryToolsYAML = `
tools:
  - name: add_semantic_memory
    description: Store a semantic memory.
    content_params: [xml_memory]
    parameters:
      type: object
      properties:
        xml_memory: {type: string, description: The memory as XML.}
        user_message: {type: string, description: The user's message.}
      required: [xml_memory, user_message]
`

func startClient(t *testing.T, cfg service.Config) toolguardv1.ToolGuardServiceClient {
	t.Helper()
	conn, _ := servicetest.Start(t, cfg)
	return toolguardv1.NewToolGuardServiceClient(conn)
}

func textCall(name, args string) *toolguardv1.ToolCall {
	return &toolguardv1.ToolCall{Name: name, Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}}
}

func validate(t *testing.T, c toolguardv1.ToolGuardServiceClient, session string, call *toolguardv1.ToolCall) *toolguardv1.Verdict {
	t.Helper()
	resp, err := c.ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: session},
		Call:    call,
	})
	if err != nil {
		t.Fatalf("ValidateToolCall: %v", err)
	}
	return resp.GetVerdict()
}

func repairCodes(v *toolguardv1.Verdict) []string {
	var out []string
	for _, r := range v.GetRepairs() {
		out = append(out, r.GetCode()+":"+r.GetParam())
	}
	return out
}

func violationCodes(v *toolguardv1.Verdict) []string {
	var out []string
	for _, x := range v.GetViolations() {
		out = append(out, x.GetCode()+":"+x.GetParam())
	}
	return out
}

func TestValidateWriteAliases(t *testing.T) {
	c := startClient(t, service.Config{})
	call := textCall("Write", `{"file_path":"src/a.py","text":"print('hi')\n"}`)
	call.Id = "call_1"
	v := validate(t, c, "s1", call)
	if !v.GetOk() || v.GetToolName() != "write_to_file" {
		t.Fatalf("verdict ok=%v tool=%q violations=%v", v.GetOk(), v.GetToolName(), violationCodes(v))
	}
	args := v.GetArguments().AsMap()
	if args["path"] != "src/a.py" || args["content"] != "print('hi')\n" || len(args) != 2 {
		t.Errorf("arguments = %v", args)
	}
	if v.GetArgumentsJson() != `{"content":"print('hi')\n","path":"src/a.py"}` {
		t.Errorf("arguments_json = %s", v.GetArgumentsJson())
	}
	want := []string{"TOOL_ALIAS:", "ALIAS_RENAMED:path", "ALIAS_RENAMED:content"}
	if got := repairCodes(v); !slices.Equal(got, want) {
		t.Errorf("repairs = %v, want %v", got, want)
	}
	if v.GetFeedback() != "" || v.GetCallId() != "call_1" || v.GetForm() != toolguardv1.ArgumentsForm_ARGUMENTS_FORM_TEXT {
		t.Errorf("feedback=%q call_id=%q form=%v", v.GetFeedback(), v.GetCallId(), v.GetForm())
	}
	if m := v.GetMistakes(); m.GetConsecutive() != 0 || m.GetLimit() != 3 || m.GetLimitReached() {
		t.Errorf("mistakes = %v", m)
	}
}

func TestMistakesReachTheLimit(t *testing.T) {
	c := startClient(t, service.Config{})
	missing := textCall("write_to_file", `{"path":"a.py"}`)
	var v *toolguardv1.Verdict
	for i := 1; i <= 3; i++ {
		v = validate(t, c, "loop", missing)
		if v.GetOk() {
			t.Fatalf("call %d usable", i)
		}
		m := v.GetMistakes()
		if m.GetConsecutive() != uint32(i) || m.GetLimitReached() != (i == 3) {
			t.Fatalf("call %d: mistakes = %v", i, m)
		}
	}
	if got := violationCodes(v); !slices.Contains(got, "MISSING_REQUIRED:content") || !slices.Contains(got, "REPEATED_CALL:") {
		t.Errorf("third call violations = %v", got)
	}
	for _, want := range []string{"Stop retrying the same way", "limit of 3 consecutive mistakes has been reached", `Received: {"path":"a.py"}`} {
		if !strings.Contains(v.GetFeedback(), want) {
			t.Errorf("feedback lacks %q:\n%s", want, v.GetFeedback())
		}
	}

	// The session reads back at the limit; a usable call resets it.
	s, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "loop"})
	if err != nil {
		t.Fatal(err)
	}
	if !s.GetSession().GetExists() || s.GetSession().GetMistakes().GetConsecutive() != 3 || s.GetSession().GetLastSeen() == nil {
		t.Errorf("session = %v", s.GetSession())
	}
	ok := validate(t, c, "loop", textCall("write_to_file", `{"path":"a.py","content":"x"}`))
	if !ok.GetOk() || ok.GetMistakes().GetConsecutive() != 0 {
		t.Errorf("usable call: ok=%v mistakes=%v", ok.GetOk(), ok.GetMistakes())
	}
	// Sessions are independent.
	other := validate(t, c, "other", missing)
	if other.GetMistakes().GetConsecutive() != 1 {
		t.Errorf("other session mistakes = %v", other.GetMistakes())
	}
}

func TestRequestLowersTheLimit(t *testing.T) {
	c := startClient(t, service.Config{})
	for _, limit := range []uint32{1, 99} {
		resp, err := c.ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: "limit-" + string(rune('a'+limit%26)), MistakeLimit: limit},
			Call:    textCall("edit", `{}`),
		})
		if err != nil {
			t.Fatal(err)
		}
		m := resp.GetVerdict().GetMistakes()
		wantLimit := min(limit, 3)
		if m.GetLimit() != wantLimit || m.GetLimitReached() != (wantLimit == 1) {
			t.Errorf("limit %d: mistakes = %v", limit, m)
		}
	}
}

func TestResetSession(t *testing.T) {
	c := startClient(t, service.Config{})
	validate(t, c, "r", textCall("edit", `{}`))
	resp, err := c.ResetSession(context.Background(), &toolguardv1.ResetSessionRequest{SessionId: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSession().GetExists() || resp.GetSession().GetMistakes().GetConsecutive() != 0 {
		t.Errorf("after reset: %v", resp.GetSession())
	}
	got, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if got.GetSession().GetExists() || got.GetSession().GetLastSeen() != nil {
		t.Errorf("get after reset: %v", got.GetSession())
	}
}

// TestCustomToolAllForms is the seed-001 case: a tool registered by config,
// whose parameter names no built-in list knows, keeps its parameters in
// every form.
func TestCustomToolAllForms(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.yaml")
	if err := os.WriteFile(file, []byte(memoryToolsYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, service.Config{Config: guard.Config{ToolsFile: file}})
	memory := "<memory><fact>prefers tea</fact><fact>lives in Oslo</fact></memory>"
	for name, call := range map[string]*toolguardv1.ToolCall{
		"json": textCall("add_semantic_memory", `{"xml_memory":"`+strings.ReplaceAll(memory, `"`, `\"`)+`","user_message":"I like tea"}`),
		"params": {Name: "add_semantic_memory", Arguments: &toolguardv1.ToolCall_Params{Params: &toolguardv1.StringParams{
			Values: map[string]string{"xml_memory": memory, "user_message": "I like tea"}}}},
		"xml": {Arguments: &toolguardv1.ToolCall_XmlBlock{XmlBlock: "<add_semantic_memory>\n<xml_memory>\n" + memory +
			"\n</xml_memory>\n<user_message>I like tea</user_message>\n</add_semantic_memory>"}},
	} {
		t.Run(name, func(t *testing.T) {
			v := validate(t, c, "mem-"+name, call)
			args := v.GetArguments().AsMap()
			if !v.GetOk() || v.GetToolName() != "add_semantic_memory" || args["xml_memory"] != memory || args["user_message"] != "I like tea" {
				t.Fatalf("ok=%v tool=%q args=%v violations=%v", v.GetOk(), v.GetToolName(), args, violationCodes(v))
			}
			if len(v.GetRepairs()) != 0 {
				t.Errorf("repairs = %v", repairCodes(v))
			}
		})
	}
	list, err := c.ListTools(context.Background(), &toolguardv1.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, spec := range list.GetTools() {
		if spec.GetDefinition().GetName() == "add_semantic_memory" {
			found = !spec.GetBuiltin() && strings.Contains(spec.GetXmlUsage(), "- xml_memory: (required)")
		}
	}
	if !found {
		t.Error("ListTools does not show the custom tool as configured")
	}
}

func TestRequestScopedTool(t *testing.T) {
	c := startClient(t, service.Config{})
	schema, err := structpb.NewStruct(map[string]any{
		"type":       "object",
		"properties": map[string]any{"query": map[string]any{"type": "string"}, "limit": map[string]any{"type": "integer"}},
		"required":   []any{"query"},
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &toolguardv1.ValidateToolCallRequest{
		Context: &toolguardv1.RequestContext{SessionId: "scoped"},
		Call:    textCall("search_docs", `{"query":"grpc","limit":"5"}`),
		Tools:   []*toolguardv1.ToolDefinition{{Name: "search_docs", Parameters: schema}},
	}
	for range 2 { // the second call is served from the compiled-tool cache
		resp, err := c.ValidateToolCall(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		v := resp.GetVerdict()
		if !v.GetOk() || v.GetArgumentsJson() != `{"limit":5,"query":"grpc"}` || !slices.Equal(repairCodes(v), []string{"TYPE_COERCED:limit"}) {
			t.Fatalf("ok=%v args=%s repairs=%v violations=%v", v.GetOk(), v.GetArgumentsJson(), repairCodes(v), violationCodes(v))
		}
	}
}

func TestListTools(t *testing.T) {
	c := startClient(t, service.Config{})
	for _, tc := range []struct {
		model, family, pathParam string
	}{
		{"", "generic", "path"},
		{"claude-sonnet-4-5", "native-next-gen", "absolutePath"},
	} {
		resp, err := c.ListTools(context.Background(), &toolguardv1.ListToolsRequest{ModelId: tc.model})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetModelFamily() != tc.family {
			t.Errorf("family = %q, want %q", resp.GetModelFamily(), tc.family)
		}
		var names []string
		for _, spec := range resp.GetTools() {
			names = append(names, spec.GetDefinition().GetName())
			if spec.GetDefinition().GetName() != "write_to_file" {
				continue
			}
			fn := spec.GetOpenaiTool().AsMap()["function"].(map[string]any)
			props := fn["parameters"].(map[string]any)["properties"].(map[string]any)
			if _, ok := props[tc.pathParam]; !ok {
				t.Errorf("%s: OpenAI parameters %v lack %q", tc.family, props, tc.pathParam)
			}
			if spec.GetAnthropicTool().AsMap()["input_schema"] == nil {
				t.Errorf("no Anthropic input_schema")
			}
			if !strings.Contains(spec.GetXmlUsage(), "<"+tc.pathParam+">") || !slices.Contains(spec.GetDefinition().GetAliases(), "Write") {
				t.Errorf("usage or aliases wrong: %q %v", spec.GetXmlUsage(), spec.GetDefinition().GetAliases())
			}
			if !spec.GetBuiltin() {
				t.Error("write_to_file is not marked built in")
			}
		}
		want := []string{"apply_patch", "create_directory", "delete_file", "edit", "find_files", "get_file_info", "insert_text", "list_directory", "move_file", "multi_edit", "read_media_file", "read_multiple_files", "replace_in_file", "search_files", "todo_write", "undo_edit", "write_to_file"}
		if !slices.Equal(names, want) {
			t.Errorf("tools = %v, want %v", names, want)
		}
	}
}

func TestCallerMistakesAreStatuses(t *testing.T) {
	c := startClient(t, service.Config{})
	badSchema, _ := structpb.NewStruct(map[string]any{"type": "object", "properties": "nope"})
	tests := []struct {
		name   string
		req    *toolguardv1.ValidateToolCallRequest
		reason string
		field  string
	}{
		{"no session", &toolguardv1.ValidateToolCallRequest{Call: textCall("edit", "{}")}, "SESSION_ID_REQUIRED", "context.session_id"},
		{"long session", &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: strings.Repeat("s", 257)}, Call: textCall("edit", "{}")}, "SESSION_ID_TOO_LONG", "context.session_id"},
		{"no call", &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "x"}}, "CALL_REQUIRED", "call"},
		{"no name", &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "x"}, Call: textCall("", "{}")}, "TOOL_NAME_REQUIRED", "call.name"},
		{"bad schema", &toolguardv1.ValidateToolCallRequest{Context: &toolguardv1.RequestContext{SessionId: "x"}, Call: textCall("t", "{}"),
			Tools: []*toolguardv1.ToolDefinition{{Name: "t", Parameters: badSchema}}}, "INVALID_TOOL_DEFINITION", "tools[0]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.ValidateToolCall(context.Background(), tc.req)
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument {
				t.Fatalf("code = %v (%v), want InvalidArgument", st.Code(), err)
			}
			var reason, field string
			for _, d := range st.Details() {
				switch x := d.(type) {
				case *errdetails.ErrorInfo:
					reason = x.GetReason()
					if x.GetDomain() != service.ErrorDomain {
						t.Errorf("domain = %q", x.GetDomain())
					}
				case *errdetails.BadRequest:
					field = x.GetFieldViolations()[0].GetField()
				}
			}
			if reason != tc.reason || field != tc.field {
				t.Errorf("reason=%q field=%q, want %q %q (message %q)", reason, field, tc.reason, tc.field, st.Message())
			}
		})
	}
	_, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("GetSession without id: %v", err)
	}
	_, err = c.ResetSession(context.Background(), &toolguardv1.ResetSessionRequest{})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("ResetSession without id: %v", err)
	}
}

func TestUnknownSessionIsNotAnError(t *testing.T) {
	c := startClient(t, service.Config{})
	resp, err := c.GetSession(context.Background(), &toolguardv1.GetSessionRequest{SessionId: "never-seen"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetSession().GetExists() || resp.GetSession().GetMistakes().GetLimit() != 3 {
		t.Errorf("session = %v", resp.GetSession())
	}
}
