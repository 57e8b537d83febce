package main

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseBench(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  map[string]map[string]float64
	}{{
		name: "custom metrics, MB/s, the GOMAXPROCS suffix dropped, other lines skipped",
		input: "goos: linux\npkg: x\nBenchmarkRepairRatios-2   \t       1\t 171315928 ns/op\t        73.65 broken-kaptinlin+decode-MB/s\t       100.0 broken-toolguard-recovered-%\n" +
			"BenchmarkRepair-8 \t 50\t 2000 ns/op\t 512.5 MB/s\t 16 B/op\t 1 allocs/op\nPASS\nok  \tx\t2.4s\n",
		want: map[string]map[string]float64{
			"BenchmarkRepairRatios": {"ns/op": 171315928, "broken-kaptinlin+decode-MB/s": 73.65, "broken-toolguard-recovered-%": 100},
			"BenchmarkRepair":       {"ns/op": 2000, "MB/s": 512.5, "B/op": 16, "allocs/op": 1},
		},
	}, {
		name:  "sub-benchmarks keep their path; units may hold non-ASCII",
		input: "BenchmarkServerOverhead/log=error-2  3  475983306 ns/op  51.19 validate-cpu-µs/call\n",
		want:  map[string]map[string]float64{"BenchmarkServerOverhead/log=error": {"ns/op": 475983306, "validate-cpu-µs/call": 51.19}},
	}, {
		name:  "-count runs: the median per unit (odd count)",
		input: "BenchmarkA-2 1 30 ns/op 5 x\nBenchmarkA-2 1 10 ns/op 1 x\nBenchmarkA-2 1 20 ns/op 9 x\n",
		want:  map[string]map[string]float64{"BenchmarkA": {"ns/op": 20, "x": 5}},
	}, {
		name:  "-count runs: the mean of the middle two (even count)",
		input: "BenchmarkA 1 10 ns/op\nBenchmarkA 1 40 ns/op\nBenchmarkA 1 20 ns/op\nBenchmarkA 1 30 ns/op\n",
		want:  map[string]map[string]float64{"BenchmarkA": {"ns/op": 25}},
	}, {
		name:  "progress lines and logs that start with Benchmark are not results",
		input: "BenchmarkStreamVsOneShot\nBenchmarkStreamVsOneShot/64KB\n    BenchmarkX is slow\n",
		want:  map[string]map[string]float64{},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := parseBench(strings.NewReader(tt.input))
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]map[string]float64{}
			for name, r := range rs {
				got[name] = r.metrics
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestParseBenchErrors(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"a value without its unit", "BenchmarkA-2 1 30 ns/op 5\n", `line 1: a value without its unit: "BenchmarkA-2 1 30 ns/op 5"`},
		{"a value that is not a number", "goos: linux\nBenchmarkA-2 1 3O ns/op\n", `line 2: metric ns/op: strconv.ParseFloat: parsing "3O": invalid syntax`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseBench(strings.NewReader(tt.input))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestMetricMissing(t *testing.T) {
	rs := map[string]result{"BenchmarkA": {name: "BenchmarkA", metrics: map[string]float64{"ns/op": 1}}}
	for _, tt := range []struct{ bench, unit, want string }{
		{"BenchmarkB", "ns/op", "no result for BenchmarkB in the benchmark output (run `make bench-plots`)"},
		{"BenchmarkA", "MB/s", `BenchmarkA reports no "MB/s" metric`},
	} {
		if _, err := metric(rs, tt.bench, tt.unit); err == nil || err.Error() != tt.want {
			t.Errorf("metric(%s, %s): error %v, want %s", tt.bench, tt.unit, err, tt.want)
		}
	}
}

// FuzzParseBench checks that no input makes the parser panic, and that
// every result it accepts is a named benchmark.
func FuzzParseBench(f *testing.F) {
	f.Add("BenchmarkA-2 1 30 ns/op 5 x\n")
	f.Add("BenchmarkServerOverhead/log=error-2  3  4.7e8 ns/op  51.19 validate-cpu-µs/call\n")
	f.Add("BenchmarkA-2 1 30 ns/op 5\n")
	f.Add("goos: linux\nBenchmarkA\nPASS\n")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := parseBench(strings.NewReader(s))
		if err != nil {
			return
		}
		for name, r := range rs {
			if !strings.HasPrefix(name, "Benchmark") || r.name != name {
				t.Errorf("result %q under the name %q", r.name, name)
			}
		}
	})
}
