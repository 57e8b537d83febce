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
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestListAndFind lists and finds over a loopback server: entries with
// types, sizes and link targets, denied paths absent, the cut counted,
// refusals as verdicts counted in the session.
func TestListAndFind(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{AgentRoot: "/home/user/project"}})
	workspacetest.WriteFiles(t, ws, map[string]string{"src/a.go": "package a\n", "src/b_test.go": "package a\n", "README.md": "hi\n", ".git/config": "x"})
	if err := os.Symlink("/etc", filepath.Join(ws, "etc")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "look"}
	l, err := c.ListDirectory(ctx, &toolguardv1.ListDirectoryRequest{Context: rc, Path: "/home/user/project", Depth: 2, MaxEntries: 4})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range l.GetEntries() {
		got = append(got, e.GetPath()+":"+e.GetType().String())
	}
	want := []string{"README.md:ENTRY_TYPE_FILE", "etc:ENTRY_TYPE_SYMLINK", "src:ENTRY_TYPE_DIRECTORY", "src/a.go:ENTRY_TYPE_FILE"}
	if !l.GetVerdict().GetOk() || !slices.Equal(got, want) || l.GetOmitted() != 1 || l.GetEntries()[2].GetOmitted() != 1 ||
		l.GetEntries()[1].GetLinkTarget() != "/etc" || l.GetFiles() != 2 || l.GetTotalBytes() != 13 || !strings.Contains(l.GetText(), "[DIR] src/ (1 more not shown)") {
		t.Fatalf("list: %v", l)
	}
	f, err := c.FindFiles(ctx, &toolguardv1.FindFilesRequest{Context: rc, Pattern: "**/*.go", Exclude: []string{"*_test.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if !f.GetVerdict().GetOk() || len(f.GetMatches()) != 1 || f.GetMatches()[0].GetPath() != "src/a.go" || f.GetText() != "src/a.go\n1 path matching \"**/*.go\" in the workspace.\n" {
		t.Fatalf("find: %v", f)
	}
	for i, tc := range []struct {
		list bool
		path string
		code string
	}{
		{true, "..", "OUTSIDE_WORKSPACE:path"}, {true, ".git", "DENIED_PATH:path"}, {true, "etc", "DENIED_PATH:path"},
		{false, "[", "INVALID_VALUE:pattern"},
	} {
		var v *toolguardv1.Verdict
		if tc.list {
			r, err := c.ListDirectory(ctx, &toolguardv1.ListDirectoryRequest{Context: rc, Path: tc.path})
			if err != nil || len(r.GetEntries()) != 0 {
				t.Fatalf("%s: %v %v", tc.path, r, err)
			}
			v = r.GetVerdict()
		} else {
			r, err := c.FindFiles(ctx, &toolguardv1.FindFilesRequest{Context: rc, Pattern: tc.path})
			if err != nil || len(r.GetMatches()) != 0 {
				t.Fatalf("%s: %v %v", tc.path, r, err)
			}
			v = r.GetVerdict()
		}
		if v.GetOk() || v.GetFeedback() == "" || v.GetMistakes().GetConsecutive() != uint32(i+1) || !slices.Equal(violationCodes(v), []string{tc.code}) {
			t.Errorf("%s: %v", tc.path, v)
		}
	}
}

// TestLookCallerErrors: the caller's mistakes are statuses, with reasons.
func TestLookCallerErrors(t *testing.T) {
	c, _ := startWorkspace(t, service.Config{})
	ctx := context.Background()
	_, err := c.ListDirectory(ctx, &toolguardv1.ListDirectoryRequest{})
	wantRefusal(t, "no session", err, codes.InvalidArgument, "SESSION_ID_REQUIRED")
	_, err = c.FindFiles(ctx, &toolguardv1.FindFilesRequest{Context: &toolguardv1.RequestContext{SessionId: "s", Workspace: "nope"}, Pattern: "*"})
	wantRefusal(t, "unknown workspace", err, codes.NotFound, "WORKSPACE_NOT_FOUND")
	_, err = c.FindFiles(ctx, &toolguardv1.FindFilesRequest{Context: &toolguardv1.RequestContext{SessionId: "s"}, Pattern: "*", Exclude: make([]string, 65)})
	wantRefusal(t, "too many patterns", err, codes.InvalidArgument, "TOO_MANY_PATTERNS")
	c2, _, _ := startAuthenticated(t, service.Config{})
	_, err = c2.ListDirectory(as(bob), &toolguardv1.ListDirectoryRequest{Context: &toolguardv1.RequestContext{SessionId: "s"}})
	wantRefusal(t, "not granted", err, codes.PermissionDenied, "WORKSPACE_NOT_GRANTED")
}
