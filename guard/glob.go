package guard

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Glob patterns of find_files and of the exclude lists are read by
// github.com/bmatcuk/doublestar: "**" across folders, "{a,b}", classes,
// escapes, with "/" as the only separator whatever the platform. A pattern
// without "/" matches a name at any depth, as find -name and gitignore do,
// which is what a model asking for "*.go" means; one with "/" matches the
// path below the folder searched. A pattern ending in "/" matches folders only.

const (
	// maxGlobBytes and maxGlobAlternations bound a pattern: matching with
	// nested "{...}" backtracks.
	maxGlobBytes        = 1024
	maxGlobAlternations = 16
	// maxGlobs bounds an exclude list.
	maxGlobs = 64
)

type glob struct {
	raw     string
	pat     string
	byName  bool // no "/": matched against the name
	dirOnly bool
}

// globSet is a list of patterns; it matches what any of them matches.
type globSet []glob

// compileGlob checks a pattern and says, for the model, what is wrong with
// it; msg is "" when it is usable.
func compileGlob(param, raw string) (g glob, msg string) {
	switch {
	case strings.TrimSpace(raw) == "":
		return g, fmt.Sprintf("%s is empty; give a glob pattern such as \"*.go\" or \"src/**/*_test.go\"", param)
	case len(raw) > maxGlobBytes:
		return g, fmt.Sprintf("%s is %d bytes long; glob patterns are limited to %d bytes", param, len(raw), maxGlobBytes)
	case strings.Count(raw, "{") > maxGlobAlternations:
		return g, fmt.Sprintf("%s has more than %d \"{\" alternations; split it into simpler patterns", param, maxGlobAlternations)
	case strings.ContainsRune(raw, 0):
		return g, fmt.Sprintf("%s contains a NUL byte", param)
	}
	p := strings.TrimPrefix(raw, "./")
	for strings.HasPrefix(p, "./") {
		p = strings.TrimPrefix(p, "./")
	}
	if strings.HasSuffix(p, "/") {
		g.dirOnly = true
		p = strings.TrimRight(p, "/")
	}
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return g, fmt.Sprintf("%s %q names no file; give a glob pattern such as \"*.go\"", param, raw)
	}
	if !doublestar.ValidatePattern(p) {
		return g, fmt.Sprintf("%s %q is not a valid glob pattern (an unclosed \"[\" or \"{\", or a trailing \"\\\"); "+
			"use * for any name, ** for any folders, ? for one character, [abc] and {a,b} for choices", param, raw)
	}
	g.raw, g.pat, g.byName = raw, p, !strings.Contains(p, "/")
	return g, ""
}

// compileGlobs compiles an exclude list; msg says what is wrong with it.
func compileGlobs(param string, raws []string) (globSet, string) {
	if len(raws) > maxGlobs {
		return nil, fmt.Sprintf("%s has %d patterns; give at most %d", param, len(raws), maxGlobs)
	}
	out := make(globSet, 0, len(raws))
	for i, r := range raws {
		g, msg := compileGlob(fmt.Sprintf("%s[%d]", param, i), r)
		if msg != "" {
			return nil, msg
		}
		out = append(out, g)
	}
	return out, ""
}

// match reports whether g matches an entry at rel (below the folder
// searched), named name.
func (g glob) match(rel, name string, isDir bool) bool {
	if g.dirOnly && !isDir {
		return false
	}
	if g.byName {
		return doublestar.MatchUnvalidated(g.pat, name)
	}
	return doublestar.MatchUnvalidated(g.pat, rel)
}

func (s globSet) match(rel, name string, isDir bool) bool {
	for _, g := range s {
		if g.match(rel, name, isDir) {
			return true
		}
	}
	return false
}

// below returns p relative to the folder dir ("." the root).
func below(dir, p string) string {
	if dir == "." {
		return p
	}
	return strings.TrimPrefix(p, dir+"/")
}
