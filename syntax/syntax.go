// Package syntax checks a file's syntax in its language, so that a change
// that breaks the code is known when it is made: the guard checks the file
// before and after a write or an edit and reports the errors the change
// added. It is a pure library: it reads no file and imports no front end.
//
// Each language registers itself once (register, in the file of its
// parser): its name, the extensions and shebang interpreters that name it,
// the memory its check takes per byte of the file, and its checker.
// Detect, Check, Cost and the list of languages derive from that
// registration, so adding a language touches one file.
package syntax

import (
	"bytes"
	"context"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
)

// Error is one syntax error: 1-based line and column (in bytes), and the
// parser's message.
type Error struct {
	Line    int
	Column  int
	Message string
}

// Result is a check's outcome. Checked is false when the file was not
// checked (Reason says why: no parser for its language, too large, too
// slow, built without cgo); that is never a failure.
type Result struct {
	Lang    string
	Checked bool
	Reason  string
	Errors  []Error
}

// Limits bound one check: a file larger than MaxBytes, or a parse longer
// than Timeout, is not checked.
type Limits struct {
	MaxBytes int
	Timeout  time.Duration
}

// DefaultLimits are the bounds the guard uses unless configured.
var DefaultLimits = Limits{MaxBytes: 4 << 20, Timeout: 2 * time.Second}

// Checker parses src and returns its syntax errors, at most max of them;
// ctx carries the check's deadline. An error is the checker's own failure
// (the file is then not checked), never a syntax error.
type Checker func(ctx context.Context, src []byte, max int) ([]Error, error)

// MaxErrors bounds the errors a check returns.
const MaxErrors = 20

type language struct {
	name       string
	extensions []string // with the dot, lower case: ".py"
	shebangs   []string // interpreter names: "python3", "bash"
	// memory is the bytes a check holds at its peak per byte of the file,
	// measured (docs/limits.md#memory-of-syntax-checks) with a margin.
	memory int
	check  Checker
	// unavailable, when set, is why this build cannot check the language
	// (a tree-sitter grammar in a build without cgo).
	unavailable string
}

var (
	mu        sync.RWMutex
	languages = map[string]*language{}
)

// register adds a language; a second registration of a name replaces the
// first (a cgo build's tree-sitter checker over the no-cgo placeholder).
func register(name string, extensions, shebangs []string, memory int, check Checker) {
	mu.Lock()
	defer mu.Unlock()
	languages[name] = &language{name: name, extensions: extensions, shebangs: shebangs, memory: memory, check: check}
}

// registerUnavailable adds a language this build cannot check, saying why,
// unless a checker registered it already.
//
//nolint:unused // the tree-sitter languages' build without cgo registers them so
func registerUnavailable(name string, extensions, shebangs []string, why string) {
	mu.Lock()
	defer mu.Unlock()
	if l, ok := languages[name]; ok && l.check != nil {
		return
	}
	languages[name] = &language{name: name, extensions: extensions, shebangs: shebangs, unavailable: why}
}

// Languages lists the registered languages, sorted, with whether this
// build checks each.
func Languages() []LanguageInfo {
	mu.RLock()
	defer mu.RUnlock()
	var out []LanguageInfo
	for _, l := range languages {
		out = append(out, LanguageInfo{Name: l.name, Extensions: slices.Clone(l.extensions), Checked: l.check != nil,
			Unavailable: l.unavailable, MemoryFactor: l.memory})
	}
	slices.SortFunc(out, func(a, b LanguageInfo) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LanguageInfo describes a registered language.
type LanguageInfo struct {
	Name        string
	Extensions  []string
	Checked     bool
	Unavailable string
	// MemoryFactor is the bytes a check holds at its peak per byte of the
	// file (0 when this build does not check the language).
	MemoryFactor int
}

// Cost is the memory a check of size bytes in lang holds at its peak, by
// the language's registered factor: what a caller bounding the memory of
// its checks (Budget) reserves. 0 for a language this build does not check.
func Cost(lang string, size int) int64 {
	mu.RLock()
	defer mu.RUnlock()
	l, ok := languages[lang]
	if !ok || l.check == nil {
		return 0
	}
	return int64(l.memory) * int64(size)
}

// Detect names the language of a file from its extension, or, for a file
// without a known one, from its shebang line.
func Detect(p string, src []byte) (string, bool) {
	mu.RLock()
	defer mu.RUnlock()
	ext := strings.ToLower(path.Ext(p))
	for _, l := range languages {
		if ext != "" && slices.Contains(l.extensions, ext) {
			return l.name, true
		}
	}
	interp := shebang(src)
	if interp == "" {
		return "", false
	}
	for _, l := range languages {
		if slices.Contains(l.shebangs, interp) {
			return l.name, true
		}
	}
	return "", false
}

// shebang returns the interpreter a "#!" first line names ("python3" for
// "#!/usr/bin/env python3", "bash" for "#!/bin/bash -e"), without a version
// suffix beyond the name's own digits.
func shebang(src []byte) string {
	if !bytes.HasPrefix(src, []byte("#!")) {
		return ""
	}
	line, _, _ := bytes.Cut(src[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return ""
	}
	interp := path.Base(fields[0])
	if interp == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				return path.Base(f)
			}
		}
		return ""
	}
	return interp
}

// Check checks src, the content of the file at path p, in the language
// Detect gives it, within lim.
func Check(ctx context.Context, p string, src []byte, lim Limits) Result {
	lang, ok := Detect(p, src)
	if !ok {
		return Result{Reason: "no syntax check for this kind of file"}
	}
	mu.RLock()
	l := languages[lang]
	mu.RUnlock()
	r := Result{Lang: lang}
	switch {
	case l.check == nil:
		r.Reason = l.unavailable
		return r
	case lim.MaxBytes > 0 && len(src) > lim.MaxBytes:
		r.Reason = "the file is larger than the syntax check's bound"
		return r
	}
	if lim.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.Timeout)
		defer cancel()
	}
	errs, err := l.check(ctx, src, MaxErrors)
	if err != nil {
		r.Reason = "the parser failed: " + err.Error()
		if ctx.Err() != nil {
			r.Reason = "the syntax check took longer than its bound"
		}
		return r
	}
	r.Checked, r.Errors = true, errs
	return r
}
