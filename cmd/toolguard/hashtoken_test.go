package main

import (
	"strings"
	"testing"
)

func TestHashToken(t *testing.T) {
	const token = "tok-0123456789abcdef0123456789abcdef"
	const want = "26f0460965cb0b82ab64e63f4a37d421decb163fc706c259956db7611d74b1ad\n" // printf %s "$token" | sha256sum
	tests := []struct {
		name       string
		stdin      string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "bare token", stdin: token, wantStdout: want},
		{name: "trailing newline ignored", stdin: token + "\n", wantStdout: want},
		{name: "trailing CRLF ignored", stdin: token + "\r\n", wantStdout: want},
		{name: "short token warns", stdin: "short\n", wantStdout: "f9b0078b5df596d2ea19010c001bbd009e651de2c57e8fb7e355f31eb9d3f739\n", wantStderr: "warning"},
		{name: "empty", stdin: "\n", wantCode: 2, wantStderr: "no token"},
		{name: "two lines", stdin: token + "\n" + token + "\n", wantCode: 2, wantStderr: "several lines"},
		{name: "spaces", stdin: " " + token + "\n", wantCode: 2, wantStderr: "white space"},
		{name: "too long", stdin: strings.Repeat("x", maxTokenBytes+1), wantCode: 2, wantStderr: "longer than"},
		{name: "no arguments", stdin: token, args: []string{token}, wantCode: 2, wantStderr: "unexpected argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(append([]string{"hash-token"}, tt.args...), strings.NewReader(tt.stdin), &out, &errOut)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut.String())
			}
			if out.String() != tt.wantStdout {
				t.Errorf("stdout %q, want %q", out.String(), tt.wantStdout)
			}
			if !strings.Contains(errOut.String(), tt.wantStderr) || tt.wantStderr == "" && errOut.Len() > 0 {
				t.Errorf("stderr %q, want it to contain %q", errOut.String(), tt.wantStderr)
			}
		})
	}
}
