package service_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/service/servicetest"
)

// These tests run ExecuteWrite and ExecuteEdit over a real loopback server
// on a temporary workspace.

func startWorkspace(t *testing.T, cfg service.Config) (toolguardv1.ToolGuardServiceClient, string) {
	t.Helper()
	if cfg.Workspace == "" {
		cfg.Workspace = t.TempDir()
	}
	conn, got := servicetest.Start(t, cfg)
	return toolguardv1.NewToolGuardServiceClient(conn), got.Workspace
}

func jsonCall(t *testing.T, name string, args map[string]any) *toolguardv1.ToolCall {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return textCall(name, string(raw))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestExecuteWrite(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{AgentRoot: "/home/user/project"}})
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "w"}

	// A Claude Code style call, with an agent-side absolute path.
	resp, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc,
		Call: jsonCall(t, "Write", map[string]any{"file_path": "/home/user/project/src/app.py", "content": "print(1)\n"})})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetVerdict().GetOk() || resp.GetChange().GetKind() != toolguardv1.FileChangeKind_FILE_CHANGE_KIND_CREATED {
		t.Fatalf("verdict %v change %v", resp.GetVerdict(), resp.GetChange())
	}
	if got := readFile(t, filepath.Join(ws, "src", "app.py")); got != "print(1)\n" {
		t.Fatalf("file = %q", got)
	}
	if resp.GetChange().GetPath() != "src/app.py" || resp.GetChange().GetSha256() != sha("print(1)\n") || !strings.Contains(resp.GetDiff(), "+print(1)") {
		t.Errorf("change %v diff %q", resp.GetChange(), resp.GetDiff())
	}

	// Dry run: the diff, nothing written.
	resp, err = c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc, DryRun: true,
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "src/app.py", "content": "print(2)\n"})})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetVerdict().GetOk() || !strings.Contains(resp.GetDiff(), "-print(1)") || readFile(t, filepath.Join(ws, "src", "app.py")) != "print(1)\n" {
		t.Errorf("dry run: verdict %v diff %q", resp.GetVerdict().GetOk(), resp.GetDiff())
	}

	// A stale expected hash is a precondition failure; nothing changes.
	_, err = c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc, ExpectedSha256: sha("something else"),
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "src/app.py", "content": "print(3)\n"})})
	if status.Code(err) != codes.FailedPrecondition || readFile(t, filepath.Join(ws, "src", "app.py")) != "print(1)\n" {
		t.Errorf("stale hash: %v", err)
	}
	// The right hash lets it through.
	resp, err = c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc, ExpectedSha256: sha("print(1)\n"),
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "src/app.py", "content": "print(3)\n"})})
	if err != nil || !resp.GetVerdict().GetOk() || readFile(t, filepath.Join(ws, "src", "app.py")) != "print(3)\n" {
		t.Errorf("current hash: %v %v", err, resp.GetVerdict())
	}
}

func TestExecuteWriteRefusals(t *testing.T) {
	outside := t.TempDir()
	canary := filepath.Join(outside, "canary")
	if err := os.WriteFile(canary, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, ws := startWorkspace(t, service.Config{})
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, code string
	}{
		{"absolute outside", canary, "OUTSIDE_WORKSPACE"},
		{"climbing out", "../" + filepath.Base(outside) + "/canary", "OUTSIDE_WORKSPACE"},
		{"through a symlink", "link/canary", ""},
		{"into .git", ".git/config", "DENIED_PATH"},
		{"into .GIT", ".GIT/config", "DENIED_PATH"},
		{"into .git.", ".git./config", "DENIED_PATH"},
		{"backslash", `.git\config`, "INVALID_VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := c.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
				Context: &toolguardv1.RequestContext{SessionId: "r-" + tc.name},
				Call:    jsonCall(t, "write_to_file", map[string]any{"path": tc.path, "content": "pwned"})})
			if err != nil {
				t.Fatalf("a refused path must be a verdict, not %v", err)
			}
			v := resp.GetVerdict()
			if v.GetOk() || v.GetFeedback() == "" || v.GetMistakes().GetConsecutive() != 1 {
				t.Fatalf("verdict %v", v)
			}
			if tc.code != "" && !slices.Contains(violationCodes(v), tc.code+":path") {
				t.Errorf("violations %v, want %s", violationCodes(v), tc.code)
			}
			if readFile(t, canary) != "keep" {
				t.Fatal("the file outside the workspace changed")
			}
		})
	}
}

func TestExecuteEdit(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	ctx := context.Background()
	file := filepath.Join(ws, "app.py")
	original := "def main():\n    print(\"hello\")\n    return 0\n"
	if err := os.WriteFile(file, []byte(original), 0o644); err != nil {
		t.Fatal(err)
	}
	rc := func(s string) *toolguardv1.RequestContext { return &toolguardv1.RequestContext{SessionId: s} }

	// Claude Code's Edit with smart quotes in the old text: the ladder
	// finds it, the report says how.
	resp, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e1"),
		Call: jsonCall(t, "Edit", map[string]any{"file_path": "app.py", "old_string": "print(“hello”)", "new_string": "print(\"hi\")"})})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetVerdict().GetOk() || !resp.GetApplied() || len(resp.GetEdits()) != 1 {
		t.Fatalf("verdict %v edits %v", resp.GetVerdict(), resp.GetEdits())
	}
	e := resp.GetEdits()[0]
	if e.GetStatus() != toolguardv1.EditStatus_EDIT_STATUS_APPLIED || e.GetStrategy() != toolguardv1.MatchStrategy_MATCH_STRATEGY_UNICODE || e.GetLine() != 2 {
		t.Errorf("edit result %v", e)
	}
	if got := readFile(t, file); got != "def main():\n    print(\"hi\")\n    return 0\n" {
		t.Fatalf("file = %q", got)
	}

	// The same edit again is already applied: success, nothing written.
	resp, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e2"),
		Call: jsonCall(t, "edit", map[string]any{"path": "app.py", "old_text": "print(\"hello\")", "new_text": "print(\"hi\")"})})
	if err != nil || resp.GetEdits()[0].GetStatus() != toolguardv1.EditStatus_EDIT_STATUS_ALREADY_APPLIED || !resp.GetVerdict().GetOk() {
		t.Errorf("already applied: %v %v", err, resp)
	}

	// A batch with one missing edit changes nothing, and the feedback
	// shows the closest region.
	before := readFile(t, file)
	resp, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e3"),
		Call: jsonCall(t, "multi_edit", map[string]any{"path": "app.py", "edits": []any{
			map[string]any{"old_text": "return 0", "new_text": "return 1"},
			map[string]any{"old_text": "print(\"goodbye\")", "new_text": "x"},
		}})})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetVerdict().GetOk() || resp.GetApplied() || readFile(t, file) != before {
		t.Fatalf("all-or-nothing broken: %v", resp)
	}
	if !slices.Contains(violationCodes(resp.GetVerdict()), "EDIT_NOT_FOUND:edits/1/old_text") || !strings.Contains(resp.GetVerdict().GetFeedback(), "closest region") {
		t.Errorf("violations %v feedback %q", violationCodes(resp.GetVerdict()), resp.GetVerdict().GetFeedback())
	}

	// With partial, the edit that applies is written.
	resp, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e4"), Partial: true,
		Call: jsonCall(t, "multi_edit", map[string]any{"path": "app.py", "edits": []any{
			map[string]any{"old_text": "return 0", "new_text": "return 1"},
			map[string]any{"old_text": "print(\"goodbye\")", "new_text": "x"},
		}})})
	if err != nil || !resp.GetApplied() || !strings.Contains(readFile(t, file), "return 1") {
		t.Errorf("partial: %v %v", err, resp)
	}

	// SEARCH/REPLACE blocks as Cline writes them, dry run.
	resp, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e5"), DryRun: true,
		Call: &toolguardv1.ToolCall{Arguments: &toolguardv1.ToolCall_XmlBlock{XmlBlock: "<replace_in_file>\n<path>app.py</path>\n<diff>\n------- SEARCH\n    return 1\n=======\n    return 2\n+++++++ REPLACE\n</diff>\n</replace_in_file>"}}})
	if err != nil || !resp.GetVerdict().GetOk() || resp.GetApplied() || !strings.Contains(resp.GetDiff(), "+    return 2") || strings.Contains(readFile(t, file), "return 2") {
		t.Errorf("dry-run SEARCH/REPLACE: %v %v", err, resp)
	}

	// A write call sent to ExecuteEdit is the caller's mistake.
	_, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc("e6"),
		Call: jsonCall(t, "write_to_file", map[string]any{"path": "x", "content": "y"})})
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("wrong RPC: %v", err)
	}
	// An unknown workspace is NOT_FOUND.
	_, err = c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "e7", Workspace: "nope"},
		Call: jsonCall(t, "edit", map[string]any{"path": "app.py", "old_text": "a", "new_text": "b"})})
	if status.Code(err) != codes.NotFound {
		t.Errorf("unknown workspace: %v", err)
	}
}

func TestExecuteApplyPatch(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n one\n-two\n+TWO\n three\n*** Add File: b.txt\n+new file\n*** End Patch\n"
	resp, err := c.ExecuteEdit(context.Background(), &toolguardv1.ExecuteEditRequest{Context: &toolguardv1.RequestContext{SessionId: "p"},
		Call: jsonCall(t, "apply_patch", map[string]any{"input": patch})})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetVerdict().GetOk() || !resp.GetApplied() {
		t.Fatalf("verdict %v", resp.GetVerdict())
	}
	if readFile(t, filepath.Join(ws, "a.txt")) != "one\nTWO\nthree\n" || readFile(t, filepath.Join(ws, "b.txt")) != "new file\n" {
		t.Errorf("files: %q %q", readFile(t, filepath.Join(ws, "a.txt")), readFile(t, filepath.Join(ws, "b.txt")))
	}
}

// TestValidateThenExecuteIsOneTurn follows the README's client: validate
// the model's call, then ExecuteWrite the verdict's tool name and
// arguments. Each pair is one turn, so the model's second identical call is
// not a repeat; the third is.
func TestValidateThenExecuteIsOneTurn(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "turns"}
	model := textCall("Write", `{"file_path": "pkg/__init__.py", "text": ""}`)
	for i, want := range []struct {
		ok          bool
		consecutive uint32
		violations  []string
	}{
		{true, 0, nil},
		{true, 0, nil},
		{false, 1, []string{"REPEATED_CALL:"}},
	} {
		v := validate(t, c, "turns", model)
		if v.GetOk() != want.ok || v.GetMistakes().GetConsecutive() != want.consecutive || !slices.Equal(violationCodes(v), want.violations) {
			t.Fatalf("turn %d: validate: ok=%v mistakes=%v violations=%v", i, v.GetOk(), v.GetMistakes(), violationCodes(v))
		}
		if !v.GetOk() {
			break // the README's client does not execute a refused call
		}
		resp, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: rc, Call: textCall(v.GetToolName(), v.GetArgumentsJson())})
		if err != nil {
			t.Fatal(err)
		}
		if ev := resp.GetVerdict(); !ev.GetOk() || ev.GetMistakes().GetConsecutive() != 0 {
			t.Fatalf("turn %d: execute: ok=%v mistakes=%v violations=%v", i, ev.GetOk(), ev.GetMistakes(), violationCodes(ev))
		}
		if got := readFile(t, filepath.Join(ws, "pkg", "__init__.py")); got != "" {
			t.Fatalf("turn %d: file = %q, want empty", i, got)
		}
	}
	// A failing call validated and then executed (with its id) is one mistake.
	bad := textCall("write_to_file", `{"path": "a.py"}`)
	bad.Id = "call_9"
	if v := validate(t, c, "turns-bad", bad); v.GetMistakes().GetConsecutive() != 1 {
		t.Fatalf("validate bad: mistakes %v", v.GetMistakes())
	}
	resp, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: "turns-bad"}, Call: bad})
	if err != nil || resp.GetVerdict().GetMistakes().GetConsecutive() != 1 || resp.GetVerdict().GetCallId() != "call_9" {
		t.Fatalf("execute bad: %v, %v", resp.GetVerdict(), err)
	}
}
