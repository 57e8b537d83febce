package auth

import "testing"

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7700": true, "localhost:7700": true, "[::1]:7700": true, "[fe80::1%lo]:1": false,
		"[::1%lo]:7700": true, ":7700": false, "0.0.0.0:7700": false, "10.0.0.1:7700": false, "no port": true,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestCallerGrants(t *testing.T) {
	if a := Anonymous(); a.Authenticated() || !a.MayUse("any") || a.Principal != AnonymousPrincipal {
		t.Errorf("anonymous: %+v", a)
	}
	c := NewCaller("alice", "docs")
	if !c.Authenticated() || !c.MayUse("docs") || c.MayUse("default") {
		t.Errorf("alice granted docs: %+v", c)
	}
	if c := NewCaller("admin", AllWorkspaces); !c.MayUse("default") {
		t.Errorf("admin granted every workspace: %+v", c)
	}
	if c := NewCaller("reader"); c.MayUse("default") {
		t.Errorf("reader granted none: %+v", c)
	}
}
