package auth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// principal is a caller named in a test's tokens file: its token and grants.
type principal struct {
	name       string
	token      string
	workspaces []string
}

var (
	alice = principal{"alice", "alice-token-4f1c2b7e9d0a3856c1e2f3a4b5c6d7e8", []string{"default"}}
	bob   = principal{"bob", "bob-token-0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d", []string{"docs"}}
)

// writeTokens writes a tokens file granting each principal its workspaces.
func writeTokens(t *testing.T, ps ...principal) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("tokens:\n")
	for _, p := range ps {
		fmt.Fprintf(&b, "  - principal: %s\n    sha256: %s\n    workspaces: [%q]\n", p.name, HashToken(p.token), strings.Join(p.workspaces, `", "`))
	}
	path := filepath.Join(t.TempDir(), "tokens.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParseTokens(t *testing.T) {
	hash := HashToken("one-token-0123456789abcdef0123456789")
	workspaces := map[string]string{"default": "/ws", "docs": "/docs"}
	entry := func(principal, sha string, workspaces ...string) string {
		return "  - principal: " + principal + "\n    sha256: " + sha + "\n    workspaces: [" + strings.Join(workspaces, ", ") + "]\n"
	}
	tests := []struct {
		name    string
		file    string
		wantErr string
	}{
		{name: "yaml", file: "tokens:\n" + entry("alice", hash, "default", "docs")},
		{name: "json", file: `{"tokens": [{"principal": "alice", "sha256": "` + strings.ToUpper(hash) + `", "workspaces": ["*"]}]}`},
		{name: "no workspaces", file: "tokens:\n" + entry("reader", hash)},
		{name: "empty", file: "tokens: []\n", wantErr: "no tokens"},
		{name: "unknown field", file: "tokens:\n" + entry("alice", hash, "default") + "    role: admin\n", wantErr: "role"},
		{name: "token not hashed", file: "tokens:\n" + entry("alice", "s3cret", "default"), wantErr: "64 hex digits"},
		{name: "no principal", file: "tokens:\n" + entry(`""`, hash, "default"), wantErr: "principal: required"},
		{name: "anonymous is reserved", file: "tokens:\n" + entry("anonymous", hash, "default"), wantErr: "reserved"},
		{name: "principal with a space", file: "tokens:\n" + entry(`"al ice"`, hash, "default"), wantErr: "visible ASCII"},
		{name: "unknown workspace", file: "tokens:\n" + entry("alice", hash, "web"), wantErr: `workspace "web": the server has no such workspace (it has default, docs)`},
		{name: "same token twice", file: "tokens:\n" + entry("alice", hash, "default") + entry("bob", hash, "docs"), wantErr: "the same token as tokens[0] (alice)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := parseTokens([]byte(tt.file), workspaces)
			if tt.wantErr == "" {
				if err != nil || len(a.tokens) == 0 {
					t.Fatalf("parseTokens: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml"), workspaces); err == nil || !strings.Contains(err.Error(), "auth tokens file") {
		t.Errorf("missing tokens file: %v", err)
	}
}

// TestTokenVerifier: the tokens file's check as the front ends use it.
func TestTokenVerifier(t *testing.T) {
	verify, err := TokenVerifier(writeTokens(t, alice, bob), map[string]string{"default": t.TempDir(), "docs": t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := verify(alice.token)
	if err != nil || c.Principal != "alice" || !c.MayUse("default") || c.MayUse("docs") {
		t.Fatalf("alice: %+v %v", c, err)
	}
	if _, err := verify("not-a-token"); err == nil {
		t.Error("an unknown token passed")
	}
	ws := map[string]string{"default": t.TempDir(), "docs": t.TempDir()}
	if n, err := TokenPrincipals(writeTokens(t, alice, bob), ws); n != 2 || err != nil {
		t.Errorf("principals of alice and bob: %d, %v", n, err)
	}
	if n, err := TokenPrincipals(writeTokens(t, alice), ws); n != 1 || err != nil {
		t.Errorf("principals of alice: %d, %v", n, err)
	}
}
