package mcp

import (
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of an MCP tool call, as its metrics label them: ok, mistake (a
// result with isError: the model's call was refused or failed, and the
// result says what to change), error (a protocol error: the server's fault
// or a cancelled call).
const (
	outcomeOK      = "ok"
	outcomeMistake = "mistake"
	outcomeError   = "error"
)

// callMetrics counts the MCP tool calls and times them, by tool:
// toolguard_mcp_calls_total{tool, outcome} and
// toolguard_mcp_call_duration_seconds{tool}. The verdicts, repairs and
// violations are the guard's Observer's, as for the other front ends. A nil
// *callMetrics records nothing.
type callMetrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// The metrics' names, as dashboards and alerts know them.
const (
	metricCalls    = "toolguard_mcp_calls_total"
	metricDuration = "toolguard_mcp_call_duration_seconds"
)

// MetricNames lists the metrics a server with Options.Metrics exports
// itself, for checking dashboards and alert rules against.
func MetricNames() []string { return []string{metricCalls, metricDuration} }

// Registerer takes collectors: a prometheus.Registry, or the metrics
// endpoint of observe.
type Registerer interface {
	Register(prometheus.Collector) error
}

func newCallMetrics(reg Registerer) (*callMetrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &callMetrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricCalls,
			Help: "MCP tool calls, by tool and outcome (ok; mistake: a result with isError that tells the model what to change; error: a protocol error).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    metricDuration,
			Help:    "Time to answer an MCP tool call, by tool.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 4, 10),
		}, []string{"tool"}),
	}
	for _, c := range []prometheus.Collector{m.calls, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// call records one call of tool, started at start.
func (m *callMetrics) call(tool string, start time.Time, res *sdk.CallToolResult, err error) {
	if m == nil {
		return
	}
	outcome := outcomeOK
	switch {
	case err != nil:
		outcome = outcomeError
	case res != nil && res.IsError:
		outcome = outcomeMistake
	}
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(time.Since(start).Seconds())
}
