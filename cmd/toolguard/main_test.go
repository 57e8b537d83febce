package main

import (
	"runtime/debug"
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
		{name: "version", args: []string{"version"}, wantCode: 0, wantStdout: "toolguard " + toolguardVersion + "\n"},
		{name: "--version", args: []string{"--version"}, wantCode: 0, wantStdout: "toolguard " + toolguardVersion + "\n"},
		{name: "-v", args: []string{"-v"}, wantCode: 0, wantStdout: "toolguard " + toolguardVersion + "\n"},
		{name: "-version", args: []string{"-version"}, wantCode: 0, wantStdout: "toolguard " + toolguardVersion + "\n"},
		{name: "--version takes no arguments", args: []string{"--version", "x"}, wantCode: 2, wantStderr: "Usage"},
		{name: "version --help", args: []string{"version", "--help"}, wantCode: 0, wantStdout: "Usage: toolguard version"},
		{name: "version takes no arguments", args: []string{"version", "x"}, wantCode: 2, wantStderr: "Usage"},
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

func TestBuildVersion(t *testing.T) {
	info := func(v string, ok bool) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Path: "github.com/toolguard/toolguard", Version: v}}, ok
		}
	}
	tests := []struct {
		name, ldflags string
		info          func() (*debug.BuildInfo, bool)
		want          string
	}{
		{"ldflags win", "v1.2.3", info("v0.1.0", true), "v1.2.3"},
		{"go install @v0.1.0", "dev", info("v0.1.0", true), "v0.1.0"},
		{"a clone's pseudo-version", "dev", info("v0.0.0-20261125061000-297d871abcde", true), "v0.0.0-20261125061000-297d871abcde"},
		{"(devel) carries nothing", "dev", info("(devel)", true), "dev"},
		{"no build info", "dev", info("", false), "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildVersion(tt.ldflags, tt.info); got != tt.want {
				t.Errorf("buildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}
