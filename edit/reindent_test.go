package edit

import (
	"strings"
	"testing"
)

// pyOuter is a Python function whose if-block the cases below edit.
const pyOuter = "def outer():\n    x = 0\n    if x:\n        a()\n        b()\n    return x\n"

// reindentCases: how the old text's indentation relates to the file's
// (identical, shifted, flattened, another unit, inconsistent) crossed with how
// the new text's relates to the old text's (same frame, the file's, flattened).
var reindentCases = []ladderCase{
	// Old text flattened: its nesting is lost.
	{name: "flattened old and new: each new line takes its old line's depth", content: pyOuter,
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\na()\nc()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "flattened old and new, a line changed one for one", content: pyOuter,
		edit:   Edit{OldText: "x = 0\nif x:\na()\nb()\n", NewText: "x = 0\nif x:\na(1)\nb()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a(1)\n        b()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 2, col: 1},
	{name: "flattened old and new, lines of several depths rewritten: refused", content: pyOuter,
		edit: Edit{OldText: "if x:\na()\nb()\n", NewText: "if y:\na(1)\nb(2)\n"}, want: pyOuter, status: StatusNotFound,
		hint: []string{"replaces lines of different depths"}},
	{name: "flattened old and new, a line inserted: it might open a block, refused", content: pyOuter,
		edit: Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\na()\nif y:\nb()\n"}, want: pyOuter, status: StatusNotFound,
		hint: []string{"new line 3 (\"if y:\")"}},
	{name: "flattened old, new with nesting: an added line between its neighbours", content: pyOuter,
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\na()\nif y:\n    b()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        if y:\n            b()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "flattened old, new in the file's indentation: applied as given", content: pyOuter,
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "    if x:\n        a()\n        c()\n        d()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n        d()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "flattened old, new in the file's indentation, a line nested deeper", content: pyOuter,
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "    if x:\n        a()\n        if y:\n            b()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        if y:\n            b()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "flattened old, new indented relative to column 0: its structure kept", content: pyOuter,
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\n    a()\n    c()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "flattened old and new, a line added after the deepest line: refused", content: pyOuter,
		edit: Edit{OldText: "if x:\na()\n", NewText: "if x:\na()\nb()\n"}, want: pyOuter, status: StatusNotFound,
		hint: []string{"matches lines 3-4 (TRIM) once indentation is ignored", "new line 3 (\"b()\")", "   3 |     if x:", "   4 |         a()"}},
	{name: "flattened old and new, a line inserted between depths: refused", content: pyOuter,
		edit: Edit{OldText: "x = 0\nif x:\na()\n", NewText: "x = 0\nif x:\ny = 1\na()\n"}, want: pyOuter, status: StatusNotFound,
		hint: []string{"lines 2-4", "new line 3 (\"y = 1\")", "exact indentation"}},

	{name: "flattened old and new, sent again: already applied", content: "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n    return x\n",
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\na()\nc()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n    return x\n",
		status: StatusAlreadyApplied, strategy: StrategyFuzzy, line: 3, col: 1},
	{name: "flattened old and new in a CRLF file", content: strings.ReplaceAll(pyOuter, "\n", "\r\n"),
		edit:   Edit{OldText: "if x:\na()\nb()\n", NewText: "if x:\na()\nc()\n"},
		want:   "def outer():\r\n    x = 0\r\n    if x:\r\n        a()\r\n        c()\r\n    return x\r\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},

	{name: "first line's indentation left out, the body wrapped in a new block", content: "class A:\n    def f(self):\n        return 1\n",
		edit:   Edit{OldText: "def f(self):\n        return 1\n", NewText: "def f(self):\n        if x:\n            return 1\n"},
		want:   "class A:\n    def f(self):\n        if x:\n            return 1\n",
		status: StatusApplied, strategy: StrategyExact, line: 2, col: 5},

	{name: "one line without its indentation, wrapped in a new block", content: "class A:\n    def f(self):\n        return 1\n",
		edit:   Edit{OldText: "return 1", NewText: "if x:\n    return 1"},
		want:   "class A:\n    def f(self):\n        if x:\n            return 1\n",
		status: StatusApplied, strategy: StrategyExact, line: 3, col: 9},

	// Old text with its own relative indentation, another unit.
	{name: "old in 2-space units, new in the file's absolute indentation: as given", content: pyOuter,
		edit:   Edit{OldText: "if x:\n  a()\n  b()\n", NewText: "    if x:\n        a()\n        c()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        c()\n    return x\n",
		status: StatusApplied, strategy: StrategyIndent, line: 3, col: 1},
	{name: "old and new in 2-space units: mapped to the file's 4", content: pyOuter,
		edit:   Edit{OldText: "if x:\n  a()\n  b()\n", NewText: "if x:\n  a()\n  if y:\n    c()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        if y:\n            c()\n    return x\n",
		status: StatusApplied, strategy: StrategyIndent, line: 3, col: 1},
	{name: "old and new shifted, a new line dedented out of the block", content: pyOuter,
		edit:   Edit{OldText: "if x:\n    a()\n    b()\n", NewText: "if x:\n    a()\nb()\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n    b()\n    return x\n",
		status: StatusApplied, strategy: StrategyIndent, line: 3, col: 1},
	{name: "old at the file's base in 2-space units, new's body only in the old unit", content: "def f():\n    a = 1\n    return a\n",
		edit:   Edit{OldText: "def f():\n  a = 1\n  return a\n", NewText: "def f():\n  a = 2\n  return a * 2\n"},
		want:   "def f():\n    a = 2\n    return a * 2\n",
		status: StatusApplied, strategy: StrategyIndent, line: 1, col: 1},
	{name: "old at the file's base in 2-space units, new off the file's unit: the old unit's", content: "def f():\n    a = 1\n    return a\n",
		edit:   Edit{OldText: "def f():\n  a = 1\n  return a\n", NewText: "def f():\n  a = 2\n    return a * 2\n"},
		want:   "def f():\n    a = 2\n        return a * 2\n",
		status: StatusApplied, strategy: StrategyIndent, line: 1, col: 1},
	{name: "old at the file's base in 2-space units, new fits both units: refused", content: "def f():\n    if a:\n        b()\n",
		edit: Edit{OldText: "def f():\n  if a:\n    b()\n", NewText: "def f():\n    c()\n"},
		want: "def f():\n    if a:\n        b()\n", status: StatusNotFound, hint: []string{"fit both"}},

	{name: "old shifted with a line aligned under a parenthesis: the shift alone", content: "def f():\n    r = call(a,\n             b)\n    return r\n",
		edit:   Edit{OldText: "r = call(a,\n         b)\n", NewText: "r = call(a,\n         c)\nif r:\n    log(r)\n"},
		want:   "def f():\n    r = call(a,\n             c)\n    if r:\n        log(r)\n    return r\n",
		status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},

	// Inconsistent old indentation.
	{name: "old indentation neither flat nor a shift, new in its frame: line by line", content: pyOuter,
		edit:   Edit{OldText: "if x:\n   a()\n  b()\n", NewText: "if x:\n   a()\n  b(1)\n"},
		want:   "def outer():\n    x = 0\n    if x:\n        a()\n        b(1)\n    return x\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "new indentation in no frame: refused", content: pyOuter,
		edit: Edit{OldText: "if x:\na()\nb()\n", NewText: "  if x:\n a()\n   b()\n"}, want: pyOuter, status: StatusNotFound,
		hint: []string{"neither the old text's nor the file's"}},

	// Tabs: Go and Makefiles.
	{name: "go: flattened old and new get the file's tabs", content: "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n",
		edit:   Edit{OldText: "if x {\nreturn 1\n}\n", NewText: "if x {\nreturn 2\n}\n"},
		want:   "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n",
		status: StatusApplied, strategy: StrategyTrim, line: 2, col: 1},
	{name: "makefile: recipe lines written with spaces get tabs", content: "all: build\n\nbuild:\n\t$(CC) -o app main.c\n\t@echo done\n",
		edit:   Edit{OldText: "build:\n    $(CC) -o app main.c\n    @echo done\n", NewText: "build:\n    $(CC) -O2 -o app main.c\n    @echo done\n    strip app\n"},
		want:   "all: build\n\nbuild:\n\t$(CC) -O2 -o app main.c\n\t@echo done\n\tstrip app\n",
		status: StatusApplied, strategy: StrategyIndent, line: 3, col: 1},
	{name: "makefile: flattened recipe keeps its tabs", content: "all: build\n\nbuild:\n\t$(CC) -o app main.c\n\t@echo done\n",
		edit:   Edit{OldText: "build:\n$(CC) -o app main.c\n@echo done\n", NewText: "build:\n$(CC) -O2 -o app main.c\n@echo done\n"},
		want:   "all: build\n\nbuild:\n\t$(CC) -O2 -o app main.c\n\t@echo done\n",
		status: StatusApplied, strategy: StrategyTrim, line: 3, col: 1},
	{name: "fuzzy match, flattened, a line added: refused with the similarity", content: "def run():\n    for item in items:\n        handle(item)\n    return\n",
		edit: Edit{OldText: "for item in itms:\nhandle(item)\nreturn\n", NewText: "for item in items:\nhandle(item)\nlog(item)\nreturn\n"},
		want: "def run():\n    for item in items:\n        handle(item)\n    return\n", status: StatusNotFound,
		hint: []string{"the old text resembles lines 2-4 (FUZZY, similarity 0.9", "new line 3 (\"log(item)\")", "   3 |         handle(item)"}},
	{name: "yaml: flattened old and new", content: "a:\n  b:\n    c: 1\n  d: 2\n",
		edit:   Edit{OldText: "b:\nc: 1\n", NewText: "b:\nc: 2\n"},
		want:   "a:\n  b:\n    c: 2\n  d: 2\n",
		status: StatusApplied, strategy: StrategyTrim, line: 2, col: 1},

	// A leading blank line that stands for the previous line's end.
	{name: "leading blank line, indentation missing", content: "def f():\n    x = 0\n    y = 1\n",
		edit:   Edit{OldText: "\nx = 0\ny = 1\n", NewText: "\nx = 2\ny = 1\n"},
		want:   "def f():\n    x = 2\n    y = 1\n",
		status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "leading blank line, indentation missing, none in the new text", content: "def f():\n    x = 0\n    y = 1\n",
		edit:   Edit{OldText: "\nx = 0\n", NewText: "x = 2\n"},
		want:   "def f():\n    x = 2\n    y = 1\n",
		status: StatusApplied, strategy: StrategyExact, line: 2, col: 5},
	{name: "leading blank line, indentation partly missing", content: "def f():\n    x = 0\n    y = 1\n",
		edit:   Edit{OldText: "\n  x = 0\n  y = 1\n", NewText: "\n  x = 2\n  y = 1\n"},
		want:   "def f():\n    x = 2\n    y = 1\n",
		status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "leading blank line with the indentation: exact", content: "def f():\n    x = 0\n    y = 1\n",
		edit:   Edit{OldText: "\n    x = 0\n", NewText: "\n    x = 2\n"},
		want:   "def f():\n    x = 2\n    y = 1\n",
		status: StatusApplied, strategy: StrategyExact, line: 1, col: 9},
	{name: "indentation missing, no blank line", content: "def f():\n    x = 0\n    y = 1\n",
		edit:   Edit{OldText: "x = 0\n", NewText: "x = 2\n"},
		want:   "def f():\n    x = 2\n    y = 1\n",
		status: StatusApplied, strategy: StrategyExact, line: 2, col: 5},
	{name: "leading blank line that the file has", content: "def f():\n\n    x = 0\n",
		edit:   Edit{OldText: "\nx = 0\n", NewText: "\nx = 2\n"},
		want:   "def f():\n\n    x = 2\n",
		status: StatusApplied, strategy: StrategyIndent, line: 2, col: 1},
	{name: "leading blank line: the rest must start a line", content: "max = 1\n",
		edit: Edit{OldText: "\nx = 1\n", NewText: "\nx = 2\n"}, want: "max = 1\n", status: StatusNotFound},
}

func TestReindent(t *testing.T) {
	for _, c := range reindentCases {
		t.Run(c.name, func(t *testing.T) { checkLadderCase(t, c) })
	}
}

// The refusal names what to send, and the similarity and position of the region.
func TestReindentRefusalReport(t *testing.T) {
	_, r := ApplyEdit(pyOuter, Edit{OldText: "if x:\na()\n", NewText: "if x:\na()\nb()\n"}, MatchOptions{})
	if r.Status != StatusNotFound || !r.Unplaced || r.Line != 3 || r.Column != 1 || r.Similarity != 1 || r.Strategy != "" {
		t.Fatalf("%+v", r)
	}
	want := "the old text matches lines 3-4 (TRIM) once indentation is ignored, but the new text's indentation cannot be placed with certainty: " +
		"the old text puts lines of different depth at one indentation, so the depth of new line 3 (\"b()\"), which replaces no old line, is unknown. " +
		"Send the old text with these lines' exact indentation and the new text indented as it must stand in the file.\n" +
		"   3 |     if x:\n   4 |         a()"
	if r.Hint != want {
		t.Errorf("hint\n%s\nwant\n%s", r.Hint, want)
	}
}

// A replace-all whose second match cannot be placed changes nothing.
func TestReindentReplaceAllRefusesWhole(t *testing.T) {
	content := "macro:\n  if x:\n  y()\n\nclass A:\n    def g(self):\n        if x:\n            y()\n"
	e := Edit{OldText: "if x:\ny()\n", NewText: "if x:\ny()\nz()\n", ReplaceAll: true}
	out, r := ApplyEdit(content, e, MatchOptions{})
	if out != content || r.Status != StatusNotFound || !strings.Contains(r.Hint, "lines 7-8") {
		t.Fatalf("%s %q\n%s", r.Status, out, r.Hint)
	}
	// Alone, the first one can.
	e.ReplaceAll = false
	out, r = ApplyEdit(content[:strings.Index(content, "\n\n")+1], e, MatchOptions{})
	if want := "macro:\n  if x:\n  y()\n  z()\n"; out != want || r.Status != StatusApplied {
		t.Fatalf("%s %q, want %q", r.Status, out, want)
	}
}
