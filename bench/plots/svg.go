package main

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
)

// The charts are written by hand so that `make bench-plots` needs nothing
// beyond the Go toolchain; GitHub renders the SVG inline in docs/.

const (
	width     = 760
	font      = `font-family="-apple-system,Segoe UI,Helvetica,Arial,sans-serif"`
	colorOurs = "#1f6feb"
	colorPeer = "#d1242f"
	colorBase = "#6e7781"
	colorAlt  = "#bf8700"
)

// canvas accumulates SVG elements.
type canvas struct {
	bytes.Buffer
}

func newCanvas(height int) *canvas {
	c := &canvas{}
	fmt.Fprintf(c, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" %s font-size="12">`+"\n", width, height, width, height, font)
	fmt.Fprintf(c, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, height)
	return c
}

func (c *canvas) end() []byte {
	c.WriteString("</svg>\n")
	return c.Bytes()
}

// text writes s escaped; anchor is start, middle or end.
func (c *canvas) text(x, y float64, anchor, extra, s string) {
	fmt.Fprintf(c, `<text x="%s" y="%s" text-anchor="%s"%s>`, num(x), num(y), anchor, extra)
	// xml.EscapeText writes to a bytes.Buffer, which never fails.
	_ = xml.EscapeText(c, []byte(s))
	c.WriteString("</text>\n")
}

func (c *canvas) line(x1, y1, x2, y2 float64, stroke string, w float64, dash bool) {
	d := ""
	if dash {
		d = ` stroke-dasharray="6 4"`
	}
	fmt.Fprintf(c, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s/>`+"\n", num(x1), num(y1), num(x2), num(y2), stroke, num(w), d)
}

func (c *canvas) rect(x, y, w, h float64, fill string) {
	fmt.Fprintf(c, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n", num(x), num(y), num(w), num(h), fill)
}

// num prints a coordinate with at most two decimals, so the files stay
// small and their diffs readable.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// series is one line of a line chart.
type series struct {
	label  string
	color  string
	dashed bool
	xs, ys []float64
}

// tick is an axis position and its label.
type tick struct {
	v     float64
	label string
}

// logLogChart draws series on log-scaled axes: a growth curve spanning
// several decades stays readable and a straight line's slope is the
// exponent (1 linear, 2 quadratic).
func logLogChart(title, xLabel, yLabel string, xTicks []tick, yFormat func(float64) string, ss []series) ([]byte, error) {
	const height, left, right, top, bottom = 440, 80, 190, 44, 56
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		if len(s.xs) != len(s.ys) || len(s.xs) == 0 {
			return nil, fmt.Errorf("series %q: %d x values, %d y values", s.label, len(s.xs), len(s.ys))
		}
		for i := range s.xs {
			if s.xs[i] <= 0 || s.ys[i] <= 0 {
				return nil, fmt.Errorf("series %q: a value ≤ 0 on a log scale", s.label)
			}
			x0, x1 = math.Min(x0, s.xs[i]), math.Max(x1, s.xs[i])
			y0, y1 = math.Min(y0, s.ys[i]), math.Max(y1, s.ys[i])
		}
	}
	lx0, lx1 := math.Log10(x0)-0.1, math.Log10(x1)+0.1
	ly0, ly1 := math.Floor(math.Log10(y0)), math.Ceil(math.Log10(y1))
	pw, ph := float64(width-left-right), float64(height-top-bottom)
	px := func(x float64) float64 { return left + (math.Log10(x)-lx0)/(lx1-lx0)*pw }
	py := func(y float64) float64 { return top + ph - (math.Log10(y)-ly0)/(ly1-ly0)*ph }

	c := newCanvas(height)
	c.text(left, 24, "start", ` font-size="15" font-weight="600"`, title)
	for e := ly0; e <= ly1; e++ {
		v := math.Pow(10, e)
		c.line(left, py(v), left+pw, py(v), "#d0d7de", 1, false)
		c.text(left-8, py(v)+4, "end", ` fill="#57606a"`, yFormat(v))
	}
	for _, t := range xTicks {
		c.line(px(t.v), top, px(t.v), top+ph, "#eaeef2", 1, false)
		c.text(px(t.v), top+ph+18, "middle", ` fill="#57606a"`, t.label)
	}
	c.line(left, top, left, top+ph, "#57606a", 1, false)
	c.line(left, top+ph, left+pw, top+ph, "#57606a", 1, false)
	c.text(left+pw/2, height-12, "middle", "", xLabel)
	c.text(18, top+ph/2, "middle", fmt.Sprintf(` transform="rotate(-90 18 %s)"`, num(top+ph/2)), yLabel)
	for i, s := range ss {
		pts := ""
		for j := range s.xs {
			pts += num(px(s.xs[j])) + "," + num(py(s.ys[j])) + " "
		}
		d := ""
		if s.dashed {
			d = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(c, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2.5"%s/>`+"\n", pts[:len(pts)-1], s.color, d)
		for j := range s.xs {
			fmt.Fprintf(c, `<circle cx="%s" cy="%s" r="3.5" fill="%s"/>`+"\n", num(px(s.xs[j])), num(py(s.ys[j])), s.color)
		}
		// Legend, right of the plot.
		ly := float64(top + 10 + 22*i)
		c.line(left+pw+16, ly, left+pw+40, ly, s.color, 2.5, s.dashed)
		c.text(left+pw+46, ly+4, "start", "", s.label)
	}
	return c.end(), nil
}

// bar is one bar of a bar panel.
type bar struct {
	label string
	value float64
	color string
}

// panel is a titled group of horizontal bars sharing one linear scale.
type panel struct {
	title string
	unit  string
	bars  []bar
}

// barChart stacks panels of horizontal bars, each bar labelled with its
// value, so peers read side by side without a legend.
func barChart(title, note string, panels []panel) ([]byte, error) {
	const left, right, barH, gap = 170, 90, 22, 8
	height := 44
	for _, p := range panels {
		height += 30 + len(p.bars)*(barH+gap) + 10
	}
	if note != "" {
		height += 18
	}
	c := newCanvas(height)
	c.text(16, 24, "start", ` font-size="15" font-weight="600"`, title)
	y := 44.0
	pw := float64(width - left - right)
	for _, p := range panels {
		maxV := 0.0
		for _, b := range p.bars {
			if b.value < 0 || math.IsNaN(b.value) {
				return nil, fmt.Errorf("panel %q: bar %q has value %v", p.title, b.label, b.value)
			}
			maxV = math.Max(maxV, b.value)
		}
		if maxV == 0 {
			return nil, fmt.Errorf("panel %q: every bar is 0", p.title)
		}
		c.text(16, y+16, "start", ` font-weight="600"`, p.title)
		y += 26
		for _, b := range p.bars {
			w := b.value / maxV * pw
			c.text(left-8, y+barH/2+4, "end", "", b.label)
			c.rect(left, y, w, barH, b.color)
			c.text(left+w+6, y+barH/2+4, "start", ` fill="#24292f"`, formatValue(b.value)+" "+p.unit)
			y += barH + gap
		}
		c.line(left, y-gap-float64(len(p.bars)*(barH+gap))+gap/2, left, y-gap/2, "#57606a", 1, false)
		y += 14
	}
	if note != "" {
		c.text(16, y+4, "start", ` fill="#57606a" font-size="11"`, note)
	}
	return c.end(), nil
}

// formatValue prints a figure with three significant digits, and
// thousands as "12.3k": enough to compare, no false precision.
func formatValue(v float64) string {
	switch {
	case v >= 10000:
		return strconv.FormatFloat(v/1000, 'f', 0, 64) + "k"
	case v >= 1000:
		return strconv.FormatFloat(v/1000, 'f', 1, 64) + "k"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}
