package proxy

import "github.com/prometheus/client_golang/prometheus"

// proxyMetrics counts what the proxy did with each call of a target tool:
// toolguard_proxy_calls_total{api, action, mode}: in observe mode the
// action is the one enforce would have taken. (The verdicts, repairs and
// violations are the guard's Observer's, as for the gRPC service.) A nil
// *proxyMetrics counts nothing.
type proxyMetrics struct {
	vec   *prometheus.CounterVec
	cells map[api]map[action]prometheus.Counter
}

func newProxyMetrics(mode string) *proxyMetrics {
	if mode == "" {
		mode = ModeEnforce
	}
	m := &proxyMetrics{
		vec: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "toolguard", Name: "proxy_calls_total",
			Help: "Tool calls of target tools in answers the proxy passed on, by API (openai, anthropic) and action " +
				"(unchanged, repaired, invalid: sent as written, refused: an error sent instead, truncated, too_large, " +
				"rescued: found in the answer's text and sent as a tool call) " +
				"and mode (enforce; observe: nothing changed, the action is the one enforce would have taken).",
		}, []string{"api", "action", "mode"}),
		cells: map[api]map[action]prometheus.Counter{},
	}
	// Every series exists from the start, at zero: the label values are a
	// fixed set (the mode is the process's).
	for _, a := range []api{apiOpenAI, apiAnthropic} {
		m.cells[a] = map[action]prometheus.Counter{}
		for _, act := range actions {
			m.cells[a][act] = m.vec.WithLabelValues(a.String(), string(act), mode)
		}
	}
	return m
}

func (m *proxyMetrics) call(a api, act action) {
	if m != nil {
		m.cells[a][act].Inc()
	}
}
