package workspace

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestInfoEscapes runs Info through the path-escape battery: nothing outside
// the workspace is described, a final link is described and never followed,
// a denied path says only which pattern denies it, and a hard-linked file is
// refused as ReadFile refuses it.
func TestInfoEscapes(t *testing.T) {
	p := func(s string) func(*env) string { return func(*env) string { return s } }
	cases := []struct {
		name  string
		setup func(t *testing.T, e *env)
		path  func(e *env) string
		code  string // "" = described
		kind  string
		// target is a link's target as written; data the file read.
		target, data string
	}{
		{name: "file", path: p("f.txt"), kind: KindFile, data: "inside\n"},
		{name: "absolute agent view", path: p(agentRoot + "/sub/g.txt"), kind: KindFile, data: "g\n"},
		{name: "directory", path: p("sub"), kind: KindDirectory},
		{name: "directory slash", path: p("sub/"), kind: KindDirectory},
		{name: "root", path: p("."), kind: KindDirectory},
		{name: "agent root", path: p(agentRoot), kind: KindDirectory},
		{name: "file slash", path: p("f.txt/"), code: CodeNotRegular},
		{name: "missing", path: p("new.txt"), code: CodeNotFound},
		{name: "dotdot", path: p("../outside/canary.txt"), code: CodeOutsideWorkspace},
		{name: "dotdot comes back in", path: p("a/../../ws/f.txt"), code: CodeOutsideWorkspace},
		{name: "absolute outside", path: func(e *env) string { return filepath.Join(e.out, "canary.txt") }, code: CodeOutsideWorkspace},
		{name: "absolute etc", path: p("/etc/passwd"), code: CodeOutsideWorkspace},
		{name: "backslash", path: p(`sub\g.txt`), code: CodeInvalidPath},
		{name: "NUL byte", path: p("f.txt\x00"), code: CodeInvalidPath},
		{name: "symlink to outside file", setup: func(t *testing.T, e *env) { symlink(t, "../outside/canary.txt", e.in("l")) }, path: p("l"), kind: KindSymlink, target: "../outside/canary.txt"},
		{name: "absolute symlink outside", setup: func(t *testing.T, e *env) { symlink(t, filepath.Join(e.out, "canary.txt"), e.in("l")) }, path: p("l"), kind: KindSymlink},
		{name: "symlink to denied file", setup: func(t *testing.T, e *env) { symlink(t, ".env", e.in("innocent")) }, path: p("innocent"), kind: KindSymlink, target: ".env"},
		{name: "symlink to directory", setup: func(t *testing.T, e *env) { symlink(t, "sub", e.in("l")) }, path: p("l"), kind: KindSymlink, target: "sub"},
		{name: "dangling symlink", setup: func(t *testing.T, e *env) { symlink(t, "nothere", e.in("l")) }, path: p("l"), kind: KindSymlink, target: "nothere"},
		{name: "symlinked parent outside", setup: func(t *testing.T, e *env) { symlink(t, "../outside", e.in("l")) }, path: p("l/canary.txt"), code: CodeSymlink},
		{name: "symlinked parent inside", setup: func(t *testing.T, e *env) { symlink(t, "sub", e.in("l")) }, path: p("l/g.txt"), code: CodeSymlink},
		{name: "hard link inside", setup: func(t *testing.T, e *env) { link(t, e.in("f.txt"), e.in("h.txt")) }, path: p("h.txt"), code: CodeHardlink},
		{name: "hard link to outside", setup: func(t *testing.T, e *env) { link(t, filepath.Join(e.out, "canary.txt"), e.in("h.txt")) }, path: p("h.txt"), code: CodeHardlink},
		{name: "fifo", setup: func(t *testing.T, e *env) {
			if err := syscall.Mkfifo(e.in("fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, path: p("fifo"), kind: KindOther},
		{name: "oversize file", setup: func(t *testing.T, e *env) { writeFile(t, e.in("big.txt"), strings.Repeat("b", 100), 0o644) }, path: p("big.txt"), kind: KindFile},
		{name: ".git/config", setup: func(t *testing.T, e *env) { writeFile(t, e.in(".git/config"), "[core]\n", 0o644) }, path: p(".git/config"), code: CodeDeniedPath},
		{name: ".git", setup: func(t *testing.T, e *env) { mkdir(t, e.in(".git")) }, path: p(".git"), code: CodeDeniedPath},
		{name: ".GIT/config", path: p(".GIT/config"), code: CodeDeniedPath},
		{name: ".git./config", path: p(".git./config"), code: CodeDeniedPath},
		{name: ".env", path: p(".env"), code: CodeDeniedPath},
		{name: ".ENV", path: p(".ENV"), code: CodeDeniedPath},
		{name: "missing denied", path: p("sub/.env"), code: CodeDeniedPath},
		{name: "the ignore file", path: p(IgnoreFile), code: CodeDeniedPath},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("f.txt"), "inside\n", 0o644)
			writeFile(t, e.in("sub/g.txt"), "g\n", 0o644)
			writeFile(t, e.in(".env"), "SECRET=1\n", 0o600)
			writeFile(t, e.in(IgnoreFile), ignoreText, 0o644)
			if c.setup != nil {
				c.setup(t, e)
			}
			w := e.open(t, Options{AgentRoot: agentRoot, MaxFileBytes: 64})
			before := treeHash(t, e.out)
			info, err := w.Info(c.path(e), true)
			wantCode(t, "info", err, c.code)
			if !maps(treeHash(t, e.out), before) {
				t.Fatal("outside changed")
			}
			if c.code == CodeDeniedPath {
				// Only the pattern: no kind, size, time or content.
				if info.DeniedBy == "" || info.Kind != "" || info.Size != 0 || !info.Modified.IsZero() || info.Data != nil {
					t.Fatalf("denied path described: %+v", info)
				}
				return
			}
			if c.code != "" {
				if info.Kind != "" || info.Data != nil {
					t.Fatalf("refused path described: %+v", info)
				}
				return
			}
			if info.Kind != c.kind || info.Modified.IsZero() || string(info.Data) != c.data {
				t.Fatalf("info %+v, want kind %s and data %q", info, c.kind, c.data)
			}
			if c.target != "" && info.LinkTarget != c.target {
				t.Fatalf("link target %q, want %q", info.LinkTarget, c.target)
			}
			if c.data != "" && info.SHA256 != sha(c.data) {
				t.Fatalf("sha256 %s, want that of %q", info.SHA256, c.data)
			}
			if c.name == "oversize file" && (info.NotRead == "" || info.SHA256 != "") {
				t.Fatalf("oversize file read: %+v", info)
			}
		})
	}
}

// TestInfoDeniedSaysNothingOfExistence gives the same answer for a denied
// path whether or not it exists.
func TestInfoDeniedSaysNothingOfExistence(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in(".git/config"), "[core]\n", 0o644)
	w := e.open(t, Options{})
	a, errA := w.Info(".git/config", true)
	b, errB := w.Info(".git/nothere", true)
	if errA == nil || errB == nil || strings.ReplaceAll(errA.Error(), "config", "X") != strings.ReplaceAll(errB.Error(), "nothere", "X") {
		t.Fatalf("answers differ: %v / %v", errA, errB)
	}
	if a.DeniedBy != b.DeniedBy || a.DeniedBy == "" {
		t.Fatalf("denied by %q / %q", a.DeniedBy, b.DeniedBy)
	}
}
