package service_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/service"
	"github.com/toolguard/toolguard/syntax"
)

// budgetGoFile is a Go file of about size bytes that parses, its own by n.
func budgetGoFile(n, size int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package f%d\n\n", n)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func f%d_%d(a int) int {\n\treturn a * %d\n}\n\n", n, i, i)
	}
	return b.String()
}

// TestSyntaxBudgetOverTheWire: with --syntax-check-max-memory, a write
// whose check needs more than the budget is made and answered NOT_CHECKED
// with the reason, one within it is checked; writes at once, more than the
// budget holds checks of, are all made, each checked or not checked for
// the memory the others hold (how many of each is the machine's timing).
func TestSyntaxBudgetOverTheWire(t *testing.T) {
	small, large := budgetGoFile(0, 1000), budgetGoFile(1, 20_000)
	limit := 2 * syntax.Cost("go", len(large)+100)
	// A timeout no machine reaches: every check granted ends parsed.
	c, ws := startWorkspace(t, service.Config{Config: guard.Config{SyntaxMaxMemory: limit, SyntaxTimeout: time.Hour}})
	ctx := context.Background()
	write := func(path, content string) *toolguardv1.SyntaxCheck {
		t.Helper()
		r, err := c.ExecuteWrite(ctx, &toolguardv1.ExecuteWriteRequest{Context: &toolguardv1.RequestContext{SessionId: path},
			Call: jsonCall(t, "write_to_file", map[string]any{"path": path, "content": content})})
		if err != nil {
			t.Error(err)
			return nil
		}
		if !r.GetVerdict().GetOk() || readFile(t, filepath.Join(ws, path)) != content || len(r.GetSyntaxChecks()) != 1 {
			t.Errorf("%s: ok %v, checks %v; want written", path, r.GetVerdict().GetOk(), r.GetSyntaxChecks())
			return nil
		}
		return r.GetSyntaxChecks()[0]
	}

	if sc := write("small.go", small); sc.GetOutcome() != toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_CLEAN {
		t.Errorf("small: %v, want clean", sc)
	}
	huge := budgetGoFile(2, int(limit/16)+1000)
	if sc := write("huge.go", huge); sc.GetOutcome() != toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_NOT_CHECKED || sc.GetLanguage() != "go" ||
		!strings.Contains(sc.GetReason(), "more than all syntax checks may hold at once") {
		t.Errorf("huge: %v, want not checked for memory", sc)
	}

	const writes = 6
	checks := make([]*toolguardv1.SyntaxCheck, writes)
	var wg sync.WaitGroup
	for i := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			checks[i] = write(fmt.Sprintf("f%d.go", i), budgetGoFile(10+i, 20_000))
		}()
	}
	wg.Wait()
	checked := 0
	for i, sc := range checks {
		switch {
		case sc.GetOutcome() == toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_CLEAN:
			checked++
		case sc.GetOutcome() != toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_NOT_CHECKED || !strings.Contains(sc.GetReason(), "holding the memory all syntax checks may hold at once"):
			t.Errorf("write %d: %v", i, sc)
		}
	}
	if checked == 0 {
		t.Error("no write checked: the first to reserve finds the budget empty")
	}
}
