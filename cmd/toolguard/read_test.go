package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/workspace"
)

func TestReadCommand(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.py"), []byte("x = 1\ny = 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
	}{
		{"a range, numbered", []string{"--path", "a.py", "--offset", "2", "--line-numbers"}, 0,
			[]string{`"content":"2|y=2\n"`, `"sha256":"` + workspace.SHA256Hex([]byte("x = 1\ny = 2\n")) + `"`, `"total_lines":2`, `"start_line":2`, `"end_line":2`}},
		{"outside exits 1", []string{"--path", "../a.py"}, 1, []string{`OUTSIDE_WORKSPACE`, `"ok":false`}},
		{"stray argument", []string{"a.py"}, 2, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(append([]string{"read", "--workspace", ws}, tc.args...), strings.NewReader(""), &out, &errOut)
			squeeze := strings.Join(strings.Fields(out.String()), "")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d: %s %s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(squeeze, w) {
					t.Errorf("stdout lacks %s:\n%s", w, out.String())
				}
			}
		})
	}
}
