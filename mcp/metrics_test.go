package mcp_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/mcp"
)

// TestCallMetrics: each tool call is counted by tool and outcome and timed,
// in memory and over HTTP alike.
func TestCallMetrics(t *testing.T) {
	for name, connect := range transports {
		t.Run(name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			s, _ := newServer(t, guard.Config{}, mcp.Options{Metrics: reg})
			cs := connect(t, s, newClient())
			call(t, cs, "write_to_file", `{"path": "a.txt", "content": "hi"}`)
			call(t, cs, "write_to_file", `{"path": "b.txt"}`) // content missing: a mistake
			call(t, cs, "read_file", `{"path": "a.txt"}`)
			want := map[[2]string]float64{
				{"write_to_file", "ok"}: 1, {"write_to_file", "mistake"}: 1, {"read_file", "ok"}: 1, {"edit", "ok"}: 0,
			}
			calls, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			got := map[[2]string]float64{}
			timed := map[string]uint64{}
			for _, mf := range calls {
				for _, m := range mf.GetMetric() {
					labels := map[string]string{}
					for _, l := range m.GetLabel() {
						labels[l.GetName()] = l.GetValue()
					}
					switch mf.GetName() {
					case "toolguard_mcp_calls_total":
						got[[2]string{labels["tool"], labels["outcome"]}] = m.GetCounter().GetValue()
					case "toolguard_mcp_call_duration_seconds":
						timed[labels["tool"]] = m.GetHistogram().GetSampleCount()
					}
				}
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("calls %v = %v, want %v (all: %v)", k, got[k], v, got)
				}
			}
			if timed["write_to_file"] != 2 || timed["read_file"] != 1 {
				t.Errorf("timed %v, want 2 writes and 1 read", timed)
			}
			if len(got) != 3 {
				t.Errorf("%d call series, want 3: %v", len(got), got)
			}
		})
	}
}
