package main

import (
	"fmt"
	"math"
	"strconv"
)

// chart is one picture: its file name under the output folder and how it
// is drawn from the parsed results.
type chart struct {
	file string
	draw func(map[string]result) ([]byte, error)
}

var charts = []chart{
	{"stream-growth.svg", streamGrowth},
	{"repair-vs-peer.svg", repairVsPeer},
	{"validate-vs-health.svg", validateVsHealth},
}

// streamSizes are BenchmarkStreamVsOneShot's sub-benchmarks, in KB.
var streamSizes = []int{64, 256, 1024, 4096}

// streamGrowth is BenchmarkStreamVsOneShot's time per call by argument
// size: the stream in 16-byte deltas, Validate on the whole text, and the
// naive re-parse after every delta (estimated; measured up to 1 MB only).
func streamGrowth(rs map[string]result) ([]byte, error) {
	sides := []series{
		{label: "naive re-parse (est.)", color: colorPeer, dashed: true},
		{label: "stream, 16 B deltas", color: colorOurs},
		{label: "one-shot Validate", color: colorBase},
	}
	units := []string{"naive-est-ms", "stream-ms", "validate-ms"}
	var xTicks []tick
	for _, kb := range streamSizes {
		name := fmt.Sprintf("BenchmarkStreamVsOneShot/%dKB", kb)
		xTicks = append(xTicks, tick{float64(kb), sizeLabel(kb)})
		for i, u := range units {
			v, err := metric(rs, name, u)
			if err != nil {
				if u == "naive-est-ms" && kb > 1024 {
					continue // too slow to estimate even from a sample
				}
				return nil, err
			}
			sides[i].xs = append(sides[i].xs, float64(kb))
			sides[i].ys = append(sides[i].ys, v)
		}
	}
	return logLogChart("Time to check one streamed write call, by argument size (log-log)",
		"arguments", "time per call", xTicks, msLabel, sides)
}

// repairVsPeer is BenchmarkRepairRatios (throughput on the broken corpus
// and the share of broken documents each side recovered) and
// BenchmarkRepairConformance (cases passed of the conformance corpus),
// toolguard beside github.com/kaptinlin/jsonrepair.
func repairVsPeer(rs map[string]result) ([]byte, error) {
	const name = "BenchmarkRepairRatios"
	get := func(unit string) (float64, error) { return metric(rs, name, unit) }
	var vals [5]float64
	for i, u := range []string{"broken-toolguard-MB/s", "broken-kaptinlin-MB/s", "broken-kaptinlin+decode-MB/s",
		"broken-toolguard-recovered-%", "broken-kaptinlin-recovered-%"} {
		v, err := get(u)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	var conf [3]float64
	for i, u := range []string{"toolguard-passed", "kaptinlin-passed", "conformance-cases"} {
		v, err := metric(rs, "BenchmarkRepairConformance", u)
		if err != nil {
			return nil, err
		}
		conf[i] = v
	}
	return barChart("JSON repair: toolguard beside kaptinlin/jsonrepair", "Top two: bench/'s broken corpus, truncated documents aside for accuracy (no intended value). Bottom: repair/testdata's cases.",
		[]panel{
			{title: "Throughput on broken JSON (higher is better)", unit: "MB/s", bars: []bar{
				{"toolguard", vals[0], colorOurs},
				{"kaptinlin (text)", vals[1], colorPeer},
				{"kaptinlin + decode", vals[2], colorAlt},
			}},
			{title: "Documents repaired to the value the model meant (higher is better)", unit: "%", bars: []bar{
				{"toolguard", vals[3], colorOurs},
				{"kaptinlin", vals[4], colorPeer},
			}},
			{title: "Conformance cases passed, suites of jsonrepair and json_repair (higher is better)", unit: "of " + strconv.Itoa(int(conf[2])), bars: []bar{
				{"toolguard", conf[0], colorOurs},
				{"kaptinlin", conf[1], colorPeer},
			}},
		})
}

// validateVsHealth is BenchmarkServerOverhead at log level error: calls per
// second and server CPU per call of ValidateToolCall on a repaired 1 KB call,
// beside the health check and an echo of the same bytes (the floor of any
// gRPC call that size).
func validateVsHealth(rs map[string]result) ([]byte, error) {
	const name = "BenchmarkServerOverhead/log=error"
	sides := []struct{ label, prefix, color string }{
		{"Health/Check", "health", colorBase},
		{"echo, same bytes", "echo", colorAlt},
		{"ValidateToolCall", "validate", colorOurs},
	}
	rate, cpu := panel{title: "Calls per second, 50 concurrent callers (higher is better)", unit: "calls/s"},
		panel{title: "Server CPU per call (lower is better)", unit: "µs"}
	for _, s := range sides {
		r, err := metric(rs, name, s.prefix+"-calls/s")
		if err != nil {
			return nil, err
		}
		c, err := metric(rs, name, s.prefix+"-cpu-µs/call")
		if err != nil {
			return nil, err
		}
		rate.bars = append(rate.bars, bar{s.label, r, s.color})
		cpu.bars = append(cpu.bars, bar{s.label, c, s.color})
	}
	return barChart("ValidateToolCall beside the cheapest gRPC calls, same server, same run",
		"Loopback gRPC, 1 KB write call with a repair; echo moves the same request and response sizes and does no work.",
		[]panel{rate, cpu})
}

// sizeLabel prints a size in KB as "64 KB" or "4 MB".
func sizeLabel(kb int) string {
	if kb >= 1024 && kb%1024 == 0 {
		return strconv.Itoa(kb/1024) + " MB"
	}
	return strconv.Itoa(kb) + " KB"
}

// msLabel prints a time in milliseconds at the unit a reader expects; the
// axis asks only for powers of ten.
func msLabel(ms float64) string {
	f := func(v float64) string { return strconv.FormatFloat(math.Round(v*1000)/1000, 'f', -1, 64) }
	switch {
	case ms >= 1000:
		return f(ms/1000) + " s"
	case ms >= 1:
		return f(ms) + " ms"
	default:
		return f(ms*1000) + " µs"
	}
}
