package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/text/unicode/norm"
)

// IgnoreFile is the workspace's own deny list, at its root.
const IgnoreFile = ".toolguardignore"

const maxIgnoreFileBytes = 1 << 20

// Deny patterns use gitignore syntax on the cleaned relative path. Letter
// case is ignored and a name is also matched as Windows and macOS may read it
// (no NTFS stream, no code point HFS+ ignores, no trailing dot or space): on
// case-insensitive file systems those are the same file (CVE-2014-9390).
// A path is denied when any of three lists denies it: the built-in one
// (.toolguardignore, so a model cannot rewrite its policy, the temporary
// files, and the workspace's own area MetaDir), the server's (".git", then Options.Deny), .toolguardignore.
var builtinDeny = []string{IgnoreFile, tempPrefix + "*", "/" + MetaDir}

var defaultDeny = []string{".git"}

type pattern struct {
	raw      string // the line as written
	source   string // where it comes from, for messages
	segs     []string
	folded   []string // segs in lower case
	negate   bool
	dirOnly  bool
	anchored bool
}

type matcher struct {
	pats []pattern
}

// parsePattern parses one gitignore line; ok is false for blanks and comments.
func parsePattern(line, source string) (pattern, bool) {
	p := pattern{raw: line, source: source}
	line = strings.TrimSuffix(line, "\r")
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return p, false
	}
	if line[0] == '!' {
		p.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return p, false
	}
	if strings.Contains(line, "/") {
		p.anchored = true
		line = strings.TrimLeft(line, "/")
		if line == "" {
			return p, false
		}
	}
	for s := range strings.SplitSeq(line, "/") {
		if s == "" {
			continue
		}
		if strings.Contains(s, "**") && s != "**" {
			// Asterisks that are not a whole segment are ordinary stars.
			for strings.Contains(s, "**") {
				s = strings.ReplaceAll(s, "**", "*")
			}
		}
		// gitignore's [!...] is path.Match's [^...].
		s = strings.ReplaceAll(s, "[!", "[^")
		p.segs = append(p.segs, s)
	}
	if !p.anchored {
		p.segs = append([]string{"**"}, p.segs...)
	}
	// A trailing "**" matches what is inside: "logs/**" is "logs/*/**".
	p.segs = slices.CompactFunc(p.segs, func(a, b string) bool { return a == "**" && b == "**" })
	if p.segs[len(p.segs)-1] == "**" {
		p.segs = append(p.segs[:len(p.segs)-1], "*", "**")
	}
	p.folded = make([]string, len(p.segs))
	for i, seg := range p.segs {
		p.folded[i] = fold(seg)
	}
	return p, true
}

func fold(s string) string {
	return strings.ToLower(norm.NFC.String(s))
}

// matchName reports whether name matches segment j of p, as written or folded.
func (p *pattern) matchName(j int, name, folded string) bool {
	if ok, err := path.Match(p.segs[j], name); ok && err == nil {
		return true
	}
	if folded == name && p.folded[j] == p.segs[j] {
		return false // the same match again
	}
	ok, err := path.Match(p.folded[j], folded)
	return ok && err == nil
}

// canonicalName returns name as Windows or macOS may take it, or name if that is empty.
func canonicalName(name string) string {
	c := name
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c = c[:i]
	}
	c = strings.Map(func(r rune) rune {
		if hfsIgnored(r) {
			return -1
		}
		return r
	}, c)
	c = strings.TrimRight(c, ". ")
	if c == "" {
		return name
	}
	return c
}

// hfsIgnored reports the code points HFS+ ignores in names (git's list, in utf8.c).
func hfsIgnored(r rune) bool {
	return r >= 0x200c && r <= 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x206a && r <= 0x206f || r == 0xfeff
}

// canonicalPath returns comps with every name canonical, if any changed.
func canonicalPath(comps []string) ([]string, bool) {
	var out []string
	for i, c := range comps {
		if cc := canonicalName(c); cc != c && out == nil {
			out = slices.Clone(comps)
			out[i] = cc
		} else if out != nil {
			out[i] = cc
		}
	}
	return out, out != nil
}

func newMatcher(lines []string, source func(i int) string) *matcher {
	m := &matcher{}
	for i, l := range lines {
		if p, ok := parsePattern(l, source(i)); ok {
			m.pats = append(m.pats, p)
		}
	}
	return m
}

// denied reports the pattern that denies comps, as written or canonical.
func (m *matcher) denied(comps []string) *pattern { return m.deniedAs(comps, false) }

// deniedAs is denied; isDir says the last name is a directory, which
// dir-only patterns ("build/") match too: a listing sees directories.
func (m *matcher) deniedAs(comps []string, isDir bool) *pattern {
	if m == nil || len(m.pats) == 0 || len(comps) == 0 {
		return nil
	}
	if p := m.decide(comps, isDir); p != nil {
		return p
	}
	if alt, ok := canonicalPath(comps); ok {
		return m.decide(alt, isDir)
	}
	return nil
}

// decide reports the last pattern matching comps or one of its directories, if it denies.
func (m *matcher) decide(comps []string, isDir bool) *pattern {
	folded := make([]string, len(comps))
	for i, c := range comps {
		folded[i] = fold(c)
	}
	decision := make([]*pattern, len(comps))
	hits := make([]bool, len(comps))
	for k := range m.pats {
		p := &m.pats[k]
		p.prefixMatches(comps, folded, hits)
		for i, hit := range hits {
			// A dir-only pattern does not match the target, unless a directory.
			if hit && (!p.dirOnly || isDir || i < len(comps)-1) {
				decision[i] = p
			}
		}
	}
	for _, p := range decision {
		if p != nil && !p.negate {
			return p
		}
	}
	return nil
}

// prefixMatches sets hits[i] to whether comps[:i+1] matches p, running p's
// segments as an automaton: O(len(comps) × len(p.segs)) however many "**".
func (p *pattern) prefixMatches(comps, folded []string, hits []bool) {
	segs := p.segs
	n := len(segs)
	cur, next := make([]bool, n+1), make([]bool, n+1)
	cur[0] = true
	closeStars(segs, cur)
	live := true
	for i, c := range comps {
		if !live {
			hits[i] = false
			continue
		}
		clear(next)
		live = false
		for j := range n {
			if !cur[j] {
				continue
			}
			if segs[j] == "**" {
				next[j] = true
				live = true
			} else if p.matchName(j, c, folded[i]) {
				next[j+1] = true
				live = true
			}
		}
		closeStars(segs, next)
		hits[i] = next[n]
		cur, next = next, cur
	}
}

// closeStars adds the states reachable by letting a "**" match no name.
func closeStars(segs []string, states []bool) {
	for j, s := range segs {
		if states[j] && s == "**" {
			states[j+1] = true
		}
	}
}

type policy struct {
	builtin *matcher
	server  *matcher

	mu   sync.Mutex // serialises reloads
	file atomic.Pointer[ignoreState]
}

type ignoreState struct {
	fi fs.FileInfo // nil when the file does not exist
	m  *matcher
}

func newPolicy(deny []string) *policy {
	p := &policy{
		builtin: newMatcher(builtinDeny, func(int) string { return "built in" }),
		server: newMatcher(append(append([]string(nil), defaultDeny...), deny...), func(i int) string {
			if i < len(defaultDeny) {
				return "default"
			}
			return "server deny list"
		}),
	}
	p.file.Store(&ignoreState{})
	return p
}

// denial returns the pattern that denies rel, nil when none does.
func (w *Workspace) denial(rel string) (*pattern, error) {
	if rel == "." {
		return nil, nil
	}
	comps := strings.Split(rel, "/")
	p := w.policy.builtin.denied(comps)
	if p == nil {
		p = w.policy.server.denied(comps)
	}
	if p == nil {
		fm, err := w.ignoreMatcher()
		if err != nil {
			return nil, err
		}
		p = fm.denied(comps)
	}
	return p, nil
}

// checkDeny refuses rel when it is denied.
func (w *Workspace) checkDeny(orig, rel string) error {
	p, err := w.denial(rel)
	if p == nil || err != nil {
		return err
	}
	what := fmt.Sprintf("%q", rel)
	if orig != rel {
		what = fmt.Sprintf("%q (%s)", orig, rel)
	}
	return refuse(CodeDeniedPath, rel, fmt.Sprintf(
		"path %s is denied by the workspace policy (pattern %q, %s); toolguard will not read or change it. Work on another file.",
		what, strings.TrimSpace(p.raw), p.source), nil)
}

// ignoreMatcher returns the matcher of .toolguardignore, re-read when an
// lstat says it changed; one that cannot be read safely fails closed.
func (w *Workspace) ignoreMatcher() (*matcher, error) {
	cur := w.policy.file.Load()
	fi, err := w.root.Lstat(IgnoreFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("workspace: stat %s: %w", IgnoreFile, err)
	}
	if fresh(cur.fi, fi) {
		return cur.m, nil
	}
	w.policy.mu.Lock()
	defer w.policy.mu.Unlock()
	st, err := w.loadIgnore()
	if err != nil {
		return nil, err
	}
	w.policy.file.Store(st)
	return st.m, nil
}

func fresh(old, cur fs.FileInfo) bool {
	if old == nil || cur == nil {
		return old == nil && cur == nil
	}
	return os.SameFile(old, cur) && old.Size() == cur.Size() && old.ModTime().Equal(cur.ModTime()) && old.Mode() == cur.Mode()
}

func (w *Workspace) loadIgnore() (*ignoreState, error) {
	fi, err := w.root.Lstat(IgnoreFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &ignoreState{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("workspace: stat %s: %w", IgnoreFile, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("workspace: %s in %s is not a regular file (%s); refusing to run without its deny patterns", IgnoreFile, w.dir, kindOf(fi.Mode()))
	}
	f, err := w.root.OpenFile(IgnoreFile, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, fmt.Errorf("workspace: open %s: %w", IgnoreFile, err)
	}
	defer func() { _ = f.Close() }()
	ofi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("workspace: stat %s: %w", IgnoreFile, err)
	}
	if !ofi.Mode().IsRegular() || !os.SameFile(fi, ofi) {
		return nil, fmt.Errorf("workspace: %s changed while being read", IgnoreFile)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("workspace: read %s: %w", IgnoreFile, err)
	}
	if len(data) > maxIgnoreFileBytes {
		return nil, fmt.Errorf("workspace: %s is larger than %d bytes", IgnoreFile, maxIgnoreFileBytes)
	}
	lines := strings.Split(string(data), "\n")
	return &ignoreState{fi: ofi, m: newMatcher(lines, func(i int) string {
		return fmt.Sprintf("%s line %d", IgnoreFile, i+1)
	})}, nil
}
