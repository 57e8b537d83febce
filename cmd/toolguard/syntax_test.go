package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSyntaxCheckCommands: toolguard write and edit check the syntax of
// what they change: report mode (the default) writes and says so, refuse
// mode (flag or environment) writes nothing and exits 1; a check past the
// memory of checks is not made, the file written all the same.
func TestSyntaxCheckCommands(t *testing.T) {
	const clean = "a = 1\n"
	tests := []struct {
		name     string
		args     []string
		env      string
		stdin    string
		wantCode int
		wantOut  []string // nil: no check
		written  bool
	}{
		{"edit, report", []string{"edit", "--tool", "edit"}, "", `{"path":"c.toml","old_text":"a = 1","new_text":"a = "}`, 0,
			[]string{`"outcome":"SYNTAX_OUTCOME_ADDED"`, `parsedcleanlybefore`, `"syntax_errors":[{`}, true},
		{"write, refuse by flag", []string{"write", "--tool", "write_to_file", "--syntax-check", "refuse"}, "", `{"path":"c.toml","content":"a = [1\n"}`, 1,
			[]string{`SYNTAX_ERROR`, `Nothingwaswritten`}, false},
		{"edit, refuse by environment", []string{"edit", "--tool", "edit"}, "refuse", `{"path":"c.toml","old_text":"a = 1","new_text":"a = "}`, 1,
			[]string{`SYNTAX_ERROR`}, false},
		{"write, over the memory of checks", []string{"write", "--tool", "write_to_file", "--syntax-check-max-memory", "3"}, "", `{"path":"c.toml","content":"a = [1\n"}`, 0,
			[]string{`"outcome":"SYNTAX_OUTCOME_NOT_CHECKED"`, `morethanallsyntaxchecksmayholdatonce`}, true},
		{"edit, off", []string{"edit", "--tool", "edit", "--syntax-check", "off"}, "", `{"path":"c.toml","old_text":"a = 1","new_text":"a = "}`, 0,
			nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			file := filepath.Join(ws, "c.toml")
			if err := os.WriteFile(file, []byte(clean), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("TOOLGUARD_SYNTAX_CHECK", tc.env)
			var out, errOut strings.Builder
			code := run(append(tc.args, "--workspace", ws), strings.NewReader(tc.stdin), &out, &errOut)
			squeezed := strings.Join(strings.Fields(out.String()), "")
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d:\n%s\n%s", code, tc.wantCode, out.String(), errOut.String())
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(squeezed, w) {
					t.Errorf("output lacks %s:\n%s", w, out.String())
				}
			}
			if tc.wantOut == nil && !strings.Contains(squeezed, `"syntax_checks":[]`) {
				t.Errorf("off: output mentions syntax:\n%s", out.String())
			}
			got, _ := os.ReadFile(file)
			if (string(got) != clean) != tc.written {
				t.Errorf("c.toml = %q, written want %v", got, tc.written)
			}
		})
	}
}
