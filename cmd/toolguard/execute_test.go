package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/workspace/workspacetest"
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

// TestExecuteStorageErrors: a full or read-only workspace is reported on
// stderr in a sentence saying nothing was written, with exit status 2.
func TestExecuteStorageErrors(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		dir        func(t *testing.T, prepared string) string
	}{
		{"disk full", "disk is full", func(t *testing.T, prepared string) string {
			dir := workspacetest.SmallTmpfs(t, 64<<10)
			if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{"read-only", "read-only file system", func(t *testing.T, prepared string) string {
			return workspacetest.ReadOnly(t, prepared)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prepared := t.TempDir()
			if err := os.WriteFile(filepath.Join(prepared, "a.txt"), []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := tc.dir(t, prepared)
			in := `{"path":"a.txt","content":"` + strings.Repeat("x", 256<<10) + `"}`
			var out, errOut strings.Builder
			code := run([]string{"write", "--workspace", ws, "--tool", "write_to_file"}, strings.NewReader(in), &out, &errOut)
			if code != 2 || !strings.Contains(errOut.String(), tc.want) || !strings.Contains(errOut.String(), "nothing was written") {
				t.Fatalf("exit %d, stderr %q", code, errOut.String())
			}
			if got, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(got) != "old\n" {
				t.Errorf("a.txt = %q, %v", got, err)
			}
		})
	}
}

// TestExecuteDeny: write and edit take serve's --deny and its variable
// TOOLGUARD_DENY (the flag wins), so a server's deny list applies offline.
func TestExecuteDeny(t *testing.T) {
	tests := []struct {
		name     string
		env      string // TOOLGUARD_DENY; "" unset
		args     []string
		stdin    string
		wantCode int
		wantOut  string
	}{
		{"no deny list", "", []string{"write", "--tool", "write_to_file"}, `{"path":"secret/a.txt","content":"x"}`, 0, `FILE_CHANGE_KIND_CREATED`},
		{"--deny", "", []string{"write", "--tool", "write_to_file", "--deny", "secret/**,*.pem"}, `{"path":"secret/a.txt","content":"x"}`, 1, `DENIED_PATH`},
		{"--deny in another case", "", []string{"write", "--tool", "write_to_file", "--deny", "secret/**"}, `{"path":"SECRET/a.txt","content":"x"}`, 1, `DENIED_PATH`},
		{"--deny on edit", "", []string{"edit", "--tool", "edit", "--deny", "*.pem"}, `{"path":"k.pem","old_text":"a","new_text":"b"}`, 1, `DENIED_PATH`},
		{"TOOLGUARD_DENY", "secret/**", []string{"write", "--tool", "write_to_file"}, `{"path":"secret/a.txt","content":"x"}`, 1, `DENIED_PATH`},
		{"--deny wins over TOOLGUARD_DENY", "secret/**", []string{"write", "--tool", "write_to_file", "--deny", "*.pem"}, `{"path":"secret/a.txt","content":"x"}`, 0, `FILE_CHANGE_KIND_CREATED`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("TOOLGUARD_DENY", tc.env)
			} else {
				t.Setenv("TOOLGUARD_DENY", "") // counts as unset
			}
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "k.pem"), []byte("a\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errOut strings.Builder
			code := run(append(tc.args, "--workspace", ws), strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.wantCode || !strings.Contains(out.String(), tc.wantOut) {
				t.Fatalf("exit %d (want %d), stdout lacks %q:\n%s\nstderr %s", code, tc.wantCode, tc.wantOut, out.String(), errOut.String())
			}
			_, err := os.Stat(filepath.Join(ws, "secret", "a.txt"))
			if created := err == nil; created != (tc.wantCode == 0) {
				t.Errorf("secret/a.txt created = %v", created)
			}
		})
	}
}
