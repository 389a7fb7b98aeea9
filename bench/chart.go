package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"strings"
)

// redraw draws the history of the ratios as an SVG chart: one panel for ours / raw HTTP (lower is better, 1 is
// the server's floor), one for moralis-v1 / ours (higher is better, log scale), a line per ratio across the runs,
// so that a regression shows at a glance.
func redraw(historyPath, chartPath string) error {
	h, err := readHistory(historyPath)
	if err != nil {
		return err
	}
	return os.WriteFile(chartPath, []byte(chartSVG(h)), 0o644)
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f",
	"#bcbd22", "#000000", "#6b8e23", "#ff1493", "#00008b"}

const (
	chartW   = 1000
	panelH   = 300
	plotX    = 60  // left edge of the plot area
	plotW    = 560 // width of the plot area; the legend is on the right
	plotTop  = 40  // top margin inside a panel
	plotH    = 210 // height of the plot area
	legendX  = plotX + plotW + 30
	chartPad = 10
)

func chartSVG(h []historyEntry) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n",
		chartW, 2*panelH+chartPad, chartW, 2*panelH+chartPad)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	panel(&b, h, "raw", 0, "ours / raw HTTP: lower is better, 1 = the server's floor (each at its defaults unless marked tuned)", false)
	panel(&b, h, "v1", panelH+chartPad, "moralis-v1 / ours: higher is better (log scale; same settings on both sides)", true)
	b.WriteString("</svg>\n")
	return b.String()
}

func panel(b *strings.Builder, h []historyEntry, side string, top int, title string, logScale bool) {
	var series []ratio
	for _, r := range ratios {
		if r.Side == side {
			series = append(series, r)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, e := range h {
		for _, r := range series {
			if v, ok := e.Ratios[r.Key]; ok && v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	var ticks []float64
	if logScale {
		lo, hi = math.Min(1, lo), math.Max(10, hi*1.3)
		for _, t := range []float64{1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000} {
			if t >= lo && t <= hi {
				ticks = append(ticks, t)
			}
		}
	} else {
		lo, hi = math.Min(0.8, math.Floor(lo*10)/10), math.Max(1.4, math.Ceil(hi*10)/10)
		step := 0.1
		if hi-lo > 1.2 {
			step = 0.2
		}
		for t := lo; t <= hi+1e-9; t += step {
			ticks = append(ticks, math.Round(t*10)/10)
		}
	}
	y := func(v float64) float64 {
		f := (v - lo) / (hi - lo)
		if logScale {
			f = (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		}
		return float64(top+plotTop+plotH) - f*plotH
	}
	x := func(i int) float64 {
		if len(h) <= 1 {
			return plotX + plotW/2
		}
		return plotX + 10 + float64(i)*float64(plotW-20)/float64(len(h)-1)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>`+"\n", plotX, top+20, html.EscapeString(title))
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>`+"\n", plotX, top+plotTop, plotW, plotH)
	for _, t := range ticks {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`, plotX, plotX+plotW, y(t), y(t))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", plotX-5, y(t)+4, t)
	}
	if !logScale {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#555"/>`+"\n", plotX, plotX+plotW, y(1), y(1))
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="4 3"/><text x="%d" y="%.1f" fill="#555">1.1</text>`+"\n",
			plotX, plotX+plotW, y(1.1), y(1.1), plotX+plotW+3, y(1.1)+4)
	}
	// Run labels: at most 8 along the axis.
	every := max(1, (len(h)+7)/8)
	for i, e := range h {
		if i%every == 0 || i == len(h)-1 {
			fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", x(i), top+plotTop+plotH+15, e.Time.Format("01-02 15:04"))
		}
	}
	for si, r := range series {
		color := palette[si%len(palette)]
		var pts []string
		last := math.NaN()
		for i, e := range h {
			v, ok := e.Ratios[r.Key]
			if !ok || v <= 0 {
				if len(pts) > 1 {
					fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.Join(pts, " "))
				}
				pts = nil
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(v)))
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s %s: %.2f</title></circle>`+"\n",
				x(i), y(v), color, html.EscapeString(r.Label), e.Time.Format("2006-01-02 15:04"), v)
			last = v
		}
		if len(pts) > 1 {
			fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", color, strings.Join(pts, " "))
		}
		ly := top + plotTop + 4 + si*17
		lastText := ""
		if !math.IsNaN(last) {
			lastText = fmt.Sprintf(" (%.2f)", last)
		}
		target := ""
		if r.Target != "" {
			target = ", target " + strings.ReplaceAll(strings.ReplaceAll(r.Target, "<=", "≤"), ">=", "≥")
		}
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="3" fill="%s"/><text x="%d" y="%d">%s%s%s</text>`+"\n",
			legendX, ly, color, legendX+17, ly+5, html.EscapeString(r.Short), lastText, html.EscapeString(target))
	}
}
