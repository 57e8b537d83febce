package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
)

// conformanceCase is one line of repair/testdata/json_repair_cases.jsonl,
// the pairs from the test suites of josdejong/jsonrepair and
// mangiucugna/json_repair that repair's TestConformance scores toolguard on.
type conformanceCase struct {
	Input    string          `json:"input"`
	Expected json.RawMessage `json:"expected"`
}

func loadConformance(tb testing.TB) []conformanceCase {
	tb.Helper()
	f, err := os.Open("../repair/testdata/json_repair_cases.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var out []conformanceCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c conformanceCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("conformance corpus line %d: %v", len(out)+1, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// conformancePass scores one side's answer as TestConformance does: values
// compared decoded, numbers as float64; a null expectation means the input
// must be rejected.
func conformancePass(c conformanceCase, v any, err error) bool {
	if string(c.Expected) == "null" {
		return err != nil
	}
	if err != nil {
		return false
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var got, want any
	if json.Unmarshal(raw, &got) != nil || json.Unmarshal(c.Expected, &want) != nil {
		return false
	}
	return reflect.DeepEqual(got, want)
}

// conformanceSides are the two sides scored on the conformance corpus: a
// value or an error from one input.
var conformanceSides = []struct {
	name string
	run  func(string) (any, error)
}{
	{"toolguard", tgRepair},
	{"kaptinlin", func(s string) (any, error) {
		out, err := kapRepair(s)
		if err != nil {
			return nil, err
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			return nil, fmt.Errorf("output is not JSON: %w", err)
		}
		return v, nil
	}},
}

// BenchmarkRepairConformance runs toolguard and kaptinlin/jsonrepair over
// the conformance corpus and reports how many cases each passes
// ({toolguard,kaptinlin}-passed, of conformance-cases): the accuracy figure
// beside the throughput of BenchmarkRepairRatios.
func BenchmarkRepairConformance(b *testing.B) {
	cases := loadConformance(b)
	passed := make([]int, len(conformanceSides))
	for b.Loop() {
		for i, side := range conformanceSides {
			passed[i] = 0
			for _, c := range cases {
				v, err := side.run(c.Input)
				if conformancePass(c, v, err) {
					passed[i]++
				}
			}
		}
	}
	for i, side := range conformanceSides {
		b.ReportMetric(float64(passed[i]), side.name+"-passed")
	}
	b.ReportMetric(float64(len(cases)), "conformance-cases")
}
