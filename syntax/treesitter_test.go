//go:build cgo

package syntax

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// treeSitterCases are, per tree-sitter language, a clean file, a broken
// one with where its first error is and what it says, and an unrelated
// change to the broken one (the file stays broken, at the same place).
var treeSitterCases = []struct {
	lang, path   string
	clean        string
	broken       string
	line, col    int
	msg          string
	brokenEdited string
}{
	{"python", "m.py",
		"def f(a, b):\n    return (a + b)\n",
		"x = 1\ndef f(:\n    pass\n", 2, 7, "missing `)`",
		"x = 2\ndef f(:\n    pass\n"},
	{"rust", "main.rs",
		"fn main() {\n    let x = (1 + 2);\n    println!(\"{}\", x);\n}\n",
		"fn main() {\n    let x = (1 + 2;\n}\n", 2, 19, "missing `)`",
		"fn main() {\n    let x = (1 + 3;\n}\n"},
	{"java", "A.java",
		"class A {\n  int f() {\n    int x = 1;\n    return x;\n  }\n}\n",
		"class A {\n  void f() {\n    int x = 1\n  }\n}\n", 3, 14, "missing `;`",
		"class A {\n  void g() {\n    int x = 1\n  }\n}\n"},
	{"c", "main.c",
		"#include <stdio.h>\nint main(void) {\n  printf(\"hi\\n\");\n  return 0;\n}\n",
		"int main(void) {\n  return 0\n}\n", 2, 11, "missing `;`",
		"int main(void) {\n  return 1\n}\n"},
	{"cpp", "main.cpp",
		"#include <vector>\nint main() {\n  std::vector<int> v{1, 2};\n  return v.size();\n}\n",
		"int main() {\n  if (x { return 1; }\n}\n", 2, 3, "cannot parse `if (x { return 1; }`",
		"int main(void) {\n  if (x { return 1; }\n}\n"},
	{"csharp", "A.cs",
		"class A {\n  int F() {\n    var x = 1;\n    return x;\n  }\n}\n",
		"class A {\n  void F() {\n    F(1;\n  }\n}\n", 3, 8, "missing `)`",
		"class A {\n  void G() {\n    F(1;\n  }\n}\n"},
	{"ruby", "a.rb",
		"def f(x)\n  if x\n    1\n  end\nend\n",
		"def f(x)\n  if x\n    1\nend\n", 1, 1, "cannot parse `def f(x)…`",
		"def f(x)\n  if x\n    2\nend\n"},
	{"php", "a.php",
		"<html><?php\nfunction f($x) {\n  return $x + 1;\n}\n?></html>\n",
		"<?php\nfunction f($x) {\n  return ($x + 1;\n}\n", 3, 17, "missing `)`",
		"<?php\nfunction f($y) {\n  return ($x + 1;\n}\n"},
	{"shell", "a.sh",
		"#!/bin/sh\nif [ -f x ]; then\n  echo \"$(cat x)\"\nfi\n",
		"if [ -f x ]; then\n  echo hi\n", 3, 1, "missing `fi`",
		"if [ -f y ]; then\n  echo hi\n"},
	{"html", "index.html",
		"<!DOCTYPE html>\n<html><body><p>hi<br></body></html>\n",
		"<p>a</p>\n<p>b</p c>\n", 2, 9, "unexpected `c`",
		"<p>A</p>\n<p>b</p c>\n"},
}

func TestTreeSitterLanguages(t *testing.T) {
	ctx := context.Background()
	for _, tc := range treeSitterCases {
		t.Run(tc.lang, func(t *testing.T) {
			r := Check(ctx, tc.path, []byte(tc.clean), DefaultLimits)
			if !r.Checked || r.Lang != tc.lang || len(r.Errors) != 0 {
				t.Errorf("clean file: %+v, want %s checked without errors", r, tc.lang)
			}
			for _, src := range []string{tc.broken, tc.brokenEdited} {
				r = Check(ctx, tc.path, []byte(src), DefaultLimits)
				if !r.Checked || len(r.Errors) == 0 {
					t.Fatalf("broken file %q: %+v, want an error", src, r)
				}
				if e := r.Errors[0]; e.Line != tc.line || e.Column != tc.col || e.Message != tc.msg {
					t.Errorf("broken file %q: first error %+v, want %d:%d %q", src, e, tc.line, tc.col, tc.msg)
				}
			}
		})
	}
}

func TestTreeSitterShebang(t *testing.T) {
	tests := []struct{ src, lang string }{
		{"#!/usr/bin/env python3\nprint(1)\n", "python"},
		{"#!/usr/bin/python\nprint(1)\n", "python"},
		{"#!/bin/bash -e\necho hi\n", "shell"},
		{"#!/bin/sh\necho hi\n", "shell"},
		{"#!/usr/bin/env ruby\nputs 1\n", "ruby"},
		{"#!/usr/bin/env php\n<?php echo 1;\n", "php"},
		{"#!/bin/zsh\necho hi\n", ""}, // zsh is not bash
	}
	for _, tc := range tests {
		r := Check(context.Background(), "bin/tool", []byte(tc.src), DefaultLimits)
		if r.Lang != tc.lang || r.Checked != (tc.lang != "") || len(r.Errors) != 0 {
			t.Errorf("%q: %+v, want %q checked without errors", tc.src, r, tc.lang)
		}
	}
	r := Check(context.Background(), "bin/tool", []byte("#!/usr/bin/env python3\ndef f(:\n"), DefaultLimits)
	if len(r.Errors) == 0 || r.Errors[0].Line != 2 {
		t.Errorf("a broken script named by its shebang: %+v, want an error on line 2", r)
	}
}

// TestTreeSitterGrammars holds the table of languages and the grammars
// together: each language has its grammar, and this build checks it.
func TestTreeSitterGrammars(t *testing.T) {
	if len(treeSitterGrammars) != len(treeSitterLanguages) {
		t.Errorf("%d grammars for %d languages", len(treeSitterGrammars), len(treeSitterLanguages))
	}
	infos := Languages()
	for _, l := range treeSitterLanguages {
		if _, ok := treeSitterGrammars[l.name]; !ok {
			t.Errorf("%s: no grammar in treeSitterGrammars", l.name)
		}
		i := slices.IndexFunc(infos, func(i LanguageInfo) bool { return i.Name == l.name })
		if i < 0 || !infos[i].Checked {
			t.Errorf("%s: not a checked language in %+v", l.name, infos)
		}
	}
}

// TestTreeSitterLarge crosses the parser's read chunks, with multi-byte
// characters astride their boundaries, and bounds the errors reported.
func TestTreeSitterLarge(t *testing.T) {
	var b strings.Builder
	for i := 0; b.Len() < 100*readChunk; i++ {
		b.WriteString("def f(x):\n    return \"héllo wörld ✓ 🙂\" + x\n")
	}
	clean := b.String()
	if r := Check(context.Background(), "big.py", []byte(clean), DefaultLimits); !r.Checked || len(r.Errors) != 0 {
		t.Fatalf("large clean file: %+v", r)
	}
	// Every other function broken: each its own error, and more than a
	// check reports.
	b.Reset()
	for i := range 100 {
		b.WriteString([]string{"def f(x):\n    return 1\n", "def f(x:\n    return 1\n"}[i%2])
	}
	broken := b.String()
	r := Check(context.Background(), "big.py", []byte(broken), DefaultLimits)
	if !r.Checked || len(r.Errors) != MaxErrors {
		t.Errorf("every other function broken: checked %v, %d errors, want %d", r.Checked, len(r.Errors), MaxErrors)
	}
}

// TestTreeSitterCancelled: a check whose context is done stops, says
// why, and leaves the parser fit for the next check.
func TestTreeSitterCancelled(t *testing.T) {
	src := []byte(strings.Repeat("x = [1, 2, 3]\n", 2000))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := Check(ctx, "a.py", src, DefaultLimits)
	if r.Checked || !strings.Contains(r.Reason, "longer than its bound") {
		t.Errorf("cancelled: %+v, want not checked, over its bound", r)
	}
	broken := append(slices.Clone(src), "def f(:\n"...)
	r = Check(context.Background(), "a.py", broken, DefaultLimits)
	if !r.Checked || len(r.Errors) != 1 || r.Errors[0].Line != 2001 {
		t.Errorf("after a cancelled check: %+v, want one error on line 2001", r)
	}
}
