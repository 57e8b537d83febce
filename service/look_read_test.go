package service_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestReadOnlyRPCs: GetFileInfo, ReadFiles and ReadMediaFile over a
// loopback server, with ReadFile's head and tail; refusals beside each path,
// nothing of a denied or outside file.
func TestReadOnlyRPCs(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{})
	outside := t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00"
	workspacetest.WriteFiles(t, ws, map[string]string{"f.txt": "a\nb\nc\n", "img.png": png, ".git/config": "[core]\n"})
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "look"}

	tail, err := c.ReadFile(ctx, &toolguardv1.ReadFileRequest{Context: rc, Path: "f.txt", Tail: 1})
	if err != nil || tail.GetContent() != "c\n" || tail.GetStartLine() != 3 {
		t.Fatalf("tail: %v %v", err, tail)
	}

	info, err := c.GetFileInfo(ctx, &toolguardv1.GetFileInfoRequest{Context: rc, Paths: []string{"f.txt", ".git/config", "out", "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	f, denied, link, missing := info.GetFiles()[0], info.GetFiles()[1], info.GetFiles()[2], info.GetFiles()[3]
	if !info.GetVerdict().GetOk() || f.GetType() != toolguardv1.FileType_FILE_TYPE_FILE || f.GetTotalLines() != 3 || f.GetSha256() != sha("a\nb\nc\n") ||
		f.GetModified() == nil || f.GetMode() != 0o644 {
		t.Fatalf("file: %v", info)
	}
	if !denied.GetDenied() || !strings.Contains(denied.GetDeniedBy(), ".git") || denied.GetModified() != nil || denied.GetType() != toolguardv1.FileType_FILE_TYPE_UNSPECIFIED ||
		denied.GetError().GetCode() != "DENIED_PATH" {
		t.Fatalf("denied: %v", denied)
	}
	if link.GetType() != toolguardv1.FileType_FILE_TYPE_SYMLINK || link.GetLinkTarget() != filepath.Join(outside, "secret") || link.GetSha256() != "" || link.TotalLines != nil {
		t.Fatalf("link: %v", link)
	}
	if missing.GetError().GetCode() != "FILE_NOT_FOUND" {
		t.Fatalf("missing: %v", missing)
	}

	many, err := c.ReadFiles(ctx, &toolguardv1.ReadFilesRequest{Context: rc, Paths: []string{"f.txt", "out", "img.png"}, Head: 2, LineNumbers: true})
	if err != nil {
		t.Fatal(err)
	}
	if !many.GetVerdict().GetOk() || many.GetFiles()[0].GetContent() != "   1 | a\n   2 | b\n" || many.GetFiles()[1].GetError().GetCode() != "DENIED_PATH" ||
		many.GetFiles()[2].GetError().GetCode() != "BINARY_FILE" || strings.Contains(many.String(), "canary") {
		t.Fatalf("read files: %v", many)
	}
	many, err = c.ReadFiles(ctx, &toolguardv1.ReadFilesRequest{Context: rc, Paths: []string{"out", ".git/config"}})
	if err != nil || many.GetVerdict().GetOk() || many.GetVerdict().GetMistakes().GetConsecutive() != 1 || len(many.GetFiles()) != 2 {
		t.Fatalf("none served: %v %v", err, many)
	}

	media, err := c.ReadMediaFile(ctx, &toolguardv1.ReadMediaFileRequest{Context: rc, Path: "img.png"})
	if err != nil || !media.GetVerdict().GetOk() || media.GetMimeType() != "image/png" || string(media.GetData()) != png || media.GetPath() != "img.png" {
		t.Fatalf("media: %v %v", err, media)
	}
	media, err = c.ReadMediaFile(ctx, &toolguardv1.ReadMediaFileRequest{Context: rc, Path: "out"})
	if err != nil || media.GetVerdict().GetOk() || media.GetData() != nil || !slices.Equal(violationCodes(media.GetVerdict()), []string{"DENIED_PATH:path"}) {
		t.Fatalf("media through a link out: %v %v", err, media)
	}
}

// TestReadOnlyRPCsCallerErrors: a list of paths no call could take, a
// missing session or an ungranted workspace are statuses.
func TestReadOnlyRPCsCallerErrors(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{})
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "s"}
	_, err := c.GetFileInfo(ctx, &toolguardv1.GetFileInfoRequest{Context: rc})
	wantRefusal(t, "no paths", err, codes.InvalidArgument, "PATHS_REQUIRED")
	_, err = c.ReadFiles(ctx, &toolguardv1.ReadFilesRequest{Context: rc, Paths: make([]string, 51)})
	wantRefusal(t, "too many", err, codes.InvalidArgument, "TOO_MANY_PATHS")
	_, err = c.ReadMediaFile(ctx, &toolguardv1.ReadMediaFileRequest{Path: "x"})
	wantRefusal(t, "no session", err, codes.InvalidArgument, "SESSION_ID_REQUIRED")
	_, err = c.GetFileInfo(ctx, &toolguardv1.GetFileInfoRequest{Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "nope"}, Paths: []string{"x"}})
	wantRefusal(t, "unknown workspace", err, codes.NotFound, "WORKSPACE_NOT_FOUND")

	ac, _, _ := startAuthenticated(t, service.Config{})
	_, err = ac.ReadFiles(as(bob), &toolguardv1.ReadFilesRequest{Context: rc, Paths: []string{"f.txt"}})
	wantRefusal(t, "bob reads default", err, codes.PermissionDenied, "WORKSPACE_NOT_GRANTED")
}
