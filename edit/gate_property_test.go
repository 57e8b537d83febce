package edit

import (
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"math/rand"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// The gate's property: over generated Go files and edits a model sends from
// a stale or mistyped view of the file (the old text with a typo, so that
// only BLOCK_ANCHOR or FUZZY finds it; the new text changed as models
// change it, some changes dropping a closing brace or leaving a bracket
// open), every edit the ladder would apply and that leaves the file not
// parsing is refused by the gate, and every one that keeps it parsing
// applies exactly as without the gate. Go via go/parser: the edit package
// stays free of the syntax package, and the standard library's parser is
// what the guard's check runs for Go.

// goErrors parses src as a Go file.
func goErrors(src string) scanner.ErrorList {
	_, err := parser.ParseFile(token.NewFileSet(), "", src, parser.AllErrors|parser.SkipObjectResolution)
	if err == nil {
		return nil
	}
	list, ok := err.(scanner.ErrorList)
	if !ok {
		return scanner.ErrorList{{Msg: err.Error()}}
	}
	return list
}

// goCheck is the gate's check for Go: the text after breaks the file when
// it has errors and the text before had none (the generated files all
// parse; the guard's check compares the errors themselves).
func goCheck(calls *int) CheckFunc {
	return func(before, after string) (bool, string) {
		*calls++
		errs := goErrors(after)
		if len(errs) == 0 || len(goErrors(before)) > 0 {
			return true, ""
		}
		return false, fmt.Sprintf("a syntax error at line %d (%s)", errs[0].Pos.Line, errs[0].Msg)
	}
}

// genGoFile writes a Go file of functions whose bodies hold statements and
// blocks; every line is unique, and long enough for a typo to keep its
// similarity high.
func genGoFile(rnd *rand.Rand) []string {
	lines := []string{"package gen", ""}
	for f := range 3 + rnd.Intn(4) {
		lines = append(lines, fmt.Sprintf("func compute%d(alpha, beta int) int {", f))
		depth := 1
		for s := range 4 + rnd.Intn(8) {
			ind := strings.Repeat("\t", depth)
			switch {
			case depth > 1 && rnd.Intn(3) == 0:
				depth--
				lines = append(lines, strings.Repeat("\t", depth)+"}")
			case depth < 3 && rnd.Intn(4) == 0:
				lines = append(lines, ind+fmt.Sprintf("if alpha > %d && beta < %d {", f*100+s, s*7+1))
				depth++
			default:
				lines = append(lines, ind+fmt.Sprintf("alpha = beta*%d + alpha/%d // step %d of function %d", s+2, f+3, s, f))
			}
		}
		for depth > 1 {
			depth--
			lines = append(lines, strings.Repeat("\t", depth)+"}")
		}
		lines = append(lines, fmt.Sprintf("\treturn alpha + beta*%d", f), "}", "")
	}
	return lines
}

// The changes a model makes to the span it edits; the last ones break the
// block structure as a stale or hurried view of the file does.
const (
	goRenumber      = iota // a statement's number changed
	goAddStatement         // a statement added after the first line
	goWrapInBlock          // the span wrapped in a new if block
	goDropLastLine         // the span's last line left out (a closing brace, often)
	goUnclosedParen        // a call left open
	goAddBrace             // a block opened and never closed
	goChanges
)

// genGoEdit picks a span of a function body, sends it with a typo as the
// old text, and changes it by kind; content is the file.
func genGoEdit(seed int64, kind int) (content string, e Edit) {
	rnd := rand.New(rand.NewSource(seed))
	lines := genGoFile(rnd)
	var body []int // lines inside function bodies
	for i, l := range lines {
		if strings.HasPrefix(l, "\t") {
			body = append(body, i)
		}
	}
	s := body[rnd.Intn(len(body))]
	n := 3 + rnd.Intn(4)
	if s+n > len(lines) {
		s = len(lines) - n
	}
	span := lines[s : s+n]
	nw := append([]string(nil), span...)
	switch kind {
	case goRenumber:
		for i, l := range nw {
			if strings.Contains(l, "alpha =") {
				nw[i] = strings.Replace(l, "beta*", "beta*1", 1)
				break
			}
		}
	case goAddStatement:
		nw = append(nw[:1], append([]string{"\tbeta += alpha // added by the edit"}, nw[1:]...)...)
	case goWrapInBlock:
		nw = append(append([]string{"\tif beta != 0 {"}, nw...), "\t}")
	case goDropLastLine:
		nw = nw[:len(nw)-1]
	case goUnclosedParen:
		nw[len(nw)/2] += " + compute0(alpha, beta"
	case goAddBrace:
		nw = append(nw[:1], append([]string{"\tfor beta > 0 {"}, nw[1:]...)...)
	}
	old := strings.Join(span, "\n") + "\n"
	return strings.Join(lines, "\n"), Edit{OldText: typo(rnd, old), NewText: strings.Join(nw, "\n") + "\n"}
}

// typo swaps two letters of the old text's longest line.
func typo(rnd *rand.Rand, text string) string {
	lines := strings.Split(text, "\n")
	long := 0
	for i, l := range lines {
		if len(l) > len(lines[long]) {
			long = i
		}
	}
	l := []byte(lines[long])
	for range 20 {
		k := rnd.Intn(max(len(l)-1, 1))
		if k+1 < len(l) && l[k] != l[k+1] && l[k] >= 'a' && l[k] <= 'z' && l[k+1] >= 'a' && l[k+1] <= 'z' {
			l[k], l[k+1] = l[k+1], l[k]
			break
		}
	}
	lines[long] = string(l)
	return strings.Join(lines, "\n")
}

// TestGateProperty: for generated Go files and drifted edits, what the
// ladder applies by a similarity rung and leaves unparsable is refused
// with the gate's NOT_FOUND; what it applies and leaves parsing applies
// the same with the gate; everything else is untouched by it.
func TestGateProperty(t *testing.T) {
	const perKind = 150
	refused, kept := 0, 0
	for kind := range goChanges {
		for seed := int64(1); seed <= perKind; seed++ {
			content, e := genGoEdit(seed*977+int64(kind), kind)
			if errs := goErrors(content); len(errs) > 0 {
				t.Fatalf("generator: the file does not parse: %v\n%s", errs, content)
			}
			out, r := ApplyEdit(content, e, MatchOptions{})
			calls := 0
			gOut, gr := ApplyEdit(content, e, MatchOptions{Check: goCheck(&calls)})
			loose := r.Strategy == StrategyBlockAnchor || r.Strategy == StrategyFuzzy
			switch {
			case r.Status == StatusApplied && loose && len(goErrors(out)) > 0:
				if gr.Status != StatusNotFound || gr.Gated != r.Strategy || gOut != content {
					t.Fatalf("kind %d seed %d: a %s guess that breaks the file was %s (gated %q)\nold:\n%s\nnew:\n%s\ngot:\n%s",
						kind, seed, r.Strategy, gr.Status, gr.Gated, e.OldText, e.NewText, gOut)
				}
				if !strings.Contains(gr.Hint, "would leave a syntax error at line") || !strings.Contains(gr.Hint, "Refused: resend old_text exactly") {
					t.Fatalf("kind %d seed %d: the hint does not say why: %s", kind, seed, gr.Hint)
				}
				refused++
			case r.Status == StatusApplied && loose:
				if gOut != out || !reflect.DeepEqual(gr, r) {
					t.Fatalf("kind %d seed %d: a %s guess that keeps the file parsing changed by the gate: %+v, want %+v", kind, seed, r.Strategy, gr, r)
				}
				kept++
			default:
				if gOut != out || gr.Status != r.Status || gr.Gated != "" {
					t.Fatalf("kind %d seed %d: an edit the gate has no say on changed: %+v, want %+v", kind, seed, gr, r)
				}
				if calls > 0 && !loose {
					t.Fatalf("kind %d seed %d: the check ran for %s, no guess", kind, seed, r.Strategy)
				}
			}
		}
	}
	t.Logf("%d guesses that broke the file refused, %d that kept it parsing applied", refused, kept)
	if refused < perKind || kept < perKind {
		t.Errorf("the generator gave %d breaking and %d sound guesses, want %d of each at least", refused, kept, perKind)
	}
}

// TestGateRule: which guesses reach the check, and the exact reading a
// re-indented new text is weighed against. The check here refuses a line x
// indented by eight spaces or more, so that the re-indentation alone decides.
func TestGateRule(t *testing.T) {
	deep := regexp.MustCompile("\n {8,}x").MatchString
	check := func(calls *int) CheckFunc {
		return func(before, after string) (bool, string) {
			*calls++
			if deep(after) && !deep(before) {
				return false, "a line too deep"
			}
			return true, ""
		}
	}
	file := "def f():\n    if a:\n        pass\n    return 1\n"
	cases := []struct {
		name     string
		content  string
		edit     Edit
		status   Status
		gated    Strategy
		calls    int
		hint     string
		strategy Strategy
	}{
		{name: "re-indented into the bad depth, as sent it is not: refused",
			content: file, edit: Edit{OldText: "if a:\n    pass\n", NewText: "if a:\n    x = 1\n"},
			status: StatusNotFound, gated: StrategyIndent, calls: 2, hint: "as sent it would not. Refused: resend old_text with these lines' exact indentation"},
		{name: "as sent it is bad too: the guess is not blamed",
			content: file, edit: Edit{OldText: "if a:\n    pass\n", NewText: "if a:\n        x = 1\n"},
			status: StatusApplied, calls: 2, strategy: StrategyIndent},
		{name: "re-indented, sound: applied after one check",
			content: file, edit: Edit{OldText: "if a:\n    pass\n", NewText: "if a:\n    y = 1\n"},
			status: StatusApplied, calls: 1, strategy: StrategyIndent},
		{name: "exact: no guess, no check",
			content: file, edit: Edit{OldText: "        pass\n", NewText: "        x = 1\n"},
			status: StatusApplied, calls: 0, strategy: StrategyExact},
		{name: "trailing whitespace: no guess, no check",
			content: file, edit: Edit{OldText: "        pass  \n", NewText: "        x = 1\n"},
			status: StatusApplied, calls: 0, strategy: StrategyTrimEnd},
		{name: "already applied: nothing changes, no check",
			content: file, edit: Edit{OldText: "    if a:\n        pass\n", NewText: "    if a:\n        pass\n    \n"},
			status: StatusApplied, calls: 0, strategy: StrategyExact},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			out, r := ApplyEdit(c.content, c.edit, MatchOptions{Check: check(&calls)})
			if r.Status != c.status || r.Gated != c.gated || calls != c.calls {
				t.Fatalf("got %s gated %q after %d checks, want %s gated %q after %d\n%s", r.Status, r.Gated, calls, c.status, c.gated, c.calls, r.Hint)
			}
			if c.status == StatusNotFound && (out != c.content || !strings.Contains(r.Hint, c.hint) || !strings.Contains(r.Hint, "would leave a line too deep")) {
				t.Fatalf("refused: changed %v, hint %q", out != c.content, r.Hint)
			}
			if c.status == StatusApplied && r.Strategy != c.strategy {
				t.Fatalf("applied by %s, want %s", r.Strategy, c.strategy)
			}
		})
	}
}

// TestGateChunks: an apply_patch chunk found only by similarity is gated
// as an edit is, and a refused chunk changes nothing.
func TestGateChunks(t *testing.T) {
	content, e := genGoEdit(7, goUnclosedParen)
	chunk := PatchChunk{OldLines: strings.Split(strings.TrimSuffix(e.OldText, "\n"), "\n"), NewLines: strings.Split(strings.TrimSuffix(e.NewText, "\n"), "\n")}
	if _, rs, _ := ApplyChunks(content, []PatchChunk{chunk}, MatchOptions{}); rs[0].Status != StatusApplied {
		t.Fatalf("without the gate: %s, want the guess applied", rs[0].Status)
	}
	calls := 0
	out, rs, err := ApplyChunks(content, []PatchChunk{chunk}, MatchOptions{Check: goCheck(&calls)})
	if err != nil || rs[0].Status != StatusNotFound || rs[0].Gated == "" || out != content {
		t.Fatalf("with the gate: %v %+v", err, rs[0])
	}
}
