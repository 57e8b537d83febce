// Package observe is what every front end reports through: the product's
// Prometheus counters (the guard's Observer), the /metrics endpoint, tracing
// and the process logger.
package observe

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolguard/toolguard/edit"
	"github.com/toolguard/toolguard/guard"
	"github.com/toolguard/toolguard/repair"
	"github.com/toolguard/toolguard/repair/stream"
)

const labelOther = "other"

// Known label values; anything else counts as "other", so what a model
// sends never adds a series. A new code is "other" until listed here.
var (
	repairCodeValues = []string{
		repair.CodeToolAlias, repair.CodeAliasRenamed, repair.CodeDuplicateDropped,
		repair.CodeRawArgumentsUnwrapped, repair.CodeDoubleEncoded, repair.CodeJSONRepaired,
		repair.CodePythonLiteral, repair.CodeTypeCoerced, repair.CodeCodeFenceStripped,
		repair.CodeEscapesDecoded, repair.CodeHTMLEntitiesDecoded, repair.CodeLineNumbersStripped,
		repair.CodeReplacementCharsRemoved, repair.CodeLineEndingsKept, repair.CodeXMLRepaired,
	}
	violationCodeValues = []string{
		repair.CodeMissingRequired, repair.CodeUnexpectedParam, repair.CodeWrongType,
		repair.CodeInvalidValue, repair.CodeConflictingParams, repair.CodeUnparseable,
		repair.CodeUnknownTool, repair.CodeUnsupportedCommand, repair.CodeTruncated,
		repair.CodePlaceholderContent, repair.CodeRepeatedCall, repair.CodeOutsideWorkspace,
		repair.CodeDeniedPath,
		guard.CodeEditNotFound, guard.CodeEditAmbiguous, guard.CodeFileNotFound,
		guard.CodeFileExists, guard.CodeNotRegular, guard.CodeFileTooLarge,
		guard.CodeSyntaxError,
	}
	familyValues     = []string{repair.FamilyGeneric, repair.FamilyNativeNextGen, repair.FamilyNativeGPT5}
	editStatusValues = []string{
		string(edit.StatusApplied), string(edit.StatusAlreadyApplied),
		string(edit.StatusNotFound), string(edit.StatusAmbiguous), string(edit.StatusNoOp),
	}
	rungNone   = "none"
	rungValues = []string{
		string(edit.StrategyExact), string(edit.StrategyTrimEnd), string(edit.StrategyTrim),
		string(edit.StrategyUnicode), string(edit.StrategyIndent), string(edit.StrategyBlockAnchor),
		string(edit.StrategyFuzzy), rungNone,
	}
	observedStreamFormats = stream.Formats()
	outcomeValues         = []string{"usable", "unusable"}
	streamOutcomes        = []string{
		string(guard.StreamCallUsable), string(guard.StreamCallUnusable), string(guard.StreamCallTruncated),
	}
)

// toolNames lists the tool label's values: the server's tools and the
// labels of the others.
func toolNames(reg *repair.Registry) []string {
	names := []string{guard.ToolLabelCustom, guard.ToolLabelOther}
	for _, t := range reg.Tools() {
		names = append(names, t.Name())
	}
	return names
}

// productMetrics is the guard's Observer and a collector of its counters.
type productMetrics struct {
	verdicts     *counterTable // tool × outcome
	repairs      *counterTable // code × model_family
	violations   *counterTable // code × tool
	limitReached *counterTable // model_family
	edits        *counterTable // status × rung
	written      prometheus.Counter
	notCounted   prometheus.Counter
	streamCalls  *counterTable // format × outcome
	syntaxChecks *counterTable // lang × outcome

	tools, families, repairCodes, violationCodes labelSet
	statuses, rungs, outcomes, streamOutcomes    labelSet
	formats                                      labelSet
	langs, syntaxOutcomes                        labelSet
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
		langs:          newLabelSet(syntaxLanguages()...),
		syntaxOutcomes: newLabelSet(syntaxOutcomeValues()...),
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
		"Edits executed (dry runs included), by status and the matching rung that found the old text (none when none did; for a NOT_FOUND, the rung whose guess the syntax check refused)."),
		[]string{"status", "rung"}, p.statuses, p.rungs)
	p.notCounted = prometheus.NewCounter(opts("mistakes_not_counted_total",
		"Tool calls whose mistakes went uncounted because the session store could not be reached; the calls were answered."))
	p.written = prometheus.NewCounter(opts("written_bytes_total",
		"Bytes of file content written by ExecuteWrite, ExecuteEdit and streamed calls executed on completion."))
	p.streamCalls = newCounterTable(opts("stream_calls_total",
		"Tool calls concluded in StreamToolCalls, by stream format and outcome (usable, unusable, truncated)."),
		[]string{"format", "outcome"}, p.formats, p.streamOutcomes)
	p.syntaxChecks = newCounterTable(opts("syntax_checks_total",
		"Files a write or edit changed, checked for syntax before and after, by language and outcome (clean, added, still_broken, now_parses, not_checked)."),
		[]string{"lang", "outcome"}, p.langs, p.syntaxOutcomes)
	return p
}

func (p *productMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{
		p.verdicts.vec, p.repairs.vec, p.violations.vec, p.limitReached.vec,
		p.edits.vec, p.written, p.streamCalls.vec, p.notCounted, p.syntaxChecks.vec,
	}
}

func (p *productMetrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range p.collectors() {
		c.Describe(ch)
	}
}

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
	if v.Mistakes.StoreUnavailable {
		p.notCounted.Inc()
	}
}

// Execution implements guard.Observer.
func (p *productMetrics) Execution(ex *guard.Execution) {
	for _, e := range ex.Edits {
		rung := string(e.Strategy)
		if rung == "" {
			rung = string(e.Gated) // the guess the syntax check refused
		}
		if rung == "" {
			rung = rungNone
		}
		p.edits.add(1, p.statuses.of(string(e.Status)), p.rungs.of(rung))
	}
	for _, c := range ex.Syntax {
		p.syntaxChecks.add(1, p.langs.of(c.Lang), p.syntaxOutcomes.of(string(c.Outcome)))
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

// labelSet is the fixed set of one label's values, labelOther last.
type labelSet struct {
	names []string
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

func (ls labelSet) of(v string) int {
	if i, ok := ls.index[v]; ok {
		return i
	}
	return ls.other()
}

func (ls labelSet) other() int { return len(ls.names) - 1 }

// counterTable holds a counter vector's children by label index, created
// on first use: only values that occur are exported, and counting then costs
// no hashing and no allocation.
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

// add adds n at label indexes i and j (j ignored with one label).
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
