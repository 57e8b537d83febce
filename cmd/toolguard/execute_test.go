package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAndEditCommands(t *testing.T) {
	ws := t.TempDir()
	run1 := func(args []string, stdin string) (int, string, string) {
		var out, errOut strings.Builder
		code := run(args, strings.NewReader(stdin), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	tests := []struct {
		name     string
		args     []string
		stdin    string
		wantCode int
		wantOut  string
		wantFile string // expected content of a.py afterwards
	}{
		{"write creates the file", []string{"write", "--workspace", ws, "--tool", "Write"}, `{"file_path":"a.py","text":"x = 1\n"}`, 0, `"kind":  "FILE_CHANGE_KIND_CREATED"`, "x = 1\n"},
		{"dry-run edit writes nothing", []string{"edit", "--workspace", ws, "--tool", "edit", "--dry-run"}, `{"path":"a.py","old_text":"x = 1","new_text":"x = 2"}`, 0, `+x = 2`, "x = 1\n"},
		{"the answer carries edit text once, in the diff", []string{"edit", "--workspace", ws, "--tool", "edit", "--dry-run"}, `{"path":"a.py","old_text":"x = 1","new_text":"x = 2"}`, 0,
			`"elided":[{"field":"new_text","size":"5","sha256":"1431b986377b5430f01fd6900d873fa289d546f304bc58c18d42492f87f54016"}`, "x = 1\n"},
		{"edit applies", []string{"edit", "--workspace", ws, "--tool", "str_replace"}, `{"path":"a.py","old_str":"x = 1","new_str":"x = 2"}`, 0, `"EDIT_STATUS_APPLIED"`, "x = 2\n"},
		{"missing old text exits 1", []string{"edit", "--workspace", ws, "--tool", "edit"}, `{"path":"a.py","old_text":"nope","new_text":"y"}`, 1, `EDIT_NOT_FOUND`, "x = 2\n"},
		{"outside the workspace exits 1", []string{"write", "--workspace", ws, "--tool", "write_to_file"}, `{"path":"../x.py","content":"y"}`, 1, `OUTSIDE_WORKSPACE`, "x = 2\n"},
		{"edit tool on write is a usage error", []string{"write", "--workspace", ws, "--tool", "edit"}, `{"path":"a.py","old_text":"x","new_text":"y"}`, 2, ``, "x = 2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run1(tc.args, tc.stdin)
			// protojson varies its spacing on purpose: compare without it.
			squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
			if code != tc.wantCode || !strings.Contains(squeeze(out), squeeze(tc.wantOut)) {
				t.Fatalf("exit %d (want %d), stdout lacks %q:\n%s\nstderr %s", code, tc.wantCode, tc.wantOut, out, errOut)
			}
			got, err := os.ReadFile(filepath.Join(ws, "a.py"))
			if err != nil || string(got) != tc.wantFile {
				t.Errorf("a.py = %q, %v; want %q", got, err, tc.wantFile)
			}
		})
	}
}
