// Package auth is who a caller is, for every front end: the bearer tokens
// of the tokens file, kept as SHA-256 hashes with the principal each names
// and the workspaces it may use, and the caller a token identifies. Without
// a tokens file every caller is "anonymous" and may use every workspace.
// How a token arrives (gRPC metadata, an HTTP header) is the front end's.
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strings"
)

// AnonymousPrincipal is every caller's principal without authentication.
const AnonymousPrincipal = "anonymous"

// AllWorkspaces in a token's workspaces grants every workspace.
const AllWorkspaces = "*"

// HashToken returns the SHA-256 of a bearer token in lowercase hex, the
// form the tokens file stores.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Caller is who makes a call: its principal and the workspaces it may use.
type Caller struct {
	// Principal is the tokens file's name for the caller's token, or
	// AnonymousPrincipal.
	Principal string
	// authenticated is false for the anonymous caller, whose session ids are
	// used as sent.
	authenticated bool
	all           bool
	workspaces    map[string]bool
}

// anonymous is every caller without authentication.
var anonymous = &Caller{Principal: AnonymousPrincipal, all: true}

// Anonymous returns the caller without authentication, who may use every
// workspace.
func Anonymous() *Caller { return anonymous }

// NewCaller returns an authenticated caller granted the workspaces named
// (AllWorkspaces: every one). The tokens file checks the names; this does
// not.
func NewCaller(principal string, workspaces ...string) *Caller {
	c := &Caller{Principal: principal, authenticated: true, workspaces: map[string]bool{}}
	for _, w := range workspaces {
		if w == AllWorkspaces {
			c.all = true
		} else {
			c.workspaces[w] = true
		}
	}
	return c
}

// Authenticated reports whether the caller presented a token; a front end
// keys an authenticated caller's sessions with its principal.
func (c *Caller) Authenticated() bool { return c.authenticated }

// MayUse reports whether the caller's grants include the workspace.
func (c *Caller) MayUse(workspace string) bool {
	return c.all || c.workspaces[workspace]
}

// IsLoopback reports whether a listen address binds loopback only: an IP
// loopback address or localhost. An empty host binds every interface. One
// that does not parse counts as loopback: listening fails with a clearer
// error. Front ends refuse to listen beyond loopback without tokens.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if host == "localhost" {
		return true
	}
	host, _, _ = strings.Cut(host, "%") // an IPv6 zone
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
