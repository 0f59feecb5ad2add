package metrics

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// WriteText writes every family to w in the Prometheus text exposition
// format 0.0.4: families in name order, each with # HELP and # TYPE lines
// (also when it has no series yet), series in label-value order, histogram
// buckets in ascending le order ending with +Inf. Gauge callbacks run
// here, in the caller's goroutine. The output is built in memory and
// written with one Write.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := slices.Clone(r.families)
	r.mu.Unlock()
	var b []byte
	for _, f := range fams {
		b = f.write(b)
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("metrics: write: %w", err)
	}
	return nil
}

func (v *CounterVec) write(b []byte) []byte {
	b = v.header(b, "counter")
	for _, e := range v.vec.entries() {
		b = v.sample(b, "", e.labels, "", "")
		b = strconv.AppendUint(b, e.series.n.Load(), 10)
		b = append(b, '\n')
	}
	return b
}

func (v *HistogramVec) write(b []byte) []byte {
	b = v.header(b, "histogram")
	counts := make([]uint64, len(v.upper)+1)
	for _, e := range v.vec.entries() {
		h := e.series
		for i := range counts {
			counts[i] = h.counts[i].Load()
		}
		sum := math.Float64frombits(h.sum.Load())
		var cum uint64
		for i, c := range counts {
			cum += c
			b = v.sample(b, "_bucket", e.labels, "le", v.les[i])
			b = strconv.AppendUint(b, cum, 10)
			b = append(b, '\n')
		}
		b = v.sample(b, "_sum", e.labels, "", "")
		b = appendFloat(b, sum)
		b = append(b, '\n')
		b = v.sample(b, "_count", e.labels, "", "")
		b = strconv.AppendUint(b, cum, 10)
		b = append(b, '\n')
	}
	return b
}

func (g *gaugeFunc) write(b []byte) []byte {
	typ := g.typ
	if typ == "" {
		typ = "gauge"
	}
	b = g.header(b, typ)
	b = g.sample(b, "", key{}, "", "")
	b = appendFloat(b, g.f())
	return append(b, '\n')
}

// header appends the # HELP and # TYPE lines.
func (d *desc) header(b []byte, typ string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, d.fname...)
	b = append(b, ' ')
	for _, c := range []byte(d.help) {
		switch c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	b = append(b, "\n# TYPE "...)
	b = append(b, d.fname...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

// sample appends a sample's name, with suffix, and its labels, then a
// space: the caller appends the value and the newline. extra, if not
// empty, is one more label (le) after the family's own.
func (d *desc) sample(b []byte, suffix string, values key, extra, extraValue string) []byte {
	b = append(b, d.fname...)
	b = append(b, suffix...)
	if len(d.labels) > 0 || extra != "" {
		b = append(b, '{')
		for i, l := range d.labels {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, l, values[i])
		}
		if extra != "" {
			if len(d.labels) > 0 {
				b = append(b, ',')
			}
			b = appendLabel(b, extra, extraValue)
		}
		b = append(b, '}')
	}
	return append(b, ' ')
}

// appendLabel appends name="value" with the value escaped as the format
// requires: backslash, double quote and line feed.
func appendLabel(b []byte, name, value string) []byte {
	b = append(b, name...)
	b = append(b, `="`...)
	for _, c := range []byte(value) {
		switch c {
		case '\\':
			b = append(b, `\\`...)
		case '"':
			b = append(b, `\"`...)
		case '\n':
			b = append(b, `\n`...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendFloat appends v as the format writes numbers: +Inf, -Inf, NaN, an
// integer without exponent when v is a whole number of modest size (so
// byte counts and Unix times read plainly), else Go's shortest form.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return strconv.AppendFloat(b, v, 'f', -1, 64)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}
