package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	grpcprom "github.com/grpc-ecosystem/go-grpc-middleware/providers/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

// metricsPath is where the metrics server serves the Prometheus exposition.
const metricsPath = "/metrics"

// metrics is the server's Prometheus instrumentation, on when
// cfg.MetricsListen is set: a registry of its own (never the global one, so
// several servers in one process do not collide) holding go-grpc-middleware's
// gRPC server metrics, the Go and process collectors and the product's
// counters (productMetrics), and the HTTP server that serves it on a port
// apart from the gRPC one.
//
// Its lifecycle follows the server's: New binds the listener (a bind
// failure fails startup), Serve starts the HTTP server, and the "metrics
// server" cleanup stops it after the gRPC server has stopped.
type metrics struct {
	registry *prometheus.Registry
	grpc     *grpcprom.ServerMetrics
	log      *zap.Logger
	lis      net.Listener
	http     *http.Server
	timeout  time.Duration

	// served is closed when the HTTP server's Serve returns; nil until
	// start.
	mu     sync.Mutex
	served chan struct{}
}

// grpcHandlingBuckets are the buckets of grpc_server_handling_seconds:
// validation takes well under a millisecond, edits of large files and
// streams far longer.
var grpcHandlingBuckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}

// newMetrics builds the registry with the gRPC server metrics and binds
// cfg.MetricsListen. The HTTP server starts with start.
func newMetrics(cfg Config, log *zap.Logger) (*metrics, error) {
	grpcMetrics := grpcprom.NewServerMetrics(
		grpcprom.WithServerHandlingTimeHistogram(grpcprom.WithHistogramBuckets(grpcHandlingBuckets)),
	)
	m, err := newMetricsEndpoint(cfg.MetricsListen, cfg.ShutdownTimeout, log, grpcMetrics)
	if err != nil {
		return nil, err
	}
	m.grpc = grpcMetrics
	return m, nil
}

// newMetricsEndpoint builds a registry holding the Go and process
// collectors and extra, and binds listen; stopping waits at most
// shutdownTimeout (and releaseTimeout) for scrapes in flight.
func newMetricsEndpoint(listen string, shutdownTimeout time.Duration, log *zap.Logger, extra ...prometheus.Collector) (*metrics, error) {
	reg := prometheus.NewRegistry()
	for _, c := range append([]prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}, extra...) {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register metrics: %w", err)
		}
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(context.Background(), "tcp", listen)
	if err != nil {
		return nil, fmt.Errorf("metrics: listen on %s: %w", listen, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+metricsPath, promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: zap.NewStdLog(log),
		// A failing collector leaves the others' metrics served.
		ErrorHandling: promhttp.ContinueOnError,
		// Scrapes are cheap but not free; a flood of them is refused.
		MaxRequestsInFlight: 8,
	})))
	return &metrics{
		registry: reg,
		log:      log,
		lis:      lis,
		timeout:  min(shutdownTimeout, releaseTimeout),
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			WriteTimeout:      30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			ErrorLog:          zap.NewStdLog(log),
		},
	}, nil
}

// addr is the bound address of the metrics listener.
func (m *metrics) addr() net.Addr { return m.lis.Addr() }

// observer builds the product's counters for a guard with the given tool
// registry, registers them and returns them as the guard's observer.
func (m *metrics) observer(tools *repair.Registry) (guard.Observer, error) {
	p := newProductMetrics(toolNames(tools))
	if err := m.registry.Register(p); err != nil {
		return nil, fmt.Errorf("register product metrics: %w", err)
	}
	return p, nil
}

// start serves the metrics until stop.
func (m *metrics) start() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.served = make(chan struct{})
	m.log.Info("serving metrics", zap.String("address", m.lis.Addr().String()), zap.String("path", metricsPath))
	go func() {
		defer close(m.served)
		if err := m.http.Serve(m.lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// Metrics failing is no reason to stop serving calls.
			m.log.Error("metrics server failed", zap.Error(err))
		}
	}()
}

// stop shuts the HTTP server down, letting scrapes in flight finish within
// the timeout, or closes the listener when it never started.
func (m *metrics) stop() error {
	m.mu.Lock()
	served := m.served
	m.mu.Unlock()
	if served == nil {
		return m.lis.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.timeout)
	defer cancel()
	err := m.http.Shutdown(ctx)
	if err != nil {
		err = errors.Join(err, m.http.Close())
	}
	<-served
	if err == nil {
		m.log.Info("metrics server stopped")
	}
	return err
}

// MetricsServer is the Prometheus endpoint of a front end other than the
// gRPC server (the proxy): the same /metrics as the server's, from a
// registry of its own holding the Go and process collectors, the product's
// counters (Observer) and whatever the front end registers. It has no gRPC
// metrics.
//
// NewMetricsServer binds the address (a bind failure fails startup), Start
// serves, Stop stops; Stop may be called without Start.
type MetricsServer struct{ m *metrics }

// NewMetricsServer builds the registry and binds listen. Stop waits at most
// shutdownTimeout (and never more than 5 s) for scrapes in flight. log may
// be nil.
func NewMetricsServer(listen string, shutdownTimeout time.Duration, log *zap.Logger) (*MetricsServer, error) {
	if log == nil {
		log = zap.NewNop()
	}
	m, err := newMetricsEndpoint(listen, shutdownTimeout, log)
	if err != nil {
		return nil, err
	}
	return &MetricsServer{m: m}, nil
}

// Observer builds the product's counters (toolguard_verdicts_total,
// toolguard_repairs_total...) for a guard with the given tool registry,
// registers them and returns them as the guard's Observer. Call it once.
func (s *MetricsServer) Observer(tools *repair.Registry) (guard.Observer, error) {
	return s.m.observer(tools)
}

// Register adds a front end's own collectors. Their label values must come
// from fixed sets, as the product's do.
func (s *MetricsServer) Register(c prometheus.Collector) error { return s.m.registry.Register(c) }

// Addr returns the bound address.
func (s *MetricsServer) Addr() net.Addr { return s.m.addr() }

// Start serves /metrics until Stop.
func (s *MetricsServer) Start() { s.m.start() }

// Stop shuts the endpoint down, letting scrapes in flight finish within
// the timeout, or closes the listener when it never started.
func (s *MetricsServer) Stop() error { return s.m.stop() }

// withMetricsInterceptor returns chain with the gRPC metrics link right
// after logging: inside logging, so the handling time it measures leaves out
// writing the access log; outside recovery (and whatever else checks the call
// on its way in, such as authentication), so a panic is counted as Internal
// and a refused call with its code, like any other. Without logging in the
// chain it goes first.
func withMetricsInterceptor(chain []interceptor, m *grpcprom.ServerMetrics) []interceptor {
	link := interceptor{name: "metrics", unary: m.UnaryServerInterceptor(), stream: m.StreamServerInterceptor()}
	at := 0
	for i, ic := range chain {
		if ic.name == "logging" {
			at = i + 1
			break
		}
	}
	out := make([]interceptor, 0, len(chain)+1)
	out = append(out, chain[:at]...)
	out = append(out, link)
	return append(out, chain[at:]...)
}

// validateObservability checks the metrics and tracing settings.
func (c Config) validateObservability() []error {
	var errs []error
	if c.MetricsListen != "" {
		_, port, err := net.SplitHostPort(c.MetricsListen)
		if err != nil {
			errs = append(errs, fmt.Errorf("metrics listen address %q: want host:port", c.MetricsListen))
		} else if _, grpcPort, err := net.SplitHostPort(c.Listen); err == nil && port == grpcPort && port != "0" {
			errs = append(errs, fmt.Errorf("metrics listen address %q uses the gRPC port %s: metrics need a port of their own", c.MetricsListen, port))
		}
	}
	if e := c.OTLPEndpoint; e != "" {
		if strings.Contains(e, "://") {
			if u, err := url.Parse(e); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				errs = append(errs, fmt.Errorf("OTLP endpoint %q: want host:port or an http(s):// URL", e))
			}
		} else if _, _, err := net.SplitHostPort(e); err != nil {
			errs = append(errs, fmt.Errorf("OTLP endpoint %q: want host:port or an http(s):// URL", e))
		}
	}
	return errs
}

// The product's counters.

// labelOther is the value of a label for anything outside its known set.
const labelOther = "other"

// Known label values. Anything else is counted as "other": what a model or
// a caller sends can never add a series. A code added to repair or guard
// later shows up as "other" until it is listed here.
var (
	repairCodeValues = []string{
		repair.CodeToolAlias, repair.CodeAliasRenamed, repair.CodeDuplicateDropped,
		repair.CodeRawArgumentsUnwrapped, repair.CodeDoubleEncoded, repair.CodeJSONRepaired,
		repair.CodePythonLiteral, repair.CodeTypeCoerced, repair.CodeCodeFenceStripped,
		repair.CodeEscapesDecoded, repair.CodeHTMLEntitiesDecoded, repair.CodeLineNumbersStripped,
		repair.CodeReplacementCharsRemoved,
	}
	violationCodeValues = []string{
		repair.CodeMissingRequired, repair.CodeUnexpectedParam, repair.CodeWrongType,
		repair.CodeInvalidValue, repair.CodeConflictingParams, repair.CodeUnparseable,
		repair.CodeUnknownTool, repair.CodeUnsupportedCommand, repair.CodeTruncated,
		repair.CodePlaceholderContent, repair.CodeRepeatedCall, repair.CodeOutsideWorkspace,
		repair.CodeDeniedPath,
		guard.CodeEditNotFound, guard.CodeEditAmbiguous, guard.CodeFileNotFound,
		guard.CodeFileExists, guard.CodeNotRegular, guard.CodeFileTooLarge,
	}
	familyValues     = []string{repair.FamilyGeneric, repair.FamilyNativeNextGen, repair.FamilyNativeGPT5}
	editStatusValues = []string{
		string(edit.StatusApplied), string(edit.StatusAlreadyApplied),
		string(edit.StatusNotFound), string(edit.StatusAmbiguous), string(edit.StatusNoOp),
	}
	// rungNone is the rung of an edit no rung matched.
	rungNone   = "none"
	rungValues = []string{
		string(edit.StrategyExact), string(edit.StrategyTrimEnd), string(edit.StrategyTrim),
		string(edit.StrategyUnicode), string(edit.StrategyIndent), string(edit.StrategyBlockAnchor),
		string(edit.StrategyFuzzy), rungNone,
	}
	observedStreamFormats = []stream.Format{stream.XMLTags, stream.OpenAI, stream.Anthropic, stream.Hermes, stream.QwenXML, stream.MiniMax}
	outcomeValues         = []string{"usable", "unusable"}
	streamOutcomes        = []string{
		string(guard.StreamCallUsable), string(guard.StreamCallUnusable), string(guard.StreamCallTruncated),
	}
)

// toolNames lists the tool label's known values: every server tool's
// canonical name, and the labels of the other tools.
func toolNames(reg *repair.Registry) []string {
	names := []string{guard.ToolLabelCustom, guard.ToolLabelOther}
	for _, t := range reg.Tools() {
		names = append(names, t.Name())
	}
	return names
}

// productMetrics counts what the guard concludes (it is the guard's
// Observer) and is a prometheus.Collector of those counters.
type productMetrics struct {
	verdicts     *counterTable // tool × outcome
	repairs      *counterTable // code × model_family
	violations   *counterTable // code × tool
	limitReached *counterTable // model_family
	edits        *counterTable // status × rung
	written      prometheus.Counter
	streamCalls  *counterTable // format × outcome

	tools, families, repairCodes, violationCodes labelSet
	statuses, rungs, outcomes, streamOutcomes    labelSet
	formats                                      labelSet
	formatIndex                                  map[stream.Format]int
}

var _ guard.Observer = (*productMetrics)(nil)

func newProductMetrics(tools []string) *productMetrics {
	p := &productMetrics{
		tools:          newLabelSet(tools...),
		families:       newLabelSet(familyValues...),
		repairCodes:    newLabelSet(repairCodeValues...),
		violationCodes: newLabelSet(violationCodeValues...),
		statuses:       newLabelSet(editStatusValues...),
		rungs:          newLabelSet(rungValues...),
		outcomes:       newLabelSet(outcomeValues...),
		streamOutcomes: newLabelSet(streamOutcomes...),
		formatIndex:    map[stream.Format]int{},
	}
	formatNames := make([]string, len(observedStreamFormats))
	for i, f := range observedStreamFormats {
		formatNames[i] = f.String()
	}
	p.formats = newLabelSet(formatNames...)
	for _, f := range observedStreamFormats {
		p.formatIndex[f] = p.formats.of(f.String())
	}
	opts := func(name, help string) prometheus.CounterOpts {
		return prometheus.CounterOpts{Namespace: "toolguard", Name: name, Help: help}
	}
	p.verdicts = newCounterTable(opts("verdicts_total",
		"Tool calls concluded (ValidateToolCall, ExecuteWrite, ExecuteEdit and each streamed call), by tool and outcome (usable or unusable)."),
		[]string{"tool", "outcome"}, p.tools, p.outcomes)
	p.repairs = newCounterTable(opts("repairs_total",
		"Tool calls repaired, by repair code and model family; a call counts once per code it was repaired with."),
		[]string{"code", "model_family"}, p.repairCodes, p.families)
	p.violations = newCounterTable(opts("violations_total",
		"Tool calls with a violation, by violation code and tool; a call counts once per code it violated."),
		[]string{"code", "tool"}, p.violationCodes, p.tools)
	p.limitReached = newCounterTable(opts("mistake_limit_reached_total",
		"Tool calls answered with the session's consecutive-mistake limit reached, by model family."),
		[]string{"model_family"}, p.families)
	p.edits = newCounterTable(opts("edit_outcomes_total",
		"Edits executed (dry runs included), by status and the matching rung that found the old text (none when none did)."),
		[]string{"status", "rung"}, p.statuses, p.rungs)
	p.written = prometheus.NewCounter(opts("written_bytes_total",
		"Bytes of file content written by ExecuteWrite, ExecuteEdit and streamed calls executed on completion."))
	p.streamCalls = newCounterTable(opts("stream_calls_total",
		"Tool calls concluded in StreamToolCalls, by stream format and outcome (usable, unusable, truncated)."),
		[]string{"format", "outcome"}, p.formats, p.streamOutcomes)
	return p
}

func (p *productMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		p.verdicts.vec, p.repairs.vec, p.violations.vec, p.limitReached.vec,
		p.edits.vec, p.written, p.streamCalls.vec,
	}
}

// Describe implements prometheus.Collector.
func (p *productMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range p.collectors() {
		c.Describe(ch)
	}
}

// Collect implements prometheus.Collector.
func (p *productMetrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range p.collectors() {
		c.Collect(ch)
	}
}

// Verdict implements guard.Observer.
func (p *productMetrics) Verdict(v *guard.Verdict, tool string) {
	ti, fi := p.tools.of(tool), p.families.of(v.Family)
	outcome := 0
	if !v.OK() {
		outcome = 1
	}
	p.verdicts.add(1, ti, outcome)
	for i, r := range v.Repairs {
		if !repairSeen(v.Repairs[:i], r.Code) {
			p.repairs.add(1, p.repairCodes.of(r.Code), fi)
		}
	}
	for i, x := range v.Violations {
		if !violationSeen(v.Violations[:i], x.Code) {
			p.violations.add(1, p.violationCodes.of(x.Code), ti)
		}
	}
	for _, c := range v.OmittedCodes() {
		if !violationSeen(v.Violations, c) {
			p.violations.add(1, p.violationCodes.of(c), ti)
		}
	}
	if v.Mistakes.LimitReached {
		p.limitReached.add(1, fi, 0)
	}
}

// Execution implements guard.Observer.
func (p *productMetrics) Execution(ex *guard.Execution) {
	for _, e := range ex.Edits {
		rung := string(e.Strategy)
		if rung == "" {
			rung = rungNone
		}
		p.edits.add(1, p.statuses.of(string(e.Status)), p.rungs.of(rung))
	}
	if n := ex.BytesWritten(); n > 0 {
		p.written.Add(float64(n))
	}
}

// StreamCall implements guard.Observer.
func (p *productMetrics) StreamCall(format stream.Format, outcome guard.StreamCallOutcome) {
	fi, ok := p.formatIndex[format]
	if !ok {
		fi = p.formats.other()
	}
	p.streamCalls.add(1, fi, p.streamOutcomes.of(string(outcome)))
}

func repairSeen(rs []repair.Repair, code string) bool {
	for _, r := range rs {
		if r.Code == code {
			return true
		}
	}
	return false
}

func violationSeen(vs []repair.Violation, code string) bool {
	for _, v := range vs {
		if v.Code == code {
			return true
		}
	}
	return false
}

// labelSet is the fixed set of values one label takes: the values known
// when the metrics were built, then labelOther for everything else.
type labelSet struct {
	names []string // labelOther last
	index map[string]int
}

func newLabelSet(known ...string) labelSet {
	ls := labelSet{index: make(map[string]int, len(known)+1)}
	for _, k := range known {
		if _, dup := ls.index[k]; dup || k == labelOther {
			continue
		}
		ls.index[k] = len(ls.names)
		ls.names = append(ls.names, k)
	}
	ls.index[labelOther] = len(ls.names)
	ls.names = append(ls.names, labelOther)
	return ls
}

// of returns the index of v, or of labelOther when v is unknown.
func (ls labelSet) of(v string) int {
	if i, ok := ls.index[v]; ok {
		return i
	}
	return ls.other()
}

func (ls labelSet) other() int { return len(ls.names) - 1 }

// counterTable holds the children of a counter vector with one or two
// labels, each from a labelSet, by index. A child is created the first time
// it is counted, so only label values that occur are exported; from then on
// counting costs an atomic load and an add, with no label hashing and no
// allocation.
type counterTable struct {
	vec   *prometheus.CounterVec
	sets  []labelSet
	cells []counterCell
}

type counterCell struct {
	once    sync.Once
	counter prometheus.Counter
}

func newCounterTable(opts prometheus.CounterOpts, labels []string, sets ...labelSet) *counterTable {
	n := 1
	for _, s := range sets {
		n *= len(s.names)
	}
	return &counterTable{vec: prometheus.NewCounterVec(opts, labels), sets: sets, cells: make([]counterCell, n)}
}

// add adds n to the child at label indexes i and j (j is ignored with one
// label).
func (t *counterTable) add(n float64, i, j int) {
	k := i
	if len(t.sets) == 2 {
		k = i*len(t.sets[1].names) + j
	}
	c := &t.cells[k]
	c.once.Do(func() { c.counter = t.vec.WithLabelValues(t.values(i, j)...) })
	c.counter.Add(n)
}

func (t *counterTable) values(i, j int) []string {
	if len(t.sets) == 1 {
		return []string{t.sets[0].names[i]}
	}
	return []string{t.sets[0].names[i], t.sets[1].names[j]}
}
