package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRepairCommand(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdin      string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "valid JSON passes through", stdin: `{"a": 1}`, wantStdout: `{"a":1}`, wantStderr: `{"repairs":[],"truncated":false}`},
		{name: "Python dict", stdin: `{'a': True, 'b': None,}`, wantStdout: `{"a":true,"b":null}`, wantStderr: `"code":"PYTHON_LITERAL"`},
		{name: "markup stays unescaped", stdin: `{'html': '<p>a & b</p>'}`, wantStdout: `{"html":"<p>a & b</p>"}`},
		{name: "truncated exits 1", stdin: `{"a": "cut`, wantCode: 1, wantStdout: `{"a":"cut"}`, wantStderr: `"truncated":true`},
		{name: "nothing recoverable exits 2", stdin: `just prose`, wantCode: 2, wantStderr: "no JSON value"},
		{name: "one document with --json", args: []string{"--json"}, stdin: "```json\n[1, 2,]\n```", wantStdout: `"value":[1,2]`},
		{name: "stray argument", args: []string{"x"}, stdin: `{}`, wantCode: 2, wantStderr: "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(append([]string{"repair"}, tc.args...), strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.wantCode, errOut.String())
			}
			if !strings.Contains(out.String(), tc.wantStdout) || !strings.Contains(errOut.String(), tc.wantStderr) {
				t.Errorf("stdout %q stderr %q; want %q / %q", out.String(), errOut.String(), tc.wantStdout, tc.wantStderr)
			}
			if tc.wantCode != 2 && !json.Valid([]byte(strings.TrimSpace(out.String()))) {
				t.Errorf("stdout is not JSON: %q", out.String())
			}
		})
	}
}
