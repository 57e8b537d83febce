package service_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
)

// stringToolDef is a request's tool with required string parameters.
func stringToolDef(t *testing.T, name string, params ...string) *toolguardv1.ToolDefinition {
	t.Helper()
	props, req := map[string]any{}, []any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string"}
		req = append(req, p)
	}
	return &toolguardv1.ToolDefinition{Name: name, Parameters: mustStruct(t, map[string]any{"type": "object", "properties": props, "required": req})}
}

// TestDeclaredToolsBeforeBuiltinsOverTheWire: the request's own tools take
// a call's name in any spelling they accept before a built-in's name or
// alias (docs/api.md, "Which tool a name stands for").
func TestDeclaredToolsBeforeBuiltinsOverTheWire(t *testing.T) {
	c := startClient(t, service.Config{})
	claudeWrite := stringToolDef(t, "Write", "file_path", "content")
	ownWrite := stringToolDef(t, "write_to_file", "target", "body")
	ownEdit := stringToolDef(t, "edit", "target", "text")
	for _, tc := range []struct {
		name     string
		tools    []*toolguardv1.ToolDefinition
		call     string
		args     string
		wantTool string
		wantArgs string // the declared tool's parameters, or the built-in's
	}{
		{"declared Write, call write", []*toolguardv1.ToolDefinition{claudeWrite}, "write", `{"file_path":"a.txt","content":"hi"}`, "Write", `{"content":"hi","file_path":"a.txt"}`},
		{"declared Write, call WRITE", []*toolguardv1.ToolDefinition{claudeWrite}, "WRITE", `{"file_path":"a.txt","content":"hi"}`, "Write", `{"content":"hi","file_path":"a.txt"}`},
		{"declared Write, call create_file: a built-in it did not declare", []*toolguardv1.ToolDefinition{claudeWrite}, "create_file", `{"file_path":"a.txt","content":"hi"}`, "write_to_file", `{"content":"hi","path":"a.txt"}`},
		{"no declared tools, call write", nil, "write", `{"file_path":"a.txt","content":"hi"}`, "write_to_file", `{"content":"hi","path":"a.txt"}`},
		{"declared write_to_file, call create_file", []*toolguardv1.ToolDefinition{ownWrite}, "create_file", `{"target":"a.txt","body":"hi"}`, "write_to_file", `{"body":"hi","target":"a.txt"}`},
		{"declared edit overrides the built-in", []*toolguardv1.ToolDefinition{ownEdit}, "edit", `{"target":"a.txt","text":"hi"}`, "edit", `{"target":"a.txt","text":"hi"}`},
		{"declared edit, call the built-in's alias", []*toolguardv1.ToolDefinition{ownEdit}, "str_replace", `{"target":"a.txt","text":"hi"}`, "edit", `{"target":"a.txt","text":"hi"}`},
	} {
		resp, err := c.ValidateToolCall(context.Background(), &toolguardv1.ValidateToolCallRequest{
			Context: &toolguardv1.RequestContext{SessionId: tc.name}, Call: textCall(tc.call, tc.args), Tools: tc.tools,
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		v := resp.GetVerdict()
		if !v.GetOk() || v.GetToolName() != tc.wantTool || v.GetArgumentsJson() != tc.wantArgs {
			t.Errorf("%s: ok=%v tool=%q args=%s violations=%v; want %q %s", tc.name, v.GetOk(), v.GetToolName(), v.GetArgumentsJson(), violationCodes(v), tc.wantTool, tc.wantArgs)
		}
	}
}

// TestStreamDeclaredToolNotExecutedAsBuiltin: a streamed call named like a
// built-in's alias is the declared tool's, never written as the built-in.
func TestStreamDeclaredToolNotExecutedAsBuiltin(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	start := startFrame("declared-stream", toolguardv1.StreamFormat_STREAM_FORMAT_OPENAI, &toolguardv1.StreamOptions{ExecuteOnComplete: true})
	start.GetStart().Tools = []*toolguardv1.ToolDefinition{stringToolDef(t, "Write", "file_path", "content")}
	frames := append(append([]*toolguardv1.StreamToolCallsRequest{start},
		argFrames(0, "call_1", "write", `{"file_path": "a.txt", "content": "hi"}`, 8)...), endFrame("tool_calls"))
	events, err := streamRun(t, c, frames)
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(t, events)
	if len(s.started) != 1 || s.started[0].GetToolName() != "Write" || s.started[0].GetRawName() != "write" {
		t.Fatalf("started: %v", s.started)
	}
	if len(s.complete) != 1 {
		t.Fatalf("%d calls completed", len(s.complete))
	}
	done := s.complete[0]
	if v := done.GetVerdict(); !v.GetOk() || v.GetToolName() != "Write" || v.GetArgumentsJson() != `{"content":"hi","file_path":"a.txt"}` || done.GetExecution() != nil {
		t.Errorf("verdict ok=%v tool=%q args=%s, execution %v", v.GetOk(), v.GetToolName(), v.GetArgumentsJson(), done.GetExecution())
	}
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("the built-in write ran: %v", err)
	}
}
