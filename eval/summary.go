package eval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/toolguard/toolguard/proxy"
)

// The classes of a call, by what enforce mode does with it.
const (
	ClassUsable    = "usable"    // valid as the model wrote it
	ClassRepaired  = "repaired"  // sent repaired
	ClassRefused   = "refused"   // could not be made valid (sent as written with --fallback, else an error)
	ClassTruncated = "truncated" // cut off by a length limit: sent as written, marked
	ClassTooLarge  = "too_large" // past the call size limit: sent unchecked
)

// Classes are the classes in the order a summary shows them.
var Classes = []string{ClassUsable, ClassRepaired, ClassRefused, ClassTruncated, ClassTooLarge}

func classOf(action string) string {
	switch action {
	case "unchanged":
		return ClassUsable
	case "invalid", "refused":
		return ClassRefused
	}
	return action // repaired, truncated, too_large
}

// maxKeys bounds the models and tools counted apart (and the unknown tool
// names): the rest are counted under otherKey, so memory does not grow
// with the input.
const (
	maxKeys  = 200
	otherKey = "(other)"
	maxBad   = 20 // unreadable lines kept as examples
)

// Summary is what a run found. Its size is bounded: counters, at most
// maxKeys models and tools, and Options.Examples examples per class.
type Summary struct {
	Lines      int            `json:"lines"`       // lines read (not blank)
	Exchanges  int            `json:"exchanges"`   // request/response pairs judged
	PlainCalls int            `json:"plain_calls"` // plain call lines
	Unreadable int            `json:"unreadable"`  // lines skipped
	Calls      int            `json:"calls"`       // calls of target tools judged
	Classes    map[string]int `json:"classes"`
	// Repairs counts the repair codes of repaired calls; Violations the
	// violation codes of refused ones (a call counts once per code).
	Repairs    map[string]int    `json:"repairs"`
	Violations map[string]int    `json:"violations"`
	Models     map[string]Counts `json:"models"`
	Tools      map[string]Counts `json:"tools"`
	// UnknownTools counts plain calls naming no tool known to the run.
	UnknownTools map[string]int       `json:"unknown_tools,omitempty"`
	Examples     map[string][]Example `json:"examples"`
	// RepairExamples and ViolationExamples keep the first calls of each
	// repair code (repaired calls) and violation code (refused calls).
	RepairExamples    map[string][]Example `json:"repair_examples"`
	ViolationExamples map[string][]Example `json:"violation_examples"`
	// Timeline is the calls in the recording's order, with the mistakes
	// their sessions would have counted.
	Timeline Timeline `json:"timeline"`
	// First and Last are the earliest and latest "time" of the lines
	// that give one.
	First *time.Time `json:"first_time,omitempty"`
	Last  *time.Time `json:"last_time,omitempty"`
	// Sources names the inputs read, in order ("-" for stdin).
	Sources  []string  `json:"sources,omitempty"`
	BadLines []BadLine `json:"bad_lines,omitempty"`
}

// Counts are a model's or a tool's calls by class.
type Counts map[string]int

// Example is one call of a class, its text truncated.
type Example struct {
	Line       int      `json:"line"`
	API        string   `json:"api"`
	Model      string   `json:"model,omitempty"`
	Tool       string   `json:"tool"`
	Name       string   `json:"name_written,omitempty"` // when not the tool's name
	Repairs    []string `json:"repairs,omitempty"`
	Violations []string `json:"violations,omitempty"`
	Arguments  string   `json:"arguments"`
	Repaired   string   `json:"repaired,omitempty"`
	// Feedback is what a refused call's verdict tells the model.
	Feedback string `json:"feedback,omitempty"`
	// Changes are the parameters a repair changed, when the call as
	// written was a JSON object.
	Changes []Change `json:"changes,omitempty"`
	// MoreChanges counts the changed parameters past the listing's bound.
	MoreChanges int `json:"more_changes,omitempty"`
}

// BadLine is an unreadable line and why.
type BadLine struct {
	Line  int    `json:"line"`
	Error string `json:"error"`
}

// NewSummary returns an empty summary.
func NewSummary() *Summary {
	return &Summary{
		Classes: map[string]int{}, Repairs: map[string]int{}, Violations: map[string]int{},
		Models: map[string]Counts{}, Tools: map[string]Counts{}, Examples: map[string][]Example{},
		RepairExamples: map[string][]Example{}, ViolationExamples: map[string][]Example{},
	}
}

func (s *Summary) badLine(n int, err error) {
	s.Unreadable++
	if len(s.BadLines) < maxBad {
		s.BadLines = append(s.BadLines, BadLine{Line: n, Error: err.Error()})
	}
}

func (s *Summary) unknownTool(name string) {
	if s.UnknownTools == nil {
		s.UnknownTools = map[string]int{}
	}
	s.UnknownTools[boundedKey(s.UnknownTools, name)]++
}

// add counts one judged call of line n (a line may hold several), made
// in session (the line's, or else its model).
func (s *Summary) add(n int, session string, r proxy.CallReport, o Options) {
	s.Calls++
	class := classOf(r.Action)
	s.Classes[class]++
	switch class {
	case ClassRepaired:
		for _, c := range r.Repairs {
			s.Repairs[c]++
		}
		keepByCode(s.RepairExamples, r.Repairs, n, r, o)
	case ClassRefused:
		for _, c := range r.Violations {
			s.Violations[c]++
		}
		keepByCode(s.ViolationExamples, r.Violations, n, r, o)
	}
	countIn(s.Models, cmp.Or(r.Model, "(none)"), class)
	countIn(s.Tools, r.Tool, class)
	if len(s.Examples[class]) < o.Examples {
		s.Examples[class] = append(s.Examples[class], example(n, r, o.ExampleBytes))
	}
	s.Timeline.add(cmp.Or(session, r.Model), class, o.mistakeLimit())
}

func countIn(m map[string]Counts, key, class string) {
	key = boundedKey(m, key)
	c := m[key]
	if c == nil {
		c = Counts{}
		m[key] = c
	}
	c[class]++
	c["calls"]++
}

// boundedKey is key, or otherKey once m holds maxKeys others.
func boundedKey[V any](m map[string]V, key string) string {
	return boundedKeyN(m, key, maxKeys)
}

func boundedKeyN[V any](m map[string]V, key string, max int) string {
	if _, ok := m[key]; ok || len(m) < max {
		return key
	}
	return otherKey
}

func example(n int, r proxy.CallReport, limit int) Example {
	e := Example{Line: n, API: r.API, Model: r.Model, Tool: r.Tool, Repairs: r.Repairs, Violations: r.Violations,
		Arguments: truncate(r.Arguments, limit), Repaired: truncate(string(r.Repaired), limit)}
	if r.NameWritten != r.Tool {
		e.Name = r.NameWritten
	}
	switch classOf(r.Action) {
	case ClassRefused, ClassTruncated:
		e.Feedback = truncate(r.Feedback, 4*limit)
	case ClassRepaired:
		e.Changes, e.MoreChanges = changes(r.Arguments, r.Repaired, limit)
	}
	return e
}

// truncate cuts s to about limit bytes on a rune boundary, saying how
// much was left out.
func truncate(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// WriteText prints the summary for people: totals, codes, models, tools,
// then the examples.
func (s *Summary) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "lines\t%d\t(%d exchanges, %d plain calls, %d unreadable)\n", s.Lines, s.Exchanges, s.PlainCalls, s.Unreadable)
	fmt.Fprintf(tw, "calls\t%d\n", s.Calls)
	for _, c := range Classes {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", c, s.Classes[c], percent(s.Classes[c], s.Calls))
	}
	writeCodes(tw, "repairs (repaired calls, by code)", s.Repairs)
	writeCodes(tw, "violations (refused calls, by code)", s.Violations)
	writeCodes(tw, "unknown tools (plain calls)", s.UnknownTools)
	writeCounts(tw, "model", s.Models)
	writeCounts(tw, "tool", s.Tools)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, c := range Classes {
		for i, e := range s.Examples[c] {
			if i == 0 {
				fmt.Fprintf(w, "\nexamples: %s\n", c)
			}
			writeExample(w, e)
		}
	}
	if len(s.BadLines) > 0 {
		fmt.Fprintf(w, "\nunreadable lines (first %d):\n", len(s.BadLines))
		for _, b := range s.BadLines {
			fmt.Fprintf(w, "  line %d: %s\n", b.Line, b.Error)
		}
	}
	return nil
}

func percent(n, total int) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(total))
}

// byCount sorts keys by count, most first, then by name.
func byCount(m map[string]int) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
}

func writeCodes(w io.Writer, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	fmt.Fprintf(w, "\n%s\n", title)
	for _, k := range byCount(m) {
		fmt.Fprintf(w, "  %s\t%d\n", k, m[k])
	}
}

func writeCounts(w io.Writer, what string, m map[string]Counts) {
	if len(m) == 0 {
		return
	}
	totals := make(map[string]int, len(m))
	for k, c := range m {
		totals[k] = c["calls"]
	}
	fmt.Fprintf(w, "\n%s\tcalls\t%s\n", what, strings.Join(Classes, "\t"))
	for _, k := range byCount(totals) {
		fmt.Fprintf(w, "%s\t%d", k, totals[k])
		for _, c := range Classes {
			fmt.Fprintf(w, "\t%d", m[k][c])
		}
		fmt.Fprintln(w)
	}
}

func writeExample(w io.Writer, e Example) {
	fmt.Fprintf(w, "  line %d  %s  %s", e.Line, cmp.Or(e.Model, "(no model)"), e.Tool)
	if e.Name != "" {
		fmt.Fprintf(w, " (written %q)", e.Name)
	}
	if len(e.Repairs) > 0 {
		fmt.Fprintf(w, "  repairs: %s", strings.Join(e.Repairs, ", "))
	}
	if len(e.Violations) > 0 {
		fmt.Fprintf(w, "  violations: %s", strings.Join(e.Violations, ", "))
	}
	fmt.Fprintf(w, "\n    arguments: %s\n", e.Arguments)
	if e.Repaired != "" {
		fmt.Fprintf(w, "    repaired:  %s\n", e.Repaired)
	}
}
