//go:build unix

package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// lookTree lays out a workspace with something of every kind, and an
// outside directory beside it holding a canary.
func lookTree(t *testing.T) (*Guard, string) {
	t.Helper()
	g, dir := newWorkspaceGuard(t)
	files := map[string]string{
		"README.md": "# hi\n", "src/main.go": "package main\n", "src/util/u.go": "package util\n",
		"src/util/u_test.go": "package util\n", "build/out.bin": "bin", "debug.log": "log\n",
		".git/config": "secret", ".GIT/HEAD": "secret", ".gitignore": "*.log\nbuild/\n",
		".toolguardignore": "private/\n", "private/p.txt": "secret",
	}
	workspacetest.WriteFiles(t, dir, files)
	out := filepath.Join(filepath.Dir(dir), filepath.Base(dir)+"-outside")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(out) })
	if err := os.WriteFile(filepath.Join(out, "canary.txt"), []byte("canary"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": out, "rel": "../" + filepath.Base(out), "srclink": "src", "gitlink": ".git"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return g, dir
}

func paths(es []DirEntry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.Path)
	}
	return out
}

func TestListDirectory(t *testing.T) {
	g, dir := lookTree(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		req   ListRequest
		want  []string
		codes []string
		text  []string
	}{
		{name: "root, one level", req: ListRequest{},
			want: []string{".gitignore", "README.md", "build", "debug.log", "gitlink", "out", "rel", "src", "srclink"},
			text: []string{"[DIR] src/\n", "[FILE] README.md (5 B)\n", "[LINK] srclink -> src\n", "2 folders, 3 files (22 B), 4 links."}},
		{name: "gitignore", req: ListRequest{Gitignore: true},
			want: []string{".gitignore", "README.md", "gitlink", "out", "rel", "src", "srclink"}},
		{name: "tree", req: ListRequest{Path: "src", Depth: 3},
			want: []string{"src/main.go", "src/util", "src/util/u.go", "src/util/u_test.go"}},
		{name: "tree excluding", req: ListRequest{Path: "src/", Depth: 3, Exclude: []string{"*_test.go"}},
			want: []string{"src/main.go", "src/util", "src/util/u.go"}},
		{name: "excluded folder is not entered", req: ListRequest{Depth: 5, Exclude: []string{"util", "build/", ".gitignore", "*.md", "*.log"}},
			want: []string{"gitlink", "out", "rel", "src", "src/main.go", "srclink"}},
		{name: "cut shows the shallowest first", req: ListRequest{Depth: 5, MaxEntries: 10},
			want: []string{".gitignore", "README.md", "build", "build/out.bin", "debug.log", "gitlink", "out", "rel", "src", "srclink"},
			text: []string{"[DIR] src/ (2 more not shown)\n", "[DIR] build/\n", "; 4 more entries not shown (max_entries 10)"}},
		{name: "absolute inside", req: ListRequest{Path: dir + "/src/util"}, want: []string{"src/util/u.go", "src/util/u_test.go"}},
		{name: "escape", req: ListRequest{Path: ".."}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "absolute outside", req: ListRequest{Path: "/etc"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "link out", req: ListRequest{Path: "out"}, codes: []string{repair.CodeDeniedPath}},
		{name: "link in", req: ListRequest{Path: "srclink"}, codes: []string{repair.CodeDeniedPath}},
		{name: "denied", req: ListRequest{Path: ".git"}, codes: []string{repair.CodeDeniedPath}},
		{name: "denied, another case", req: ListRequest{Path: ".GIT"}, codes: []string{repair.CodeDeniedPath}},
		{name: "ignored by the ignore file", req: ListRequest{Path: "private"}, codes: []string{repair.CodeDeniedPath}},
		{name: "a file", req: ListRequest{Path: "README.md"}, codes: []string{CodeNotRegular}},
		{name: "missing", req: ListRequest{Path: "nope"}, codes: []string{CodeFileNotFound}},
		{name: "bad exclude", req: ListRequest{Exclude: []string{"[a-"}}, codes: []string{repair.CodeInvalidValue}},
		{name: "depth out of range", req: ListRequest{Depth: 99}, codes: []string{repair.CodeInvalidValue}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.req.SessionID = "s-" + c.name
			lk, err := g.ListDirectory(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(lk.Verdict); !slices.Equal(got, c.codes) {
				t.Fatalf("violations %v, want %v (%s)", got, c.codes, lk.Feedback)
			}
			if c.codes != nil {
				if lk.Result != nil || lk.Mistakes.Consecutive != 1 {
					t.Fatalf("refusal: result %v, mistakes %+v", lk.Result, lk.Mistakes)
				}
				return
			}
			l := lk.Result.(*Listing)
			if got := paths(l.Entries); !slices.Equal(got, c.want) {
				t.Fatalf("entries:\n got %q\nwant %q", got, c.want)
			}
			text := l.Text()
			for _, w := range c.text {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q:\n%s", w, text)
				}
			}
			for _, bad := range []string{"canary", "config", "HEAD", "private", ".toolguardignore"} {
				if strings.Contains(text, bad) {
					t.Errorf("text shows %q:\n%s", bad, text)
				}
			}
		})
	}
}

func TestFindFiles(t *testing.T) {
	g, dir := lookTree(t)
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		req   FindRequest
		want  []string
		codes []string
		text  string
	}{
		{name: "by name at any depth", req: FindRequest{Pattern: "*.go"}, want: []string{"src/main.go", "src/util/u.go", "src/util/u_test.go"}},
		{name: "by path", req: FindRequest{Pattern: "src/**/*_test.go"}, want: []string{"src/util/u_test.go"}},
		{name: "below a folder", req: FindRequest{Pattern: "util/*.go", Path: "src"}, want: []string{"src/util/u.go", "src/util/u_test.go"}},
		{name: "alternation", req: FindRequest{Pattern: "*.{md,log}"}, want: []string{"README.md", "debug.log"}},
		{name: "gitignore", req: FindRequest{Pattern: "*.{md,log}", Gitignore: true}, want: []string{"README.md"}},
		{name: "folders only", req: FindRequest{Pattern: "util/"}, want: []string{"src/util"}},
		{name: "links shown, not followed", req: FindRequest{Pattern: "*"},
			want: []string{".gitignore", "README.md", "build", "build/out.bin", "debug.log", "gitlink", "out", "rel",
				"src", "src/main.go", "src/util", "src/util/u.go", "src/util/u_test.go", "srclink"}},
		{name: "exclude", req: FindRequest{Pattern: "*.go", Exclude: []string{"util"}}, want: []string{"src/main.go"}},
		{name: "bounded", req: FindRequest{Pattern: "*.go", MaxResults: 1}, want: []string{"src/main.go"}, text: "; 2 more not shown (max_results 1)"},
		{name: "absolute pattern inside", req: FindRequest{Pattern: dir + "/src/**/u*.go"}, want: []string{"src/util/u.go", "src/util/u_test.go"}},
		{name: "none", req: FindRequest{Pattern: "*.rs"}, text: `No files match "*.rs" in the workspace.`},
		{name: "denied never found", req: FindRequest{Pattern: "**/{config,HEAD,p.txt,canary.txt,.toolguardignore}"}, text: "No files match"},
		{name: "absolute pattern outside", req: FindRequest{Pattern: "/etc/**/*.conf"}, codes: []string{repair.CodeInvalidValue}},
		{name: "bad pattern", req: FindRequest{Pattern: "src/[a-"}, codes: []string{repair.CodeInvalidValue}},
		{name: "empty pattern", req: FindRequest{Pattern: ""}, codes: []string{repair.CodeMissingRequired}},
		{name: "escape", req: FindRequest{Pattern: "*", Path: "../"}, codes: []string{repair.CodeOutsideWorkspace}},
		{name: "through a link", req: FindRequest{Pattern: "*", Path: "out"}, codes: []string{repair.CodeDeniedPath}},
		{name: "denied folder", req: FindRequest{Pattern: "*", Path: ".Git"}, codes: []string{repair.CodeDeniedPath}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.req.SessionID = "s-" + c.name
			lk, err := g.FindFiles(ctx, c.req)
			if err != nil {
				t.Fatal(err)
			}
			if got := violationCodes(lk.Verdict); !slices.Equal(got, c.codes) {
				t.Fatalf("violations %v, want %v (%s)", got, c.codes, lk.Feedback)
			}
			if c.codes != nil {
				return
			}
			f := lk.Result.(*Found)
			if got := paths(f.Matches); !slices.Equal(got, c.want) {
				t.Fatalf("matches:\n got %q\nwant %q", got, c.want)
			}
			if !strings.Contains(f.Text(), c.text) {
				t.Fatalf("text lacks %q:\n%s", c.text, f.Text())
			}
		})
	}
}

// TestLookCallAliases calls the look tools as models name them.
func TestLookCallAliases(t *testing.T) {
	g, _ := lookTree(t)
	ctx := context.Background()
	for _, c := range []struct{ tool, args, first string }{
		{"ls", `{"path":"src"}`, "src/main.go"},
		{"list_files", `{"path":"src","recursive":true}`, "src/main.go"},
		{"LS", `{"path":"src","ignore":["util"]}`, "src/main.go"},
		{"directory_tree", `{"path":"src","excludePatterns":["*.go"]}`, "src/util"},
		{"list_dir", `{"DirectoryPath":"src"}`, "src/main.go"},
		{"Glob", `{"pattern":"**/u.go","path":"src"}`, "src/util/u.go"},
		{"glob", `{"pattern":"*.md"}`, "README.md"},
		{"find_by_name", `{"Pattern":"*_test.go","SearchDirectory":"src"}`, "src/util/u_test.go"},
	} {
		lk, err := g.LookCall(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "alias", Call: repair.Call{Name: c.tool, Form: repair.FormText, Text: c.args}}})
		if err != nil {
			t.Fatal(err)
		}
		if !lk.OK() {
			t.Fatalf("%s: %s", c.tool, lk.Feedback)
		}
		var first string
		switch r := lk.Result.(type) {
		case *Listing:
			first = r.Entries[0].Path
		case *Found:
			first = r.Matches[0].Path
		}
		if first != c.first {
			t.Fatalf("%s: first %q, want %q", c.tool, first, c.first)
		}
		if a := g.ActionOf(lk.Tool); a != ActionLook {
			t.Fatalf("%s: action %v", c.tool, a)
		}
	}
	// Another tool through LookCall is the caller's mistake.
	_, err := g.LookCall(ctx, ExecuteRequest{ValidateRequest: ValidateRequest{SessionID: "alias", Call: call(`{"path":"a","content":"x"}`)}})
	if _, ok := err.(*WrongToolError); !ok {
		t.Fatalf("write through LookCall: %v", err)
	}
}

func TestListingCounts(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	for i := range 30 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%3), fmt.Sprintf("f%02d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, 1500), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lk, err := g.ListDirectory(context.Background(), ListRequest{RequestContext: RequestContext{SessionID: "c"}, Depth: 2, MaxEntries: 5})
	if err != nil {
		t.Fatal(err)
	}
	l := lk.Result.(*Listing)
	want := "[DIR] d00/ (8 more not shown)\n[FILE] d00/f00.txt (1.5 KB)\n[FILE] d00/f03.txt (1.5 KB)\n[DIR] d01/ (10 more not shown)\n[DIR] d02/ (10 more not shown)\n" +
		"3 folders, 2 files (2.9 KB); 28 more entries not shown (max_entries 5): list a folder on its own, narrow with exclude, or raise max_entries.\n"
	if got := l.Text(); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	if l.Omitted != 28 || l.Partial {
		t.Fatalf("omitted %d partial %v", l.Omitted, l.Partial)
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 1536: "1.5 KB", 5 << 20: "5.0 MB", 3 << 30: "3.0 GB"} {
		if got := HumanSize(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// FuzzGlobPattern: any pattern is a usable glob or a message for the
// model; matching never panics.
func FuzzGlobPattern(f *testing.F) {
	for _, s := range []string{"*.go", "**/*_test.go", "src/[a-", "{a,b", "\\", "a/**/b/**/c", "{a,{b,{c,d}}}", "[!x]", "/abs/**", "./x/", "*{*,*{*,*}}*"} {
		f.Add(s, "src/a/b_test.go")
	}
	f.Fuzz(func(t *testing.T, pat, p string) {
		g, msg := compileGlob("pattern", pat)
		if msg == "" {
			g.match(p, filepath.Base(p), false)
		} else if g.pat != "" {
			t.Fatalf("refused pattern %q kept %q", pat, g.pat)
		}
		gs, _ := compileGlobs("exclude", []string{pat, p})
		gs.match(p, p, true)
		ws, err := workspace.Open(f0(t), workspace.Options{AgentRoot: "/home/user/project"})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		findPattern(ws, ".", pat)
	})
}

func f0(t *testing.T) string { return t.TempDir() }
