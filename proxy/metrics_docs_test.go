package proxy

import (
	"os"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestMetricsDocumented: docs/proxy.md names every metric the proxy serves
// and every value of its labels, so an action added to the code (rescued
// was once missing) cannot go undocumented.
func TestMetricsDocumented(t *testing.T) {
	page, err := os.ReadFile("../docs/proxy.md")
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(newProxyMetrics(ModeObserve).vec)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range families {
		if !strings.Contains(string(page), "`"+f.GetName()+"{") {
			t.Errorf("docs/proxy.md does not name the metric %s", f.GetName())
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "mode" {
					continue // the process's mode, documented with --mode
				}
				seen++
				if !strings.Contains(string(page), "`"+l.GetValue()+"`") {
					t.Errorf("docs/proxy.md does not give %s's %s value `%s`", f.GetName(), l.GetName(), l.GetValue())
				}
			}
		}
	}
	if seen < len(actions) {
		t.Fatalf("%d label values seen, want at least the %d actions", seen, len(actions))
	}
}
