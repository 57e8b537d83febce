package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// stringTool is a request's tool definition with required string parameters.
func stringTool(name string, params ...string) repair.ToolDef {
	props, req := map[string]any{}, []any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string"}
		req = append(req, p)
	}
	return repair.ToolDef{Name: name, Parameters: map[string]any{"type": "object", "properties": props, "required": req}}
}

var (
	claudeWrite = stringTool("Write", "file_path", "content")
	ownWrite    = stringTool("write_to_file", "target", "body")
	ownEdit     = stringTool("edit", "target", "text")
)

// TestDeclaredToolsBeforeBuiltins: a name resolves to the request's own
// tool in any spelling it accepts before a built-in's name or alias, and
// to a built-in's alias only through the built-in's name
// (docs/api.md, "Which tool a name stands for").
func TestDeclaredToolsBeforeBuiltins(t *testing.T) {
	g, _ := newGuard(t)
	for _, tc := range []struct {
		name     string
		tools    []repair.ToolDef
		call     string
		args     string
		wantTool string
		builtin  bool
		wantArgs string
	}{
		{"declared Write, call write", []repair.ToolDef{claudeWrite}, "write", `{"file_path":"a.txt","content":"hi"}`, "Write", false, `{"content":"hi","file_path":"a.txt"}`},
		{"declared Write, call WRITE", []repair.ToolDef{claudeWrite}, "WRITE", `{"file_path":"a.txt","content":"hi"}`, "Write", false, `{"content":"hi","file_path":"a.txt"}`},
		{"declared Write, call write_file", []repair.ToolDef{claudeWrite}, "write_file", `{"file_path":"a.txt","content":"hi"}`, "write_to_file", true, `{"content":"hi","path":"a.txt"}`},
		{"declared Write, call create_file: a built-in it did not declare", []repair.ToolDef{claudeWrite}, "create_file", `{"file_path":"a.txt","content":"hi"}`, "write_to_file", true, `{"content":"hi","path":"a.txt"}`},
		{"no declared tools, call write", nil, "write", `{"file_path":"a.txt","content":"hi"}`, "write_to_file", true, `{"content":"hi","path":"a.txt"}`},
		{"declared write_to_file, call create_file", []repair.ToolDef{ownWrite}, "create_file", `{"target":"a.txt","body":"hi"}`, "write_to_file", false, `{"body":"hi","target":"a.txt"}`},
		{"declared edit overrides the built-in", []repair.ToolDef{ownEdit}, "edit", `{"target":"a.txt","text":"hi"}`, "edit", false, `{"target":"a.txt","text":"hi"}`},
		{"declared edit, call the built-in's alias", []repair.ToolDef{ownEdit}, "str_replace", `{"target":"a.txt","text":"hi"}`, "edit", false, `{"target":"a.txt","text":"hi"}`},
	} {
		v, err := g.Validate(context.Background(), ValidateRequest{SessionID: tc.name, Tools: tc.tools,
			Call: repair.Call{Name: tc.call, Form: repair.FormText, Text: tc.args}})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !v.OK() || v.ToolName != tc.wantTool || v.Tool == nil || v.Tool.Builtin() != tc.builtin || string(v.ArgumentsJSON) != tc.wantArgs {
			t.Errorf("%s: ok=%v tool=%q builtin=%v args=%s violations=%v; want %q builtin=%v %s",
				tc.name, v.OK(), v.ToolName, v.Tool != nil && v.Tool.Builtin(), v.ArgumentsJSON, v.Violations, tc.wantTool, tc.builtin, tc.wantArgs)
		}
	}
}

// TestStreamDeclaredToolsBeforeBuiltins: a streamed call named like a
// built-in's alias is the declared tool's from its first event, and is
// never executed as the built-in.
func TestStreamDeclaredToolsBeforeBuiltins(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	// A parameter the built-in does not know: the text formats open it as
	// a value only by the declared tool's tags.
	noteWrite := stringTool("Write", "file_path", "note")
	for _, tc := range []struct {
		name     string
		tool     repair.ToolDef
		format   stream.Format
		text     string
		deltas   []stream.ToolDelta
		wantArgs string
		preview  string // a parameter previewed by name
	}{
		{name: "openai deltas", tool: claudeWrite, format: stream.OpenAI, deltas: []stream.ToolDelta{
			{Index: 0, ID: "c1", Name: "write", Arguments: `{"file_path": "a.txt", `},
			{Index: 0, Arguments: `"content": "hi"}`},
		}, wantArgs: `{"content":"hi","file_path":"a.txt"}`},
		{name: "xml tags", tool: claudeWrite, format: stream.XMLTags, text: "<write>\n<file_path>a.txt</file_path>\n<content>\nhi\n</content>\n</write>",
			wantArgs: `{"content":"hi","file_path":"a.txt"}`, preview: "file_path"},
		{name: "xml tags, a parameter only the declared tool has", tool: noteWrite, format: stream.XMLTags,
			text: "<write>\n<file_path>a.txt</file_path>\n<note>hi</note>\n</write>", wantArgs: `{"file_path":"a.txt","note":"hi"}`, preview: "note"},
	} {
		req := StreamRequest{SessionID: "declared-stream", Format: tc.format, Tools: []repair.ToolDef{tc.tool}, ExecuteOnComplete: true}
		evs, _ := streamed(t, g, req, tc.text, 7, tc.deltas, "tool_calls")
		var params []string
		for _, e := range evs {
			if e.Kind == stream.EventCallStarted && (e.ToolName != "Write" || !e.Known) {
				t.Errorf("%s: call started as %q known=%v, want Write", tc.name, e.ToolName, e.Known)
			}
			if e.Kind == stream.EventParam && !slices.Contains(params, e.Param) {
				params = append(params, e.Param)
			}
		}
		if tc.preview != "" && !slices.Contains(params, tc.preview) {
			t.Errorf("%s: previewed parameters %v", tc.name, params)
		}
		done := completed(evs)
		if len(done) != 1 {
			t.Fatalf("%s: %d calls completed, want 1", tc.name, len(done))
		}
		v := done[0].Verdict
		if !v.OK() || v.ToolName != "Write" || string(v.ArgumentsJSON) != tc.wantArgs || done[0].Execution != nil {
			t.Errorf("%s: ok=%v tool=%q args=%s execution=%+v", tc.name, v.OK(), v.ToolName, v.ArgumentsJSON, done[0].Execution)
		}
		if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
			t.Errorf("%s: the built-in write ran: %v", tc.name, err)
		}
	}
}

// TestDeclaredBuiltinNameNotExecuted: a request's own definition under a
// built-in's name (or reached by a built-in's alias) is validated against
// its own schema but never run by the built-in: ExecuteWrite and
// ExecuteEdit refuse it as the caller's WrongToolError, and a stream
// executing on completion leaves it unexecuted.
func TestDeclaredBuiltinNameNotExecuted(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	for _, tc := range []struct {
		name string
		tool repair.ToolDef
		call string
		args string
		run  func(context.Context, ExecuteRequest) (*Execution, error)
	}{
		{"write_to_file", ownWrite, "write_to_file", `{"target":"a.txt","body":"hi"}`, g.ExecuteWrite},
		{"create_file to the declared write_to_file", ownWrite, "create_file", `{"target":"a.txt","body":"hi"}`, g.ExecuteWrite},
		{"edit", ownEdit, "edit", `{"target":"a.txt","text":"hi"}`, g.ExecuteEdit},
	} {
		req := ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "declared-exec", Tools: []repair.ToolDef{tc.tool},
			Call: repair.Call{Name: tc.call, Form: repair.FormText, Text: tc.args}}}
		ex, err := tc.run(context.Background(), req)
		var wrong *WrongToolError
		if !errors.As(err, &wrong) || !wrong.Declared || !strings.Contains(err.Error(), "does not execute") {
			t.Errorf("%s: execution %+v, err %v; want a WrongToolError for a declared tool", tc.name, ex, err)
		}
	}
	req := StreamRequest{SessionID: "declared-exec-stream", Format: stream.OpenAI, Tools: []repair.ToolDef{ownWrite}, ExecuteOnComplete: true}
	evs, _ := streamed(t, g, req, "", 7, []stream.ToolDelta{{Index: 0, ID: "c1", Name: "write_to_file", Arguments: `{"target":"a.txt","body":"hi"}`}}, "tool_calls")
	if done := completed(evs); len(done) != 1 || !done[0].Verdict.OK() || done[0].Verdict.Tool.Builtin() || done[0].Execution != nil {
		t.Errorf("stream: %d calls completed: %+v", len(done), done)
	}
	if _, err := os.Stat(filepath.Join(dir, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("a built-in ran on the declared tool's call: %v", err)
	}
}
