package session_test

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/session"
)

// FuzzRedisURL: any URL, mode and master name is accepted or refused
// without a panic, and a refusal never quotes the URL's password.
func FuzzRedisURL(f *testing.F) {
	for _, rest := range []string{"a:6379,b:6379/0", "[::1]:6380,h", "a,,b", "a:port", "s1:26379?dial_timeout=1s", "a:1,b:x/3", "0/x@"} {
		f.Add("redis", rest, "auto", "")
		f.Add("rediss", rest, "sentinel", "m")
	}
	const secret = "s3cr3t-pw"
	f.Fuzz(func(t *testing.T, scheme, rest, mode, master string) {
		if len(rest) > 1<<10 || strings.Contains(rest, secret) {
			return
		}
		err := session.CheckRedisOptions(scheme+"://:"+secret+"@"+rest, mode, master)
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Fatalf("the error %q quotes the password", err)
		}
	})
}
