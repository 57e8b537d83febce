package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// result is one benchmark's metrics, the median over its -count runs.
type result struct {
	name    string
	metrics map[string]float64
}

// procSuffix is the -GOMAXPROCS suffix go test appends to a benchmark name;
// it is dropped so captures from machines with different core counts match.
var procSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads `go test -bench` output and returns each benchmark's
// metrics (ns/op, MB/s and every b.ReportMetric unit), keyed by name
// without the GOMAXPROCS suffix. Lines that are not benchmark results
// (goos:, PASS, logs) are skipped; a result line that does not follow the
// format is an error, so a truncated capture is noticed.
func parseBench(r io.Reader) (map[string]result, error) {
	runs := map[string][]map[string]float64{}
	var order []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		// A result line is the name, the iteration count, then value/unit
		// pairs; "BenchmarkX" alone on a line is go test's progress output.
		if len(f) < 2 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		if len(f)%2 != 0 {
			return nil, fmt.Errorf("line %d: a value without its unit: %q", line, sc.Text())
		}
		m := map[string]float64{}
		for i := 2; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: metric %s: %w", line, f[i+1], err)
			}
			m[f[i+1]] = v
		}
		name := procSuffix.ReplaceAllString(f[0], "")
		if _, seen := runs[name]; !seen {
			order = append(order, name)
		}
		runs[name] = append(runs[name], m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the benchmark output: %w", err)
	}
	out := make(map[string]result, len(runs))
	for _, name := range order {
		out[name] = result{name: name, metrics: medians(runs[name])}
	}
	return out, nil
}

// medians is, per unit, the median of the runs that report it: on a
// shared machine one slow run should not move the picture.
func medians(runs []map[string]float64) map[string]float64 {
	vals := map[string][]float64{}
	for _, m := range runs {
		for u, v := range m {
			vals[u] = append(vals[u], v)
		}
	}
	out := make(map[string]float64, len(vals))
	for u, vs := range vals {
		sort.Float64s(vs)
		n := len(vs)
		if n%2 == 1 {
			out[u] = vs[n/2]
		} else {
			out[u] = (vs[n/2-1] + vs[n/2]) / 2
		}
	}
	return out
}

// metric returns one benchmark's metric, or an error naming what is
// missing and how the capture is made.
func metric(rs map[string]result, bench, unit string) (float64, error) {
	r, ok := rs[bench]
	if !ok {
		return 0, fmt.Errorf("no result for %s in the benchmark output (run `make bench-plots`)", bench)
	}
	v, ok := r.metrics[unit]
	if !ok {
		return 0, fmt.Errorf("%s reports no %q metric", bench, unit)
	}
	return v, nil
}
