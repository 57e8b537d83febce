package service_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestSearchFiles searches over a loopback server: matching lines with
// context by path then line, binary and denied files never read, the cut
// counted, a bad pattern a verdict counted in the session, the caller's
// mistakes statuses.
func TestSearchFiles(t *testing.T) {
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{AgentRoot: "/home/user/project"}})
	workspacetest.WriteFiles(t, ws, map[string]string{
		"src/a.go": "package a\n\nfunc A() {}\n", "src/b.go": "package a\n\nfunc B() {}\nfunc C() {}\n",
		"img.bin": "func\x00", ".git/config": "func secret\n",
	})
	ctx := context.Background()
	rc := &toolguardv1.RequestContext{SessionId: "search"}
	r, err := c.SearchFiles(ctx, &toolguardv1.SearchFilesRequest{Context: rc, Pattern: `^func \w`, Path: "/home/user/project/src", Before: 1, MaxResults: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range r.GetMatches() {
		got = append(got, m.GetPath()+":"+m.GetText())
	}
	if !r.GetVerdict().GetOk() || !slices.Equal(got, []string{"src/a.go:func A() {}", "src/b.go:func B() {}"}) || r.GetOmitted() != 1 ||
		r.GetTotalMatches() != 3 || r.GetFilesSearched() != 2 || r.GetMatches()[0].GetLine() != 3 || !slices.Equal(r.GetMatches()[0].GetBefore(), []string{""}) ||
		!strings.Contains(r.GetText(), "src/a.go-2- \nsrc/a.go:3: func A() {}\n--\n") {
		t.Fatalf("search: %v", r)
	}
	r, err = c.SearchFiles(ctx, &toolguardv1.SearchFilesRequest{Context: rc, Pattern: "FUNC", IgnoreCase: true, OutputMode: "count"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.GetFiles()) != 2 || r.GetFiles()[1].GetCount() != 2 || r.GetBinarySkipped() != 1 || strings.Contains(r.GetText(), "secret") {
		t.Fatalf("count: %v", r)
	}
	for i, tc := range []struct{ pattern, path, code string }{
		{"x", "..", "OUTSIDE_WORKSPACE:path"}, {"x", ".git", "DENIED_PATH:path"}, {"func (", "", "INVALID_VALUE:pattern"},
	} {
		r, err := c.SearchFiles(ctx, &toolguardv1.SearchFilesRequest{Context: rc, Pattern: tc.pattern, Path: tc.path})
		if err != nil || len(r.GetMatches()) != 0 {
			t.Fatalf("%s: %v %v", tc.path, r, err)
		}
		v := r.GetVerdict()
		if v.GetOk() || v.GetFeedback() == "" || v.GetMistakes().GetConsecutive() != uint32(i+1) || !slices.Equal(violationCodes(v), []string{tc.code}) {
			t.Errorf("%s %s: %v", tc.pattern, tc.path, v)
		}
	}
	_, err = c.SearchFiles(ctx, &toolguardv1.SearchFilesRequest{Pattern: "x"})
	wantRefusal(t, "no session", err, codes.InvalidArgument, "SESSION_ID_REQUIRED")
	_, err = c.SearchFiles(ctx, &toolguardv1.SearchFilesRequest{Context: rc, Pattern: strings.Repeat("x", 70_000)})
	wantRefusal(t, "long pattern", err, codes.InvalidArgument, "FIELD_TOO_LONG")
}
