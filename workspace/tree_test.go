//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTreeEscapes runs MakeDir, Move and Delete against the escape battery:
// nothing outside the workspace changes, a refused call changes nothing
// inside either, and denied names are never moved or deleted.
func TestTreeEscapes(t *testing.T) {
	setup := func(t *testing.T, e *env) {
		writeFile(t, e.in("a.txt"), "a\n", 0o644)
		writeFile(t, e.in("b.txt"), "b\n", 0o644)
		writeFile(t, e.in("dir/x.txt"), "x\n", 0o644)
		writeFile(t, e.in("dir/sub/y.txt"), "y\n", 0o644)
		writeFile(t, e.in("secret/key"), "k\n", 0o644)
		writeFile(t, e.in("cfg/.env"), "E=1\n", 0o644)
		writeFile(t, e.in(".toolguardignore"), ignoreText, 0o644)
		symlink(t, "../outside", e.in("outlink"))
		symlink(t, e.out, e.in("abslink"))
		symlink(t, "../outside/canary.txt", e.in("dir2/canarylink"))
		link(t, filepath.Join(e.out, "canary.txt"), e.in("hard.txt"))
		mkdir(t, e.in(".git"))
		writeFile(t, e.in(".git/config"), "[core]\n", 0o644)
	}
	cases := []struct {
		name string
		op   func(w *Workspace) error
		code string // "" succeeds
	}{
		{"mkdir new with parents", func(w *Workspace) error { _, _, err := w.MakeDir("n/m/o", false); return err }, ""},
		{"mkdir existing", func(w *Workspace) error { _, c, err := w.MakeDir("dir/", false); return must(!c, err) }, ""},
		{"mkdir over file", func(w *Workspace) error { _, _, err := w.MakeDir("a.txt", false); return err }, CodeExists},
		{"mkdir dotdot", func(w *Workspace) error { _, _, err := w.MakeDir("../outside/new", false); return err }, CodeOutsideWorkspace},
		{"mkdir absolute outside", func(w *Workspace) error { _, _, err := w.MakeDir("/tmp/tg-new", false); return err }, CodeOutsideWorkspace},
		{"mkdir through link", func(w *Workspace) error { _, _, err := w.MakeDir("outlink/new", false); return err }, CodeSymlink},
		{"mkdir denied", func(w *Workspace) error { _, _, err := w.MakeDir(".git/hooks2", false); return err }, CodeDeniedPath},
		{"mkdir denied case variant", func(w *Workspace) error { _, _, err := w.MakeDir(".GIT/x", false); return err }, CodeDeniedPath},
		{"mkdir root", func(w *Workspace) error { _, _, err := w.MakeDir("/", false); return err }, "any"},

		{"move file", func(w *Workspace) error {
			_, err := w.Move("a.txt", "new/a.txt", MoveOptions{Overwrite: false})
			return err
		}, ""},
		{"move folder", func(w *Workspace) error {
			_, err := w.Move("dir", "moved/dir", MoveOptions{Overwrite: false})
			return err
		}, ""},
		{"move onto existing", func(w *Workspace) error { _, err := w.Move("a.txt", "b.txt", MoveOptions{}); return err }, CodeExists},
		{"move onto existing overwrite", func(w *Workspace) error { _, err := w.Move("a.txt", "b.txt", MoveOptions{Overwrite: true}); return err }, ""},
		{"move onto folder", func(w *Workspace) error { _, err := w.Move("a.txt", "dir", MoveOptions{Overwrite: true}); return err }, CodeExists},
		{"move folder into itself", func(w *Workspace) error {
			_, err := w.Move("dir", "dir/sub/dir", MoveOptions{Overwrite: false})
			return err
		}, CodeInvalidPath},
		{"move out dotdot", func(w *Workspace) error {
			_, err := w.Move("a.txt", "../outside/a.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeOutsideWorkspace},
		{"move out absolute", func(w *Workspace) error {
			_, err := w.Move("a.txt", "/tmp/a.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeOutsideWorkspace},
		{"move out through link", func(w *Workspace) error {
			_, err := w.Move("a.txt", "outlink/a.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeSymlink},
		{"move out through absolute link", func(w *Workspace) error {
			_, err := w.Move("a.txt", "abslink/a.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeSymlink},
		{"move in from outside", func(w *Workspace) error {
			_, err := w.Move("outlink/canary.txt", "c.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeSymlink},
		{"move a link", func(w *Workspace) error { _, err := w.Move("outlink", "l2", MoveOptions{Overwrite: false}); return err }, CodeSymlink},
		{"move a hard link", func(w *Workspace) error {
			_, err := w.Move("hard.txt", "h2.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeHardlink},
		{"move onto a link", func(w *Workspace) error {
			_, err := w.Move("a.txt", "dir2/canarylink", MoveOptions{Overwrite: true})
			return err
		}, CodeSymlink},
		{"move denied source", func(w *Workspace) error {
			_, err := w.Move("cfg/.env", "cfg/env", MoveOptions{Overwrite: false})
			return err
		}, CodeDeniedPath},
		{"move denied source case", func(w *Workspace) error {
			_, err := w.Move(".Git/config", "c", MoveOptions{Overwrite: false})
			return err
		}, CodeDeniedPath},
		{"move to denied", func(w *Workspace) error {
			_, err := w.Move("a.txt", "secret/a.txt", MoveOptions{Overwrite: false})
			return err
		}, CodeDeniedPath},
		{"move folder holding denied", func(w *Workspace) error { _, err := w.Move("cfg", "cfg2", MoveOptions{Overwrite: false}); return err }, CodeDeniedPath},
		{"move folder under denied", func(w *Workspace) error {
			_, err := w.Move("dir", "x/secret", MoveOptions{Overwrite: false})
			return err
		}, "any"},

		{"delete file", func(w *Workspace) error { _, err := w.Delete("a.txt", DeleteOptions{Recursive: false}); return err }, ""},
		{"delete folder without recursive", func(w *Workspace) error { _, err := w.Delete("dir", DeleteOptions{Recursive: false}); return err }, CodeIsDirectory},
		{"delete folder", func(w *Workspace) error { _, err := w.Delete("dir/", DeleteOptions{Recursive: true}); return err }, ""},
		{"delete folder with link out", func(w *Workspace) error { _, err := w.Delete("dir2", DeleteOptions{Recursive: true}); return err }, ""},
		{"delete folder holding denied", func(w *Workspace) error { _, err := w.Delete("cfg", DeleteOptions{Recursive: true}); return err }, CodeDeniedPath},
		{"delete denied", func(w *Workspace) error { _, err := w.Delete(".git", DeleteOptions{Recursive: true}); return err }, CodeDeniedPath},
		{"delete denied case", func(w *Workspace) error { _, err := w.Delete("SECRET/key", DeleteOptions{Recursive: true}); return err }, CodeDeniedPath},
		{"delete link", func(w *Workspace) error { _, err := w.Delete("outlink", DeleteOptions{Recursive: true}); return err }, CodeSymlink},
		{"delete through link", func(w *Workspace) error {
			_, err := w.Delete("outlink/canary.txt", DeleteOptions{Recursive: false})
			return err
		}, CodeSymlink},
		{"delete hard link", func(w *Workspace) error { _, err := w.Delete("hard.txt", DeleteOptions{Recursive: false}); return err }, CodeHardlink},
		{"delete dotdot", func(w *Workspace) error { _, err := w.Delete("../outside", DeleteOptions{Recursive: true}); return err }, CodeOutsideWorkspace},
		{"delete root", func(w *Workspace) error { _, err := w.Delete(".", DeleteOptions{Recursive: true}); return err }, "any"},
		{"delete absolute outside", func(w *Workspace) error {
			_, err := w.Delete(filepath.Join(os.TempDir(), "x"), DeleteOptions{Recursive: true})
			return err
		}, CodeOutsideWorkspace},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			setup(t, e)
			w := e.open(t, Options{})
			out, in := treeHash(t, e.out), treeHash(t, e.ws)
			err := c.op(w)
			switch c.code {
			case "any":
				if err == nil {
					t.Fatal("succeeded, want a refusal")
				}
			default:
				wantCode(t, c.name, err, c.code)
			}
			if !maps(treeHash(t, e.out), out) {
				t.Fatal("outside changed")
			}
			after := treeHash(t, e.ws)
			if c.code != "" && !maps(after, in) {
				t.Fatalf("refused, but the workspace changed: %v", after)
			}
			for _, p := range []string{".git/config", "secret/key", "cfg/.env"} {
				if after[p] != in[p] {
					t.Fatalf("denied %s changed", p)
				}
			}
		})
	}
}

func must(ok bool, err error) error {
	if err == nil && !ok {
		return &Error{Code: "TEST", Msg: "unexpected result"}
	}
	return err
}

// TestTreeSwapDuringOperation swaps a folder for a link out of the
// workspace between the checks and the change: the change stays in the
// folders held open.
func TestTreeSwapDuringOperation(t *testing.T) {
	for _, op := range []string{"move", "delete", "mkdir"} {
		t.Run(op, func(t *testing.T) {
			e := newEnv(t)
			writeFile(t, e.in("d/f.txt"), "old\n", 0o644)
			writeFile(t, e.in("d/g/h.txt"), "h\n", 0o644)
			writeFile(t, filepath.Join(e.out, "f.txt"), "outside f\n", 0o644)
			mkdir(t, filepath.Join(e.out, "g"))
			w := e.open(t, Options{})
			out := treeHash(t, e.out)
			w.hooks.afterCheck = func(string) {
				if err := os.Rename(e.in("d"), e.in("d.old")); err != nil {
					t.Error(err)
				}
				if err := os.Symlink("../outside", e.in("d")); err != nil {
					t.Error(err)
				}
			}
			switch op {
			case "move":
				_, _ = w.Move("d/f.txt", "d/moved.txt", MoveOptions{Overwrite: false})
			case "delete":
				_, _ = w.Delete("d/g", DeleteOptions{Recursive: true})
			case "mkdir":
				_, _, _ = w.MakeDir("d/new", false)
			}
			if !maps(treeHash(t, e.out), out) {
				t.Fatal("outside changed")
			}
		})
	}
}

// TestDeleteTreeCounts reports what a recursive delete removed.
func TestDeleteTreeCounts(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in("d/a"), "a", 0o644)
	writeFile(t, e.in("d/s/b"), "b", 0o644)
	symlink(t, "../../outside/canary.txt", e.in("d/s/l"))
	w := e.open(t, Options{})
	d, err := w.Delete("d", DeleteOptions{Recursive: true})
	if err != nil || !d.IsDir || d.Entries != 4 {
		t.Fatalf("Delete = %+v, %v; want a folder of 4 names", d, err)
	}
	if _, err := os.Lstat(e.in("d")); !os.IsNotExist(err) {
		t.Fatalf("d still there: %v", err)
	}
	if readString(t, filepath.Join(e.out, "canary.txt")) != "canary\n" {
		t.Fatal("the link's target changed")
	}
}
