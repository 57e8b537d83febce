package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// paramStage is one step a many-parameter call goes through, or a floor to
// compare it with. prep makes its input outside the measured time; run
// does the step on it.
type paramStage struct {
	name string
	prep func(args string) any
	run  func(in any)
}

// decodeArgs is args as a strict parse builds them (numbers as
// json.Number), the map a stream parser hands the validation.
func decodeArgs(args string) any {
	d := json.NewDecoder(bytes.NewReader([]byte(args)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

func paramStages(b *testing.B) []paramStage {
	reg, err := repair.NewRegistryWithoutTools()
	if err != nil {
		b.Fatal(err)
	}
	tool, err := reg.Compile(openTool)
	if err != nil {
		b.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("open.json", openTool.Parameters); err != nil {
		b.Fatal(err)
	}
	schema, err := c.Compile("open.json")
	if err != nil {
		b.Fatal(err)
	}
	keys := func(args string) any {
		m := decodeArgs(args).(map[string]any)
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		return ks
	}
	text := func(args string) any { return args }
	return []paramStage{
		{"parser", text, func(in any) {
			args := in.(string)
			p, _ := stream.New(stream.OpenAI, stream.Options{MaxCallBytes: 64 << 20}, func(stream.Event) {})
			_ = p.ToolDelta(stream.ToolDelta{Index: 0, ID: "call_1", Name: "f"})
			for i := 0; i < len(args); i += deltaBytes {
				_ = p.ToolDelta(stream.ToolDelta{Index: 0, Arguments: args[i:min(i+deltaBytes, len(args))]})
			}
			_ = p.End(false)
		}},
		{"validate", decodeArgs, func(in any) {
			r := reg.Validate(repair.Call{Name: openTool.Name, Parsed: in.(map[string]any)}, repair.Options{Tools: []*repair.Tool{tool}})
			if len(r.Violations) > 0 {
				panic(fmt.Sprint(r.Violations))
			}
		}},
		{"schema_library", decodeArgs, func(in any) {
			if err := schema.Validate(in); err != nil {
				panic(err)
			}
		}},
		{"encode", decodeArgs, func(in any) { _, _ = repair.EncodeArgs(in.(map[string]any)) }},
		{"floor_json_decode", text, func(in any) { decodeArgs(in.(string)) }},
		{"floor_map_fill", keys, func(in any) {
			ks := in.([]string)
			m := map[string]any{}
			for _, k := range ks {
				m[k] = k
			}
		}},
	}
}

// BenchmarkParamStages measures each step of a many-parameter call, and
// two floors (encoding/json decoding the same object into a map, and a Go
// map filled with its keys), at 10k, 100k and 1M parameters alternately in
// one run, and reports each one's cost at 100k over 10k and at 1M over
// 100k in CPU time: 10 when linear. It finds the step that is not.
func BenchmarkParamStages(b *testing.B) {
	sizes := []int{10_000, 100_000, 1_000_000}
	calls := make([]string, len(sizes))
	for i, n := range sizes {
		calls[i] = manyParams(n)
	}
	for _, st := range paramStages(b) {
		b.Run(st.name, func(b *testing.B) {
			cpu := make([]float64, len(sizes))
			iter := 0
			for b.Loop() {
				for k := range sizes {
					j := (k + iter) % len(sizes)
					in := st.prep(calls[j])
					runtime.GC() // the input's garbage is not the step's
					c := cpuTime()
					st.run(in)
					cpu[j] += float64(cpuTime() - c)
				}
				iter++
			}
			b.ReportMetric(cpu[0]/float64(iter)/1e6, "10k-ms")
			b.ReportMetric(cpu[1]/cpu[0], "100k_vs_10k_cpu")
			b.ReportMetric(cpu[2]/cpu[1], "1M_vs_100k_cpu")
		})
	}
}
