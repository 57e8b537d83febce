//go:build unix

package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

const agentRoot = "/home/user/project"

// env is a workspace next to an outside directory holding a canary, under a
// short base directory (unix socket paths are limited to ~100 bytes).
type env struct {
	base, ws, out string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	base, err := os.MkdirTemp("", "tg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Undo read-only modes a test may have left.
		_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(base)
	})
	base, err = filepath.EvalSymlinks(base)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{base: base, ws: filepath.Join(base, "ws"), out: filepath.Join(base, "outside")}
	mkdir(t, e.ws)
	mkdir(t, e.out)
	writeFile(t, filepath.Join(e.out, "canary.txt"), "canary\n", 0o644)
	return e
}

func (e *env) in(rel string) string { return filepath.Join(e.ws, rel) }

func (e *env) open(t *testing.T, opts Options) *Workspace {
	t.Helper()
	w, err := Open(e.ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, content string, mode fs.FileMode) {
	t.Helper()
	mkdir(t, filepath.Dir(p))
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	mkdir(t, filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// treeHash describes every entry under dir without following links or
// opening anything but regular files: path -> kind and content.
func treeHash(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch mode := fi.Mode(); {
		case mode.IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = "file " + mode.Perm().String() + " " + sha(string(b))
		case mode&fs.ModeSymlink != 0:
			dest, err := os.Readlink(p)
			if err != nil {
				return err
			}
			m[rel] = "link " + dest
		case mode.IsDir():
			m[rel] = "dir"
		default:
			m[rel] = "special " + mode.Type().String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func tempFiles(t *testing.T, dirs ...string) []string {
	t.Helper()
	var found []string
	for _, dir := range dirs {
		for p := range treeHash(t, dir) {
			if strings.Contains(filepath.Base(p), tempPrefix) {
				found = append(found, filepath.Join(dir, p))
			}
		}
	}
	return found
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	switch {
	case code == "" && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case code != "" && CodeOf(err) != code:
		t.Fatalf("%s: got %v (code %q), want code %s", what, err, CodeOf(err), code)
	case code != "" && len(err.Error()) < 20:
		t.Fatalf("%s: message %q is not helpful", what, err)
	}
}

const ignoreText = "# test policy\n.env\n*.env\n!keep.env\n**/secret/*\n"

// TestEscapes tries each way out of (or into a forbidden part of) the
// workspace with a read and a write, and checks the refusal code, that
// nothing outside changed, and that nothing inside changed unless the write
// was meant to succeed.
func TestEscapes(t *testing.T) {
	type tc struct {
		name  string
		setup func(t *testing.T, e *env)
		path  func(e *env) string
		data  string // written; "pwned\n" by default
		read  string // expected code of ReadFile ("" = success)
		write string // expected code of WriteFile
		// On success: what ReadFile returns, and the file WriteFile changes.
		content string
		changes string
	}
	p := func(s string) func(*env) string { return func(*env) string { return s } }
	cases := []tc{
		// Lexical escapes.
		{name: "dotdot", path: p("../outside/canary.txt"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "dotdot deep", path: p("sub/../../outside/canary.txt"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "dotdot comes back in", path: p("a/../../ws/f.txt"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "dotdot to root then in", path: p("../ws/f.txt"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "absolute etc", path: p("/etc/passwd"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "absolute outside canary", path: func(e *env) string { return filepath.Join(e.out, "canary.txt") }, read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "absolute sibling prefix", path: func(e *env) string { return e.ws + "x/f.txt" }, read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "absolute agent dotdot", path: p(agentRoot + "/../project/f.txt"), read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		{name: "absolute server dotdot", path: func(e *env) string { return e.ws + "/../ws/f.txt" }, read: CodeOutsideWorkspace, write: CodeOutsideWorkspace},
		// Absolute paths inside are mapped.
		{name: "absolute server view", path: func(e *env) string { return e.in("f.txt") }, content: "inside\n", changes: "f.txt"},
		{name: "absolute agent view", path: p(agentRoot + "/sub/g.txt"), content: "g\n", changes: "sub/g.txt"},
		{name: "absolute agent view new dir", path: p(agentRoot + "//n1/./n2/new.txt"), read: CodeNotFound, changes: "n1/n2/new.txt"},
		// Invalid paths.
		{name: "NUL byte", path: p("f.txt\x00.png"), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "newline", path: p("f.txt\n"), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "empty", path: p(""), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "4097 bytes", path: p(strings.Repeat("a", 4097)), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "4097 bytes of dirs", path: p(strings.Repeat("a/", 2048) + "b"), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "256-byte name", path: p(strings.Repeat("n", 256)), read: CodeInvalidPath, write: CodeInvalidPath},
		// Ordinary names that look odd.
		{name: "dotdot-prefixed name", setup: func(t *testing.T, e *env) { writeFile(t, e.in("..test"), "dt\n", 0o644) }, path: p("..test"), content: "dt\n", changes: "..test"},
		{name: "three dots", setup: func(t *testing.T, e *env) { writeFile(t, e.in("..."), "3\n", 0o644) }, path: p("..."), content: "3\n", changes: "..."},
		{name: "backslash", path: p(`sub\g.txt`), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "backslash into .git", path: p(`.git\config`), read: CodeInvalidPath, write: CodeInvalidPath},
		{name: "missing file", path: p("new.txt"), read: CodeNotFound, changes: "new.txt"},
		{name: "missing dirs", path: p("n1/n2/new.txt"), read: CodeNotFound, changes: "n1/n2/new.txt"},
		{name: "dot slash", path: p("./sub//g.txt"), content: "g\n", changes: "sub/g.txt"},
		// Symbolic links.
		{name: "symlink to outside file", setup: func(t *testing.T, e *env) { symlink(t, "../outside/canary.txt", e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "absolute symlink to outside", setup: func(t *testing.T, e *env) { symlink(t, filepath.Join(e.out, "canary.txt"), e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "absolute symlink inside", setup: func(t *testing.T, e *env) { symlink(t, e.in("f.txt"), e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "relative symlink inside", setup: func(t *testing.T, e *env) { symlink(t, "f.txt", e.in("l")) }, path: p("l"), content: "inside\n", changes: "f.txt"},
		{name: "relative symlink into subdir", setup: func(t *testing.T, e *env) { symlink(t, "../sub/g.txt", e.in("d/l")) }, path: p("d/l"), content: "g\n", changes: "sub/g.txt"},
		{name: "symlink chain", setup: func(t *testing.T, e *env) { symlink(t, "l2", e.in("l1")); symlink(t, "sub/g.txt", e.in("l2")) }, path: p("l1"), content: "g\n", changes: "sub/g.txt"},
		{name: "symlink chain with absolute link", setup: func(t *testing.T, e *env) { symlink(t, "l2", e.in("l1")); symlink(t, e.in("f.txt"), e.in("l2")) }, path: p("l1"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlink through a linked directory", setup: func(t *testing.T, e *env) { symlink(t, "sub", e.in("alias")); symlink(t, "alias/g.txt", e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlink to the root", setup: func(t *testing.T, e *env) { symlink(t, ".", e.in("l")) }, path: p("l"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "symlink to parent of root", setup: func(t *testing.T, e *env) { symlink(t, "..", e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlink loop", setup: func(t *testing.T, e *env) { symlink(t, "lb", e.in("la")); symlink(t, "la", e.in("lb")) }, path: p("la"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlink to denied file", setup: func(t *testing.T, e *env) { symlink(t, ".env", e.in("innocent")) }, path: p("innocent"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "symlink to directory", setup: func(t *testing.T, e *env) { symlink(t, "sub", e.in("l")) }, path: p("l"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "symlinked parent outside", setup: func(t *testing.T, e *env) { symlink(t, "../outside", e.in("l")) }, path: p("l/canary.txt"), read: CodeSymlink, write: CodeSymlink},
		{name: "absolute symlinked parent outside", setup: func(t *testing.T, e *env) { symlink(t, e.out, e.in("l")) }, path: p("l/canary.txt"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlinked parent inside", setup: func(t *testing.T, e *env) { symlink(t, "sub", e.in("l")) }, path: p("l/g.txt"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlinked parent new file", setup: func(t *testing.T, e *env) { symlink(t, "../outside", e.in("l")) }, path: p("l/new.txt"), read: CodeSymlink, write: CodeSymlink},
		{name: "dangling symlink", setup: func(t *testing.T, e *env) { symlink(t, "nothere", e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "dangling symlink into missing dir", setup: func(t *testing.T, e *env) { symlink(t, "nodir/x", e.in("l")) }, path: p("l"), read: CodeSymlink, write: CodeSymlink},
		{name: "symlink to /dev/null", setup: func(t *testing.T, e *env) { symlink(t, "/dev/null", e.in("null")) }, path: p("null"), read: CodeSymlink, write: CodeSymlink},
		{name: "relative symlink to /dev/null", setup: func(t *testing.T, e *env) { symlink(t, strings.Repeat("../", 40)+"dev/null", e.in("null")) }, path: p("null"), read: CodeSymlink, write: CodeSymlink},
		// File types and links.
		{name: "hard link inside", setup: func(t *testing.T, e *env) { link(t, e.in("f.txt"), e.in("h.txt")) }, path: p("h.txt"), read: CodeHardlink, write: CodeHardlink},
		{name: "hard link to outside", setup: func(t *testing.T, e *env) { link(t, filepath.Join(e.out, "canary.txt"), e.in("h.txt")) }, path: p("h.txt"), read: CodeHardlink, write: CodeHardlink},
		{name: "fifo", setup: func(t *testing.T, e *env) {
			if err := syscall.Mkfifo(e.in("fifo"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, path: p("fifo"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "unix socket", setup: func(t *testing.T, e *env) {
			l, err := net.Listen("unix", e.in("sock"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
		}, path: p("sock"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "directory", path: p("sub"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "directory slash", path: p("sub/"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "file slash", path: p("f.txt/"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "file slash dot", path: p("f.txt/."), read: CodeNotRegular, write: CodeNotRegular},
		{name: "new file slash", path: p("new.txt/"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "absolute file slash", path: p(agentRoot + "/sub/g.txt/"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "root", path: p("."), read: CodeNotRegular, write: CodeNotRegular},
		{name: "agent root", path: p(agentRoot), read: CodeNotRegular, write: CodeNotRegular},
		{name: "file as directory", path: p("f.txt/x"), read: CodeNotRegular, write: CodeNotRegular},
		{name: "oversize file", setup: func(t *testing.T, e *env) { writeFile(t, e.in("big.txt"), strings.Repeat("b", 100), 0o644) }, path: p("big.txt"), read: CodeTooLarge, write: CodeTooLarge},
		{name: "oversize data", path: p("new.txt"), data: strings.Repeat("d", 65), read: CodeNotFound, write: CodeTooLarge},
		{name: "data at the limit", path: p("new.txt"), data: strings.Repeat("d", 64), read: CodeNotFound, changes: "new.txt"},
		// Deny patterns.
		{name: ".git/config", setup: func(t *testing.T, e *env) { writeFile(t, e.in(".git/config"), "[core]\n", 0o644) }, path: p(".git/config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".git/hooks new", path: p(".git/hooks/pre-commit"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "submodule .git file", setup: func(t *testing.T, e *env) { writeFile(t, e.in("sub/.git"), "gitdir: x\n", 0o644) }, path: p("sub/.git"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".env", path: p(".env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "./.env", path: p("./.env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "x/../.env", path: p("x/../.env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "absolute .env", path: p(agentRoot + "/.env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "nested .env", path: p("sub/.env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "star.env", path: p("prod.env"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "negated keep.env", setup: func(t *testing.T, e *env) { writeFile(t, e.in("keep.env"), "K=1\n", 0o644) }, path: p("keep.env"), content: "K=1\n", changes: "keep.env"},
		{name: "double star secret", path: p("a/b/secret/key"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "double star secret at root", path: p("secret/key"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "under secret subdir", path: p("secret/more/key"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "secret is not itself denied", setup: func(t *testing.T, e *env) { writeFile(t, e.in("secret"), "s\n", 0o644) }, path: p("secret"), content: "s\n", changes: "secret"},
		{name: "the ignore file", path: p(IgnoreFile), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "a temp name", path: p(tempPrefix + "x"), read: CodeDeniedPath, write: CodeDeniedPath},
		// Deny patterns in other spellings of one name (case-insensitive
		// file systems, Windows).
		{name: ".GIT/config", path: p(".GIT/config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".Git/config", path: p(".Git/config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".git./config", path: p(".git./config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".git /config", path: p(".git /config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".git stream", path: p(".git::$INDEX_ALLOCATION/config"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "SECRET/key", path: p("SECRET/key"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "Prod.ENV", path: p("Prod.ENV"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: ".ENV", path: p(".ENV"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "the ignore file in capitals", path: p(".TOOLGUARDIGNORE"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "the ignore file with a dot", path: p(IgnoreFile + "."), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "the ignore file stream", path: p(IgnoreFile + ":x"), read: CodeDeniedPath, write: CodeDeniedPath},
		{name: "a temp name in capitals", path: p(strings.ToUpper(tempPrefix) + "X"), read: CodeDeniedPath, write: CodeDeniedPath},
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
			path := c.path(e)
			data := c.data
			if data == "" {
				data = "pwned\n"
			}
			outBefore, wsBefore := treeHash(t, e.out), treeHash(t, e.ws)

			got, info, err := w.ReadFile(path)
			wantCode(t, "read", err, c.read)
			if c.read == "" && (string(got) != c.content || info.SHA256 != sha(c.content) || !info.Exists || info.Size != int64(len(c.content))) {
				t.Fatalf("read %q, %+v; want %q", got, info, c.content)
			}
			if c.read == CodeNotFound && info.Exists {
				t.Fatalf("missing file reported as existing: %+v", info)
			}

			res, err := w.WriteFile(path, []byte(data), WriteOptions{})
			wantCode(t, "write", err, c.write)

			if out := treeHash(t, e.out); !maps(out, outBefore) {
				t.Fatalf("outside changed:\n%v\n%v", outBefore, out)
			}
			if tmp := tempFiles(t, e.base); len(tmp) > 0 {
				t.Fatalf("temporary files left: %v", tmp)
			}
			wsAfter := treeHash(t, e.ws)
			if c.write != "" {
				if !maps(wsAfter, wsBefore) {
					t.Fatalf("workspace changed by a refused write:\n%v\n%v", wsBefore, wsAfter)
				}
				return
			}
			if res.Path != c.changes || res.SHA256 != sha(data) || res.Bytes != int64(len(data)) {
				t.Fatalf("write result %+v, want path %q", res, c.changes)
			}
			if got := readString(t, e.in(c.changes)); got != data {
				t.Fatalf("%s = %q after the write", c.changes, got)
			}
			for k, v := range wsBefore {
				if k != c.changes && wsAfter[k] != v {
					t.Errorf("%s changed: %s -> %s", k, v, wsAfter[k])
				}
			}
			for k := range wsAfter {
				if _, ok := wsBefore[k]; !ok && k != c.changes && !strings.HasPrefix(c.changes, k+"/") {
					t.Errorf("unexpected new entry %s", k)
				}
			}
		})
	}
}

func link(t *testing.T, old, new string) {
	t.Helper()
	if err := os.Link(old, new); err != nil {
		t.Fatal(err)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestResolve(t *testing.T) {
	e := newEnv(t)
	// The workspace is opened through a symbolic link, so the server has two
	// views of it: the link and the real directory.
	viaLink := filepath.Join(e.base, "wslink")
	symlink(t, "ws", viaLink)
	w, err := Open(viaLink, Options{AgentRoot: agentRoot + "/", Deny: []string{"*.pem", "/build/", "secret/**"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Dir() != viaLink {
		t.Errorf("Dir() = %q", w.Dir())
	}
	for _, c := range []struct {
		in, want, code string
	}{
		{"a.txt", "a.txt", ""},
		{"./a/./b//c.txt", "a/b/c.txt", ""},
		{"a/../b.txt", "b.txt", ""},
		{"a/b/../../c", "c", ""},
		{"a/", "", CodeNotRegular},
		{"a.txt/.", "", CodeNotRegular},
		{"a/b/..", "", CodeNotRegular},
		{"a//", "", CodeNotRegular},
		{".", ".", ""},
		{"./", "", CodeNotRegular},
		{"..test", "..test", ""},
		{"...", "...", ""},
		{"a/.../b", "a/.../b", ""},
		{`a\b`, "", CodeInvalidPath},
		{`..\x`, "", CodeInvalidPath},
		{`.git\config`, "", CodeInvalidPath},
		{"~/x", "~/x", ""},
		{" spaced name.txt", " spaced name.txt", ""},
		{"ünïcode/файл.txt", "ünïcode/файл.txt", ""},
		{agentRoot, ".", ""},
		{agentRoot + "/", "", CodeNotRegular},
		{agentRoot + "/src/x.go/", "", CodeNotRegular},
		{agentRoot + "/src/x.go", "src/x.go", ""},
		{"//home//user/project/src/x.go", "src/x.go", ""},
		{viaLink + "/src/x.go", "src/x.go", ""},
		{e.ws + "/src/x.go", "src/x.go", ""},
		{agentRoot + "/src/../x.go", "x.go", ""},
		{"..", "", CodeOutsideWorkspace},
		{"../", "", CodeOutsideWorkspace},
		{"a/../..", "", CodeOutsideWorkspace},
		{"a/../../ws/x", "", CodeOutsideWorkspace},
		{"./../ws/x", "", CodeOutsideWorkspace},
		{agentRoot + "/..", "", CodeOutsideWorkspace},
		{agentRoot + "x/a", "", CodeOutsideWorkspace},
		{"/home/user", "", CodeOutsideWorkspace},
		{"/", "", CodeOutsideWorkspace},
		{e.base + "/outside/canary.txt", "", CodeOutsideWorkspace},
		{"", "", CodeInvalidPath},
		{"a\x00", "", CodeInvalidPath},
		{"a\tb", "", CodeInvalidPath},
		{"a\x7f", "", CodeInvalidPath},
		{strings.Repeat("x", MaxPathBytes), strings.Repeat("x", MaxPathBytes), CodeInvalidPath}, // name too long
		{strings.Repeat("ab/", 1365) + "a", strings.Repeat("ab/", 1365) + "a", ""},              // 4096 bytes
		{strings.Repeat("ab/", 1365) + "ab", "", CodeInvalidPath},
		{".git", "", CodeDeniedPath},
		{"sub/.git/HEAD", "", CodeDeniedPath},
		{"key.pem", "", CodeDeniedPath},
		{"certs/key.pem", "", CodeDeniedPath},
		{"build/out.js", "", CodeDeniedPath},
		{"build", "build", ""}, // dir-only pattern, and the target is a file
		{"src/build/out.js", "src/build/out.js", ""},
		{IgnoreFile, "", CodeDeniedPath},
		{"sub/" + tempPrefix + "1", "", CodeDeniedPath},
		{".GIT", "", CodeDeniedPath},
		{".Git/config", "", CodeDeniedPath},
		{".git./config", "", CodeDeniedPath},
		{".git/./config", "", CodeDeniedPath},
		{".git::$INDEX_ALLOCATION/config", "", CodeDeniedPath},
		{"KEY.PEM", "", CodeDeniedPath},
		{"Build/out.js", "", CodeDeniedPath},
		{"SECRET/a.txt", "", CodeDeniedPath},
		{"secret./a.txt", "", CodeDeniedPath},
		{"Secrets/a.txt", "Secrets/a.txt", ""},
		{".gitignore", ".gitignore", ""},
		{".github/workflows/ci.yml", ".github/workflows/ci.yml", ""},
	} {
		got, err := w.Resolve(c.in)
		if c.code != "" {
			if CodeOf(err) != c.code {
				t.Errorf("Resolve(%.40q) = %q, %v; want %s", c.in, got, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Resolve(%.40q) = %q, %v; want %q", c.in, got, err, c.want)
			continue
		}
		if again, err := w.Resolve(got); (err != nil || again != got) && got != "." {
			t.Errorf("Resolve is not idempotent on %q: %q, %v", got, again, err)
		}
	}
}

// TestTrailingSlashMessage: the refusal tells the model which path to use.
func TestTrailingSlashMessage(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("normal.txt"), "n\n", 0o644)
	w := e.open(t, Options{})
	for _, c := range []struct{ path, want string }{
		{"normal.txt/", `drop the trailing "/": "normal.txt"`},
		{"./sub/../normal.txt/.", `drop the trailing "/.": "normal.txt"`},
		{"a/..", "Give the path of a file"},
	} {
		_, err := w.Resolve(c.path)
		if !IsCode(err, CodeNotRegular) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Resolve(%q) = %v; want NOT_REGULAR saying %q", c.path, err, c.want)
		}
	}
	if readString(t, e.in("normal.txt")) != "n\n" {
		t.Error("normal.txt changed")
	}
}

func TestOutsideMessageNamesAgentRootOnly(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{AgentRoot: agentRoot})
	_, err := w.Resolve("/etc/passwd")
	want := `path "/etc/passwd" is outside the workspace; use a path relative to the workspace root, or an absolute path under /home/user/project`
	if err == nil || err.Error() != want {
		t.Errorf("message %q", err)
	}
	// Without an agent root the server's own directory is never named: the
	// message goes to the model, which has no business knowing it.
	w2 := e.open(t, Options{})
	want2 := `path "/etc/passwd" is outside the workspace; use a path relative to the workspace root`
	if _, err := w2.Resolve("/etc/passwd"); err == nil || err.Error() != want2 || strings.Contains(err.Error(), e.ws) {
		t.Errorf("without an agent root: %v", err)
	}
	_, err = w.Resolve("../x")
	if err == nil || !strings.Contains(err.Error(), `climbs above the workspace root`) {
		t.Errorf("dotdot message %q", err)
	}
}

func TestSymlinkMessages(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("real/f.txt"), "x", 0o644)
	symlink(t, "real", e.in("alias"))
	symlink(t, e.in("real/f.txt"), e.in("abs"))
	w := e.open(t, Options{})
	_, _, err := w.ReadFile("alias/f.txt")
	if !IsCode(err, CodeSymlink) || !strings.Contains(err.Error(), `Use the real path "real/f.txt"`) {
		t.Errorf("linked directory: %v", err)
	}
	_, err = w.WriteFile("abs", []byte("y"), WriteOptions{})
	if !IsCode(err, CodeSymlink) || !strings.Contains(err.Error(), `never follows absolute links`) || !strings.Contains(err.Error(), `"real/f.txt"`) {
		t.Errorf("absolute link: %v", err)
	}
}

func TestOpenErrors(t *testing.T) {
	e := newEnv(t)
	if _, err := Open(filepath.Join(e.base, "nope"), Options{}); err == nil {
		t.Error("missing directory opened")
	}
	if _, err := Open(filepath.Join(e.out, "canary.txt"), Options{}); err == nil {
		t.Error("a file opened as a workspace")
	}
	if _, err := Open(e.ws, Options{AgentRoot: "relative/root"}); err == nil {
		t.Error("relative agent root accepted")
	}
	if err := os.Mkdir(e.in(IgnoreFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(e.ws, Options{}); err == nil {
		t.Error("a directory as .toolguardignore accepted")
	}
	w, err := Open(e.out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || w.Close() != nil {
		t.Errorf("close: %v", err)
	}
	if _, _, err := w.ReadFile("canary.txt"); err == nil {
		t.Error("read after close")
	}
}

// TestParentSwappedBetweenCalls replaces a directory with a link to the
// outside between two writes.
func TestRemoveAndRename(t *testing.T) {
	type tc struct {
		name     string
		setup    func(t *testing.T, e *env)
		op       func(w *Workspace, e *env) error
		code     string
		check    func(t *testing.T, e *env)
		mutating bool
	}
	exists := func(rel string, want bool) func(t *testing.T, e *env) {
		return func(t *testing.T, e *env) {
			t.Helper()
			_, err := os.Lstat(e.in(rel))
			if (err == nil) != want {
				t.Errorf("%s exists = %v, want %v", rel, err == nil, want)
			}
		}
	}
	rm := func(p string) func(*Workspace, *env) error {
		return func(w *Workspace, _ *env) error { return w.Remove(p) }
	}
	mv := func(from, to string) func(*Workspace, *env) error {
		return func(w *Workspace, _ *env) error { return w.Rename(from, to) }
	}
	cases := []tc{
		{name: "remove", op: rm("f.txt"), check: exists("f.txt", false), mutating: true},
		{name: "remove absolute", op: func(w *Workspace, e *env) error { return w.Remove(e.in("sub/g.txt")) }, check: exists("sub/g.txt", false), mutating: true},
		{name: "remove missing", op: rm("nope.txt"), code: CodeNotFound},
		{name: "remove in missing dir", op: rm("nodir/nope.txt"), code: CodeNotFound},
		{name: "remove directory", op: rm("sub"), code: CodeNotRegular},
		{name: "remove symlink", setup: func(t *testing.T, e *env) { symlink(t, "f.txt", e.in("l")) }, op: rm("l"), code: CodeSymlink},
		{name: "remove hard link", setup: func(t *testing.T, e *env) { link(t, e.in("f.txt"), e.in("h")) }, op: rm("h"), code: CodeHardlink},
		{name: "remove outside", op: rm("../outside/canary.txt"), code: CodeOutsideWorkspace},
		{name: "remove through linked dir", setup: func(t *testing.T, e *env) { symlink(t, "../outside", e.in("l")) }, op: rm("l/canary.txt"), code: CodeSymlink},
		{name: "remove denied", op: rm(".env"), code: CodeDeniedPath},
		{name: "rename", op: mv("f.txt", "n1/n2/moved.txt"), check: func(t *testing.T, e *env) {
			exists("f.txt", false)(t, e)
			if readString(t, e.in("n1/n2/moved.txt")) != "inside\n" {
				t.Error("moved content")
			}
		}, mutating: true},
		{name: "rename in one directory", op: mv("sub/g.txt", "sub/h.txt"), check: func(t *testing.T, e *env) {
			exists("sub/g.txt", false)(t, e)
			if readString(t, e.in("sub/h.txt")) != "g\n" {
				t.Error("moved content")
			}
		}, mutating: true},
		{name: "rename over file", op: mv("f.txt", "sub/g.txt"), check: func(t *testing.T, e *env) {
			if readString(t, e.in("sub/g.txt")) != "inside\n" {
				t.Error("replaced content")
			}
		}, mutating: true},
		{name: "rename to itself", op: mv("f.txt", "./f.txt"), check: exists("f.txt", true)},
		{name: "rename missing", op: mv("nope", "x"), code: CodeNotFound},
		{name: "rename symlink", setup: func(t *testing.T, e *env) { symlink(t, "f.txt", e.in("l")) }, op: mv("l", "m"), code: CodeSymlink},
		{name: "rename onto symlink", setup: func(t *testing.T, e *env) { symlink(t, "../outside/canary.txt", e.in("l")) }, op: mv("f.txt", "l"), code: CodeSymlink},
		{name: "rename onto directory", op: mv("f.txt", "sub"), code: CodeNotRegular},
		{name: "rename to outside", op: mv("f.txt", "../outside/x"), code: CodeOutsideWorkspace},
		{name: "rename to absolute outside", op: func(w *Workspace, e *env) error { return w.Rename("f.txt", filepath.Join(e.out, "x")) }, code: CodeOutsideWorkspace},
		{name: "rename into linked dir", setup: func(t *testing.T, e *env) { symlink(t, "../outside", e.in("l")) }, op: mv("f.txt", "l/x"), code: CodeSymlink},
		{name: "rename to denied", op: mv("f.txt", ".git/x"), code: CodeDeniedPath},
		{name: "rename denied", op: mv(".env", "public.txt"), code: CodeDeniedPath},
		{name: "rename hard link", setup: func(t *testing.T, e *env) { link(t, filepath.Join(e.out, "canary.txt"), e.in("h")) }, op: mv("h", "x"), code: CodeHardlink},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("f.txt"), "inside\n", 0o644)
			writeFile(t, e.in("sub/g.txt"), "g\n", 0o644)
			writeFile(t, e.in(".env"), "S=1\n", 0o644)
			writeFile(t, e.in(IgnoreFile), ".env\n", 0o644)
			if c.setup != nil {
				c.setup(t, e)
			}
			w := e.open(t, Options{})
			outBefore, wsBefore := treeHash(t, e.out), treeHash(t, e.ws)
			wantCode(t, c.name, c.op(w, e), c.code)
			if !maps(treeHash(t, e.out), outBefore) {
				t.Fatal("outside changed")
			}
			if !c.mutating && !maps(treeHash(t, e.ws), wsBefore) {
				t.Fatal("workspace changed")
			}
			if c.check != nil {
				c.check(t, e)
			}
		})
	}
}

// TestOpenKeepsFreshTemps: by default Open removes only the temporary
// files old enough that no write can still be using them; a fresh one may
// be another server's write in progress on a shared volume.
func TestOpenKeepsFreshTemps(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in(tempPrefix+"fresh"), "in progress", 0o600)
	writeFile(t, e.in("a/"+tempPrefix+"old"), "left by a crash", 0o600)
	old := time.Now().Add(-DefaultCleanupMinAge - time.Minute)
	if err := os.Chtimes(e.in("a/"+tempPrefix+"old"), old, old); err != nil {
		t.Fatal(err)
	}
	e.open(t, Options{})
	if got, want := tempFiles(t, e.ws), []string{e.in(tempPrefix + "fresh")}; !slices.Equal(got, want) {
		t.Errorf("left after Open: %v, want %v", got, want)
	}
}

// TestOpenRemovesTemps checks the start-up cleanup of a workspace with one
// owner (CleanupMinAge negative): temporary files go, everything else
// stays, links are not followed.
func TestOpenRemovesTemps(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{tempPrefix + "1", "a/" + tempPrefix + "2", "a/b/c/" + tempPrefix + "3"} {
		writeFile(t, e.in(p), "partial", 0o600)
	}
	writeFile(t, e.in("a/keep.txt"), "keep", 0o644)
	writeFile(t, e.in(".git/"+tempPrefix+"4"), "git's", 0o644) // never written by toolguard: left alone
	writeFile(t, e.in("a/"+tempPrefix+"dir/x"), "x", 0o644)    // a directory with the prefix: left alone
	writeFile(t, filepath.Join(e.out, tempPrefix+"5"), "outside", 0o644)
	symlink(t, "../outside", e.in("l"))
	symlink(t, "keep.txt", e.in("a/"+tempPrefix+"link"))
	e.open(t, Options{CleanupMinAge: -1})
	got := tempFiles(t, e.base)
	slices.Sort(got)
	want := []string{
		filepath.Join(e.out, tempPrefix+"5"),
		e.in(".git/" + tempPrefix + "4"),
		e.in("a/" + tempPrefix + "dir"),
		e.in("a/" + tempPrefix + "link"),
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("left after Open:\n%v\nwant\n%v", got, want)
	}
	if readString(t, e.in("a/keep.txt")) != "keep" {
		t.Error("keep.txt changed")
	}

	// With a minimum age, fresh files stay.
	writeFile(t, e.in(tempPrefix+"6"), "fresh", 0o600)
	e.open(t, Options{CleanupMinAge: 1 << 62})
	if _, err := os.Stat(e.in(tempPrefix + "6")); err != nil {
		t.Error("a fresh temporary file was removed despite CleanupMinAge")
	}
}

func TestLinkCount(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("a"), "x", 0o644)
	fi, _ := os.Lstat(e.in("a"))
	if n := linkCount(fi); n != 1 {
		t.Errorf("nlink = %d", n)
	}
	link(t, e.in("a"), e.in("b"))
	fi, _ = os.Lstat(e.in("a"))
	if n := linkCount(fi); n != 2 {
		t.Errorf("nlink = %d", n)
	}
	if runtime.GOOS == "linux" {
		var st syscall.Stat_t
		if err := syscall.Lstat(e.in("a"), &st); err != nil || uint64(st.Nlink) != 2 {
			t.Errorf("stat %v %d", err, st.Nlink)
		}
	}
}

func TestErrorType(t *testing.T) {
	cause := errors.New("cause")
	err := error(&Error{Code: CodeNotFound, Path: "x", Msg: "file \"x\" does not exist", Err: cause})
	wrapped := errors.Join(errors.New("ctx"), err)
	if !IsCode(wrapped, CodeNotFound) || IsCode(wrapped, CodeConflict) || CodeOf(wrapped) != CodeNotFound {
		t.Error("IsCode through a wrapper")
	}
	if !errors.Is(err, cause) || err.Error() != `file "x" does not exist` {
		t.Error("Unwrap / Error")
	}
	if IsCode(nil, "") || CodeOf(errors.New("plain")) != "" {
		t.Error("plain errors have no code")
	}
	if (&Error{Code: CodeConflict, Path: "p"}).Error() != "CONFLICT: p" {
		t.Error("fallback message")
	}
	e := newEnv(t)
	w := e.open(t, Options{})
	_, _, err = w.ReadFile("missing")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("NOT_FOUND does not unwrap to fs.ErrNotExist: %v", err)
	}
}

func FuzzResolve(f *testing.F) {
	for _, s := range []string{"a", "../a", "a/../../b", "./.env", "/home/user/project/x", `a\b`, "...", "a//b/", "/", "x/../.git/y", ".toolguard-tmp-1"} {
		f.Add(s)
	}
	dir := f.TempDir()
	w, err := Open(dir, Options{AgentRoot: agentRoot, Deny: []string{"*.key"}})
	if err != nil {
		f.Fatal(err)
	}
	defer w.Close()
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := w.Resolve(p)
		if err != nil {
			if CodeOf(err) == "" {
				t.Fatalf("Resolve(%q): error without a code: %v", p, err)
			}
			return
		}
		if rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") || len(rel) > MaxPathBytes {
			t.Fatalf("Resolve(%q) = %q", p, rel)
		}
		if rel != "." {
			for _, c := range strings.Split(rel, "/") {
				if c == "" || c == "." || c == ".." || strings.ContainsRune(c, 0) {
					t.Fatalf("Resolve(%q) = %q has component %q", p, rel, c)
				}
			}
		}
		if again, err := w.Resolve(rel); err != nil || again != rel {
			t.Fatalf("Resolve(%q) = %q but Resolve(%q) = %q, %v", p, rel, rel, again, err)
		}
		for _, c := range strings.Split(rel, "/") {
			// The canonical spelling, written again from its description.
			if i := strings.IndexByte(c, ':'); i >= 0 {
				c = c[:i]
			}
			c = strings.ToLower(strings.TrimRight(c, ". "))
			if c == ".git" || strings.HasSuffix(c, ".key") {
				t.Fatalf("Resolve(%q) = %q escapes the deny list", p, rel)
			}
		}
	})
}

// TestLongPathRefusalIsUTF8: the refusal of an over-long path quotes its
// start, cut at a character boundary (protobuf strings must be UTF-8).
func TestLongPathRefusalIsUTF8(t *testing.T) {
	w, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := "a" + strings.Repeat("é", MaxPathBytes) // byte 64 falls inside an é
	_, err = w.Resolve(p)
	var we *Error
	if !errors.As(err, &we) || we.Code != CodeInvalidPath || !utf8.ValidString(we.Path) || !utf8.ValidString(we.Error()) {
		t.Fatalf("Resolve = %#v", err)
	}
}
