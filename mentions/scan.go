package mentions

import (
	"strings"
)

// span is a byte range [start, end) of the prompt.
type span struct{ start, end int }

// segment is a line of the prompt, or the content of an inline code span:
// what line-anchored rules (Python imports, commands at the start of a
// line, manifest lines) look at.
type segment struct {
	start, end int
	// code is true in a fenced code block and in an inline code span.
	code bool
	// fence numbers the fenced block the line is in, from 1; 0 outside.
	fence int
	// inline is true for the content of an inline code span.
	inline bool
}

// scan is one Detect call.
type scan struct {
	x      *Index
	text   string
	segs   []segment
	inline []span // inline code spans outside fences (their content)
	cands  map[string]*cand
	order  []*cand
	titles map[int]bool // line start → whether the line is in title case
}

func newScan(x *Index, text string) *scan {
	s := &scan{x: x, text: text, cands: map[string]*cand{}, titles: map[int]bool{}}
	s.split()
	return s
}

// split cuts the text into segments: lines, marked as code inside fenced
// blocks, plus the content of every inline code span outside them.
func (s *scan) split() {
	var fenceChar byte
	fenceLen, fences := 0, 0
	for ls := 0; ls < len(s.text); {
		le := strings.IndexByte(s.text[ls:], '\n')
		next := len(s.text)
		if le < 0 {
			le = len(s.text)
		} else {
			le += ls
			next = le + 1
		}
		end := le
		if end > ls && s.text[end-1] == '\r' {
			end--
		}
		line := s.text[ls:end]
		trimmed := strings.TrimLeft(line, " \t")
		switch {
		case fenceLen == 0 && opensFence(trimmed):
			fenceChar = trimmed[0]
			fenceLen = len(trimmed) - len(strings.TrimLeft(trimmed, string(fenceChar)))
			fences++
		case fenceLen > 0 && strings.HasPrefix(trimmed, strings.Repeat(string(fenceChar), fenceLen)) &&
			strings.TrimSpace(strings.TrimLeft(trimmed, string(fenceChar))) == "":
			fenceLen = 0
		case fenceLen > 0:
			s.segs = append(s.segs, segment{start: ls, end: end, code: true, fence: fences})
		default:
			s.segs = append(s.segs, segment{start: ls, end: end})
			for _, sp := range inlineSpans(line, ls) {
				s.inline = append(s.inline, sp)
				s.segs = append(s.segs, segment{start: sp.start, end: sp.end, code: true, inline: true})
			}
		}
		ls = next
	}
}

// opensFence reports whether a line, without its indentation, opens a
// fenced code block: three or more backticks or tildes. The info string of
// a backtick fence holds no backtick (CommonMark), so "```npm i vite```",
// one line of code as chat prompts write it, is an inline code span and
// leaves the lines after it prose.
func opensFence(t string) bool {
	switch {
	case strings.HasPrefix(t, "~~~"):
		return true
	case strings.HasPrefix(t, "```"):
		return !strings.Contains(strings.TrimLeft(t, "`"), "`")
	}
	return false
}

// inlineSpans finds the inline code spans of a line (base is its offset):
// a run of backticks up to the next run of as many.
func inlineSpans(line string, base int) []span {
	var out []span
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		open := i + n
		closed := -1
		for j := open; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(line) && line[j+m] == '`' {
				m++
			}
			if m == n {
				closed = j
				break
			}
			j += m
		}
		if closed < 0 {
			i = open
			continue
		}
		start, end := open, closed
		for start < end && line[start] == ' ' {
			start++
		}
		for end > start && line[end-1] == ' ' {
			end--
		}
		if start < end {
			out = append(out, span{base + start, base + end})
		}
		i = closed + n
	}
	return out
}

// lineAt returns the bounds of the line holding off.
func (s *scan) lineAt(off int) (int, int) {
	start := strings.LastIndexByte(s.text[:off], '\n') + 1
	end := strings.IndexByte(s.text[off:], '\n')
	if end < 0 {
		return start, len(s.text)
	}
	return start, off + end
}
