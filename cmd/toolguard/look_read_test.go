package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/workspace"
	"github.com/toolguard/toolguard/workspace/workspacetest"
)

// TestReadOnlyCommands: info, read-many, read-media and read --head/--tail
// offline, with their exit statuses; nothing of a denied or outside file.
func TestReadOnlyCommands(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	png := "\x89PNG\r\n\x1a\n\x00\x00"
	workspacetest.WriteFiles(t, ws, map[string]string{"a.py": "x = 1\ny = 2\nz = 3\n", "img.png": png, ".git/config": "[core]\n"})
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("canary\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../"+filepath.Base(outside)+"/secret", filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"read tail", []string{"read", "--path", "a.py", "--tail", "1"}, 0, []string{`"content":"z=3\n"`, `"start_line":3`}},
		{"read head and tail", []string{"read", "--path", "a.py", "--head", "1", "--tail", "1"}, 1, []string{`INVALID_VALUE`}},
		{"info", []string{"info", "--path", "a.py", "--path", ".git/config", "--path", "out", "--path", "a,b"}, 0,
			[]string{`"type":"FILE_TYPE_FILE"`, `"total_lines":3`, `"sha256":"` + workspace.SHA256Hex([]byte("x = 1\ny = 2\nz = 3\n")) + `"`,
				`"denied":true`, `"type":"FILE_TYPE_SYMLINK"`, `"path":"a,b"`, `FILE_NOT_FOUND`}},
		{"info of a denied path only exits 1", []string{"info", "--path", ".git/config"}, 1, []string{`"denied":true`, `"ok":false`}},
		{"info without a path", []string{"info"}, 2, nil},
		{"read-many", []string{"read-many", "--path", "a.py", "--path", "out", "--head", "2", "--line-numbers"}, 0,
			[]string{`"content":"1|x=1\n2|y=2\n"`, `"path":"out"`, `DENIED_PATH`}},
		{"read-many none served", []string{"read-many", "--path", "out", "--path", "img.png"}, 1, []string{`BINARY_FILE`, `"ok":false`}},
		{"read-media", []string{"read-media", "--path", "img.png"}, 0, []string{`"mime_type":"image/png"`, `"data":"` + base64.StdEncoding.EncodeToString([]byte(png)) + `"`}},
		{"read-media bound", []string{"read-media", "--path", "img.png", "--max-media-bytes", "4"}, 1, []string{`FILE_TOO_LARGE`}},
		{"read-media through a link out", []string{"read-media", "--path", "out"}, 1, []string{`DENIED_PATH`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			args := append([]string{tc.args[0], "--workspace", ws}, tc.args[1:]...)
			code := run(args, strings.NewReader(""), &out, &errOut)
			squeeze := strings.Join(strings.Fields(out.String()), "")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(squeeze, w) {
					t.Errorf("stdout lacks %s:\n%s", w, out.String())
				}
			}
			if strings.Contains(out.String(), "canary") || strings.Contains(out.String(), "[core]") {
				t.Errorf("leaked: %s", out.String())
			}
		})
	}
}
