package observe

import "github.com/prometheus/client_golang/prometheus"

// Connections is a front end's connection limit, as
// internal/lifecycle.ConnLimit keeps it.
type Connections interface {
	Open() int
	Max() int
	Refused() uint64
}

// The connection metrics' names, the same in every front end.
const (
	ConnectionsOpenMetric    = "toolguard_connections_open"
	ConnectionsMaxMetric     = "toolguard_connections_max"
	ConnectionsRefusedMetric = "toolguard_connections_refused_total"
)

// ConnectionMetrics exports c: the connections open now beside the limit,
// so an alert can fire before clients are refused, and those refused.
func ConnectionMetrics(c Connections) prometheus.Collector {
	return Collectors{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: ConnectionsOpenMetric,
			Help: "Client connections open now on the front end's port."},
			func() float64 { return float64(c.Open()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: ConnectionsMaxMetric,
			Help: "Most client connections open at once (--max-connections); more are closed at once."},
			func() float64 { return float64(c.Max()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: ConnectionsRefusedMetric,
			Help: "Client connections closed at once because --max-connections were open."},
			func() float64 { return float64(c.Refused()) }),
	}
}

// Collectors registers several collectors as one.
type Collectors []prometheus.Collector

func (cs Collectors) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range cs {
		c.Describe(ch)
	}
}

func (cs Collectors) Collect(ch chan<- prometheus.Metric) {
	for _, c := range cs {
		c.Collect(ch)
	}
}
