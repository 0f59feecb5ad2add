package tokens

import (
	"strings"
	"testing"
)

// TestCutHeadWithinBudgetWhenWhitespaceJoinsAcrossLines: a line's leading
// whitespace joins the previous line's newline into one run, which costs
// more than the two apart; the head Cut returns stays within the budget.
func TestCutHeadWithinBudgetWhenWhitespaceJoinsAcrossLines(t *testing.T) {
	for _, tt := range []struct {
		name   string
		text   string
		budget int
	}{
		{"indented lines", strings.Repeat("a\n b\n", 20), 10},
		{"blank lines", "a\n" + strings.Repeat("\n", 8) + "b\n\n" + strings.Repeat("c", 40), 2},
		// A fence's one long line cut between runes: the cut follows a
		// space, which joins the closing fence's newline.
		{"a fence's long line cut after a space", "```\n" + strings.Repeat("x! ", 40) + "\n```", 30},
		{"a fence's long line starting with a space", "```\n " + strings.Repeat("x!", 60) + "\n```", 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := Cut(tt.text, tt.budget)
			if tail == "" {
				t.Fatalf("the text fits: no cut")
			}
			if n := Count(head); n > tt.budget {
				t.Errorf("head %q is %d tokens, budget %d", head, n, tt.budget)
			}
		})
	}
}

// TestCutKeepsALongerFenceClosed: a fence opened with four backticks is
// closed only by four or more (CommonMark): a "```" line inside it does
// not end it, and a cut inside it closes the head with four.
func TestCutKeepsALongerFenceClosed(t *testing.T) {
	for _, tt := range []struct {
		name   string
		text   string
		budget int
	}{
		{"cut inside a four-backtick fence", "````md\n" + strings.Repeat("line of text\n", 20) + "````\n", 20},
		{"nested three-backtick fence", "````md\n```go\nx := 1\n```\n\nmore text here\nand more\n" + strings.Repeat("word ", 30) + "\n````\n", 16},
	} {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := Cut(tt.text, tt.budget)
			if tail == "" {
				t.Fatalf("the text fits: no cut")
			}
			if open := openFence(head); open != "" {
				t.Errorf("head leaves fence %q open:\n%s", open, head)
			}
		})
	}
}

// openFence returns the fence left open at the end of s, by CommonMark's
// rule (a closing fence is at least as long as its opening, of the same
// character, with no info string), or "".
func openFence(s string) string {
	open := ""
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(l)
		n := len(t) - len(strings.TrimLeft(t, "`"))
		c := byte('`')
		if n == 0 {
			n, c = len(t)-len(strings.TrimLeft(t, "~")), '~'
		}
		if n < 3 {
			continue
		}
		if open == "" {
			open = t[:n]
		} else if open[0] == c && n >= len(open) && strings.Trim(t, string(c)) == "" {
			open = ""
		}
	}
	return open
}
