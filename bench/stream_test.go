package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kaptinlin/jsonrepair"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// The streaming comparison: the verdict on a write call whose arguments
// stream in 16-byte deltas, on 64 KB to 4 MB of arguments, four ways:
//
//   - stream: toolguard's StreamToolCalls core (guard.Stream) fed 16-byte
//     deltas: the incremental parser with a parameter preview per delta,
//     then the verdict when the call closes;
//   - validate: guard.Validate on the whole text, what a caller gets by
//     not streaming at all (no previews). The target is against it:
//     stream_vs_validate at most 2 at 1 MB and 2.5 at 4 MB, in wall time
//     and (stream_vs_validate_cpu) in the process's CPU time (cpuTime);
//   - oneshot: the same stream fed the whole text in one delta (the
//     stream's own parser with no split), shown for reference;
//   - naive: what agents do today to show a call while it streams:
//     re-parse the accumulated prefix after each delta with
//     github.com/kaptinlin/jsonrepair. Its cost grows with the square of
//     the size, so it is measured on 256 evenly spaced deltas and scaled
//     to all of them (each re-parse costs in proportion to its prefix, so
//     the sample's mean is the mean); up to 1 MB only, since at 4 MB one
//     estimate alone takes seconds.
const deltaBytes = 16

// writeArgs is about size bytes of write_to_file arguments whose content
// looks like source code: quotes, backslashes, braces, tags, non-ASCII.
func writeArgs(size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "func f%d() { s := \"</content> é \\\\ {}\" } // line\n", i)
	}
	raw, _ := json.Marshal(map[string]string{"path": "src/big.go", "content": b.String()})
	return string(raw)
}

func newBenchGuard(b *testing.B) *guard.Guard {
	b.Helper()
	g, cleanup, err := guard.New(guard.DefaultConfig(), guard.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cleanup() })
	return g
}

// benchSession names a new session for each call, so repeating the same
// call in a benchmark never makes it a REPEATED_CALL mistake.
var benchSession atomic.Int64

func newSessionID() string { return fmt.Sprintf("bench-%d", benchSession.Add(1)) }

// streamVerdict streams args in deltas of n bytes as a write_to_file call
// and returns the verdict.
func streamVerdict(g *guard.Guard, args string, n int) (*guard.Verdict, error) {
	return streamToolVerdict(g, "write_to_file", nil, args, n)
}

// streamToolVerdict streams args in deltas of n bytes as a call of the
// tool name, tools declared beside the built-in ones, and returns the
// verdict.
func streamToolVerdict(g *guard.Guard, name string, tools []repair.ToolDef, args string, n int) (*guard.Verdict, error) {
	ctx := context.Background()
	s, err := g.OpenStream(guard.StreamRequest{SessionID: newSessionID(), Format: stream.OpenAI,
		MaxCallBytes: 64 << 20, MaxParamBytes: 64 << 20, Tools: tools})
	if err != nil {
		return nil, err
	}
	deltas := []stream.ToolDelta{{Index: 0, ID: "call_1", Name: name}}
	if _, err := s.ToolDeltas(ctx, deltas); err != nil {
		return nil, err
	}
	for i := 0; i < len(args); i += n {
		deltas[0] = stream.ToolDelta{Index: 0, Arguments: args[i:min(i+n, len(args))]}
		if _, err := s.ToolDeltas(ctx, deltas); err != nil {
			return nil, err
		}
	}
	events, _, err := s.End(ctx, "tool_calls")
	if err != nil {
		return nil, err
	}
	for _, e := range events {
		if e.Verdict != nil {
			return e.Verdict, nil
		}
	}
	return nil, fmt.Errorf("no verdict")
}

func validateVerdict(g *guard.Guard, args string) (*guard.Verdict, error) {
	return g.Validate(context.Background(), guard.ValidateRequest{SessionID: newSessionID(),
		Call: repair.Call{Name: "write_to_file", Form: repair.FormText, Text: args}})
}

// naiveSampled re-parses the prefix at 256 evenly spaced deltas and
// returns the time scaled to every delta. A prefix kaptinlin cannot repair
// is skipped, as an agent would skip that update.
func naiveSampled(args string) time.Duration {
	n := (len(args) + deltaBytes - 1) / deltaBytes
	samples := min(n, 256)
	var spent time.Duration
	for k := range samples {
		end := min((k*n/samples+1)*deltaBytes, len(args))
		start := time.Now()
		_, _ = jsonrepair.Repair(args[:end])
		spent += time.Since(start)
	}
	return spent * time.Duration(n) / time.Duration(samples)
}

func BenchmarkStreamVsOneShot(b *testing.B) {
	g := newBenchGuard(b)
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		args := writeArgs(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			// Every way must reach the same verdict.
			sv, err := streamVerdict(g, args, deltaBytes)
			if err != nil {
				b.Fatal(err)
			}
			ov, err := validateVerdict(g, args)
			if err != nil {
				b.Fatal(err)
			}
			if !sv.OK() || string(sv.ArgumentsJSON) != string(ov.ArgumentsJSON) {
				b.Fatalf("stream and one-shot verdicts differ: ok=%v %v", sv.OK(), sv.Violations)
			}
			sides := []struct {
				name    string
				run     func()
				ns, cpu float64
			}{
				{name: "stream", run: func() { _, _ = streamVerdict(g, args, deltaBytes) }},
				{name: "validate", run: func() { _, _ = validateVerdict(g, args) }},
				{name: "oneshot", run: func() { _, _ = streamVerdict(g, args, len(args)) }},
			}
			var naiveNS float64
			naive := size <= 1<<20
			iter := 0
			for b.Loop() {
				for k := range sides {
					s := &sides[(k+iter)%len(sides)] // rotate, so no side always runs after the naive one's garbage
					start, cpu := time.Now(), cpuTime()
					s.run()
					s.ns += float64(time.Since(start))
					s.cpu += float64(cpuTime() - cpu)
				}
				if naive {
					naiveNS += float64(naiveSampled(args))
				}
				iter++
			}
			it := float64(iter)
			for _, s := range sides {
				b.ReportMetric(s.ns/it/1e6, s.name+"-ms")
			}
			streamNS := sides[0].ns
			b.ReportMetric(streamNS/sides[1].ns, "stream_vs_validate")
			b.ReportMetric(sides[0].cpu/sides[1].cpu, "stream_vs_validate_cpu")
			b.ReportMetric(streamNS/sides[2].ns, "stream_vs_oneshot")
			if naive {
				b.ReportMetric(naiveNS/it/1e6, "naive-est-ms")
				b.ReportMetric(naiveNS/streamNS, "naive_vs_stream")
			}
		})
	}
}
