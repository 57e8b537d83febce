package guard

import "strings"

// MaxSessionIDBytes bounds a session id, in every front end.
const MaxSessionIDBytes = 256

// SessionKey is the key an authenticated principal's session id is counted
// under: one principal never counts in another's sessions. Without
// authentication the key is the id as sent.
func SessionKey(principal string, authenticated bool, id string) string {
	if !authenticated {
		return id
	}
	return principal + "\x00" + id
}

// SplitSessionKey takes a key of SessionKey apart, for logs, which never
// show the NUL byte; anonymous names the principal without authentication.
func SplitSessionKey(key string, authenticated bool, anonymous string) (principal, id string) {
	if !authenticated {
		return anonymous, key
	}
	principal, id, _ = strings.Cut(key, "\x00")
	return principal, id
}
