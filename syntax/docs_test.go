package syntax

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestDocsLanguages holds docs/syntax-check.md's table of languages to the
// registry: every row names a registered language, and every language this
// file's parsers register (pure Go) has its row.
func TestDocsLanguages(t *testing.T) {
	doc, err := os.ReadFile("../docs/syntax-check.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?s)## Languages and parsers\n(.*?)\n## ").FindSubmatch(doc)
	if section == nil {
		t.Fatal("docs/syntax-check.md has no section Languages and parsers")
	}
	rows := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z+#]+)` \\|").FindAllSubmatch(section[1], -1) {
		rows[string(m[1])] = true
	}
	registered := map[string]bool{}
	for _, l := range Languages() {
		registered[l.Name] = true
	}
	for name := range rows {
		if !registered[name] {
			t.Errorf("docs/syntax-check.md lists %q, which is not registered", name)
		}
	}
	for _, name := range []string{"go", "javascript", "jsx", "typescript", "tsx", "css", "json", "yaml", "toml"} {
		if !rows[name] || !registered[name] {
			t.Errorf("%s: documented %v, registered %v", name, rows[name], registered[name])
		}
	}
}

// TestDocsMemoryFactors holds docs/limits.md's table of memory factors to
// the registry: one row per language, its last column the factor the
// language registers.
func TestDocsMemoryFactors(t *testing.T) {
	doc, err := os.ReadFile("../docs/limits.md")
	if err != nil {
		t.Fatal(err)
	}
	section := regexp.MustCompile("(?s)### The factors\n(.*?)(\n## |$)").FindSubmatch(doc)
	if section == nil {
		t.Fatal("docs/limits.md has no section The factors")
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z+#]+)` \\|.*\\| ([0-9]+) \\|$").FindAllSubmatch(section[1], -1) {
		rows[string(m[1])] = string(m[2])
	}
	registered := map[string]int{}
	for _, l := range treeSitterLanguages { // registered without a factor in a build without cgo
		registered[l.name] = l.memory
	}
	for _, l := range Languages() {
		if l.Checked {
			registered[l.Name] = l.MemoryFactor
		}
	}
	for name, factor := range registered {
		if rows[name] != strconv.Itoa(factor) {
			t.Errorf("%s: registered factor %d, docs/limits.md %q", name, factor, rows[name])
		}
	}
	for name := range rows {
		if _, ok := registered[name]; !ok {
			t.Errorf("docs/limits.md has a factor for %q, which is not registered", name)
		}
	}
}
