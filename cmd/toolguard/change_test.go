package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestEditCommandChangeTools: `toolguard edit` executes each change tool
// offline; an undo has no history in a new process, and says so.
func TestEditCommandChangeTools(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.py"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const gone = "\x00gone"
	tests := []struct {
		name, tool, stdin string
		extra             []string
		code              int
		out               string
		files             map[string]string
	}{
		{"create_directory", "create_directory", `{"path":"pkg"}`, nil, 0, `FILE_CHANGE_KIND_DIRECTORY_CREATED`, nil},
		{"insert_text", "insert_text", `{"path":"a.py","insert_line":2,"new_text":"three"}`, nil, 0, `FILE_CHANGE_KIND_MODIFIED`, map[string]string{"a.py": "one\ntwo\nthree\n"}},
		{"text editor insert", "str_replace_based_edit_tool", `{"command":"insert","path":"a.py","insert_line":0,"new_str":"zero"}`, nil, 0, `FILE_CHANGE_KIND_MODIFIED`,
			map[string]string{"a.py": "zero\none\ntwo\nthree\n"}},
		{"move_file dry run", "move_file", `{"source":"a.py","destination":"pkg/a.py"}`, []string{"--dry-run"}, 0, `FILE_CHANGE_KIND_MOVED`,
			map[string]string{"a.py": "zero\none\ntwo\nthree\n", "pkg/a.py": gone}},
		{"move_file", "move_file", `{"source":"a.py","destination":"pkg/a.py"}`, nil, 0, `"moved_to":"pkg/a.py"`, map[string]string{"a.py": gone, "pkg/a.py": "zero\none\ntwo\nthree\n"}},
		{"undo_edit in a new process", "undo_edit", `{"path":"pkg/a.py"}`, nil, 1, `NO_HISTORY`, map[string]string{"pkg/a.py": "zero\none\ntwo\nthree\n"}},
		{"delete_file of a folder without recursive", "delete_file", `{"path":"pkg"}`, nil, 1, `IS_DIRECTORY`, nil},
		{"delete_file", "delete_file", `{"path":"pkg","recursive":true}`, nil, 0, `FILE_CHANGE_KIND_DELETED`, map[string]string{"pkg/a.py": gone}},
		{"view is a read, not an edit", "str_replace_based_edit_tool", `{"command":"view","path":"b.py"}`, nil, 2, ``, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			args := append([]string{"edit", "--workspace", ws, "--tool", tc.tool}, tc.extra...)
			code := run(args, strings.NewReader(tc.stdin), &out, &errOut)
			squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if code != tc.code || !strings.Contains(squeeze(out.String()), squeeze(tc.out)) {
				t.Fatalf("exit %d (want %d), stdout lacks %q:\n%s\nstderr %s", code, tc.code, tc.out, out.String(), errOut.String())
			}
			for rel, want := range tc.files {
				b, err := os.ReadFile(filepath.Join(ws, rel))
				switch {
				case want == gone && !os.IsNotExist(err):
					t.Fatalf("%s still there", rel)
				case want != gone && string(b) != want:
					t.Fatalf("%s = %q, want %q", rel, b, want)
				}
			}
		})
	}
	// A change tool is an edit: `toolguard write` refuses it.
	var out, errOut strings.Builder
	if code := run([]string{"write", "--workspace", ws, "--tool", "create_directory"}, strings.NewReader(`{"path":"x"}`), &out, &errOut); code != 2 {
		t.Fatalf("write of create_directory: exit %d, %s", code, errOut.String())
	}
}

// TestMCPCommandStdioChangeTools: over `toolguard mcp` on pipes, a move and
// its undo in one session.
func TestMCPCommandStdioChangeTools(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run([]string{"mcp", "--workspace", ws, "--log-level", "error"}, inR, outW, &stderr)
		_ = outW.Close()
		done <- code
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args, file string }{
		{"move_file", `{"source":"a.txt","destination":"b.txt"}`, "b.txt"},
		{"undo_edit", `{"path":"b.txt"}`, "a.txt"},
	} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", c.tool, err, res)
		}
		if got, _ := os.ReadFile(filepath.Join(ws, c.file)); string(got) != "a\n" {
			t.Fatalf("after %s: %s = %q", c.tool, c.file, got)
		}
	}
	_ = cs.Close()
	_ = inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
