package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// maxPrincipalLen bounds a principal, copied into log lines and session keys.
const maxPrincipalLen = 128

// Error refuses a call without a valid bearer token (a front end answers
// UNAUTHENTICATED, or 401).
type Error struct {
	Reason  string
	Message string
}

func (e *Error) Error() string { return e.Message }

var errTokenInvalid = &Error{Reason: "TOKEN_INVALID", Message: "the bearer token is not valid on this server"}

// Verifier checks a bearer token: the caller it names, or an *Error.
type Verifier func(token string) (*Caller, error)

// Tokens are the tokens file's callers, checked by the hash of a bearer
// token. A nil *Tokens (no tokens file) authenticates no one.
type Tokens struct {
	tokens []knownToken
}

type knownToken struct {
	hash   [sha256.Size]byte
	caller *Caller
}

// tokensFile is the format of the tokens file:
//
//	tokens:
//	  - principal: orchestrator-a
//	    sha256: 1c59a10a1f6d39e7606603e3958ec12f42fbdbbcf37c45fe9a467904bf6faaac
//	    workspaces: [default, docs]   # or ["*"]
type tokensFile struct {
	Tokens []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Principal  string   `json:"principal"`
	SHA256     string   `json:"sha256"`
	Workspaces []string `json:"workspaces"`
}

// TokenVerifier reads a tokens file and returns its check of a bearer
// token, for every front end that authenticates: the same tokens, the same
// grants.
func TokenVerifier(path string, workspaces map[string]string) (Verifier, error) {
	if path == "" {
		return nil, errors.New("auth tokens file: no path")
	}
	t, err := Load(path, workspaces)
	if err != nil {
		return nil, err
	}
	return t.Verify, nil
}

// TokenPrincipals counts the principals a tokens file names, for the front
// ends that share a bound among principals (streams, MCP sessions).
func TokenPrincipals(path string, workspaces map[string]string) (int, error) {
	t, err := Load(path, workspaces)
	if err != nil {
		return 0, err
	}
	return t.Principals(), nil
}

// Load reads the tokens file (nil for an empty path). Every grant must name
// one of the server's workspaces, so a typo fails at startup.
func Load(path string, workspaces map[string]string) (*Tokens, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("auth tokens file: %w", err)
	}
	t, err := parseTokens(data, workspaces)
	if err != nil {
		return nil, fmt.Errorf("auth tokens file %s: %w", path, err)
	}
	return t, nil
}

func parseTokens(data []byte, workspaces map[string]string) (*Tokens, error) {
	var f tokensFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, err
	}
	if len(f.Tokens) == 0 {
		return nil, errors.New("no tokens: list at least one, or unset the tokens file to disable authentication")
	}
	a := &Tokens{}
	for i, e := range f.Tokens {
		where := fmt.Sprintf("tokens[%d]", i)
		if err := checkPrincipal(e.Principal); err != nil {
			return nil, fmt.Errorf("%s: principal: %w", where, err)
		}
		raw, err := hex.DecodeString(e.SHA256)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("%s (%s): sha256 must be the 64 hex digits of the token's SHA-256 (toolguard hash-token prints it), not the token", where, e.Principal)
		}
		for _, w := range e.Workspaces {
			if _, ok := workspaces[w]; w != AllWorkspaces && !ok {
				return nil, fmt.Errorf("%s (%s): workspace %q: the server has no such workspace (it has %s)", where, e.Principal, w, strings.Join(slices.Sorted(maps.Keys(workspaces)), ", "))
			}
		}
		t := knownToken{caller: NewCaller(e.Principal, e.Workspaces...)}
		copy(t.hash[:], raw)
		for j, prev := range a.tokens {
			if prev.hash == t.hash {
				return nil, fmt.Errorf("%s (%s): the same token as tokens[%d] (%s)", where, e.Principal, j, prev.caller.Principal)
			}
		}
		a.tokens = append(a.tokens, t)
	}
	return a, nil
}

// checkPrincipal holds a principal to visible ASCII: it goes into log lines
// and session keys.
func checkPrincipal(p string) error {
	switch {
	case p == "":
		return errors.New("required")
	case len(p) > maxPrincipalLen:
		return fmt.Errorf("%q is longer than %d bytes", p, maxPrincipalLen)
	case !isVisibleASCII(p):
		return fmt.Errorf("%q: only visible ASCII characters, no spaces", p)
	case p == AnonymousPrincipal:
		return fmt.Errorf("%q is reserved for callers when authentication is disabled", p)
	}
	return nil
}

// Principals counts the tokens file's principals (0 without one).
func (a *Tokens) Principals() int {
	if a == nil {
		return 0
	}
	names := map[string]bool{}
	for _, t := range a.tokens {
		names[t.caller.Principal] = true
	}
	return len(names)
}

// Verify finds the caller a bearer token names.
func (a *Tokens) Verify(token string) (*Caller, error) {
	sum := sha256.Sum256([]byte(token))
	// Every hash is compared in constant time, so timing says nothing.
	var found *Caller
	for _, t := range a.tokens {
		if subtle.ConstantTimeCompare(sum[:], t.hash[:]) == 1 {
			found = t.caller
		}
	}
	if found == nil {
		return nil, errTokenInvalid
	}
	return found, nil
}

func isVisibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}
