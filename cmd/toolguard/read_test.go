package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
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

// TestReadCommandLongLine follows next_offset and next_column through
// `toolguard read --column` until the end: the pieces join into the file, a
// 750 KB line included; a column inside a character exits 2 naming the one
// to give.
func TestReadCommandLongLine(t *testing.T) {
	ws := t.TempDir()
	content := "first\n" + strings.Repeat("héllo wörld, ", 50_000) + "\nlast\n"
	if err := os.WriteFile(filepath.Join(ws, "long.txt"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"read", "--workspace", ws, "--path", "long.txt"}
	var got strings.Builder
	for reads := 1; ; reads++ {
		if reads > 10 {
			t.Fatalf("%d reads and not at the end: %d of %d bytes", reads, got.Len(), len(content))
		}
		var out, errOut strings.Builder
		if code := run(args, strings.NewReader(""), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut.String())
		}
		var resp struct {
			Content    string `json:"content"`
			Truncated  bool   `json:"truncated"`
			NextOffset int    `json:"next_offset"`
			NextColumn int    `json:"next_column"`
		}
		if err := json.Unmarshal([]byte(out.String()), &resp); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		got.WriteString(resp.Content)
		if !resp.Truncated {
			break
		}
		args = []string{"read", "--workspace", ws, "--path", "long.txt", "--offset", strconv.Itoa(resp.NextOffset), "--column", strconv.Itoa(resp.NextColumn)}
	}
	if got.String() != content {
		t.Errorf("the reads joined are %d bytes, want the file's %d", got.Len(), len(content))
	}

	var out, errOut strings.Builder
	code := run([]string{"read", "--workspace", ws, "--path", "long.txt", "--offset", "2", "--column", "3"}, strings.NewReader(""), &out, &errOut)
	want := "toolguard read: --column: column 3 of line 2 falls inside a character; give column 2, where it starts\n"
	if code != 2 || errOut.String() != want || out.Len() != 0 {
		t.Errorf("column inside é: exit %d, stderr %q, stdout %q; want 2 and %q", code, errOut.String(), out.String(), want)
	}
}
