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
	"github.com/toolguard/toolguard/session"
)

// The streaming comparison (issue 5): the verdict on a write call whose
// arguments stream in 16-byte deltas, three ways, on 64 KB, 256 KB and
// 1 MB of arguments:
//
//   - stream: toolguard's StreamToolCalls core (guard.Stream): the
//     incremental parser with its parameter previews, then the verdict
//     when the call closes;
//   - oneshot: the same verdict from the whole text at once
//     (guard.Validate), what a caller gets by waiting for the end;
//   - naive: what agents do today to show a call while it streams:
//     re-parse the accumulated prefix after each delta with
//     github.com/kaptinlin/jsonrepair. Its cost grows with the square of
//     the size, so it is measured on 256 evenly spaced deltas and scaled
//     to all of them (each re-parse costs in proportion to its prefix, so
//     the sample's mean is the mean).
//
// Target: stream ≤ 3× oneshot on 1 MB.

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
	reg, err := repair.NewRegistry()
	if err != nil {
		b.Fatal(err)
	}
	store := session.NewMemory(session.MemoryOptions{})
	b.Cleanup(func() { _ = store.Close() })
	g, err := guard.New(guard.Config{Registry: reg, Sessions: store, MistakeLimit: 3})
	if err != nil {
		b.Fatal(err)
	}
	return g
}

// benchSession names a new session for each call, so repeating the same
// call in a benchmark never makes it a REPEATED_CALL mistake.
var benchSession atomic.Int64

func newSessionID() string { return fmt.Sprintf("bench-%d", benchSession.Add(1)) }

// streamVerdict streams args in 16-byte deltas and returns the verdict.
func streamVerdict(g *guard.Guard, args string) (*guard.Verdict, error) {
	ctx := context.Background()
	s, err := g.OpenStream(guard.StreamRequest{SessionID: newSessionID(), Format: stream.OpenAI, MaxCallBytes: 64 << 20, MaxParamBytes: 64 << 20})
	if err != nil {
		return nil, err
	}
	deltas := []stream.ToolDelta{{Index: 0, ID: "call_1", Name: "write_to_file"}}
	if _, err := s.ToolDeltas(ctx, deltas); err != nil {
		return nil, err
	}
	for i := 0; i < len(args); i += deltaBytes {
		deltas[0] = stream.ToolDelta{Index: 0, Arguments: args[i:min(i+deltaBytes, len(args))]}
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

func oneshotVerdict(g *guard.Guard, args string) (*guard.Verdict, error) {
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
	for _, size := range []int{64 << 10, 256 << 10, 1 << 20} {
		args := writeArgs(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			// Both ways must reach the same verdict.
			sv, err := streamVerdict(g, args)
			if err != nil {
				b.Fatal(err)
			}
			ov, err := oneshotVerdict(g, args)
			if err != nil {
				b.Fatal(err)
			}
			if !sv.OK() || string(sv.ArgumentsJSON) != string(ov.ArgumentsJSON) {
				b.Fatalf("stream and one-shot verdicts differ: ok=%v %v", sv.OK(), sv.Violations)
			}
			var streamNS, oneshotNS, naiveNS float64
			iter := 0
			for b.Loop() {
				t0 := time.Now()
				if _, err := streamVerdict(g, args); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if _, err := oneshotVerdict(g, args); err != nil {
					b.Fatal(err)
				}
				streamNS += float64(t1.Sub(t0))
				oneshotNS += float64(time.Since(t1))
				naiveNS += float64(naiveSampled(args))
				iter++
			}
			it := float64(iter)
			b.ReportMetric(streamNS/it/1e6, "stream-ms")
			b.ReportMetric(oneshotNS/it/1e6, "oneshot-ms")
			b.ReportMetric(naiveNS/it/1e6, "naive-est-ms")
			b.ReportMetric(streamNS/oneshotNS, "stream_vs_oneshot")
			b.ReportMetric(naiveNS/streamNS, "naive_vs_stream")
		})
	}
}
