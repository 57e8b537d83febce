package mcp_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// fsFixture fills dir with the files the profile's tests read.
func fsFixture(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFilesystemProfile calls each of the reference server's tools over
// each transport: the tools listed, each answer's text as the reference
// lays it out, the change on disk.
func TestFilesystemProfile(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			s, dir := newServer(t, guard.Config{}, mcp.Options{Profile: mcp.ProfileFilesystem})
			fsFixture(t, dir, map[string]string{"notes.txt": "one\ntwo\nthree\n", "src/m.py": "def f():\n    return 1\n", "src/util/u.py": "X = 1\n"})
			cs := connect(t, s, newClient())
			tools, err := cs.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			want := []string{"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories", "list_directory",
				"list_directory_with_sizes", "move_file", "read_file", "read_media_file", "read_multiple_files", "read_text_file", "search_files", "write_file"}
			if !slices.Equal(names, want) {
				t.Fatalf("tools = %v", names)
			}
			abs := func(p string) string { return filepath.Join(dir, p) }
			for _, tc := range []struct {
				tool, args, want string
			}{
				{"list_allowed_directories", `{}`, "Allowed directories:\n" + dir},
				{"write_file", `{"path":"new.txt","content":"fresh\n"}`, "Successfully wrote to new.txt"},
				{"read_text_file", `{"path":"notes.txt"}`, "one\ntwo\nthree\n"},
				{"read_file", `{"path":"` + abs("notes.txt") + `","head":2}`, "one\ntwo"},
				{"read_text_file", `{"path":"notes.txt","tail":1}`, "three"},
				{"read_multiple_files", `{"paths":["notes.txt","new.txt"]}`, "notes.txt:\none\ntwo\nthree\n\n\n---\nnew.txt:\nfresh\n\n"},
				{"edit_file", `{"path":"src/m.py","edits":[{"oldText":"    return 1","newText":"    return 2"}],"dryRun":true}`,
					"```diff\nIndex: " + abs("src/m.py") + "\n" + strings.Repeat("=", 67) + "\n--- " + abs("src/m.py") + "\toriginal\n+++ " + abs("src/m.py") +
						"\tmodified\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n```\n\n"},
				{"create_directory", `{"path":"out/deep"}`, "Successfully created directory out/deep"},
				{"list_directory", `{"path":"."}`, "[FILE] new.txt\n[FILE] notes.txt\n[DIR] out\n[DIR] src"},
				{"list_directory_with_sizes", `{"path":"src"}`, "[FILE] m.py                                 22 B\n[DIR] util                           \n\nTotal: 1 files, 1 directories\nCombined size: 22 B"},
				{"directory_tree", `{"path":"src","excludePatterns":["u.py"]}`, "[\n  {\n    \"name\": \"m.py\",\n    \"type\": \"file\"\n  },\n  {\n    \"name\": \"util\",\n    \"type\": \"directory\",\n    \"children\": []\n  }\n]"},
				{"move_file", `{"source":"new.txt","destination":"out/new.txt"}`, "Successfully moved new.txt to out/new.txt"},
				{"search_files", `{"path":"` + dir + `","pattern":"**/*.py"}`, abs("src/m.py") + "\n" + abs("src/util/u.py")},
				{"search_files", `{"path":".","pattern":"*.py"}`, "No matches found"},
			} {
				res, sc := call(t, cs, tc.tool, tc.args)
				if res.IsError || text(res) != tc.want {
					t.Errorf("%s %s:\n got %q\nwant %q", tc.tool, tc.args, text(res), tc.want)
				}
				if sc["content"] != tc.want {
					t.Errorf("%s: structuredContent %v", tc.tool, sc)
				}
			}
			if got, _ := os.ReadFile(abs("src/m.py")); string(got) != "def f():\n    return 1\n" {
				t.Errorf("the dry run wrote: %q", got)
			}
			res, _ := call(t, cs, "edit_file", `{"path":"`+abs("src/m.py")+`","edits":[{"oldText":"  return 1","newText":"  return 3"}]}`)
			if got, _ := os.ReadFile(abs("src/m.py")); res.IsError || string(got) != "def f():\n    return 3\n" {
				t.Errorf("edit: %s; file %q", text(res), got)
			}
			res, _ = call(t, cs, "get_file_info", `{"path":"out/new.txt"}`)
			if txt := text(res); res.IsError || !strings.HasPrefix(txt, "size: 6\ncreated: ") || !strings.HasSuffix(txt, "\nisDirectory: false\nisFile: true\npermissions: 644") {
				t.Errorf("info: %s", txt)
			}
		})
	}
}

// TestFilesystemProfileGuarded applies the path-escape battery to the
// profile's tools: every one is refused with the guard's feedback, counted
// as the model's mistake, and nothing outside or denied is read or changed.
func TestFilesystemProfileGuarded(t *testing.T) {
	s, dir := newServer(t, guard.Config{}, mcp.Options{Profile: mcp.ProfileFilesystem})
	outside := t.TempDir()
	fsFixture(t, dir, map[string]string{"a.txt": "a\n", ".git/config": "[core]\n"})
	fsFixture(t, outside, map[string]string{"secret.txt": "canary\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "outdir")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	cs := transports["in memory"](t, s, newClient())
	secret := filepath.Join(outside, "secret.txt")
	for _, tc := range []struct{ tool, args string }{
		{"read_text_file", `{"path":"` + secret + `"}`},
		{"read_text_file", `{"path":"../` + filepath.Base(outside) + `/secret.txt"}`},
		{"read_text_file", `{"path":"` + dir + `/../` + filepath.Base(outside) + `/secret.txt"}`},
		{"read_text_file", `{"path":"out.txt"}`},
		{"read_text_file", `{"path":"hard.txt"}`},
		{"read_text_file", `{"path":".git/config"}`},
		{"read_text_file", `{"path":".GIT/config"}`},
		{"read_media_file", `{"path":"out.txt"}`},
		{"write_file", `{"path":"outdir/secret.txt","content":"x"}`},
		{"write_file", `{"path":"` + secret + `","content":"x"}`},
		{"edit_file", `{"path":"hard.txt","edits":[{"oldText":"c","newText":"x"}]}`},
		{"create_directory", `{"path":"` + filepath.Join(outside, "made") + `"}`},
		{"move_file", `{"source":"a.txt","destination":"` + filepath.Join(outside, "a.txt") + `"}`},
		{"move_file", `{"source":"` + secret + `","destination":"stolen.txt"}`},
		{"list_directory", `{"path":"outdir"}`},
		{"list_directory", `{"path":"` + outside + `"}`},
		{"directory_tree", `{"path":".."}`},
		{"search_files", `{"path":"` + outside + `","pattern":"**"}`},
		{"get_file_info", `{"path":"` + secret + `"}`},
	} {
		res, _ := call(t, cs, tc.tool, tc.args)
		if txt := text(res); !res.IsError || strings.Contains(txt, "canary") {
			t.Errorf("%s %s was not refused: %s", tc.tool, tc.args, txt)
		}
	}
	if got, _ := os.ReadFile(secret); string(got) != "canary\n" {
		t.Errorf("the outside file changed: %q", got)
	}
	for _, p := range []string{filepath.Join(outside, "made"), filepath.Join(outside, "a.txt"), filepath.Join(dir, "stolen.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	// Listings and searches never show a denied path.
	for _, tc := range []struct{ tool, args string }{
		{"list_directory", `{"path":"."}`}, {"directory_tree", `{"path":"."}`}, {"search_files", `{"path":".","pattern":"**/config"}`},
	} {
		if res, _ := call(t, cs, tc.tool, tc.args); res.IsError || strings.Contains(text(res), ".git") {
			t.Errorf("%s shows .git: %s", tc.tool, text(res))
		}
	}
	// A refusal counts: the second in a row says so.
	call(t, cs, "read_text_file", `{"path":"missing.txt"}`)
	if res, _ := call(t, cs, "read_text_file", `{"path":"missing.txt"}`); !strings.Contains(text(res), "second failed tool call") {
		t.Errorf("the mistakes are not counted: %s", text(res))
	}
}

// TestFilesystemProfileAllowedDirectories: several allowed directories are
// workspaces; an absolute path acts in the one holding it, a relative one
// in the first; the client's roots narrow them.
func TestFilesystemProfileAllowedDirectories(t *testing.T) {
	second := t.TempDir()
	s, first := newServer(t, guard.Config{Workspaces: []string{"allowed-2=" + second}}, mcp.Options{Profile: mcp.ProfileFilesystem})
	cs := transports["in memory"](t, s, newClient())
	if res, _ := call(t, cs, "list_allowed_directories", `{}`); text(res) != "Allowed directories:\n"+first+"\n"+second {
		t.Errorf("allowed: %s", text(res))
	}
	for _, args := range []string{`{"path":"` + second + `/b.txt","content":"2"}`, `{"path":"a.txt","content":"1"}`} {
		if res, _ := call(t, cs, "write_file", args); res.IsError {
			t.Fatal(text(res))
		}
	}
	if got, _ := os.ReadFile(filepath.Join(second, "b.txt")); string(got) != "2" {
		t.Errorf("second/b.txt = %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(first, "a.txt")); string(got) != "1" {
		t.Errorf("first/a.txt = %q", got)
	}

	c := newClient()
	c.AddRoots(&sdk.Root{URI: "file://" + second}) //nolint:staticcheck // SA1019: roots still narrow clients on protocol versions before 2026-07-28
	st, ct := sdk.NewInMemoryTransports()
	if _, err := s.Connect(t.Context(), st); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Connect(t.Context(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rs.Close() }()
	if res, _ := call(t, rs, "list_allowed_directories", `{}`); text(res) != "Allowed directories:\n"+second {
		t.Errorf("allowed with roots: %s", text(res))
	}
	if res, _ := call(t, rs, "read_text_file", `{"path":"b.txt"}`); text(res) != "2" {
		t.Errorf("a relative path under roots: %s", text(res))
	}
	if res, _ := call(t, rs, "read_text_file", `{"path":"`+first+`/a.txt"}`); !res.IsError {
		t.Errorf("a path outside the roots was read: %s", text(res))
	}
}
