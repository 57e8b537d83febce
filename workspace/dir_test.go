//go:build unix

package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// walkAll walks p and describes each entry as "path type [size|-> target]".
func walkAll(t *testing.T, w *Workspace, p string, opts WalkOptions) ([]string, WalkStats) {
	t.Helper()
	var got []string
	st, err := w.Walk(context.Background(), p, opts, func(e *Entry) error {
		s := e.Path + " " + e.Type.String()
		switch e.Type {
		case EntryFile:
			s += fmt.Sprint(" ", e.Size)
		case EntryLink:
			s += " -> " + e.Target
		}
		got = append(got, s)
		return nil
	})
	if err != nil {
		t.Fatalf("walk %q: %v", p, err)
	}
	return got, st
}

func TestWalkTypesOrderAndLinks(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("b.txt"), "bb", 0o644)
	writeFile(t, e.in("a/z.go"), "z", 0o644)
	writeFile(t, e.in("a/sub/y.go"), "yyy", 0o644)
	symlink(t, "../outside", e.in("out"))
	symlink(t, e.out, e.in("abs"))
	symlink(t, "a", e.in("in"))
	symlink(t, "../outside/canary.txt", e.in("a/canary"))
	w := e.open(t, Options{})
	got, st := walkAll(t, w, "", WalkOptions{})
	want := []string{
		"a dir", "a/canary link -> ../outside/canary.txt", "a/sub dir", "a/sub/y.go file 3", "a/z.go file 1",
		"abs link -> " + e.out, "b.txt file 2", "in link -> a", "out link -> ../outside",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("walk:\n got %q\nwant %q", got, want)
	}
	if st.Entries != len(want) || st.Cut != CutNone {
		t.Fatalf("stats %+v", st)
	}
	// A sub-directory, as a model names it: relative, trailing "/", absolute under the agent root.
	w2 := e.open(t, Options{AgentRoot: agentRoot})
	for _, p := range []string{"a", "a/", "./a", agentRoot + "/a", e.in("a")} {
		got, _ := walkAll(t, w2, p, WalkOptions{MaxDepth: 1})
		if want := []string{"a/canary link -> ../outside/canary.txt", "a/sub dir", "a/z.go file 1"}; !slices.Equal(got, want) {
			t.Fatalf("walk %q: %q", p, got)
		}
	}
}

func TestWalkSkipsDeniedAndIgnored(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{".git/config", ".GIT/x", ".Git./y", "secrets/k", "Secrets/k2", "a/key.pem", "a/KEY.PEM",
		"tmp/t", "keep.txt", "a/ok.go", ".toolguard-tmp-1"} {
		writeFile(t, e.in(p), "x", 0o644)
	}
	writeFile(t, e.in(IgnoreFile), "tmp/\n", 0o644)
	w := e.open(t, Options{Deny: []string{"secrets/", "*.pem"}})
	got, st := walkAll(t, w, ".", WalkOptions{})
	want := []string{"a dir", "a/ok.go file 1", "keep.txt file 1"}
	if !slices.Equal(got, want) {
		t.Fatalf("walk:\n got %q\nwant %q", got, want)
	}
	if st.Entries != 3 {
		t.Fatalf("denied names counted: %+v", st)
	}
	for _, p := range []string{".git", ".GIT", "secrets", "tmp", "a/../.git"} {
		_, err := w.Walk(context.Background(), p, WalkOptions{}, func(*Entry) error { t.Fatalf("walked %q", p); return nil })
		wantCode(t, p, err, CodeDeniedPath)
	}
}

func TestWalkGitignore(t *testing.T) {
	e := newEnv(t)
	for _, p := range []string{"main.go", "debug.log", "build/out.bin", "src/a.go", "src/gen/g.go", "src/keep.log",
		"src/x.tmp", "docs/build", "vendor/v.go"} {
		writeFile(t, e.in(p), "x", 0o644)
	}
	writeFile(t, e.in(".gitignore"), "*.log\nbuild/\n/vendor\n", 0o644)
	writeFile(t, e.in("src/.gitignore"), "gen/\n!keep.log\n*.tmp\n", 0o644)
	w := e.open(t, Options{})
	got, _ := walkAll(t, w, "", WalkOptions{Gitignore: true})
	want := []string{".gitignore file 21", "docs dir", "docs/build file 1", "main.go file 1",
		"src dir", "src/.gitignore file 21", "src/a.go file 1", "src/keep.log file 1"}
	if !slices.Equal(got, want) {
		t.Fatalf("gitignore:\n got %q\nwant %q", got, want)
	}
	// Walked from below, the root's .gitignore still applies.
	got, _ = walkAll(t, w, "src", WalkOptions{Gitignore: true})
	if want := []string{"src/.gitignore file 21", "src/a.go file 1", "src/keep.log file 1"}; !slices.Equal(got, want) {
		t.Fatalf("from src: %q", got)
	}
	// Not asked: everything but the deny lists.
	got, _ = walkAll(t, w, "", WalkOptions{})
	if len(got) != 16 {
		t.Fatalf("without gitignore: %q", got)
	}
}

func TestWalkBounds(t *testing.T) {
	e := newEnv(t)
	for i := range 5 {
		writeFile(t, e.in(fmt.Sprintf("d%d/deep/f.txt", i)), "x", 0o644)
	}
	w := e.open(t, Options{})
	got, st := walkAll(t, w, "", WalkOptions{MaxDepth: 1})
	if len(got) != 5 || st.Deep != 5 || st.Cut != CutNone {
		t.Fatalf("depth 1: %q %+v", got, st)
	}
	got, st = walkAll(t, w, "", WalkOptions{MaxEntries: 4})
	if want := []string{"d0 dir", "d0/deep dir", "d0/deep/f.txt file 1", "d1 dir"}; !slices.Equal(got, want) || st.Cut != CutEntries {
		t.Fatalf("entries 4: %q %+v", got, st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	st, err := w.Walk(ctx, "", WalkOptions{}, func(*Entry) error { return nil })
	if err != nil || st.Cut != CutTime || st.Entries != 0 {
		t.Fatalf("deadline: %+v %v", st, err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	if _, err := w.Walk(ctx, "", WalkOptions{}, func(*Entry) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	// SkipDir leaves a directory unentered, SkipAll ends the walk.
	var seen []string
	_, err = w.Walk(context.Background(), "", WalkOptions{}, func(e *Entry) error {
		seen = append(seen, e.Path)
		switch e.Path {
		case "d0":
			return SkipDir
		case "d2":
			return SkipAll
		}
		return nil
	})
	if err != nil || !slices.Equal(seen, []string{"d0", "d1", "d1/deep", "d1/deep/f.txt", "d2"}) {
		t.Fatalf("skip: %q %v", seen, err)
	}
}

func TestWalkRefusals(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("f.txt"), "x", 0o644)
	writeFile(t, e.in("d/g.txt"), "x", 0o644)
	symlink(t, "d", e.in("ld"))
	symlink(t, "../outside", e.in("lo"))
	w := e.open(t, Options{AgentRoot: agentRoot})
	for _, c := range []struct{ path, code string }{
		{"..", CodeOutsideWorkspace}, {"../outside", CodeOutsideWorkspace}, {"d/../..", CodeOutsideWorkspace},
		{e.out, CodeOutsideWorkspace}, {"/etc", CodeOutsideWorkspace},
		{"f.txt", CodeNotRegular}, {"missing", CodeNotFound}, {"d/missing", CodeNotFound},
		{"ld", CodeSymlink}, {"lo", CodeSymlink}, {"ld/sub", CodeSymlink}, {"lo/x", CodeSymlink},
		{"a\x00b", CodeInvalidPath},
	} {
		_, err := w.Walk(context.Background(), c.path, WalkOptions{}, func(e *Entry) error {
			t.Errorf("%q: walked %s", c.path, e.Path)
			return nil
		})
		wantCode(t, c.path, err, c.code)
	}
}

func TestWalkOpen(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("a.txt"), "hello", 0o644)
	writeFile(t, e.in("h.txt"), "linked", 0o644)
	if err := os.Link(e.in("h.txt"), e.in("h2.txt")); err != nil {
		t.Fatal(err)
	}
	symlink(t, "a.txt", e.in("l.txt"))
	w := e.open(t, Options{})
	got := map[string]string{}
	_, err := w.Walk(context.Background(), "", WalkOptions{}, func(en *Entry) error {
		f, err := en.Open()
		if err != nil {
			got[en.Path] = CodeOf(err)
			return nil
		}
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		got[en.Path] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a.txt": "hello", "h.txt": CodeHardlink, "h2.txt": CodeHardlink, "l.txt": CodeNotRegular}
	if !maps(got, want) {
		t.Fatalf("open: %v", got)
	}
}

// TestWalkDirSwappedForLink swaps a directory for a link (out of the
// workspace, or to a denied directory inside it) between its lstat and its
// opening: the walk does not enter it, and nothing outside or denied appears.
func TestWalkDirSwappedForLink(t *testing.T) {
	for _, c := range []struct{ name, target string }{
		{"relative out", "../outside"}, {"absolute out", ""}, {"denied inside", ".git"}, {"another dir inside", "other"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "x", 0o644)
			writeFile(t, e.in(".git/config"), "secret", 0o644)
			writeFile(t, e.in("other/o.txt"), "o", 0o644)
			target := c.target
			if target == "" {
				target = e.out
			}
			w := e.open(t, Options{})
			w.hooks.beforeOpenDir = func(rel string) {
				if rel != "d" {
					return
				}
				if err := os.RemoveAll(e.in("d")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(target, e.in("d")); err != nil {
					t.Error(err)
				}
			}
			got, _ := walkAll(t, w, "", WalkOptions{})
			for _, g := range got {
				if strings.Contains(g, "canary") || strings.Contains(g, "config") || strings.HasPrefix(g, "d/") {
					t.Fatalf("walk followed the swapped link: %q", got)
				}
			}
		})
	}
}
