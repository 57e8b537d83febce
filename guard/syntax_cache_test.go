package guard

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/syntax"
)

// TestSyntaxCacheBounds: the cache keeps at most its entries and its
// bytes, dropping the least recently used first.
func TestSyntaxCacheBounds(t *testing.T) {
	key := func(i int) syntaxKey { return syntaxKey{lang: "go", sum: sha256.Sum256([]byte(fmt.Sprint(i)))} }
	c := newSyntaxCache(3, 1<<20)
	for i := range 4 {
		c.put(key(i), syntax.Result{Lang: "go", Checked: true})
		if i == 2 {
			c.get(key(0)) // 0 used: 1 is now the oldest
		}
	}
	if _, ok := c.get(key(1)); ok || c.size() != 3 {
		t.Fatalf("the least recently used was kept, or %d entries", c.size())
	}
	for _, i := range []int{0, 2, 3} {
		if _, ok := c.get(key(i)); !ok {
			t.Errorf("entry %d dropped", i)
		}
	}
	big := syntax.Result{Lang: "go", Checked: true, Errors: []syntax.Error{{Line: 1, Message: string(make([]byte, 400))}}}
	c = newSyntaxCache(100, 1000)
	for i := range 5 {
		c.put(key(i), big)
	}
	if c.size() != 2 || c.bytes > 1000 {
		t.Fatalf("%d entries, %d bytes kept, want 2 within 1000", c.size(), c.bytes)
	}
	c.put(key(9), syntax.Result{Errors: []syntax.Error{{Message: string(make([]byte, 2000))}}})
	if _, ok := c.get(key(9)); ok {
		t.Fatal("a result larger than the bound was kept")
	}
	r, _ := c.get(key(4))
	r.Errors[0].Line = 99
	if r2, _ := c.get(key(4)); r2.Errors[0].Line != 1 {
		t.Fatal("a caller changed the kept result")
	}
}

// TestSyntaxCacheParses: a file's content is parsed once while it is
// remembered: the gate's check of a guess and the check of the change it
// made share both parses, a retried edit parses nothing, and the next
// edit parses only its own result.
func TestSyntaxCacheParses(t *testing.T) {
	g, dir := newWorkspaceGuard(t)
	if err := os.WriteFile(filepath.Join(dir, "a.go"), []byte(goGateFile), 0o644); err != nil {
		t.Fatal(err)
	}
	fuzzy := map[string]any{"path": "a.go", "old_text": goGateOld, "new_text": "\talpha = beta*2 + alpha/3 // the first step\n\tbeta = alpha*6 - beta/7\n"}
	steps := []struct {
		name   string
		args   map[string]any
		dryRun bool
		parses int // parses, all told
	}{
		{"a fuzzy edit: before and after, gate and check alike", fuzzy, true, 2},
		{"the same edit again", fuzzy, false, 2},
		{"the next edit: its before was the last after", map[string]any{"path": "a.go", "old_text": "return alpha + beta", "new_text": "return alpha - beta"}, false, 3},
	}
	for _, s := range steps {
		ex := runSyntaxCall(t, g, "edit", s.args, s.dryRun)
		if !ex.OK() || len(ex.Syntax) != 1 || ex.Syntax[0].Outcome != SyntaxClean {
			t.Fatalf("%s: %+v %+v", s.name, ex.Violations, ex.Syntax)
		}
		if int(g.syntaxCache.parses.Load()) != s.parses {
			t.Fatalf("%s: %d parses, want %d", s.name, g.syntaxCache.parses.Load(), s.parses)
		}
	}
}
