package main

import (
	"strings"
	"testing"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunDispatch(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{name: "no args prints usage to stderr", wantCode: 2, wantStderr: "Commands:"},
		{name: "help prints usage", args: []string{"help"}, wantCode: 0, wantStdout: "serve"},
		{name: "--help prints usage", args: []string{"--help"}, wantCode: 0, wantStdout: "version"},
		{name: "help serve prints serve flags", args: []string{"help", "serve"}, wantCode: 0, wantStdout: "TOOLGUARD_LISTEN"},
		{name: "help of an unknown command", args: []string{"help", "frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "unknown command", args: []string{"frobnicate"}, wantCode: 2, wantStderr: `unknown command "frobnicate"`},
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "toolguard dev\n"},
		{name: "version takes no arguments", args: []string{"version", "x"}, wantCode: 2, wantStderr: "usage"},
		{name: "serve rejects a bad flag", args: []string{"serve", "--mistake-limit", "x"}, wantCode: 2, wantStderr: "-mistake-limit"},
		{name: "serve rejects an invalid configuration", args: []string{"serve", "--log-format", "xml"}, wantCode: 2, wantStderr: "log format"},
		{name: "serve rejects a stray argument", args: []string{"serve", "now"}, wantCode: 2, wantStderr: `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stdout, tt.wantStdout) {
				t.Errorf("stdout %q does not contain %q", stdout, tt.wantStdout)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr %q does not contain %q", stderr, tt.wantStderr)
			}
		})
	}
}

func TestServeRejectsBadEnv(t *testing.T) {
	t.Setenv("TOOLGUARD_SESSION_TTL", "forever")
	code, _, stderr := runCLI("serve")
	if code != 2 || !strings.Contains(stderr, "TOOLGUARD_SESSION_TTL") {
		t.Fatalf("exit %d, stderr %q; want 2 naming TOOLGUARD_SESSION_TTL", code, stderr)
	}
}
