// Package report renders an eval summary as one self-contained HTML page:
// the headline numbers, charts drawn as inline SVG, and the examples of
// each repair and violation code. The page fetches nothing (inline CSS, no
// script) and opens offline. Every text from the recording is untrusted
// model output and goes through html/template's escaping.
package report

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolguard/toolguard/eval"
)

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"num":   num,
	"f1":    func(f float64) string { return fmt.Sprintf("%.1f", f) },
	"share": share,
	"plural": func(n int, word string) string {
		if n == 1 {
			return word
		}
		return word + "s"
	},
	"lines": diffLines,
	"join":  func(s []string) string { return strings.Join(s, ", ") },
	"table": func(what string, rows []countRow) countTable { return countTable{what, rows, eval.Classes} },
}).Parse(pageText))

// Write renders s as an HTML page to w. The page's size is bounded by the
// summary's: its examples are capped per code and cut, its models and tools
// capped (eval's bounds), the charts show the largest rows.
func Write(w io.Writer, s *eval.Summary) error {
	var b bytes.Buffer
	if err := page.Execute(&b, newView(s)); err != nil {
		return fmt.Errorf("render report: %w", err)
	}
	_, err := b.WriteTo(w)
	return err
}

// view is what the template shows, computed from the summary.
type view struct {
	S                    *eval.Summary
	Range                string
	Headline             []stat
	Models, Tools        stackChart
	ModelRows, ToolRows  []countRow
	Repairs, Violations  barChart
	Timeline             timelineChart
	RepairCodes, Refusal []codeSection
	Truncated            *codeSection
	Unknown              []codeCount
	Classes              []string
}

type stat struct {
	Label, Class string
	N, Of        int
}

// countTable is the full table of models or tools.
type countTable struct {
	What    string
	Rows    []countRow
	Classes []string
}

// countRow is a model's or tool's row of the full tables.
type countRow struct {
	Name   string
	Counts eval.Counts
}

type codeCount struct {
	Code string
	N    int
}

// codeSection is one code and its examples.
type codeSection struct {
	Code     string
	N        int
	Examples []eval.Example
}

func newView(s *eval.Summary) view {
	v := view{S: s, Range: timeRange(s), Classes: eval.Classes}
	if n := s.Classes[eval.ClassTruncated]; n > 0 {
		v.Truncated = &codeSection{Code: eval.ClassTruncated, N: n, Examples: s.Examples[eval.ClassTruncated]}
	}
	labels := map[string]string{eval.ClassUsable: "usable as sent", eval.ClassRepaired: "repaired", eval.ClassRefused: "refused",
		eval.ClassTruncated: "truncated", eval.ClassTooLarge: "too large (unchecked)"}
	for _, c := range eval.Classes {
		v.Headline = append(v.Headline, stat{Label: labels[c], Class: c, N: s.Classes[c], Of: s.Calls})
	}
	v.Models, v.ModelRows = newStackChart(s.Models), countRows(s.Models)
	v.Tools, v.ToolRows = newStackChart(s.Tools), countRows(s.Tools)
	v.Repairs, v.Violations = newBarChart(s.Repairs, eval.ClassRepaired), newBarChart(s.Violations, eval.ClassRefused)
	v.Timeline = newTimelineChart(s.Timeline)
	v.RepairCodes = sections(s.Repairs, s.RepairExamples)
	v.Refusal = sections(s.Violations, s.ViolationExamples)
	for _, k := range byCount(s.UnknownTools) {
		v.Unknown = append(v.Unknown, codeCount{k, s.UnknownTools[k]})
	}
	return v
}

func timeRange(s *eval.Summary) string {
	if s.First == nil {
		return ""
	}
	return s.First.Format(time.RFC3339) + " to " + s.Last.Format(time.RFC3339)
}

func sections(counts map[string]int, examples map[string][]eval.Example) []codeSection {
	var out []codeSection
	for _, k := range byCount(counts) {
		out = append(out, codeSection{Code: k, N: counts[k], Examples: examples[k]})
	}
	return out
}

func countRows(m map[string]eval.Counts) []countRow {
	totals := make(map[string]int, len(m))
	for k, c := range m {
		totals[k] = c["calls"]
	}
	var out []countRow
	for _, k := range byCount(totals) {
		out = append(out, countRow{k, m[k]})
	}
	return out
}

// byCount sorts keys by count, most first, then by name.
func byCount(m map[string]int) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
}

// num writes n with thousands separators.
func num(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + num(-n)
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func share(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// diffLine is one line of a unified diff and how to colour it.
type diffLine struct {
	Class, Text string
}

func diffLines(diff string) []diffLine {
	var out []diffLine
	for _, l := range strings.SplitAfter(diff, "\n") {
		if l == "" {
			continue
		}
		c := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			c = "dh"
		case strings.HasPrefix(l, "+"):
			c = "da"
		case strings.HasPrefix(l, "-"):
			c = "dr"
		}
		out = append(out, diffLine{c, l})
	}
	return out
}
