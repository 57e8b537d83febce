package service_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/grpc/codes"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
)

// TestReadFile reads over a loopback server: the range, its numbering, the
// hash an edit then takes, and refusals as verdicts counted in the session.
func TestReadFile(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{AgentRoot: "/home/user/project"}})
	content := "a\nb\nc\n"
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "img.png"), []byte("\x89PNG\r\n\x1a\n\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "read"}
	resp, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: rc, Path: "/home/user/project/f.txt", Offset: 2, Limit: 1, LineNumbers: true})
	if err != nil {
		t.Fatal(err)
	}
	want := &toolguardv1.ReadFileResponse{Path: "f.txt", Content: "   2 | b\n", Sha256: sha(content), Size: 6, TotalLines: 3, StartLine: 2, EndLine: 2}
	if !resp.GetVerdict().GetOk() || resp.GetPath() != want.Path || resp.GetContent() != want.Content || resp.GetSha256() != want.Sha256 ||
		resp.GetSize() != want.Size || resp.GetTotalLines() != want.TotalLines || resp.GetStartLine() != 2 || resp.GetEndLine() != 2 || resp.GetTruncated() {
		t.Fatalf("got %v, want %v", resp, want)
	}

	edit, err := c.ExecuteEdit(ctx, &toolguardv1.ExecuteEditRequest{Context: rc, ExpectedSha256: resp.GetSha256(),
		Call: jsonCall(t, "edit", map[string]any{"path": "f.txt", "old_text": resp.GetContent(), "new_text": "B\n"})})
	if err != nil || !edit.GetApplied() {
		t.Fatalf("edit with the read's hash and numbered text: %v %v", err, edit)
	}
	if got := readFile(t, filepath.Join(ws, "f.txt")); got != "a\nB\nc\n" {
		t.Errorf("file %q", got)
	}

	for i, tc := range []struct{ path, code string }{
		{"../outside", "OUTSIDE_WORKSPACE:path"},
		{".git/HEAD", "DENIED_PATH:path"},
		{"img.png", "BINARY_FILE:path"},
	} {
		resp, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: rc, Path: tc.path})
		if err != nil {
			t.Fatalf("%s: a refused read must be a verdict, not %v", tc.path, err)
		}
		v := resp.GetVerdict()
		if v.GetOk() || v.GetFeedback() == "" || resp.GetContent() != "" || v.GetMistakes().GetConsecutive() != uint32(i+1) ||
			!slices.Equal(violationCodes(v), []string{tc.code}) {
			t.Errorf("%s: %v", tc.path, v)
		}
	}
}

// TestReadFileCallerErrors: the caller's mistakes are statuses, with reasons.
func TestReadFileCallerErrors(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{})
	ctx := context.Background()
	_, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Path: "f.txt"})
	wantRefusal(t, "no session", err, codes.InvalidArgument, "SESSION_ID_REQUIRED")
	_, err = c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "nope"}, Path: "f.txt"})
	wantRefusal(t, "unknown workspace", err, codes.NotFound, "WORKSPACE_NOT_FOUND")
}

// TestReadFileGrants: a read needs the workspace granted, the default one
// when none is named.
func TestReadFileGrants(t *testing.T) {
	c, _, _ := startAuthenticated(t, service.Config{})
	_, err := c.ReadFile(as(bob), &toolguardv1.ReadFileRequest{Context: &toolguardv1.RequestContext{SessionId: "s"}, Path: "f.txt"})
	wantRefusal(t, "bob reads default", err, codes.PermissionDenied, "WORKSPACE_NOT_GRANTED")
	resp, err := c.ReadFile(as(alice), &toolguardv1.ReadFileRequest{Context: &toolguardv1.RequestContext{SessionId: "s"}, Path: "f.txt"})
	if err != nil || !slices.Equal(violationCodes(resp.GetVerdict()), []string{"FILE_NOT_FOUND:path"}) {
		t.Errorf("alice reads default: %v %v", err, resp)
	}
}
