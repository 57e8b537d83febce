package edit

import (
	"flag"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

type ladderCase struct {
	name     string
	content  string
	edit     Edit
	opts     MatchOptions
	want     string // expected content; for failures, the content itself
	status   Status
	strategy Strategy
	line     int
	col      int
	matches  []int
	hint     []string // substrings the hint must contain
}

var ladderCases = []ladderCase{
	// EXACT
	{name: "exact substring", content: "x := foo(1)\ny := 2\n",
		edit: Edit{OldText: "foo(1)", NewText: "bar(2)"},
		want: "x := bar(2)\ny := 2\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 6},
	{name: "exact lines", content: "a\nb\nc\nd\n",
		edit: Edit{OldText: "b\nc\n", NewText: "B\nC\nC2\n"},
		want: "a\nB\nC\nC2\nd\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "exact column counts characters", content: "héllo wörld\n",
		edit: Edit{OldText: "wörld", NewText: "world"},
		want: "héllo world\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 7},
	{name: "replacement is literal", content: "name = old\n",
		edit: Edit{OldText: "old", NewText: "$1 $& ${x} \\1 $$"},
		want: "name = $1 $& ${x} \\1 $$\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 8},
	{name: "delete lines", content: "a\nb\nc\n",
		edit: Edit{OldText: "b\n", NewText: ""},
		want: "a\nc\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "old present and new elsewhere: applied", content: "x = 1\ny = 2\n",
		edit: Edit{OldText: "x = 1\n", NewText: "y = 2\n"},
		want: "y = 2\ny = 2\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},

	// Line endings, BOM, final newline
	{name: "CRLF file, LF edit", content: "a\r\nb\r\nc\r\n",
		edit: Edit{OldText: "b\nc\n", NewText: "X\nY\nZ\n"},
		want: "a\r\nX\r\nY\r\nZ\r\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "CRLF file, CRLF edit", content: "a\r\nb\r\nc\r\n",
		edit: Edit{OldText: "b\r\n", NewText: "B\r\nB2\r\n"},
		want: "a\r\nB\r\nB2\r\nc\r\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "LF file, CRLF edit", content: "a\nb\nc\n",
		edit: Edit{OldText: "a\r\nb\r\n", NewText: "1\r\n2\r\n"},
		want: "1\n2\nc\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "mixed endings: LF region stays LF", content: "a\r\nb\nc\nd\r\n",
		edit: Edit{OldText: "b\nc\n", NewText: "B\nC\n"},
		want: "a\r\nB\nC\nd\r\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "mixed endings: CRLF line keeps CRLF", content: "a\nb\r\nc\n",
		edit: Edit{OldText: "b", NewText: "B\nB2"},
		want: "a\nB\r\nB2\r\nc\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "BOM kept", content: "\uFEFFa\nb\n",
		edit: Edit{OldText: "a\n", NewText: "x\n"},
		want: "\uFEFFx\nb\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "BOM and CRLF", content: "\uFEFFa\r\nb\r\n",
		edit: Edit{OldText: "b\n", NewText: "c\nd\n"},
		want: "\uFEFFa\r\nc\r\nd\r\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "no final newline: old's newline matches EOF", content: "a\nb",
		edit: Edit{OldText: "b\n", NewText: "c\n"},
		want: "a\nc", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "no final newline kept when new text adds one", content: "a\nb",
		edit: Edit{OldText: "b", NewText: "c\nd\n"},
		want: "a\nc\nd", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "final newline kept", content: "a\nb\n",
		edit: Edit{OldText: "b\n", NewText: "c"},
		want: "a\nc\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "delete last line keeps final newline", content: "a\nb\n",
		edit: Edit{OldText: "\nb\n", NewText: ""},
		want: "a\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 2},

	// TRIM_END
	{name: "trim end", content: "func f() {  \n\treturn 1\t\n}\n",
		edit: Edit{OldText: "func f() {\n\treturn 1\n}\n", NewText: "func f() {\n\treturn 2\n}\n"},
		want: "func f() {\n\treturn 2\n}\n", status: StatusApplied, strategy: StrategyTrimEnd, line: 1, col: 1},
	{name: "trim end, CRLF, no final newline", content: "a\r\nb  \r\nc  ",
		edit: Edit{OldText: "b\nc\n", NewText: "B\nC\n"},
		want: "a\r\nB\r\nC", status: StatusApplied, strategy: StrategyTrimEnd, line: 2, col: 1},

	// TRIM and INDENT
	{name: "exact match may start after the indentation", content: "class A:\n    def f(self):\n        return 1\n",
		edit: Edit{OldText: "def f(self):\n        return 1\n", NewText: "def f(self):\n        return 2\n"},
		want: "class A:\n    def f(self):\n        return 2\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 5},
	{name: "trim: non-uniform indentation mapped line by line", content: "def g():\n    if a:\n        b()\n    c()\n",
		edit: Edit{OldText: "if a:\n      b()\n  c()\n", NewText: "if a:\n      b(1)\n  c()\n"},
		want: "def g():\n    if a:\n        b(1)\n    c()\n", status: StatusApplied, strategy: StrategyTrim, line: 2, col: 1},
	{name: "indent: model dropped 4 spaces", content: "class A:\n    def f(self):\n        if x:\n            return 1\n        return 0\n",
		edit:   Edit{OldText: "def f(self):\n    if x:\n        return 1\n", NewText: "def f(self):\n    if x and y:\n        log()\n        return 1\n"},
		want:   "class A:\n    def f(self):\n        if x and y:\n            log()\n            return 1\n        return 0\n",
		status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "indent: tab file, space old text", content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		edit: Edit{OldText: "    if x {\n        return 1\n    }\n", NewText: "    if y {\n        return 2\n        // done\n    }\n"},
		want: "func f() {\n\tif y {\n\t\treturn 2\n\t\t// done\n\t}\n}\n", status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "indent: 2-space file, 4-space old text", content: "root:\n  b:\n    c: 1\n  d: 2\n",
		edit: Edit{OldText: "    b:\n        c: 1\n", NewText: "    b:\n        c: 1\n        e:\n            f: 3\n"},
		want: "root:\n  b:\n    c: 1\n    e:\n      f: 3\n  d: 2\n", status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "indent: new line outdented past the block", content: "def f():\n  x = 1\n",
		edit: Edit{OldText: "        x = 1\n", NewText: "        x = 1\n    y = 2\n        z = 3\n"},
		want: "def f():\n  x = 1\ny = 2\n  z = 3\n", status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "indent: one line, spaces for tabs", content: "func f() {\n\t\tx := 1\n}\n",
		edit: Edit{OldText: "    x := 1\n", NewText: "    x := 2\n    y := 3\n"},
		want: "func f() {\n\t\tx := 2\n\t\ty := 3\n}\n", status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},

	// UNICODE
	{name: "unicode: file has curly quotes", content: "msg := \"it’s “quoted” — ok…\"\nother := ‘x’\n",
		edit: Edit{OldText: "\"it's \"quoted\" - ok...\"", NewText: "\"fine\""},
		want: "msg := \"fine\"\nother := ‘x’\n", status: StatusApplied, strategy: StrategyUnicode, line: 1, col: 8},
	{name: "unicode: old text has curly quotes", content: "say(\"don't\")\n",
		edit: Edit{OldText: "say(“don’t”)", NewText: "say(“do”)"},
		want: "say(“do”)\n", status: StatusApplied, strategy: StrategyUnicode, line: 1, col: 1},
	{name: "unicode: NBSP and en dash", content: "a\u00A0=\u00A01 \u2013 2\nz\n",
		edit: Edit{OldText: "a = 1 - 2", NewText: "a = 3"},
		want: "a = 3\nz\n", status: StatusApplied, strategy: StrategyUnicode, line: 1, col: 1},
	{name: "unicode: surrounding text keeps its characters", content: "“a” x’s “b”\n",
		edit: Edit{OldText: "x's", NewText: "y"},
		want: "“a” y “b”\n", status: StatusApplied, strategy: StrategyUnicode, line: 1, col: 5},
	{name: "unicode lines with indentation", content: "def f():\n    s = “a”\n    return s\n",
		edit: Edit{OldText: "s = \"a\"\nreturn s\n", NewText: "s = \"b\"\nreturn s\n"},
		want: "def f():\n    s = \"b\"\n    return s\n", status: StatusApplied, strategy: StrategyUnicode, line: 2, col: 1},

	// BLOCK_ANCHOR and FUZZY
	{name: "block anchor", content: "func a() {\n\tx := load()\n\ty := x.Value * 2\n\tsave(y)\n}\n",
		edit: Edit{OldText: "func a() {\n\tx := load()\n\ty := x.Val * 3\n\tsave(y)\n}\n", NewText: "func a() {\n\tsave(load().Value * 2)\n}\n"},
		want: "func a() {\n\tsave(load().Value * 2)\n}\n", status: StatusApplied, strategy: StrategyBlockAnchor, line: 1, col: 1},
	{name: "fuzzy", content: "head\nfunc compute(values []int) int {\n\ttotal := 0\n\tfor _, v := range values {\n\t\ttotal += v\n\t}\n\treturn total\n}\ntail\n",
		edit: Edit{OldText: "func compute(vals []int) int {\n\ttotal := 0\n\tfor _, v := range values {\n\t\ttotal += v\n\t}\n\treturn total\n", NewText: "func compute(values []int) (total int) {\n\tfor _, v := range values {\n\t\ttotal += v\n\t}\n\treturn\n"},
		want: "head\nfunc compute(values []int) (total int) {\n\tfor _, v := range values {\n\t\ttotal += v\n\t}\n\treturn\n}\ntail\n", status: StatusApplied, strategy: StrategyFuzzy, line: 2, col: 1},
	{name: "fuzzy re-indents", content: "class A:\n    def run(self, items):\n        for item in items:\n            self.handle(item)\n        return len(items)\n",
		edit: Edit{OldText: "def run(self, item_list):\n    for item in items:\n        self.handle(item)\n", NewText: "def run(self, items):\n    for item in items:\n        self.handle(item, True)\n"},
		want: "class A:\n    def run(self, items):\n        for item in items:\n            self.handle(item, True)\n        return len(items)\n", status: StatusApplied, strategy: StrategyFuzzy, line: 2, col: 1},
	{name: "one line is never a fuzzy match: another version is another line", content: "__version__ = \"2.5.0\"\nname = \"x\"\n",
		edit: Edit{OldText: "__version__ = \"2.6.0\"", NewText: "__version__ = \"2.6.1\""},
		want: "__version__ = \"2.5.0\"\nname = \"x\"\n", status: StatusNotFound, hint: []string{"closest region: lines 1-1", "   1 | __version__ = \"2.5.0\""}},
	{name: "one line already applied is found exactly", content: "__version__ = \"2.6.1\"\nname = \"x\"\n",
		edit: Edit{OldText: "__version__ = \"2.6.0\"", NewText: "__version__ = \"2.6.1\""},
		want: "__version__ = \"2.6.1\"\nname = \"x\"\n", status: StatusAlreadyApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "fuzzy threshold respected", content: "alpha()\nbeta()\ngamma()\n",
		edit: Edit{OldText: "alpha()\nbeta2()\n", NewText: "x\n"}, opts: MatchOptions{FuzzyThreshold: 0.99},
		want: "alpha()\nbeta()\ngamma()\n", status: StatusNotFound, hint: []string{"closest region: lines 1-2", "   1 | alpha()", "   2 | beta()"}},
	{name: "fuzzy ambiguous even with replace all", content: "compute(alpha, beta)\nrender(gamma)\n---\ncompute(alpha, beta)\nrender(gamma)\n",
		edit: Edit{OldText: "compute(alpha, betas)\nrender(gamma)\n", NewText: "x\n", ReplaceAll: true},
		want: "compute(alpha, beta)\nrender(gamma)\n---\ncompute(alpha, beta)\nrender(gamma)\n", status: StatusAmbiguous, strategy: StrategyFuzzy, matches: []int{1, 4}},

	// Outcomes
	{name: "ambiguous lists lines", content: "a\nfoo()\nb\nfoo()\nc\nfoo()\n",
		edit: Edit{OldText: "foo()", NewText: "bar()"},
		want: "a\nfoo()\nb\nfoo()\nc\nfoo()\n", status: StatusAmbiguous, strategy: StrategyExact, matches: []int{2, 4, 6},
		hint: []string{"3 matches (EXACT) at lines 2, 4, 6", "   2 | foo()", "   6 | foo()"}},
	{name: "replace all", content: "a\nfoo()\nb\nfoo()\n",
		edit: Edit{OldText: "foo()", NewText: "bar($1)", ReplaceAll: true},
		want: "a\nbar($1)\nb\nbar($1)\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1, matches: []int{2, 4}},
	{name: "replace all, overlapping taken left to right", content: "aaa\n",
		edit: Edit{OldText: "aa", NewText: "b", ReplaceAll: true},
		want: "ba\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "overlapping occurrences are ambiguous", content: "aaa\n",
		edit: Edit{OldText: "aa", NewText: "b"},
		want: "aaa\n", status: StatusAmbiguous, strategy: StrategyExact, matches: []int{1, 1}},
	{name: "replace all on the trim rung", content: "  x = 1  \ny\n\tx = 1 \n",
		edit: Edit{OldText: "x = 1\n", NewText: "x = 2\n", ReplaceAll: true},
		want: "  x = 2\ny\n\tx = 2\n", status: StatusApplied, strategy: StrategyIndent, line: 1, col: 1, matches: []int{1, 3}},
	{name: "a unique exact match wins over more lenient rungs", content: "  x = 1  \ny\n\tx = 1\n",
		edit: Edit{OldText: "x = 1\n", NewText: "x = 2\n", ReplaceAll: true},
		want: "  x = 1  \ny\n\tx = 2\n", status: StatusApplied, strategy: StrategyExact, line: 3, col: 2},
	{name: "replace all with a single match", content: "a\nb\n",
		edit: Edit{OldText: "b", NewText: "c", ReplaceAll: true},
		want: "a\nc\n", status: StatusApplied, strategy: StrategyExact, line: 2, col: 1},
	{name: "already applied", content: "x = 2\ny = 3\n",
		edit: Edit{OldText: "x = 1\n", NewText: "x = 2\n"},
		want: "x = 2\ny = 3\n", status: StatusAlreadyApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "already applied, re-indented by the first application", content: "def f():\n    x = 2\n    y = 3\n",
		edit: Edit{OldText: "y = 1\n", NewText: "x = 2\ny = 3\n"},
		want: "def f():\n    x = 2\n    y = 3\n", status: StatusAlreadyApplied, strategy: StrategyTrim, line: 2, col: 1},
	{name: "replacement changes nothing", content: "a\nb\n",
		edit: Edit{OldText: "b  \n", NewText: "b\n"},
		want: "a\nb\n", status: StatusAlreadyApplied, strategy: StrategyTrimEnd, line: 2, col: 1},
	{name: "no-op", content: "a\n",
		edit: Edit{OldText: "zzz", NewText: "zzz"},
		want: "a\n", status: StatusNoOp},
	{name: "not found", content: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n",
		edit: Edit{OldText: "func main() {\n\tprintln(\"goodbye, world\")\n}\n", NewText: "x"},
		want: "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n", status: StatusNotFound,
		hint: []string{"closest region: lines 3-5 (similarity 0.", "   3 | func main() {", "   4 | \tprintln(\"hello\")", "   5 | }"}},
	{name: "blank new text is never already applied", content: "a\n\nb\n",
		edit: Edit{OldText: "zzz\n", NewText: "\n"},
		want: "a\n\nb\n", status: StatusNotFound},
	{name: "empty old text on empty content", content: "",
		edit: Edit{OldText: "", NewText: "hello\n"},
		want: "hello\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "empty old text on BOM-only content", content: "\uFEFF",
		edit: Edit{OldText: "", NewText: "hello\n"},
		want: "\uFEFFhello\n", status: StatusApplied, strategy: StrategyExact, line: 1, col: 1},
	{name: "empty old text on a file", content: "a\n",
		edit: Edit{OldText: "", NewText: "b\n"},
		want: "a\n", status: StatusNotFound, hint: []string{"old text is empty", "lines around"}},
	{name: "old text longer than the file", content: "a\n",
		edit: Edit{OldText: "a\nb\nc\n", NewText: "x\n"},
		want: "a\n", status: StatusNotFound, hint: []string{"3 lines but the file only 1"}},
}

func TestApplyEditLadder(t *testing.T) {
	for _, c := range ladderCases {
		t.Run(c.name, func(t *testing.T) { checkLadderCase(t, c) })
	}
}

// checkLadderCase applies c's edit and checks every expectation c states.
func checkLadderCase(t *testing.T, c ladderCase) {
	t.Helper()
	got, r := ApplyEdit(c.content, c.edit, c.opts)
	if got != c.want {
		t.Errorf("content:\n got %q\nwant %q", got, c.want)
	}
	if r.Status != c.status {
		t.Errorf("status %s, want %s (%+v)", r.Status, c.status, r)
	}
	if c.strategy != "" && r.Strategy != c.strategy {
		t.Errorf("strategy %s, want %s", r.Strategy, c.strategy)
	}
	if c.line != 0 && (r.Line != c.line || r.Column != c.col) {
		t.Errorf("at %d:%d, want %d:%d", r.Line, r.Column, c.line, c.col)
	}
	if c.matches != nil && !equalInts(r.Matches, c.matches) {
		t.Errorf("matches %v, want %v", r.Matches, c.matches)
	}
	for _, h := range c.hint {
		if !strings.Contains(r.Hint, h) {
			t.Errorf("hint %q lacks %q", r.Hint, h)
		}
	}
	if r.Status == StatusApplied && (r.Similarity <= 0 || r.Similarity > 1) {
		t.Errorf("similarity %v", r.Similarity)
	}
	if (r.Status == StatusNotFound || r.Status == StatusAmbiguous) && r.Hint == "" {
		t.Errorf("%s without a hint", r.Status)
	}
	if len(r.Hint) > maxHintBytes+maxHintLineLen+200 {
		t.Errorf("hint is %d bytes", len(r.Hint))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestApplyEditsSequential(t *testing.T) {
	content := "a := 1\nb := 2\nc := 3\n"
	out, rs := ApplyEdits(content, []Edit{
		{OldText: "a := 1", NewText: "a := 10"},
		{OldText: "missing", NewText: "x"},
		{OldText: "a := 10\nb := 2", NewText: "a, b := 10, 2"}, // sees the first edit's result
		{OldText: "c := 3", NewText: "c := 3"},
	}, MatchOptions{})
	want := "a, b := 10, 2\nc := 3\n"
	if out != want {
		t.Fatalf("got %q, want %q", out, want)
	}
	statuses := []Status{StatusApplied, StatusNotFound, StatusApplied, StatusNoOp}
	for i, r := range rs {
		if r.Status != statuses[i] {
			t.Errorf("edit %d: %s, want %s", i, r.Status, statuses[i])
		}
	}
}

func TestEditHintIsShort(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("line number " + strings.Repeat("x", i%7) + " with some text that is long enough " + strings.Repeat("y", 300) + "\n")
	}
	content := b.String()
	old := strings.Repeat("completely different text\n", 60)
	_, r := ApplyEdit(content, Edit{OldText: old, NewText: "z"}, MatchOptions{})
	if r.Status != StatusNotFound {
		t.Fatalf("status %s", r.Status)
	}
	if n := strings.Count(r.Hint, "\n") + 1; n > DefaultMaxHintLines+2 {
		t.Errorf("hint has %d lines", n)
	}
	if len(r.Hint) > 2*maxHintBytes {
		t.Errorf("hint has %d bytes", len(r.Hint))
	}
	if !utf8.ValidString(r.Hint) {
		t.Errorf("hint is not UTF-8")
	}
	_, r = ApplyEdit(content, Edit{OldText: old, NewText: "z"}, MatchOptions{MaxHintLines: 3})
	if n := strings.Count(r.Hint, "\n") + 1; n > 5 {
		t.Errorf("MaxHintLines 3: hint has %d lines:\n%s", n, r.Hint)
	}
}

// Applying an edit and then its reverse restores the file when both are
// exact and unique.
func TestEditRevertRestores(t *testing.T) {
	for _, c := range ladderCases {
		if c.status != StatusApplied || c.strategy != StrategyExact || c.edit.ReplaceAll || strings.Contains(c.content, "\r") {
			continue
		}
		// The property holds for verbatim replacements whose reverse is
		// unique; other cases are covered by their own table rows.
		out, r := ApplyEdit(c.content, c.edit, c.opts)
		i := strings.Index(c.content, c.edit.OldText)
		if r.Status != StatusApplied || i < 0 || c.edit.NewText == "" ||
			out != c.content[:i]+c.edit.NewText+c.content[i+len(c.edit.OldText):] {
			continue
		}
		back, r2 := ApplyEdit(out, Edit{OldText: c.edit.NewText, NewText: c.edit.OldText}, c.opts)
		if r2.Status == StatusAmbiguous {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			if r2.Status != StatusApplied || back != c.content {
				t.Errorf("revert: %s, got %q, want %q", r2.Status, back, c.content)
			}
		})
	}
}

func TestLadderScopedSearch(t *testing.T) {
	d := newDoc("x\nfoo\ny\nfoo\n")
	out, r, _ := applyScoped(d, Edit{OldText: "foo\n", NewText: "bar\n"}, MatchOptions{}.withDefaults(), scope{from: 2})
	if r.Status != StatusApplied || out != "x\nfoo\ny\nbar\n" || r.Line != 4 {
		t.Fatalf("from line 2: %s %q line %d", r.Status, out, r.Line)
	}
	out, r, _ = applyScoped(d, Edit{OldText: "foo\n", NewText: "bar\n"}, MatchOptions{}.withDefaults(), scope{preferFirst: true})
	if r.Status != StatusApplied || out != "x\nbar\ny\nfoo\n" {
		t.Fatalf("prefer first: %s %q", r.Status, out)
	}
	d = newDoc("end\nmid\nend\n")
	out, r, _ = applyScoped(d, Edit{OldText: "end\n", NewText: "END\n"}, MatchOptions{}.withDefaults(), scope{eof: true})
	if r.Status != StatusApplied || out != "end\nmid\nEND\n" {
		t.Fatalf("eof: %s %q", r.Status, out)
	}
}

func TestLadderLevenshtein(t *testing.T) {
	var l levenshtein
	cases := []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2},
		{"intention", "execution", 5}, {"same", "same", 0}, {"abcdef", "azcdxf", 2},
	}
	for _, c := range cases {
		if got := l.dist(c.a, c.b, 100); got != c.d {
			t.Errorf("dist(%q,%q) = %d, want %d", c.a, c.b, got, c.d)
		}
		if c.d > 0 {
			if got := l.dist(c.a, c.b, c.d-1); got <= c.d-1 {
				t.Errorf("dist(%q,%q) with limit %d = %d, want above the limit", c.a, c.b, c.d-1, got)
			}
		}
		if got := l.dist(c.a, c.b, c.d); got != c.d {
			t.Errorf("dist(%q,%q) with limit %d = %d", c.a, c.b, c.d, got)
		}
	}
}

func TestLadderUnicodeMap(t *testing.T) {
	s := "a\u00A0b\u200Bc—d…e’f"
	u, bps, changed := normalize(s, true)
	if !changed || u != "a bc-d...e'f" {
		t.Fatalf("got %q", u)
	}
	m := &offsetMap{s: u, bps: bps}
	// Every ASCII letter of u maps back to the same letter in s.
	for i := 0; i < len(u); i++ {
		if c := u[i]; c >= 'a' && c <= 'f' {
			if o := m.toOrig(i); s[o] != c {
				t.Errorf("offset %d (%c) maps to %d (%q)", i, c, o, s[o])
			}
		}
	}
}

// FuzzApplyEdit: no panic; failures leave the content alone; only the
// matched span changes; an exact unique edit is undone by its reverse.
func FuzzApplyEdit(f *testing.F) {
	for _, c := range slices.Concat(ladderCases, reindentCases) {
		f.Add(c.content, c.edit.OldText, c.edit.NewText, c.edit.ReplaceAll)
	}
	f.Add("a\r\nb\nc", "b\n", "x\r\n", false)
	f.Add("b", "b", "\n\n", false)       // found by fuzzing: final newline
	f.Add("\r\nb\n0", "b\n", "1", false) // found by fuzzing: mixed endings do not revert
	f.Add("\uFEFF", "\uFEFF", "", false)
	f.Add("x\n\n\n", "\n", "y", true)
	f.Fuzz(func(t *testing.T, content, old, nw string, all bool) {
		if len(content) > 1<<14 || len(old) > 1<<12 || len(nw) > 1<<12 {
			return
		}
		opts := MatchOptions{}.withDefaults()
		d := newDoc(content)
		if fuzzing() {
			// A slow input kills the worker, so the fuzzer keeps it.
			timer := time.AfterFunc(3*time.Second, func() { panic("FuzzApplyEdit: one input took over 3s") })
			defer timer.Stop()
		}
		out, r, ap := applyScoped(d, Edit{OldText: old, NewText: nw, ReplaceAll: all}, opts, scope{})
		if r.Status != StatusApplied {
			if out != content {
				t.Fatalf("%s changed the content", r.Status)
			}
			return
		}
		if len(ap.spans) == 0 {
			t.Fatalf("applied without a span")
		}
		first, last := ap.spans[0], ap.spans[len(ap.spans)-1]
		if !strings.HasPrefix(out, content[:first[0]]) {
			t.Fatalf("prefix changed: %q -> %q", content, out)
		}
		if !strings.HasSuffix(out, content[last[1]:]) {
			t.Fatalf("suffix changed: %q -> %q", content, out)
		}
		if strings.HasPrefix(content, byteOrderMark) && !strings.HasPrefix(out, byteOrderMark) {
			t.Fatalf("BOM lost")
		}
		if len(ap.repls) != len(ap.spans) {
			t.Fatalf("%d spans, %d replacements", len(ap.spans), len(ap.repls))
		}
		// The replaced span's end: its replacement keeps the file's final
		// newline, or its absence (an empty replacement leaves what precedes).
		if last[1] == len(content) && d.n != "" && ap.repls[len(ap.repls)-1] != "" && d.finalNL != strings.HasSuffix(out, "\n") {
			t.Fatalf("final newline changed: %q -> %q", content, out)
		}
		// Revert.
		// (A reverse edit's new text takes the line endings of the region it
		// lands in, so mixed line endings do not round-trip: CR-free only.)
		if r.Strategy != StrategyExact || len(ap.spans) != 1 || nw == "" || strings.Contains(content+old+nw, "\r") {
			return
		}
		s, e := first[0], first[1]
		if content[s:e] != old || out != content[:s]+nw+content[e:] {
			return // not a verbatim replacement (line endings, final newline)
		}
		back, r2 := ApplyEdit(out, Edit{OldText: nw, NewText: old}, MatchOptions{})
		if r2.Status != StatusApplied || r2.Strategy != StrategyExact {
			return // the reverse is not exact and unique
		}
		if back != content {
			t.Fatalf("revert: %q -> %q -> %q", content, out, back)
		}
	})
}

// fuzzing tells whether the test binary is fuzzing (time limits apply
// only then, never to the seed corpus in ordinary runs).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}
