package bench

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
)

// manyParams is an arguments object of n short parameters, strings and
// numbers: a call whose cost is in its keys, not its bytes.
func manyParams(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		if i%4 == 3 {
			fmt.Fprintf(&b, "\"p%d\":%d", i, i)
		} else {
			fmt.Fprintf(&b, "\"p%d\":\"v%d\"", i, i)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// openTool takes any parameters: every one of a many-parameter call is
// kept, checked and encoded, none refused as unknown.
var openTool = repair.ToolDef{Name: "configure", Parameters: map[string]any{
	"type": "object", "additionalProperties": map[string]any{"type": []any{"string", "integer"}},
}}

// streamParams streams args in 16-byte deltas to openTool and returns the
// verdict.
func streamParams(g *guard.Guard, args string) (*guard.Verdict, error) {
	return streamToolVerdict(g, openTool.Name, []repair.ToolDef{openTool}, args, deltaBytes)
}

// BenchmarkStreamParams streams calls of 10,000 and 100,000 parameters in
// 16-byte deltas through the StreamToolCalls core, to the verdict,
// alternately in one run, and reports the second's cost over the first's:
// 10 when a stream is linear in its parameters (params_100k_vs_10k in
// wall time, _cpu in the process's CPU time). Two floors run in the same
// loop, on the same objects: encoding/json decoding the arguments into a
// map[string]any (floor_json_…), and a Go map filled with their keys
// (floor_map_…). excess_ns_per_param is what a parameter of the 100k call
// costs over one of the 10k call, in CPU time: what is not linear.
func BenchmarkStreamParams(b *testing.B) { streamParamsRatio(b, 10_000, "10k", "100k") }

// BenchmarkStreamParamsMillion is BenchmarkStreamParams with calls of
// 100,000 and 1,000,000 parameters (params_1m_vs_100k): a step that is
// quadratic would show there.
func BenchmarkStreamParamsMillion(b *testing.B) { streamParamsRatio(b, 100_000, "100k", "1m") }

// streamParamsRatio streams calls of n and 10n parameters alternately and
// reports their costs, named small and big, and the floors'.
func streamParamsRatio(b *testing.B, n int, small, big string) {
	g := newBenchGuard(b)
	calls := [2]string{manyParams(n), manyParams(10 * n)}
	var keys [2][]string
	for i, args := range calls {
		v, err := streamParams(g, args)
		if err != nil {
			b.Fatal(err)
		}
		if !v.OK() || len(v.ArgumentsJSON) != len(args) {
			b.Fatalf("verdict: ok=%v %v, %d bytes of arguments for %d", v.OK(), v.Violations, len(v.ArgumentsJSON), len(args))
		}
		for k := range decodeArgs(args).(map[string]any) {
			keys[i] = append(keys[i], k)
		}
	}
	sides := []func(j int){
		func(j int) { _, _ = streamParams(g, calls[j]) },
		func(j int) { decodeArgs(calls[j]) },
		func(j int) {
			m := map[string]any{}
			for _, k := range keys[j] {
				m[k] = k
			}
		},
	}
	ns, cpu := make([][2]float64, len(sides)), make([][2]float64, len(sides))
	iter := 0
	for b.Loop() {
		for s, run := range sides {
			for k := range calls {
				j := (k + iter) % len(calls) // alternate which runs first
				start, c := time.Now(), cpuTime()
				run(j)
				ns[s][j] += float64(time.Since(start))
				cpu[s][j] += float64(cpuTime() - c)
			}
		}
		iter++
	}
	excess := func(c [2]float64) float64 { return (c[1]/float64(10*n) - c[0]/float64(n)) / float64(iter) }
	ratio := big + "_vs_" + small
	b.ReportMetric(ns[0][0]/float64(iter)/1e6, small+"-ms")
	b.ReportMetric(ns[0][1]/float64(iter)/1e6, big+"-ms")
	b.ReportMetric(ns[0][1]/ns[0][0], "params_"+ratio)
	b.ReportMetric(cpu[0][1]/cpu[0][0], "params_"+ratio+"_cpu")
	b.ReportMetric(excess(cpu[0]), "excess_ns_per_param")
	b.ReportMetric(cpu[1][1]/cpu[1][0], "floor_json_"+ratio+"_cpu")
	b.ReportMetric(cpu[2][1]/cpu[2][0], "floor_map_"+ratio+"_cpu")
	b.ReportMetric(excess(cpu[2]), "floor_map_excess_ns_per_param")
}

// BenchmarkStreamParamsBatch streams a million parameters each way per
// round, alternately: 100 calls of 10,000 and 10 calls of 100,000. Its
// ratio (params_100k_vs_10k_cpu, per parameter: 10 when linear) is
// BenchmarkStreamParams's with more work per measure, less at the mercy
// of one collection landing in one small call. The floor runs in the same
// loop on the same texts: encoding/json decoding them into a
// map[string]any (floor_json_100k_vs_10k_cpu).
func BenchmarkStreamParamsBatch(b *testing.B) {
	g := newBenchGuard(b)
	calls := [2]string{manyParams(10_000), manyParams(100_000)}
	reps := [2]int{100, 10}
	sides := []func(j int){
		func(j int) {
			if _, err := streamParams(g, calls[j]); err != nil {
				b.Fatal(err)
			}
		},
		func(j int) { decodeArgs(calls[j]) },
	}
	cpu := make([][2]float64, len(sides))
	iter := 0
	for b.Loop() {
		for s, run := range sides {
			for k := range calls {
				j := (k + iter) % len(calls)
				c := cpuTime()
				for range reps[j] {
					run(j)
				}
				cpu[s][j] += float64(cpuTime() - c)
			}
		}
		iter++
	}
	b.ReportMetric(cpu[0][0]/float64(iter)/1e6, "100x10k-cpu-ms")
	b.ReportMetric(cpu[0][1]/float64(iter)/1e6, "10x100k-cpu-ms")
	b.ReportMetric(10*cpu[0][1]/cpu[0][0], "params_100k_vs_10k_cpu")
	b.ReportMetric(10*cpu[1][1]/cpu[1][0], "floor_json_100k_vs_10k_cpu")
}
