// Package docs holds the user documentation; its test keeps the links
// between the repository's Markdown files working.
package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines keeps the README an introduction: the reference lives in
// docs/ pages it links to.
const readmeMaxLines = 300

var (
	linkRE       = regexp.MustCompile(`\[[^\]]*\]\(([^)\s]+)\)`)
	inlineCodeRE = regexp.MustCompile("`[^`]*`")
	headingRE    = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	mdLinkRE     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// page is what the checks need of one Markdown file: its links outside code,
// and the anchors GitHub gives its headings.
type page struct {
	links   []link
	anchors map[string]bool
}

type link struct {
	line   int
	target string
}

// readPage splits a Markdown file into links and heading anchors, skipping
// fenced code blocks and inline code, where brackets are not links.
func readPage(t *testing.T, path string) page {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer func() { _ = f.Close() }()
	p := page{anchors: map[string]bool{}}
	seen := map[string]int{}
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			fence = trimmed[:3]
			continue
		}
		if m := headingRE.FindStringSubmatch(line); m != nil {
			slug := slugify(m[1])
			if k := seen[slug]; k > 0 {
				p.anchors[slug+"-"+strconv.Itoa(k)] = true
			} else {
				p.anchors[slug] = true
			}
			seen[slug]++
		}
		for _, m := range linkRE.FindAllStringSubmatch(inlineCodeRE.ReplaceAllString(line, ""), -1) {
			p.links = append(p.links, link{line: n, target: m[1]})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return p
}

// slugify is GitHub's heading anchor: the heading's text without markup,
// lower case, punctuation dropped, spaces turned into hyphens.
func slugify(heading string) string {
	heading = mdLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// markdownFiles lists the repository's Markdown files, by path from root,
// leaving out dependencies and generated code.
func markdownFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "dist", "bin", "tmp", "_gen", "gen":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return files
}

// TestLinks checks every relative link of every Markdown file: the file or
// folder it names exists, and an anchor names a heading of the page.
func TestLinks(t *testing.T) {
	root := ".."
	pages := map[string]page{}
	for _, f := range markdownFiles(t, root) {
		pages[f] = readPage(t, filepath.Join(root, f))
	}
	for from, p := range pages {
		for _, l := range p.links {
			target, ok := localTarget(from, l.target)
			if !ok {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			if path == "" {
				path = from
			}
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				t.Errorf("%s:%d: link %q: %s does not exist", from, l.line, l.target, path)
				continue
			}
			if anchor == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if to, ok := pages[path]; ok && !to.anchors[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading with the anchor #%s", from, l.line, l.target, path, anchor)
			}
		}
	}
}

// localTarget resolves a link to a path from the repository's root; ok is
// false for links that leave the repository (URLs, mail).
func localTarget(from, target string) (string, bool) {
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return "", false
	}
	path, anchor, hasAnchor := strings.Cut(target, "#")
	if path != "" {
		path = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(from), path)))
	}
	if hasAnchor {
		return path + "#" + anchor, true
	}
	return path, true
}

// TestEveryPageReachable checks that every page of docs/ can be reached by
// following links from README.md, so no page is left out of its
// Documentation list.
func TestEveryPageReachable(t *testing.T) {
	root := ".."
	seen := map[string]bool{"README.md": true}
	queue := []string{"README.md"}
	for len(queue) > 0 {
		from := queue[0]
		queue = queue[1:]
		for _, l := range readPage(t, filepath.Join(root, from)).links {
			target, ok := localTarget(from, l.target)
			path, _, _ := strings.Cut(target, "#")
			if !ok || !strings.HasSuffix(path, ".md") || seen[path] {
				continue
			}
			if _, err := os.Stat(filepath.Join(root, path)); err != nil {
				continue // TestLinks reports it
			}
			seen[path] = true
			queue = append(queue, path)
		}
	}
	pagesInDocs, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(pagesInDocs)
	for _, f := range pagesInDocs {
		if !seen["docs/"+f] {
			t.Errorf("docs/%s is not reachable from README.md: add it to the README's Documentation list", f)
		}
	}
}

// TestReadmeLength keeps the README short enough to read first.
func TestReadmeLength(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail to a docs/ page and link it", n, readmeMaxLines)
	}
}
