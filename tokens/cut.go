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
	fenceBody := 0 // where the open fence's content starts
	for _, l := range strings.SplitAfter(text, "\n") {
		c := Count(l)
		if used+c > budget {
			break
		}
		used += c
		off += len(l)
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if !inFence {
				inFence, fence, fenceBody = true, t, off
			} else if strings.HasPrefix(t, fence[:3]) && strings.Trim(t, fence[:1]) == "" {
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
		} else if off > fenceBody && used+Count("\n"+fence[:3]) <= budget {
			line, fenceAtLine = off, fence
		}
	}
	switch {
	case para > 0 && strings.TrimSpace(text[:para]) != "":
		return strings.TrimRight(text[:para], "\n"), strings.TrimLeft(text[para:], "\n")
	case line > 0 && strings.TrimSpace(text[:line]) != "":
		head, tail = strings.TrimRight(text[:line], "\n"), text[line:]
		if fenceAtLine != "" {
			head += "\n" + fenceAtLine[:3]
			tail = fenceAtLine + "\n" + tail
		}
		return head, tail
	}
	// One line longer than the budget: cut it between runes. When that
	// line is the first of a code fence the text opens with, the fence is
	// kept around the cut, closed in the head and reopened in the tail.
	if first, rest, ok := strings.Cut(text, "\n"); ok {
		if f := strings.TrimSpace(first); (strings.HasPrefix(f, "```") || strings.HasPrefix(f, "~~~")) && rest != "" {
			room := budget - Count(first+"\n") - Count("\n"+f[:3])
			if room > 0 {
				n := fitRunes(rest, room)
				return first + "\n" + rest[:n] + "\n" + f[:3], f + "\n" + rest[n:]
			}
		}
	}
	n := fitRunes(text, budget)
	return text[:n], text[n:]
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
