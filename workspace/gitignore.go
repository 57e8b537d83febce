package workspace

import (
	"io"
	"os"
	"strings"
)

// .gitignore files are read with the deny lists' own matcher: the deny
// lists are gitignore syntax already (negation, "dir/", anchoring, "**"),
// parsed and fuzzed once, and git's rule that nothing inside an ignored
// directory comes back holds by itself, as the walk never enters one. It
// matches names regardless of letter case, as deny patterns do: on a
// case-sensitive file system a listing may hide a name git would show,
// never the reverse. .git/info/exclude and the user's global excludes are
// not read: they are not the project's.

// gitignore is one .gitignore file, its patterns relative to its directory.
type gitignore struct {
	base int // how many names the directory's path has (0 at the root)
	m    *matcher
}

// ignored reports whether the .gitignore files in force ignore comps: the
// deepest file with a pattern matching the name itself decides.
func (wk *walker) ignored(comps []string, isDir bool) bool {
	for i := len(wk.ignores) - 1; i >= 0; i-- {
		g := wk.ignores[i]
		if p := g.m.lastMatch(comps[g.base:], isDir); p != nil {
			return !p.negate
		}
	}
	return false
}

// lastMatch returns the last pattern matching comps itself (its
// directories were checked as the walk came down), or nil.
func (m *matcher) lastMatch(comps []string, isDir bool) *pattern {
	if m == nil || len(comps) == 0 {
		return nil
	}
	folded := make([]string, len(comps))
	for i, c := range comps {
		folded[i] = fold(c)
	}
	hits := make([]bool, len(comps))
	var last *pattern
	for k := range m.pats {
		p := &m.pats[k]
		if p.dirOnly && !isDir {
			continue
		}
		p.prefixMatches(comps, folded, hits)
		if hits[len(hits)-1] {
			last = p
		}
	}
	return last
}

// loadGitignore adds d's .gitignore, if it has a readable regular one.
func (wk *walker) loadGitignore(d *os.Root, rel string) {
	m := readGitignore(d)
	if m == nil {
		return
	}
	base := 0
	if rel != "." {
		base = strings.Count(rel, "/") + 1
	}
	wk.ignores = append(wk.ignores, gitignore{base: base, m: m})
}

// gitignoresAbove loads the .gitignore files of the root and the
// directories above rel, opening each below the one before.
func (wk *walker) gitignoresAbove(rel string) error {
	if rel == "." {
		return nil
	}
	cur := wk.w.root
	wk.loadGitignore(cur, ".")
	comps := strings.Split(rel, "/")
	for i := range len(comps) - 1 {
		fi, err := cur.Lstat(comps[i])
		if err != nil || !fi.IsDir() {
			break
		}
		next, ok := openSame(cur, comps[i], fi)
		if cur != wk.w.root {
			_ = cur.Close()
		}
		if !ok {
			return nil
		}
		cur = next
		wk.loadGitignore(cur, strings.Join(comps[:i+1], "/"))
	}
	if cur != wk.w.root {
		_ = cur.Close()
	}
	return nil
}

// readGitignore reads d's .gitignore; a link, a special file or one over
// maxGitignoreBytes is not read.
func readGitignore(d *os.Root) *matcher {
	fi, err := d.Lstat(".gitignore")
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxGitignoreBytes {
		return nil
	}
	f, err := d.OpenFile(".gitignore", os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxGitignoreBytes+1))
	if err != nil || len(data) > maxGitignoreBytes {
		return nil
	}
	m := newMatcher(strings.Split(string(data), "\n"), func(int) string { return ".gitignore" })
	if len(m.pats) == 0 {
		return nil
	}
	return m
}
