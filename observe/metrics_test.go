package observe

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// gather collects reg's families by name.
func gather(t *testing.T, reg *prometheus.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

// seriesValue returns the counter value of name's series with these labels.
func seriesValue(families map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	for _, m := range families[name].GetMetric() {
		var got []string
		for _, l := range m.GetLabel() {
			got = append(got, l.GetName(), l.GetValue())
		}
		if slices.Equal(got, labels) {
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}

func newTestProductMetrics(t *testing.T) (*productMetrics, *prometheus.Registry) {
	t.Helper()
	reg, err := repair.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	p := newProductMetrics(toolNames(reg))
	r := prometheus.NewRegistry()
	if err := r.Register(p); err != nil {
		t.Fatal(err)
	}
	return p, r
}

// verdict builds a verdict as the guard would conclude it.
// It is usable when it has no violation.
func verdict(family string, repairs, violations []string, limitReached bool) *guard.Verdict {
	res := &repair.Result{Family: family}
	for _, c := range repairs {
		res.Repairs = append(res.Repairs, repair.Repair{Code: c})
	}
	for _, c := range violations {
		res.Violate(c, "", "")
	}
	return &guard.Verdict{Result: res, Mistakes: guard.MistakeState{LimitReached: limitReached}}
}

// TestProductMetricsMapping checks what each observation counts, under
// which labels.
func TestProductMetricsMapping(t *testing.T) {
	p, reg := newTestProductMetrics(t)
	p.Verdict(verdict(repair.FamilyNativeNextGen, []string{"TOOL_ALIAS", "ALIAS_RENAMED", "ALIAS_RENAMED"}, nil, false), "write_to_file")
	p.Verdict(verdict(repair.FamilyGeneric, nil, []string{"MISSING_REQUIRED", "MISSING_REQUIRED", "REPEATED_CALL"}, true), "edit")
	p.Verdict(verdict(repair.FamilyGeneric, nil, []string{"UNKNOWN_TOOL"}, false), guard.ToolLabelOther)
	p.Execution(&guard.Execution{Edits: []guard.EditOutcome{
		{EditResult: edit.EditResult{Status: edit.StatusApplied, Strategy: edit.StrategyFuzzy}},
		{EditResult: edit.EditResult{Status: edit.StatusNotFound}},
		{EditResult: edit.EditResult{Status: edit.StatusNotFound, Gated: edit.StrategyBlockAnchor}},
	}, Syntax: []guard.SyntaxCheck{{Lang: "go", Outcome: guard.SyntaxAdded}, {Lang: "yaml", Outcome: guard.SyntaxClean}, {Lang: "cobol", Outcome: guard.SyntaxClean}}})
	p.StreamCall(stream.Hermes, guard.StreamCallTruncated)
	p.StreamCall(stream.Format(99), guard.StreamCallUsable)

	f := gather(t, reg)
	want := []struct {
		name   string
		labels []string
		value  float64
	}{
		{"toolguard_verdicts_total", []string{"outcome", "usable", "tool", "write_to_file"}, 1},
		{"toolguard_syntax_checks_total", []string{"lang", "go", "outcome", "added"}, 1},
		{"toolguard_syntax_checks_total", []string{"lang", "yaml", "outcome", "clean"}, 1},
		{"toolguard_syntax_checks_total", []string{"lang", "other", "outcome", "clean"}, 1},
		{"toolguard_verdicts_total", []string{"outcome", "unusable", "tool", "edit"}, 1},
		{"toolguard_verdicts_total", []string{"outcome", "unusable", "tool", "other"}, 1},
		{"toolguard_repairs_total", []string{"code", "TOOL_ALIAS", "model_family", "native-next-gen"}, 1},
		{"toolguard_repairs_total", []string{"code", "ALIAS_RENAMED", "model_family", "native-next-gen"}, 1},
		{"toolguard_violations_total", []string{"code", "MISSING_REQUIRED", "tool", "edit"}, 1},
		{"toolguard_violations_total", []string{"code", "REPEATED_CALL", "tool", "edit"}, 1},
		{"toolguard_violations_total", []string{"code", "UNKNOWN_TOOL", "tool", "other"}, 1},
		{"toolguard_mistake_limit_reached_total", []string{"model_family", "generic"}, 1},
		{"toolguard_edit_outcomes_total", []string{"rung", "FUZZY", "status", "APPLIED"}, 1},
		{"toolguard_edit_outcomes_total", []string{"rung", "none", "status", "NOT_FOUND"}, 1},
		{"toolguard_edit_outcomes_total", []string{"rung", "BLOCK_ANCHOR", "status", "NOT_FOUND"}, 1},
		{"toolguard_stream_calls_total", []string{"format", "hermes", "outcome", "truncated"}, 1},
		{"toolguard_stream_calls_total", []string{"format", "other", "outcome", "usable"}, 1},
	}
	for _, w := range want {
		if got, ok := seriesValue(f, w.name, w.labels...); !ok || got != w.value {
			t.Errorf("%s%v = %v (present %v), want %v", w.name, w.labels, got, ok, w.value)
		}
	}
	// Nothing was written, so the bytes counter is still zero, and only the
	// label pairs that occurred are exported.
	if got := f["toolguard_written_bytes_total"].GetMetric()[0].GetCounter().GetValue(); got != 0 {
		t.Errorf("written bytes = %v, want 0", got)
	}
	if n := len(f["toolguard_violations_total"].GetMetric()); n != 3 {
		t.Errorf("violations_total has %d series, want the 3 that occurred", n)
	}
}

// TestProductMetricsCardinalityIsBounded feeds every label a stream of
// values no one listed and checks they all land on "other": the number of
// series cannot grow with what models and callers send.
func TestProductMetricsCardinalityIsBounded(t *testing.T) {
	p, reg := newTestProductMetrics(t)
	for i := range 500 {
		junk := fmt.Sprintf("junk-%d", i)
		p.Verdict(verdict(junk, []string{junk}, []string{junk}, true), junk)
		p.Execution(&guard.Execution{Edits: []guard.EditOutcome{{EditResult: edit.EditResult{
			Status: edit.Status(junk), Strategy: edit.Strategy(junk)}}}, Syntax: []guard.SyntaxCheck{{Lang: junk, Outcome: guard.SyntaxOutcome(junk)}}})
		p.StreamCall(stream.Format(1000+i), guard.StreamCallOutcome(junk))
	}
	f := gather(t, reg)
	for name, mf := range f {
		if n := len(mf.GetMetric()); n != 1 {
			t.Errorf("%s has %d series after 500 unknown values, want 1 (all other)", name, n)
		}
		for _, l := range mf.GetMetric()[0].GetLabel() {
			if name == "toolguard_verdicts_total" && l.GetName() == "outcome" {
				continue // derived from the verdict: usable or unusable
			}
			if l.GetValue() != labelOther {
				t.Errorf("%s: %s=%q, want %q", name, l.GetName(), l.GetValue(), labelOther)
			}
		}
	}
	if got, _ := seriesValue(f, "toolguard_violations_total", "code", "other", "tool", "other"); got != 500 {
		t.Errorf("violations{other,other} = %v, want 500", got)
	}

	// The most series any family can reach is the product of its labels'
	// fixed sets.
	bounds := map[string]int{
		"toolguard_verdicts_total":              len(p.tools.names) * len(p.outcomes.names),
		"toolguard_repairs_total":               len(p.repairCodes.names) * len(p.families.names),
		"toolguard_violations_total":            len(p.violationCodes.names) * len(p.tools.names),
		"toolguard_mistake_limit_reached_total": len(p.families.names),
		"toolguard_edit_outcomes_total":         len(p.statuses.names) * len(p.rungs.names),
		"toolguard_stream_calls_total":          len(p.formats.names) * len(p.streamOutcomes.names),
		"toolguard_syntax_checks_total":         len(p.langs.names) * len(p.syntaxOutcomes.names),
	}
	for name, bound := range bounds {
		if bound > 400 {
			t.Errorf("%s can reach %d series", name, bound)
		}
	}
	tools, err := repair.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	// The server's own tools, custom and other: never a name a model wrote.
	if !slices.Contains(p.tools.names, "write_to_file") || !slices.Contains(p.tools.names, guard.ToolLabelCustom) || len(p.tools.names) != len(toolNames(tools)) {
		t.Errorf("tool label set = %v, want the server's tools, custom and other", p.tools.names)
	}
}

// TestProductMetricsDoNotAllocate holds the hot path to its promise: once a
// series exists, counting it allocates nothing.
func TestProductMetricsDoNotAllocate(t *testing.T) {
	p, _ := newTestProductMetrics(t)
	v := verdict(repair.FamilyGeneric, []string{"JSON_REPAIRED", "TYPE_COERCED"}, []string{"MISSING_REQUIRED", "REPEATED_CALL"}, true)
	ex := &guard.Execution{Edits: []guard.EditOutcome{{EditResult: edit.EditResult{Status: edit.StatusApplied, Strategy: edit.StrategyExact}}}}
	observe := func() {
		p.Verdict(v, "write_to_file")
		p.Execution(ex)
		p.StreamCall(stream.OpenAI, guard.StreamCallUnusable)
	}
	observe() // create the series
	if allocs := testing.AllocsPerRun(100, observe); allocs != 0 {
		t.Errorf("observing a call allocates %v times, want 0", allocs)
	}
}

// TestNotCountedCountsOnlyStoreOutages checks that calls left uncounted by
// an unreachable store are counted, and calls with no session to count
// (the proxy without its session header) are not.
func TestNotCountedCountsOnlyStoreOutages(t *testing.T) {
	p, reg := newTestProductMetrics(t)
	outage := verdict(repair.FamilyGeneric, nil, nil, false)
	outage.Mistakes = guard.MistakeState{NotCounted: true, StoreUnavailable: true}
	noSession := verdict(repair.FamilyGeneric, nil, nil, false)
	noSession.Mistakes = guard.MistakeState{NotCounted: true}
	p.Verdict(outage, "write_to_file")
	p.Verdict(outage, "edit")
	p.Verdict(noSession, "edit")
	if got, _ := seriesValue(gather(t, reg), "toolguard_mistakes_not_counted_total"); got != 2 {
		t.Errorf("toolguard_mistakes_not_counted_total = %v, want 2", got)
	}
}

// TestMetricNames checks that an endpoint names every metric it can
// export, before any series exists.
func TestMetricNames(t *testing.T) {
	ep, err := NewEndpoint("127.0.0.1:0", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ep.Stop() })
	reg, err := repair.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ep.Observer(reg); err != nil {
		t.Fatal(err)
	}
	names := ep.MetricNames()
	for _, want := range []string{"toolguard_build_info", "toolguard_verdicts_total", "toolguard_repairs_total",
		"toolguard_mistakes_not_counted_total", "go_goroutines", "process_resident_memory_bytes"} {
		if !slices.Contains(names, want) {
			t.Errorf("MetricNames lacks %s: %v", want, names)
		}
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("MetricNames is not sorted and unique: %v", names)
	}
}
