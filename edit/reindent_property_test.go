package edit

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// A generated file is lines of Python-like blocks: a header opens a block
// one level deeper. Every text is unique, so an old text has one place.
type genLine struct {
	depth int
	text  string // "" for a blank line
	opens bool
}

type genFile struct {
	lines []genLine
	unit  string // one level: two or four spaces, or a tab
	ext   string // the kind of file the structure stands for
}

var genUnits = []string{"  ", "    ", "\t"}

func genSource(rnd *rand.Rand) genFile {
	f := genFile{unit: genUnits[rnd.Intn(len(genUnits))]}
	f.ext = map[string]string{"  ": ".yaml", "    ": ".py", "\t": "Makefile"}[f.unit]
	n := 6 + rnd.Intn(30)
	depth := 0
	for i := 0; i < n; i++ {
		if k := len(f.lines); k > 0 && f.lines[k-1].opens {
			depth = f.lines[k-1].depth + 1
		} else if depth > 0 && rnd.Intn(3) == 0 {
			depth = rnd.Intn(depth + 1)
		}
		if i > 0 && rnd.Intn(8) == 0 && !f.lines[len(f.lines)-1].opens {
			f.lines = append(f.lines, genLine{})
		}
		if i < n-1 && rnd.Intn(4) == 0 {
			f.lines = append(f.lines, genLine{depth: depth, text: genHeader(rnd, i), opens: true})
			continue
		}
		f.lines = append(f.lines, genLine{depth: depth, text: genStatement(rnd, i)})
	}
	return f
}

func genHeader(rnd *rand.Rand, i int) string {
	return fmt.Sprintf([]string{"if cond_%d:", "for item_%d in items:", "def fn_%d(arg):", "with open('f_%d') as fh:"}[rnd.Intn(4)], i)
}

func genStatement(rnd *rand.Rand, i int) string {
	return fmt.Sprintf([]string{"value_%d = compute(%[1]d, 'x')", "print('done %d')", "total_%d += step", "log(\"n=%d\")"}[rnd.Intn(4)], i)
}

// render writes lines, each non-blank one indented by depth(line) units.
func render(ls []genLine, unit string, depth func(genLine) int) string {
	var b strings.Builder
	for _, l := range ls {
		if l.text != "" {
			b.WriteString(strings.Repeat(unit, depth(l)) + l.text)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func absolute(l genLine) int { return l.depth }

// genChange makes a real text change to a span: a line changed, inserted,
// deleted, lines wrapped in a new block, or everything rewritten.
func genChange(rnd *rand.Rand, span []genLine, id int) []genLine {
	out := append([]genLine(nil), span...)
	var idx []int // non-blank lines
	for i, l := range out {
		if l.text != "" {
			idx = append(idx, i)
		}
	}
	k := idx[rnd.Intn(len(idx))]
	switch rnd.Intn(5) {
	case 0:
		out[k].text += " # changed"
	case 1:
		d := out[k].depth
		if out[k].opens {
			d++
		}
		out = append(out[:k+1], append([]genLine{{depth: d, text: fmt.Sprintf("added_%d()", id)}}, out[k+1:]...)...)
	case 2:
		if out[k].opens {
			out[k].text += " # changed" // its block stays
			break
		}
		if len(idx) == 1 {
			out[k].text = fmt.Sprintf("replaced_%d()", id)
			break
		}
		out = append(out[:k], out[k+1:]...)
	case 3:
		if out[k].opens {
			out[k].text += " # changed"
			break
		}
		wrapped := out[k]
		wrapped.depth++
		out = append(out[:k], append([]genLine{{depth: out[k].depth, text: fmt.Sprintf("if guard_%d:", id), opens: true}, wrapped}, out[k+1:]...)...)
	default:
		for _, l := range out {
			if l.opens {
				out[k].text += " # changed" // a block whose body may go on past the span stays
				return out
			}
		}
		d := out[idx[0]].depth
		out = nil
		for j := 0; j <= rnd.Intn(3); j++ {
			out = append(out, genLine{depth: d, text: fmt.Sprintf("rewritten_%d_%d()", id, j)})
		}
	}
	return out
}

// How a model writes the old and new texts' indentation.
var genPerturbations = []struct {
	name     string
	old, new func(l genLine, base int) int // depth in units; -1 for the file's own unit and depth
	unit     bool                          // the model's unit is not the file's
	newFile  bool                          // the new text keeps the file's unit and depth
}{
	{name: "exact", old: func(l genLine, _ int) int { return l.depth }, new: func(l genLine, _ int) int { return l.depth }},
	{name: "shift both", old: func(l genLine, b int) int { return l.depth - b }, new: func(l genLine, b int) int { return l.depth - b }},
	{name: "shift both deeper", old: func(l genLine, b int) int { return l.depth - b + 1 }, new: func(l genLine, b int) int { return l.depth - b + 1 }},
	{name: "flatten both", old: func(genLine, int) int { return 0 }, new: func(genLine, int) int { return 0 }},
	{name: "flatten old only", old: func(genLine, int) int { return 0 }, newFile: true},
	{name: "shift old only", old: func(l genLine, b int) int { return l.depth - b }, newFile: true},
	{name: "unit of both", old: func(l genLine, _ int) int { return l.depth }, new: func(l genLine, _ int) int { return l.depth }, unit: true},
	{name: "unit of both, shifted", old: func(l genLine, b int) int { return l.depth - b }, new: func(l genLine, b int) int { return l.depth - b }, unit: true},
	{name: "unit of old only, shifted", old: func(l genLine, b int) int { return l.depth - b }, unit: true, newFile: true},
}

// Text perturbations of the old text only.
const (
	genPlain = iota
	genTrailing
	genQuotes
	genTypo // two letters of an old line swapped: the similarity rungs
	genTextPerturbations
)

type genCase struct {
	content, intended string
	edit              Edit
	ext               string
	literal           bool // the edit is exact: the new text goes in as sent
	typo              bool // the old text has a typo: several places may resemble it
}

// genEdit builds a file, an edit of one span as a model would send it with
// perturbation p and text perturbation tp, and the file that edit means.
func genEdit(seed int64, p, tp int) genCase {
	rnd := rand.New(rand.NewSource(seed))
	f := genSource(rnd)
	var s, e int
	for {
		s = rnd.Intn(len(f.lines))
		e = min(len(f.lines), s+1+rnd.Intn(6))
		if strings.TrimSpace(render(f.lines[s:e], "", absolute)) != "" {
			break
		}
	}
	span := f.lines[s:e]
	changed := genChange(rnd, span, int(seed%1000)+1000)
	base := -1
	for _, l := range span {
		if l.text != "" && (base < 0 || l.depth < base) {
			base = l.depth
		}
	}
	pt := genPerturbations[p]
	mu := f.unit
	if pt.unit {
		mu = genUnits[(indexOf(genUnits, f.unit)+1+rnd.Intn(2))%len(genUnits)]
	}
	old := render(span, mu, func(l genLine) int { return pt.old(l, base) })
	nw := render(changed, f.unit, absolute)
	if !pt.newFile {
		nw = render(changed, mu, func(l genLine) int { return pt.new(l, base) })
	}
	literal := old == render(span, f.unit, absolute)
	switch tp {
	case genTrailing:
		old = strings.ReplaceAll(old, "\n", "  \n")
	case genQuotes:
		old = strings.NewReplacer("'", "’", `"`, "”").Replace(old)
	case genTypo:
		old = swapLetters(rnd, old, f.lines)
	}
	head, tail := render(f.lines[:s], f.unit, absolute), render(f.lines[e:], f.unit, absolute)
	intended := render(changed, f.unit, absolute)
	if pt.name == "flatten both" && singleDepth(span) {
		// Flattening lines of one depth is shifting them: the new text's
		// lines, flattened alike, are read as one depth too.
		intended = render(changed, f.unit, func(genLine) int { return base })
	}
	if literal {
		// The old text is the file's own (a span at column 0 flattened):
		// nothing tells the new text was changed too, and it goes in as sent.
		intended = nw
	}
	return genCase{
		content:  head + render(span, f.unit, absolute) + tail,
		intended: head + intended + tail,
		literal:  literal,
		typo:     tp == genTypo,
		edit:     Edit{OldText: old, NewText: nw},
		ext:      f.ext,
	}
}

// swapLetters swaps two adjacent letters of one of text's non-blank lines,
// unless that makes it another line of the file.
func swapLetters(rnd *rand.Rand, text string, file []genLine) string {
	lines := strings.Split(text, "\n")
	var cands []int
	for i, l := range lines {
		if len(strings.TrimSpace(l)) > 4 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return text
	}
	i := cands[rnd.Intn(len(cands))]
	l := []byte(lines[i])
	var ks []int // two letters in a row: the digits that tell lines apart stay
	for k := 0; k+1 < len(l); k++ {
		if l[k] != l[k+1] && l[k] >= 'a' && l[k] <= 'z' && l[k+1] >= 'a' && l[k+1] <= 'z' {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return text
	}
	k := ks[rnd.Intn(len(ks))]
	l[k], l[k+1] = l[k+1], l[k]
	for _, fl := range file {
		if fl.text == strings.TrimSpace(string(l)) {
			return text
		}
	}
	lines[i] = string(l)
	return strings.Join(lines, "\n")
}

func singleDepth(ls []genLine) bool {
	d := -1
	for _, l := range ls {
		if l.text != "" {
			if d >= 0 && l.depth != d {
				return false
			}
			d = l.depth
		}
	}
	return true
}

func indexOf(ss []string, s string) int {
	for i, x := range ss {
		if x == s {
			return i
		}
	}
	return -1
}

// blockDepths reads the block structure of indented text as Python does:
// each non-blank line's depth on a stack of indentations; a dedent to an
// indentation not on the stack is an error.
func blockDepths(text string) ([]int, error) {
	stack := []string{""}
	var depths []int
	for n, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		w := leadingSpace(l)
		top := stack[len(stack)-1]
		switch {
		case w == top:
		case strings.HasPrefix(w, top):
			stack = append(stack, w)
		default:
			for len(stack) > 1 && stack[len(stack)-1] != w {
				stack = stack[:len(stack)-1]
			}
			if stack[len(stack)-1] != w {
				return nil, fmt.Errorf("line %d: dedent to an indentation no block has", n+1)
			}
		}
		depths = append(depths, len(stack)-1)
	}
	return depths, nil
}

// checkGenEdit applies a generated edit: applied, it must give exactly the
// intended file, with its block structure; refused, it changes nothing.
func checkGenEdit(t *testing.T, c genCase) Status {
	t.Helper()
	out, r := ApplyEdit(c.content, c.edit, MatchOptions{})
	switch r.Status {
	case StatusApplied:
		if c.literal {
			if out != c.intended {
				t.Fatalf("an exact edit not applied as sent\n got %q\nwant %q", out, c.intended)
			}
			break
		}
		want, err := blockDepths(c.intended)
		if err != nil {
			t.Fatalf("generator: intended %s: %v", c.ext, err)
		}
		got, err := blockDepths(out)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s block structure changed (%v):\n got %v\nwant %v", c.ext, err, got, want)
		}
		if out != c.intended {
			t.Fatalf("APPLIED by %s but not the intended file\nfile:\n%s\nold:\n%s\nnew:\n%s\ngot:\n%s\nwant:\n%s",
				r.Strategy, c.content, c.edit.OldText, c.edit.NewText, out, c.intended)
		}
	case StatusNotFound:
		if out != c.content || r.Hint == "" {
			t.Fatalf("NOT_FOUND changed the file or gave no hint")
		}
	case StatusAmbiguous:
		if !c.typo || out != c.content || len(r.Matches) < 2 {
			t.Fatalf("AMBIGUOUS for a unique old text\nfile:\n%s\nold:\n%s\nnew:\n%s\n%s", c.content, c.edit.OldText, c.edit.NewText, r.Hint)
		}
	default:
		t.Fatalf("%s for a unique old text that differs from the new\nfile:\n%s\nold:\n%s\nnew:\n%s\n%s", r.Status, c.content, c.edit.OldText, c.edit.NewText, r.Hint)
	}
	return r.Status
}

// TestReindentProperty: for random files and random one-span edits, sent
// with the indentation and text perturbations models make, every APPLIED
// result is exactly the intended file; the clear readings do apply.
func TestReindentProperty(t *testing.T) {
	const perCase = 300
	for p, pt := range genPerturbations {
		for tp := range genTextPerturbations {
			applied, eligible := 0, 0
			for seed := int64(1); seed <= perCase; seed++ {
				c := genEdit(seed*131+int64(p*7+tp), p, tp)
				st := checkGenEdit(t, c)
				// A one-line old text with a typo has no context to
				// confirm the near miss: it must be refused.
				if c.typo && newQuery(c.edit.OldText).nonBlankLines() < 2 && c.edit.OldText != "" {
					if st == StatusApplied {
						t.Errorf("a one-line near miss was applied by similarity:\nold %q", c.edit.OldText)
					}
				} else {
					eligible++
					if st == StatusApplied {
						applied++
					}
				}
				if t.Failed() {
					t.Fatalf("%s, text perturbation %d, seed %d", pt.name, tp, seed)
				}
			}
			t.Logf("%-28s text %d: %3d of %d applied", pt.name, tp, applied, eligible)
			if min := minApplied(pt.name, tp); applied < min*eligible/100 {
				t.Errorf("%s, text perturbation %d: %d of %d applied, want %d%% at least", pt.name, tp, applied, eligible, min)
			}
		}
	}
}

// minApplied is the share (%) of generated edits a perturbation must apply:
// what it leaves unclear may be refused, the rest must not be.
func minApplied(name string, tp int) int {
	if tp == genTypo {
		return 50 // short old texts fall below the similarity threshold
	}
	switch name {
	case "exact":
		return 100
	case "flatten both":
		return 40
	}
	return 80
}

// FuzzReindent: the property test's generator driven by the fuzzer.
func FuzzReindent(f *testing.F) {
	for p := range genPerturbations {
		for tp := range genTextPerturbations {
			f.Add(int64(p*31+tp), uint8(p), uint8(tp))
		}
	}
	f.Fuzz(func(t *testing.T, seed int64, p, tp uint8) {
		checkGenEdit(t, genEdit(seed, int(p)%len(genPerturbations), int(tp)%genTextPerturbations))
	})
}
