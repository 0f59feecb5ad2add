package tokens

import (
	"strings"
	"unicode/utf8"
)

// Cut splits markdown text into a head of at most budget tokens and the
// rest, for answers cut to a budget and documents read page by page. The
// cut falls after the last blank line outside code fences that fits;
// failing that, at the last line end that fits (inside a fence, the fence
// is closed in the head and reopened in the tail, so neither is left with
// an open fence); failing that, at the last rune that fits. The head is
// never empty when text is not, and the tail is always shorter than text,
// so cutting again and again ends.
func Cut(text string, budget int) (head, tail string) {
	if Count(text) <= budget {
		return text, ""
	}
	para, line := 0, 0
	used, off := 0, 0
	inFence, fence, fenceAtLine := false, "", ""
	marker := ""   // the open fence's run of backticks or tildes
	fenceBody := 0 // where the open fence's content starts
	trail := 0     // the whitespace bytes text[:off] ends with
	for _, l := range strings.SplitAfter(text, "\n") {
		// Count charges a run of whitespace as a whole, and a line's
		// newline runs into the next line's indentation or blank lines:
		// l costs what it adds to the run before it.
		lead := spaceRun(l)
		var c int
		if lead == len(l) {
			c = spaceCost(trail+lead) - spaceCost(trail)
		} else {
			c = Count(l) - spaceCost(lead) + spaceCost(trail+lead) - spaceCost(trail)
		}
		if used+c > budget {
			break
		}
		used += c
		off += len(l)
		if lead == len(l) {
			trail += lead
		} else {
			trail = len(l) - len(strings.TrimRight(l, spaceBytes))
		}
		t := strings.TrimSpace(l)
		if m := fenceRun(t); m != "" {
			if !inFence {
				inFence, fence, marker, fenceBody = true, t, m, off
			} else if m[0] == marker[0] && len(m) >= len(marker) && m == t {
				inFence = false
			}
		}
		if t == "" && !inFence {
			para = off
		}
		// A cut inside a fence closes it in the head (leave room for that)
		// and reopens it in the tail, so it must keep a line of the fence's
		// content: a cut right after the opening line would give the tail
		// back whole, and a reader of pages would never get past it.
		if !inFence {
			line, fenceAtLine = off, ""
		} else if off > fenceBody && used+Count("\n"+marker) <= budget {
			line, fenceAtLine = off, fence
		}
	}
	switch {
	case para > 0 && strings.TrimSpace(text[:para]) != "":
		return strings.TrimRight(text[:para], "\n"), strings.TrimLeft(text[para:], "\n")
	case line > 0 && strings.TrimSpace(text[:line]) != "":
		head, tail = strings.TrimRight(text[:line], "\n"), text[line:]
		if fenceAtLine != "" {
			head += "\n" + fenceRun(fenceAtLine)
			tail = fenceAtLine + "\n" + tail
		}
		return head, tail
	}
	// One line longer than the budget: cut it between runes. When that
	// line is the first of a code fence the text opens with, the fence is
	// kept around the cut, closed in the head and reopened in the tail.
	if first, rest, ok := strings.Cut(text, "\n"); ok {
		if f := strings.TrimSpace(first); fenceRun(f) != "" && rest != "" {
			// The parts' counts need not add up: whitespace at either
			// end of the cut joins the newlines around it into one run,
			// which costs more. The head is measured whole, and the room
			// for the cut line narrowed until it fits.
			m := fenceRun(f)
			for room := budget - Count(first+"\n") - Count("\n"+m); room > 0; room-- {
				n := fitRunes(rest, room)
				if h := first + "\n" + rest[:n] + "\n" + m; Count(h) <= budget {
					return h, f + "\n" + rest[n:]
				}
			}
		}
	}
	n := fitRunes(text, budget)
	return text[:n], text[n:]
}

// spaceBytes are the bytes Count takes for whitespace.
const spaceBytes = " \t\n\r\f\v"

// spaceRun returns how many whitespace bytes (spaceBytes) s starts with.
func spaceRun(s string) int { return len(s) - len(strings.TrimLeft(s, spaceBytes)) }

// spaceCost is what Count charges a run of n whitespace bytes: the first
// is free, then a token for every four.
func spaceCost(n int) int {
	if n > 1 {
		return (n + 2) / 4
	}
	return 0
}

// fenceRun returns the run of three or more backticks or tildes a
// trimmed line opens with, or "".
func fenceRun(t string) string {
	for _, c := range []string{"`", "~"} {
		if n := len(t) - len(strings.TrimLeft(t, c)); n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// fitRunes returns the length of the longest prefix of s, ending at a rune
// boundary, of at most budget tokens, found by bisection (the count of a
// prefix grows with it); at least the first rune.
func fitRunes(s string, budget int) int {
	lo, hi := 0, len(s) // s[:lo] fits, s[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if Count(s[:mid]) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		_, lo = utf8.DecodeRuneInString(s)
	}
	return lo
}
