package mdinclude

import (
	"bytes"
	"strings"
)

// This file keeps, for every line expanded text is made of, the file the
// line is written in: what Result.Files reports and Result.FixLines sets
// markdown.Section.Source from. Lines are counted as pieces of text hold
// them, strings.Count(text, "\n")+1 (an empty text is one empty line),
// and a writer's lines as the "\n"s it wrote; origins are kept as runs,
// so that a file of a thousand lines included whole costs one run, not a
// thousand strings, however often it is copied on its way up the nested
// includes.

// run is n consecutive lines written in one file.
type run struct {
	file string // the file's repository path
	n    int
}

// origins lists, run by run, the files consecutive lines are written in.
type origins []run

// add returns o with n more lines of file.
func (o origins) add(file string, n int) origins {
	if n <= 0 {
		return o
	}
	if k := len(o); k > 0 && o[k-1].file == file {
		o[k-1].n += n
		return o
	}
	return append(o, run{file: file, n: n})
}

// lines counts the lines o covers.
func (o origins) lines() int {
	n := 0
	for _, r := range o {
		n += r.n
	}
	return n
}

// appendLines returns o with lines from..to-1 (0-based) of src.
func (o origins) appendLines(src origins, from, to int) origins {
	at := 0
	for _, r := range src {
		if lo, hi := max(from, at), min(to, at+r.n); lo < hi {
			o = o.add(r.file, hi-lo)
		}
		if at += r.n; at >= to {
			break
		}
	}
	return o
}

// linesOf counts the lines of a piece of text.
func linesOf(s string) int {
	return strings.Count(s, "\n") + 1
}

// piece is expanded text on its way into a line of the file being
// expanded, with the origins of its lines: nil when every line is that
// file's own (text of its line, a directive left as written).
type piece struct {
	text string
	from origins
}

// fileOf returns a piece made of text, all of whose lines are file's.
func fileOf(text, file string) piece {
	return piece{text: text, from: origins{{file: file, n: linesOf(text)}}}
}

// writer is expanded text, each line ended by a "\n", and the file each
// line is written in.
type writer struct {
	buf  bytes.Buffer
	from origins // one line for each "\n" in buf
	// misaligned is set when a piece's origins did not cover its lines
	// (a bug): its lines were counted as the expanding file's, and the
	// page gets no origins at all rather than wrong ones.
	misaligned bool
}

// line writes s and a "\n", s's lines written in file.
func (w *writer) line(s, file string) {
	w.buf.WriteString(s)
	w.buf.WriteByte('\n')
	w.from = w.from.add(file, linesOf(s))
}

// piece writes p and a "\n"; lines p does not say the origin of are
// file's, the file being expanded.
func (w *writer) piece(p piece, file string) {
	if p.from == nil {
		w.line(p.text, file)
		return
	}
	w.buf.WriteString(p.text)
	w.buf.WriteByte('\n')
	n := linesOf(p.text)
	if p.from.lines() != n {
		w.misaligned = true
		w.from = w.from.add(file, n)
		return
	}
	w.from = w.from.appendLines(p.from, 0, n)
}

// fence writes text as a fenced code block (see writeFence), its fence
// lines and code all the lines of file, the file the code is imported
// from: no heading is ever on them.
func (w *writer) fence(indent, info, text, file string) {
	start := w.buf.Len()
	writeFence(&w.buf, indent, info, text)
	w.from = w.from.add(file, bytes.Count(w.buf.Bytes()[start:], []byte{'\n'}))
}

// text returns what w wrote as a piece of a file's text, without the last
// "\n": its lines are those w wrote, or, when w wrote none, the one empty
// line of file that the empty text is.
func (w *writer) text(file string) piece {
	t := strings.TrimSuffix(w.buf.String(), "\n")
	if len(w.from) == 0 {
		return fileOf(t, file)
	}
	return piece{text: t, from: w.from}
}

// joiner builds one line of a file from the line's text and the pieces
// its inline directives bring in (a piece may hold many lines: the
// first joins the text before the directive, the last the text after
// it). A line that joining makes holds text of more than one file; it is
// the file's whose non-blank text it holds, and, when it holds the
// non-blank text of two (the line's own text and a directive's, or two
// directives'), the file the directives are written in: "## {!title.md!}"
// is a heading of the page. A blank line is the included file's when a
// directive's text is on it, so that a directive alone on its line, the
// way headings are included, gives every line it brings to its file.
type joiner struct {
	home       string // the file whose line is being expanded
	b          strings.Builder
	from       origins // the lines completed so far
	cur        string  // the file of the line being built
	blank      bool    // the line being built holds only blanks so far
	misaligned bool    // a piece's origins did not cover its lines (see writer)
}

// newJoiner starts a line of home, the file being expanded.
func newJoiner(home string) *joiner {
	return &joiner{home: home, cur: home, blank: true}
}

// write appends p, its lines p does not say the origin of home's.
func (j *joiner) write(p piece) {
	j.b.WriteString(p.text)
	n := linesOf(p.text)
	from := p.from
	if from != nil && from.lines() != n {
		j.misaligned = true
		from = nil
	}
	first, last := j.home, j.home
	if from != nil {
		first, last = from[0].file, from[len(from)-1].file
	}
	head, rest, more := strings.Cut(p.text, "\n")
	j.join(head, first)
	if !more {
		return
	}
	j.from = j.from.add(j.cur, 1)
	if from == nil {
		j.from = j.from.add(j.home, n-2)
	} else {
		j.from = j.from.appendLines(from, 1, n-1)
	}
	j.cur, j.blank = j.home, true
	j.join(rest[strings.LastIndexByte(rest, '\n')+1:], last)
}

// join adds s, text of file, to the line being built.
func (j *joiner) join(s, file string) {
	switch {
	case strings.TrimSpace(s) != "":
		if j.blank {
			j.cur, j.blank = file, false
		} else if j.cur != file {
			j.cur = j.home
		}
	case j.blank && file != j.home:
		j.cur = file
	}
}

// done returns the line built, with the origins of its lines.
func (j *joiner) done() piece {
	return piece{text: j.b.String(), from: j.from.add(j.cur, 1)}
}
