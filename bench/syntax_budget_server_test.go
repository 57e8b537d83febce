//go:build cgo && linux

package bench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	toolguardv1 "github.com/toolguard/toolguard/gen/toolguard/v1"
)

// syntaxBudgets are the servers BenchmarkSyntaxBudgetServer runs side by
// side: one whose budget grants everything (as before the budget), the
// default, and a pod's quarter of 512 MiB.
var syntaxBudgets = []struct {
	name  string
	bytes int64
}{
	{"unbounded", 1 << 40},
	{"default_1GiB", 1 << 30},
	{"budget_128MiB", 128 << 20},
}

// BenchmarkSyntaxBudgetServer sends 12 writes of new 4 MiB Python files at
// once to server processes on loopback that differ only in
// --syntax-check-max-memory (syntaxBudgets), each round to each server in
// turn, the order reversed every round, and reports each server's peak
// resident set over the run (peak_rss-MB), its ratio to the unbounded
// server's (peak_rss_vs_unbounded), and the writes checked per round (the
// median; the others answered not checked for memory). The checks' timeout
// is a minute, so that every check granted ends parsed whatever the
// machine's speed: the figures are memory, not time.
//
//	go test -run '^$' -bench SyntaxBudgetServer -benchtime 3x ./bench/
func BenchmarkSyntaxBudgetServer(b *testing.B) {
	const writes = 12
	size := 4<<20 - 4<<10 // within --syntax-check-max-bytes
	if testing.Short() {  // make bench-smoke: that it runs, not its figures
		size = 512 << 10
	}
	b.Setenv("TOOLGUARD_SYNTAX_CHECK_TIMEOUT", "1m")
	type side struct {
		name    string
		s       *benchServer
		checked []float64
	}
	var sides []*side
	for _, sb := range syntaxBudgets {
		b.Setenv("TOOLGUARD_SYNTAX_CHECK_MAX_MEMORY", strconv.FormatInt(sb.bytes, 10))
		sides = append(sides, &side{name: sb.name, s: startBenchServer(b, "info")})
	}
	base := memorySource("python", size)
	round := 0
	for b.Loop() {
		order := inTurn(sides, round)
		for _, sd := range order {
			checked, err := concurrentWrites(sd.s, round, writes, base)
			if err != nil {
				b.Fatalf("%s: %v", sd.name, err)
			}
			sd.checked = append(sd.checked, float64(checked))
		}
		round++
	}
	ident := func(x float64) float64 { return x }
	unbounded := sides[0].s.mem(b).hwm
	for _, sd := range sides {
		hwm := sd.s.mem(b).hwm
		b.ReportMetric(float64(hwm)/(1<<20), sd.name+"_peak_rss-MB")
		b.ReportMetric(float64(hwm)/float64(unbounded), sd.name+"_peak_rss_vs_unbounded")
		b.ReportMetric(median(sd.checked, ident), sd.name+"_checked")
	}
}

// concurrentWrites writes n new Python files of base's size to s at once
// and returns how many were checked; each must be written, and checked or
// not checked.
func concurrentWrites(s *benchServer, round, n int, base string) (int, error) {
	client := toolguardv1.NewToolGuardServiceClient(s.conn)
	var wg sync.WaitGroup
	outcomes := make([]toolguardv1.SyntaxOutcome, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := fmt.Sprintf("r%d/f%d.py", round, i)
			args := fmt.Sprintf(`{"path": %q, "content": %q}`, path, fmt.Sprintf("# round %d, file %d\n", round, i)+base)
			r, err := client.ExecuteWrite(context.Background(), &toolguardv1.ExecuteWriteRequest{
				Context: &toolguardv1.RequestContext{SessionId: path},
				Call:    &toolguardv1.ToolCall{Name: "write_to_file", Arguments: &toolguardv1.ToolCall_ArgumentsText{ArgumentsText: args}}})
			switch {
			case err != nil:
				errs[i] = err
			case !r.GetVerdict().GetOk() || len(r.GetSyntaxChecks()) != 1:
				errs[i] = fmt.Errorf("%s: ok %v, checks %v", path, r.GetVerdict().GetOk(), r.GetSyntaxChecks())
			default:
				outcomes[i] = r.GetSyntaxChecks()[0].GetOutcome()
			}
		}()
	}
	wg.Wait()
	checked := 0
	for i, o := range outcomes {
		switch {
		case errs[i] != nil:
			return 0, errs[i]
		case o == toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_CLEAN:
			checked++
		case o != toolguardv1.SyntaxOutcome_SYNTAX_OUTCOME_NOT_CHECKED:
			return 0, fmt.Errorf("write %d: outcome %s", i, o)
		}
	}
	return checked, nil
}
