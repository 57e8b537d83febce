package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/workspace/workspacetest"
)

func TestListAndFindCommands(t *testing.T) {
	ws := t.TempDir()
	workspacetest.WriteFiles(t, ws, map[string]string{"src/a.go": "package a\n", "src/a_test.go": "package a\n", "notes.md": "n\n", ".git/config": "x", "x.log": "l"})
	if err := os.WriteFile(filepath.Join(ws, ".gitignore"), []byte("*.log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string
		notOut   []string
	}{
		{"list the root", []string{"list"}, 0, []string{`"path":"src","name":"src","type":"ENTRY_TYPE_DIRECTORY"`, `"path":"x.log"`, `[DIR]src/`}, []string{`".git"`, "config"}},
		{"a tree, gitignore, excluding", []string{"list", "--depth", "2", "--gitignore", "--exclude", "*_test.go"}, 0,
			[]string{`"path":"src/a.go"`, `"files":3`}, []string{"x.log", "a_test.go"}},
		{"a cut tree", []string{"list", "--depth", "2", "--max-entries", "2"}, 0, []string{`"omitted":4`}, nil},
		{"list outside exits 1", []string{"list", "--path", ".."}, 1, []string{`OUTSIDE_WORKSPACE`, `"ok":false`}, nil},
		{"list denied exits 1", []string{"list", "--path", ".git"}, 1, []string{`DENIED_PATH`}, []string{"config"}},
		{"find", []string{"find", "--pattern", "**/*.go", "--exclude", "*_test.go"}, 0, []string{`"matches":[{"path":"src/a.go"`}, []string{"a_test"}},
		{"find a bad pattern exits 1", []string{"find", "--pattern", "[a-"}, 1, []string{`INVALID_VALUE`, `notavalidglobpattern`}, nil},
		{"stray argument", []string{"find", "x"}, 2, nil, nil},
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
			for _, w := range tc.notOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout shows %s:\n%s", w, out.String())
				}
			}
		})
	}
}
