package guard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolguard/toolguard/syntax"
)

// goFile is a Go file of about size bytes that parses; n makes it differ
// from the others, so that no cached result answers for it.
func goFile(n, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package f%d\n\n", n)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func f%d_%d(a int) int {\n\treturn a * %d\n}\n\n", n, i, i)
	}
	return b.String()
}

// budgetGuard is a guard whose checks have no deadline: each parses to its
// end on the caller's goroutine, so what a test sees of the budget depends
// on no machine's speed (the deadline's own path is syntax's
// TestBudgetHeldUntilParseEnds).
func budgetGuard(t *testing.T) (*Guard, string) {
	t.Helper()
	g, dir := newWorkspaceGuard(t)
	g.syntaxLimits.Timeout = 0
	return g, dir
}

// spyParse makes g's checks call parse in place of syntax.Check, and
// returns a function giving the most memory the budget had reserved
// while any of them ran.
func spyParse(g *Guard, parse func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result) func() int64 {
	var mu sync.Mutex
	peak := int64(0)
	g.syntaxParse = func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result {
		mu.Lock()
		peak = max(peak, g.syntaxBudget.Used())
		mu.Unlock()
		return parse(ctx, path, src, lim)
	}
	return func() int64 {
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

// TestSyntaxBudgetReleased: a check reserves the memory of the sides it
// parses, both at once, and gives it back however the parse ends: with
// errors found, not checked (as past its deadline), or in a panic.
func TestSyntaxBudgetReleased(t *testing.T) {
	before, after := []byte(goFile(1, 2000)), []byte(goFile(1, 2000)+"func broken( {\n")
	both := syntax.Cost("go", len(before)) + syntax.Cost("go", len(after))
	tests := []struct {
		name     string
		before   []byte
		parse    func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result
		reserved int64
		outcome  syntax.Comparison
		panics   bool
	}{
		{name: "errors added", before: before, parse: syntax.Check, reserved: both},
		{name: "created", parse: syntax.Check, reserved: syntax.Cost("go", len(after))},
		{name: "not checked in time", before: before, reserved: both, parse: func(context.Context, string, []byte, syntax.Limits) syntax.Result {
			return syntax.Result{Lang: "go", Reason: "the syntax check took longer than its bound"}
		}},
		{name: "panic in the side after", before: before, reserved: both, panics: true,
			parse: func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result {
				if len(src) == len(after) {
					panic("parser bug")
				}
				return syntax.Check(ctx, path, src, lim)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, _ := budgetGuard(t)
			peak := spyParse(g, tt.parse)
			panicked := func() (p any) {
				defer func() { p = recover() }()
				g.compareCached("a.go", tt.before, after)
				return nil
			}()
			if (panicked != nil) != tt.panics {
				t.Fatalf("panic %v, want one: %v", panicked, tt.panics)
			}
			if peak() != tt.reserved {
				t.Errorf("reserved %d while parsing, want %d", peak(), tt.reserved)
			}
			if g.syntaxBudget.Used() != 0 || g.syntaxBudget.Holds() != 0 {
				t.Errorf("%d bytes in %d holds still reserved after the check", g.syntaxBudget.Used(), g.syntaxBudget.Holds())
			}
		})
	}
}

// TestSyntaxBudgetRefused: a write whose check the budget cannot grant is
// made all the same, not checked, with the reason; so is one that the
// budget could never grant. Once the memory is free again, the same write
// is checked. A cached side costs nothing.
func TestSyntaxBudgetRefused(t *testing.T) {
	content := goFile(2, 4000)
	cost := syntax.Cost("go", len(content))
	tests := []struct {
		name   string
		limit  int64
		held   int64 // reserved by another check during the write
		reason string
	}{
		{"fits", cost, 0, ""},
		{"held by another check", cost, 1, "1 other syntax check was holding the memory all syntax checks may hold at once"},
		{"larger than the budget", cost - 1, 0, "more than all syntax checks may hold at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, dir := budgetGuard(t)
			g.syntaxBudget = syntax.NewBudget(tt.limit)
			other, why := g.syntaxBudget.Reserve(tt.held)
			if why != "" {
				t.Fatal(why)
			}
			ex := runSyntaxCall(t, g, "write_to_file", map[string]any{"path": "a.go", "content": content}, false)
			other.Release()
			data, err := os.ReadFile(filepath.Join(dir, "a.go"))
			if err != nil || string(data) != content || !ex.OK() || !ex.Applied {
				t.Fatalf("not written: %v, ok %v, applied %v", err, ex.OK(), ex.Applied)
			}
			if len(ex.Syntax) != 1 {
				t.Fatalf("checks %+v", ex.Syntax)
			}
			sc := ex.Syntax[0]
			switch {
			case tt.reason == "" && sc.Outcome != SyntaxClean:
				t.Errorf("outcome %s (%s), want clean", sc.Outcome, sc.Reason)
			case tt.reason != "" && (sc.Outcome != SyntaxNotChecked || sc.Lang != "go" || !strings.Contains(sc.Reason, tt.reason)):
				t.Errorf("outcome %s in %q: %q, want not checked: %q", sc.Outcome, sc.Lang, sc.Reason, tt.reason)
			}
			if g.syntaxBudget.Used() != 0 {
				t.Errorf("%d bytes still reserved", g.syntaxBudget.Used())
			}
		})
	}

	// Cached, the side before costs nothing: an edit of the file just
	// written reserves the side after alone.
	g, _ := budgetGuard(t)
	peak := spyParse(g, syntax.Check)
	runSyntaxCall(t, g, "write_to_file", map[string]any{"path": "a.go", "content": content}, false)
	ex := runSyntaxCall(t, g, "edit", map[string]any{"path": "a.go", "old_text": "package f2", "new_text": "package g2"}, false)
	if !ex.Applied || len(ex.Syntax) != 1 || ex.Syntax[0].Outcome != SyntaxClean || peak() != cost {
		t.Errorf("edit: applied %v, checks %+v, reserved at most %d, want %d", ex.Applied, ex.Syntax, peak(), cost)
	}
}

// TestSyntaxBudgetConcurrentWrites: writes of large files at once, more
// than the budget holds checks of: every write is made; as many are
// checked as the budget holds (each parse waits until every write has
// either begun its parse or come back unchecked, so no timing decides it),
// the others are not checked and say why; the memory reserved never
// passes the budget, and is all given back.
func TestSyntaxBudgetConcurrentWrites(t *testing.T) {
	const writes, fit = 6, 2
	contents := make([]string, writes)
	for i := range contents {
		contents[i] = goFile(i, 20_000)
	}
	size := len(contents[0])
	for _, c := range contents {
		size = max(size, len(c))
	}
	limit := fit * syntax.Cost("go", size)
	g, dir := budgetGuard(t)
	g.syntaxBudget = syntax.NewBudget(limit)
	arrived, parse := make(chan struct{}, writes), make(chan struct{})
	peak := spyParse(g, func(ctx context.Context, path string, src []byte, lim syntax.Limits) syntax.Result {
		arrived <- struct{}{}
		<-parse
		return syntax.Check(ctx, path, src, lim)
	})

	checks := make([]SyntaxCheck, writes)
	var wg sync.WaitGroup
	for i, content := range contents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ex := runSyntaxCall(t, g, "write_to_file", map[string]any{"path": fmt.Sprintf("f%d.go", i), "content": content}, false)
			if !ex.Applied || len(ex.Syntax) != 1 {
				t.Errorf("write %d: applied %v, checks %+v", i, ex.Applied, ex.Syntax)
				arrived <- struct{}{}
				return
			}
			checks[i] = ex.Syntax[0]
			if checks[i].Outcome == SyntaxNotChecked {
				arrived <- struct{}{}
			}
		}()
	}
	for range writes {
		<-arrived
	}
	close(parse)
	wg.Wait()

	checked := 0
	for i, sc := range checks {
		switch sc.Outcome {
		case SyntaxClean:
			checked++
		case SyntaxNotChecked:
			if !strings.Contains(sc.Reason, "2 other syntax checks were holding the memory") {
				t.Errorf("write %d: not checked: %q", i, sc.Reason)
			}
		default:
			t.Errorf("write %d: outcome %s", i, sc.Outcome)
		}
		if data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i))); err != nil || string(data) != contents[i] {
			t.Errorf("write %d: not written (%v)", i, err)
		}
	}
	if checked != fit || peak() > limit {
		t.Errorf("%d writes checked, want %d; at most %d bytes reserved at once, budget %d", checked, fit, peak(), limit)
	}
	if g.syntaxBudget.Used() != 0 || g.syntaxBudget.Holds() != 0 {
		t.Errorf("%d bytes in %d holds still reserved", g.syntaxBudget.Used(), g.syntaxBudget.Holds())
	}
}
