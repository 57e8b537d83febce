package main

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/workspace/workspacetest"
)

func TestSearchCommand(t *testing.T) {
	ws := t.TempDir()
	workspacetest.WriteFiles(t, ws, map[string]string{"src/a.go": "package a\n\nfunc A() {}\n", "src/a_test.go": "package a\n\nfunc TestA() {}\n",
		"notes.md": "Func notes\n", ".git/config": "func x", "blob.bin": "func\x00"})
	tests := []struct {
		name     string
		args     []string
		env      map[string]string
		wantCode int
		wantOut  []string
		notOut   []string
	}{
		{"a regex with context", []string{"--pattern", `^func \w+\(`, "--include", "*.go", "--exclude", "*_test.go", "--before", "1"}, nil, 0,
			[]string{`"matches":[{"path":"src/a.go","line":3,"column":1,"text":"funcA(){}","before":[""],"after":[]}]`, `"binary_skipped":0`}, []string{"TestA"}},
		{"literal, ignoring case, files", []string{"--pattern", "FUNC", "--literal", "--ignore-case", "--output-mode", "files_with_matches"}, nil, 0,
			[]string{`"files":[{"path":"notes.md","count":1},{"path":"src/a.go","count":1}`, `"binary_skipped":1`}, []string{"config"}},
		{"the server's bound from the environment", []string{"--pattern", "func", "--ignore-case"}, map[string]string{"TOOLGUARD_SEARCH_MAX_FILES": "1"}, 0,
			[]string{`"files_searched":0`, `"cut":"files"`, `"partial":true`}, nil},
		{"a bad pattern exits 1", []string{"--pattern", "func ("}, nil, 1, []string{`INVALID_VALUE`, `missingclosing)atposition6`}, nil},
		{"outside exits 1", []string{"--pattern", "x", "--path", ".."}, nil, 1, []string{`OUTSIDE_WORKSPACE`}, nil},
		{"stray argument", []string{"x"}, nil, 2, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			var out, errOut strings.Builder
			code := run(append([]string{"search", "--workspace", ws}, tc.args...), strings.NewReader(""), &out, &errOut)
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
