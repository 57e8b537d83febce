//go:build unix

package workspace

import (
	"os"
	"path"
	"slices"
	"strings"
	"testing"
)

func TestGitignoreMatching(t *testing.T) {
	for _, c := range []struct {
		patterns string
		path     string
		denied   bool
	}{
		// Names without a slash match at any depth.
		{".env", ".env", true},
		{".env", "a/b/.env", true},
		{".env", ".envrc", false},
		{".env", "a/.env/x", true}, // a directory named .env
		{"*.pem", "k.pem", true},
		{"*.pem", "certs/k.pem", true},
		{"*.pem", "k.pem.txt", false},
		{"*", "anything/at/all", true},
		{"?.txt", "a.txt", true},
		{"?.txt", "ab.txt", false},
		{"[ab].txt", "b.txt", true},
		{"[!ab].txt", "c.txt", true},
		{"[!ab].txt", "a.txt", false},
		{"[^ab].txt", "a.txt", false},
		// A leading or middle slash anchors.
		{"/build", "build", true},
		{"/build", "src/build", false},
		{"doc/*.txt", "doc/a.txt", true},
		{"doc/*.txt", "x/doc/a.txt", false},
		{"doc/*.txt", "doc/sub/a.txt", false},
		// A trailing slash: directories only (and so what they hold).
		{"out/", "out", false},
		{"out/", "out/a.js", true},
		{"out/", "src/out/a.js", true},
		{"/out/", "src/out/a.js", false},
		// Double stars.
		{"**/secret/*", "secret/k", true},
		{"**/secret/*", "a/b/secret/k", true},
		{"**/secret/*", "a/secret", false},
		{"**/secret/*", "a/secret/d/k", true}, // secret/d is denied, so is what it holds
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"logs/**", "logs/x/y.log", true},
		{"logs/**", "logs", false},
		{"**/node_modules", "x/node_modules/y/z.js", true},
		{"**.key", "a/b.key", true}, // "**" inside a name is "*"
		{"a**b", "axyzb", true},
		// Negation: last match wins, within one list.
		{"*.env\n!keep.env", "keep.env", false},
		{"*.env\n!keep.env", "prod.env", true},
		{"!keep.env\n*.env", "keep.env", true},
		{"secret/\n!secret/ok.txt", "secret/ok.txt", true}, // a denied directory cannot be reopened
		{"/secret/*\n!/secret/ok.txt", "secret/ok.txt", false},
		// Comments, blanks, escapes, trailing spaces.
		{"# comment\n\n   \n", "# comment", false},
		{`\#hash`, "#hash", true},
		{`\!bang`, "!bang", true},
		{"trail   ", "trail", true},
		{`space\ `, "space ", true},
		{"crlf\r\n", "crlf", true},
		{"[unclosed", "[unclosed", false},
		// Letter case is ignored, in names and patterns, negations too.
		{"secret/**", "SECRET/a.txt", true},
		{"secret/**", "Secret/sub/a.txt", true},
		{".git", ".GIT/config", true},
		{".git", "sub/.Git", true},
		{"*.PEM", "k.pem", true},
		{"*.env\n!keep.env", "KEEP.ENV", false},
		{"*.env\n!keep.env", "Prod.Env", true},
		{"[A-C].txt", "b.txt", true},
		{"[^a-z].txt", "B.txt", true}, // denied as written
		{"ÉTÉ/*", "été/x", true},
		{"cafe\u0301", "caf\u00e9", true}, // one name to APFS
		// The spellings Windows and macOS read as the same name.
		{".git", ".git./config", true},
		{".git", ".git ./config", true},
		{".git", ".git. . /config", true},
		{".git", ".git::$INDEX_ALLOCATION/config", true},
		{".git", ".git:stream", true},
		{".git", ".g\u200cit/config", true},
		{".git", "\ufeff.git/config", true},
		{"secret/**", "secret./a.txt", true},
		{"secret/**", "SECRET /a.txt", true},
		{"*.env", "x.env:backup", true},
		{"*.env\n!keep.env", "keep.env.", false},
		{".git", ".gitx", false},
		{".git", "x.git", false},
		{".git", "...", false},
		{"notes", "notes.txt", false},
	} {
		m := newMatcher(strings.Split(c.patterns, "\n"), func(int) string { return "test" })
		got := m.denied(strings.Split(c.path, "/")) != nil
		if got != c.denied {
			t.Errorf("patterns %q, path %q: denied = %v, want %v", c.patterns, c.path, got, c.denied)
		}
	}
}

func TestDenyLists(t *testing.T) {
	e := newEnv(t)
	writeFile(t, e.in(IgnoreFile), "!*.pem\n!.git\n*.log\n", 0o644)
	w := e.open(t, Options{Deny: []string{"*.pem"}})
	for _, c := range []struct {
		path   string
		denied bool
	}{
		{"k.pem", true},       // the workspace cannot lift the server's patterns
		{".git/config", true}, // nor the default
		{"a.log", true},       // but adds its own
		{"a.txt", false},
		{IgnoreFile, true},
	} {
		_, err := w.Resolve(c.path)
		if IsCode(err, CodeDeniedPath) != c.denied {
			t.Errorf("%s: %v, want denied %v", c.path, err, c.denied)
		}
	}
	// The server list may lift the default.
	w2 := e.open(t, Options{Deny: []string{"!.git"}})
	if _, err := w2.Resolve(".git/config"); err != nil {
		t.Errorf(".git with !.git in the server list: %v", err)
	}
	// The message says which pattern and where it comes from.
	_, err := w.Resolve("./logs/../a.log")
	if err == nil || !strings.Contains(err.Error(), `"*.log"`) || !strings.Contains(err.Error(), IgnoreFile+" line 3") || !strings.Contains(err.Error(), `"./logs/../a.log" (a.log)`) {
		t.Errorf("message: %v", err)
	}
}

func TestIgnoreFileReload(t *testing.T) {
	e := newEnv(t)
	w := e.open(t, Options{})
	denied := func(p string) bool {
		t.Helper()
		_, err := w.Resolve(p)
		if err != nil && !IsCode(err, CodeDeniedPath) {
			t.Fatalf("Resolve(%q): %v", p, err)
		}
		return err != nil
	}
	if denied("a.secret") {
		t.Fatal("denied without a policy")
	}
	writeFile(t, e.in(IgnoreFile), "*.secret\n", 0o644)
	if !denied("a.secret") {
		t.Fatal("new .toolguardignore not picked up")
	}
	// Rewritten in place (another size), and replaced by rename.
	writeFile(t, e.in(IgnoreFile), "*.private\n", 0o644)
	if denied("a.secret") || !denied("b.private") {
		t.Fatal("changed .toolguardignore not picked up")
	}
	writeFile(t, e.in("next"), "*.other\n", 0o644)
	if err := os.Rename(e.in("next"), e.in(IgnoreFile)); err != nil {
		t.Fatal(err)
	}
	if denied("b.private") || !denied("c.other") {
		t.Fatal("renamed .toolguardignore not picked up")
	}
	if err := os.Remove(e.in(IgnoreFile)); err != nil {
		t.Fatal(err)
	}
	if denied("c.other") {
		t.Fatal("removed .toolguardignore still applies")
	}
	// A policy that cannot be read fails closed.
	if err := os.Symlink("elsewhere", e.in(IgnoreFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Resolve("a.txt"); err == nil || CodeOf(err) != "" {
		t.Fatalf("an unreadable policy must be a server error, got %v", err)
	}
	// The model cannot write it through the workspace either.
	os.Remove(e.in(IgnoreFile))
	if _, err := w.WriteFile(IgnoreFile, []byte("!*\n"), WriteOptions{}); !IsCode(err, CodeDeniedPath) {
		t.Fatalf("writing the policy: %v", err)
	}
}

// refMatch is the textbook recursive matcher, the oracle for the automaton.
func refMatch(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if refMatch(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	if !ok || err != nil {
		ok, err = path.Match(fold(pat[0]), fold(name[0]))
	}
	return ok && err == nil && refMatch(pat[1:], name[1:])
}

// refDenied is the matcher's rule, written as directly as possible: a
// prefix is denied when the last pattern matching it denies it; the path is
// denied as written or with every name canonical.
func refDenied(m *matcher, comps []string) bool {
	canon := make([]string, len(comps))
	for i, c := range comps {
		canon[i] = canonicalName(c)
	}
	for _, names := range [][]string{comps, canon} {
		for i := 1; i <= len(names); i++ {
			var last *pattern
			for k := range m.pats {
				p := &m.pats[k]
				if (!p.dirOnly || i < len(names)) && refMatch(p.segs, names[:i]) {
					last = p
				}
			}
			if last != nil && !last.negate {
				return true
			}
		}
	}
	return false
}

func FuzzDenyMatcher(f *testing.F) {
	f.Add("*.env\n!keep.env\n**/secret/*", "a/secret/keep.env")
	f.Add("a/**/b/**\nlogs/**\n/x/", "a/b/c/x/logs/q")
	f.Add("**\n!**/*.go", "src/main.go")
	f.Fuzz(func(t *testing.T, patterns, p string) {
		if len(patterns) > 200 || len(p) > 200 || strings.Count(p, "/") > 12 {
			return
		}
		m := newMatcher(strings.Split(patterns, "\n"), func(int) string { return "fuzz" })
		comps := strings.Split(p, "/")
		if slices.Contains(comps, "") {
			return
		}
		if got, want := m.denied(comps) != nil, refDenied(m, comps); got != want {
			t.Fatalf("patterns %q path %q: denied %v, reference %v", patterns, p, got, want)
		}
	})
}
