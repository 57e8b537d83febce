package report

import (
	"unicode/utf8"

	"github.com/toolguard/toolguard/eval"
)

// Chart geometry, in SVG user units (the page scales them to its width).
const (
	chartWidth    = 520.0 // a chart of rows, half the page
	labelWidth    = 150.0
	countWidth    = 50.0
	timelineWidth = 1000.0 // the whole page
	rowHeight     = 22.0
	barHeight     = 15.0
	// maxRows bounds a chart's rows: the largest, then one for the rest.
	maxRows = 12
	// maxLabel bounds a label's runes; the whole name is in its tooltip.
	maxLabel = 28
)

// stackChart is one row per model or tool, its calls split by class.
type stackChart struct {
	Width, Height, LabelX float64
	Rows                  []stackRow
}

type stackRow struct {
	Y, TextY      float64
	Label, Full   string
	Total         int
	Segments      []segment
	CountX        float64
	BarX, BarEndX float64
}

type segment struct {
	X, W         float64
	Class, Title string
}

func newStackChart(m map[string]eval.Counts) stackChart {
	rows := countRows(m)
	if len(rows) > maxRows {
		rest := eval.Counts{}
		for _, r := range rows[maxRows-1:] {
			for k, n := range r.Counts {
				rest[k] += n
			}
		}
		name := num(len(rows)-maxRows+1) + " others"
		rows = append(rows[:maxRows-1], countRow{name, rest})
	}
	most := 0
	for _, r := range rows {
		most = max(most, r.Counts["calls"])
	}
	c := stackChart{Width: chartWidth, LabelX: labelWidth - 6}
	plot := chartWidth - labelWidth - countWidth
	for i, r := range rows {
		y := float64(i) * rowHeight
		row := stackRow{Y: y + (rowHeight-barHeight)/2, TextY: y + rowHeight/2 + 4, Label: label(r.Name), Full: r.Name,
			Total: r.Counts["calls"], BarX: labelWidth}
		x := labelWidth
		for _, class := range eval.Classes {
			n := r.Counts[class]
			if n == 0 {
				continue
			}
			w := plot * float64(n) / float64(most)
			row.Segments = append(row.Segments, segment{X: x, W: w, Class: class,
				Title: r.Name + ": " + num(n) + " " + class + " (" + share(n, row.Total) + ")"})
			x += w
		}
		row.CountX = x + 6
		c.Rows = append(c.Rows, row)
	}
	c.Height = float64(len(c.Rows)) * rowHeight
	return c
}

// barChart is one row per code, its count.
type barChart struct {
	Width, Height, LabelX, BarX float64
	Class                       string
	Rows                        []barRow
}

type barRow struct {
	Y, TextY, W, CountX float64
	Label, Full         string
	N                   int
}

func newBarChart(m map[string]int, class string) barChart {
	keys := byCount(m)
	c := barChart{Class: class, Width: chartWidth, LabelX: labelWidth - 6, BarX: labelWidth}
	if len(keys) == 0 {
		return c
	}
	rest := 0
	if len(keys) > maxRows {
		for _, k := range keys[maxRows-1:] {
			rest += m[k]
		}
		keys = keys[:maxRows-1]
	}
	most := max(m[keys[0]], rest)
	plot := chartWidth - labelWidth - countWidth
	add := func(name string, n int) {
		y := float64(len(c.Rows)) * rowHeight
		w := plot * float64(n) / float64(most)
		c.Rows = append(c.Rows, barRow{Y: y + (rowHeight-barHeight)/2, TextY: y + rowHeight/2 + 4, W: w,
			CountX: labelWidth + w + 6, Label: label(name), Full: name, N: n})
	}
	for _, k := range keys {
		add(k, m[k])
	}
	if rest > 0 {
		add(num(len(m)-maxRows+1)+" other codes", rest)
	}
	c.Height = float64(len(c.Rows)) * rowHeight
	return c
}

// timelineChart is a column per stretch of the recording: its mistakes,
// the part of them at or past the session limit darker.
type timelineChart struct {
	Width, Height, PlotTop, PlotBottom float64
	Columns                            []column
	Max, Calls, Limit, Mistakes        int
	Reached, Width1                    int
}

type column struct {
	X, W, Y, H, ReachedY, ReachedH float64
	Title                          string
}

func newTimelineChart(t eval.Timeline) timelineChart {
	const top, plotH, left = 10.0, 140.0, 60.0
	c := timelineChart{Width: timelineWidth, Height: top + plotH + 30, PlotTop: top, PlotBottom: top + plotH, Limit: t.Limit, Width1: t.Width}
	for _, b := range t.Buckets {
		c.Max = max(c.Max, b.Mistakes)
		c.Calls += b.Calls
		c.Mistakes += b.Mistakes
		c.Reached += b.LimitReached
	}
	if len(t.Buckets) == 0 {
		return c
	}
	w := (timelineWidth - left - 10) / float64(len(t.Buckets))
	first := 1
	for i, b := range t.Buckets {
		col := column{X: left + float64(i)*w + 0.5, W: max(w-1, 0.5),
			Title: "calls " + num(first) + "–" + num(first+b.Calls-1) + ": " + num(b.Mistakes) + " mistakes, " +
				num(b.LimitReached) + " at or past the limit"}
		if c.Max > 0 {
			col.H = plotH * float64(b.Mistakes) / float64(c.Max)
			col.ReachedH = plotH * float64(b.LimitReached) / float64(c.Max)
		}
		col.Y, col.ReachedY = top+plotH-col.H, top+plotH-col.ReachedH
		c.Columns = append(c.Columns, col)
		first += b.Calls
	}
	return c
}

func label(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}
