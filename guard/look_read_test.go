package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// lookFixture is a workspace with text, binary, denied, linked and outside
// files, beside which every read-only tool is tried.
func lookFixture(t *testing.T) (*Guard, string) {
	t.Helper()
	g, dir := newWorkspaceGuard(t)
	outside := t.TempDir()
	files := map[string]string{
		"a.py":             "one\ntwo\nthree\nfour\n",
		"b.txt":            "b\n",
		"bin.dat":          "PK\x03\x04\x00\x00rest",
		"sub/c.go":         "package c\n",
		".git/config":      "[core]\n",
		".env":             "SECRET=1\n",
		".toolguardignore": ".env\n",
		"img/dot.png":      "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"img/logo.svg":     "<svg xmlns=\"http://www.w3.org/2000/svg\"/>\n",
	}
	workspacetest.WriteFiles(t, dir, files)
	if err := os.WriteFile(filepath.Join(outside, "canary.txt"), []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": filepath.Join(outside, "canary.txt"), "rel-out": "../" + filepath.Base(outside) + "/canary.txt",
		"to-env": ".env", "outdir": outside, "to-a": "a.py"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Link(filepath.Join(outside, "canary.txt"), filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	return g, dir
}

func TestGetFileInfo(t *testing.T) {
	g, dir := lookFixture(t)
	tests := []struct {
		path, kind, code string
		lines            int
		denied           bool
	}{
		{path: "a.py", kind: workspace.KindFile, lines: 4},
		{path: "bin.dat", kind: workspace.KindFile, lines: -1},
		{path: "sub", kind: workspace.KindDirectory, lines: -1},
		{path: "sub/", kind: workspace.KindDirectory, lines: -1},
		{path: ".", kind: workspace.KindDirectory, lines: -1},
		{path: "out", kind: workspace.KindSymlink, lines: -1},
		{path: "to-a", kind: workspace.KindSymlink, lines: -1},
		{path: "outdir/canary.txt", code: repair.CodeDeniedPath, lines: -1},
		{path: "hard.txt", code: repair.CodeDeniedPath, lines: -1},
		{path: "../x", code: repair.CodeOutsideWorkspace, lines: -1},
		{path: "/etc/passwd", code: repair.CodeOutsideWorkspace, lines: -1},
		{path: "nope", code: CodeFileNotFound, lines: -1},
		{path: ".git/config", code: repair.CodeDeniedPath, lines: -1, denied: true},
		{path: ".GIT/nothere", code: repair.CodeDeniedPath, lines: -1, denied: true},
		{path: ".env", code: repair.CodeDeniedPath, lines: -1, denied: true},
	}
	var paths []string
	for _, tt := range tests {
		paths = append(paths, tt.path)
	}
	lk, err := g.GetFileInfo(context.Background(), InfoRequest{RequestContext: RequestContext{SessionID: "s"}, Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	info := lk.Result.(*Info)
	if !lk.OK() || lk.Mistakes.Consecutive != 0 || len(info.Paths) != len(tests) {
		t.Fatalf("verdict %+v, %d paths", lk.Verdict, len(info.Paths))
	}
	for i, tt := range tests {
		got := info.Paths[i]
		code := ""
		if got.Error != nil {
			code = got.Error.Code
		}
		if got.Asked != tt.path || got.Kind != tt.kind || code != tt.code || got.Lines != tt.lines || got.Denied != tt.denied {
			t.Errorf("%s: %+v (error %v)", tt.path, got, got.Error)
		}
		if tt.denied && (got.DeniedBy == "" || got.Size != 0 || !got.Modified.IsZero() || strings.Contains(got.Error.Message, "exist")) {
			t.Errorf("%s: a denied path says more than its pattern: %+v", tt.path, got)
		}
	}
	if a := info.Paths[0]; a.SHA256 != workspace.SHA256Hex([]byte("one\ntwo\nthree\nfour\n")) || a.Size != 19 || a.Modified.IsZero() || a.Mode != 0o644 {
		t.Errorf("a.py: %+v", a)
	}
	if b := info.Paths[1]; b.SHA256 == "" || !strings.Contains(b.NotComputed, "NUL") {
		t.Errorf("bin.dat: %+v", b)
	}
	if l := info.Paths[5]; !strings.HasSuffix(l.LinkTarget, "canary.txt") || l.SHA256 != "" {
		t.Errorf("out: %+v", l)
	}
	_ = dir
}

// TestLookNoneServed: a call whose every path fails is a mistake, counted;
// one that served a path is not.
func TestLookNoneServed(t *testing.T) {
	g, _ := lookFixture(t)
	ctx := context.Background()
	rc := RequestContext{SessionID: "none"}
	lk, err := g.GetFileInfo(ctx, InfoRequest{RequestContext: rc, Paths: []string{".git/config", "../x"}})
	if err != nil {
		t.Fatal(err)
	}
	if lk.OK() || lk.Mistakes.Consecutive != 1 || len(lk.Result.(*Info).Paths) != 2 || !strings.Contains(lk.Feedback, ".git") {
		t.Fatalf("info: %+v", lk.Verdict)
	}
	lk, err = g.ReadFiles(ctx, ReadFilesRequest{RequestContext: rc, Paths: []string{"bin.dat", "nope"}})
	if err != nil {
		t.Fatal(err)
	}
	if lk.OK() || lk.Mistakes.Consecutive != 2 || len(lk.Result.(*ReadMany).Files) != 2 {
		t.Fatalf("read files: %+v", lk.Verdict)
	}
	lk, err = g.ReadFiles(ctx, ReadFilesRequest{RequestContext: rc, Paths: []string{"bin.dat", "b.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	many := lk.Result.(*ReadMany)
	if !lk.OK() || lk.Mistakes.Consecutive != 0 || many.Files[0].Error.Code != CodeBinaryFile || many.Files[1].Content != "b\n" {
		t.Fatalf("read files: %+v %+v", lk.Verdict, many.Files)
	}
}

func TestReadFiles(t *testing.T) {
	g, _ := lookFixture(t)
	ctx := context.Background()
	tests := []struct {
		name  string
		req   ReadFilesRequest
		want  []string // each file's content, or "!CODE"
		codes []string // the verdict's violations
	}{
		{name: "two", req: ReadFilesRequest{Paths: []string{"a.py", "b.txt"}}, want: []string{"one\ntwo\nthree\nfour\n", "b\n"}},
		{name: "head", req: ReadFilesRequest{Paths: []string{"a.py", "b.txt"}, Head: 1}, want: []string{"one\n", "b\n"}},
		{name: "tail numbered", req: ReadFilesRequest{Paths: []string{"a.py"}, Tail: 2, LineNumbers: true}, want: []string{"   3 | three\n   4 | four\n"}},
		{name: "errors beside", req: ReadFilesRequest{Paths: []string{".env", "a.py", "to-env", "out", "rel-out", "hard.txt", "sub"}, Head: 1},
			want: []string{"!DENIED_PATH", "one\n", "!DENIED_PATH", "!DENIED_PATH", "!DENIED_PATH", "!DENIED_PATH", "!NOT_REGULAR_FILE"}},
		{name: "a link inside is followed", req: ReadFilesRequest{Paths: []string{"to-a"}, Head: 1}, want: []string{"one\n"}},
		{name: "head and tail", req: ReadFilesRequest{Paths: []string{"a.py"}, Head: 1, Tail: 1}, codes: []string{repair.CodeInvalidValue}},
		{name: "no paths", req: ReadFilesRequest{}, codes: []string{repair.CodeMissingRequired}},
		{name: "too many", req: ReadFilesRequest{Paths: make([]string, MaxReadFiles+1)}, codes: []string{repair.CodeInvalidValue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.req.SessionID = t.Name()
			lk, err := g.ReadFiles(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.codes != nil {
				if lk.OK() || strings.Join(violationCodes(lk.Verdict), ",") != strings.Join(tt.codes, ",") {
					t.Fatalf("violations %v, want %v", violationCodes(lk.Verdict), tt.codes)
				}
				return
			}
			r, _ := lk.Result.(*ReadMany)
			if !lk.OK() || r == nil || len(r.Files) != len(tt.want) {
				t.Fatalf("verdict %+v, files %+v", lk.Verdict, r)
			}
			for i, w := range tt.want {
				f := r.Files[i]
				got := f.Content
				if f.Error != nil {
					got = "!" + f.Error.Code
				}
				if got != w || f.Asked != tt.req.Paths[i] {
					t.Errorf("file %d (%s): %q, want %q", i, f.Asked, got, w)
				}
				if strings.Contains(got, "canary") || strings.Contains(got, "SECRET") {
					t.Errorf("file %d leaked %q", i, got)
				}
			}
		})
	}
}

// TestReadFilesShareTheBudget: each file gets what is left over the files
// still to read; the answer stays within the read bound and every cut file
// says where to read on.
func TestReadFilesShareTheBudget(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	long := strings.Repeat(strings.Repeat("x", 99)+"\n", 4000) // 400 KB
	for name, content := range map[string]string{"long1": long, "short": "s\n", "long2": long} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lk, err := g.ReadFiles(context.Background(), ReadFilesRequest{RequestContext: RequestContext{SessionID: "s"}, Paths: []string{"short", "long1", "long2"}})
	if err != nil {
		t.Fatal(err)
	}
	r := lk.Result.(*ReadMany)
	total := 0
	for _, f := range r.Files {
		total += len(f.Content)
	}
	s, l1, l2 := r.Files[0], r.Files[1], r.Files[2]
	if total > g.maxReadBytes() || s.Content != "s\n" || !l1.Truncated || !l2.Truncated || l1.ReadOn() == "" {
		t.Fatalf("total %d of %d; %v %v %v", total, g.maxReadBytes(), s.Truncated, l1.Truncated, l2.Truncated)
	}
	// The short file's unused share went to the others, evenly.
	if d := len(l1.Content) - len(l2.Content); d > 100 || d < -100 || len(l1.Content) < g.maxReadBytes()/2-200 {
		t.Fatalf("shares %d and %d", len(l1.Content), len(l2.Content))
	}
}

func TestReadMedia(t *testing.T) {
	g, _ := lookFixture(t)
	tests := []struct{ path, mime, code string }{
		{path: "img/dot.png", mime: "image/png"},
		{path: "img/logo.svg", mime: "image/svg+xml"},
		{path: "a.py", mime: "text/plain; charset=utf-8"},
		{path: ".env", code: repair.CodeDeniedPath},
		{path: "out", code: repair.CodeDeniedPath},
		{path: "hard.txt", code: repair.CodeDeniedPath},
		{path: "../etc/passwd", code: repair.CodeOutsideWorkspace},
		{path: "sub", code: CodeNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			lk, err := g.ReadMedia(context.Background(), MediaRequest{RequestContext: RequestContext{SessionID: t.Name()}, Path: tt.path})
			if err != nil {
				t.Fatal(err)
			}
			if tt.code != "" {
				if lk.OK() || violationCodes(lk.Verdict)[0] != tt.code || lk.Result != nil {
					t.Fatalf("%+v", lk)
				}
				return
			}
			m, _ := lk.Result.(*Media)
			if !lk.OK() || m == nil || m.MIMEType != tt.mime || len(m.Data) == 0 || m.SHA256 != workspace.SHA256Hex(m.Data) {
				t.Fatalf("%+v, %+v", lk.Verdict, m)
			}
		})
	}
}

func TestReadMediaBound(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workspace = t.TempDir()
	cfg.MaxMediaBytes = 10
	g, cleanup, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cleanup() })
	if err := os.WriteFile(filepath.Join(cfg.Workspace, "big.png"), []byte("\x89PNG\r\n\x1a\nmore than ten"), 0o644); err != nil {
		t.Fatal(err)
	}
	lk, err := g.ReadMedia(context.Background(), MediaRequest{RequestContext: RequestContext{SessionID: "s"}, Path: "big.png"})
	if err != nil {
		t.Fatal(err)
	}
	if lk.OK() || violationCodes(lk.Verdict)[0] != CodeFileTooLarge {
		t.Fatalf("%+v", lk.Verdict)
	}
}

func TestMediaType(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"x.png", "\x89PNG\r\n\x1a\n", "image/png"},
		{"x.bin", "\x89PNG\r\n\x1a\n", "image/png"},
		{"x.jpg", "\xff\xd8\xff\xe0", "image/jpeg"},
		{"x.gif", "GIF89a", "image/gif"},
		{"x.webp", "RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"},
		{"x.svg", "<?xml version=\"1.0\"?><svg/>", "image/svg+xml"},
		{"noext", "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>", "image/svg+xml"},
		{"x.mp3", "ID3\x03", "audio/mpeg"},
		{"x.flac", "fLaC\x00", "audio/flac"},
		{"x.ogg", "OggS\x00\x02", "audio/ogg"},
		{"x.wav", "RIFF\x00\x00\x00\x00WAVEfmt ", "audio/wave"},
		{"x.dat", "\x00\x01\x02", "application/octet-stream"},
	}
	for _, tt := range tests {
		if got := MediaType(tt.name, []byte(tt.data)); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLookToolsAreLookActions: the three tools are built in, read-only.
func TestLookToolsAreLookActions(t *testing.T) {
	g, _ := newWorkspaceGuard(t)
	for _, name := range []string{InfoToolName, ReadFilesToolName, MediaToolName} {
		tool := g.Registry().Tool(name)
		if tool == nil || g.ActionOf(tool) != ActionLook {
			t.Errorf("%s: %v", name, tool)
		}
	}
}
