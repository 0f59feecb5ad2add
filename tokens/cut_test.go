package tokens

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	fenced := "## H\n\nFirst paragraph.\n\n```go\nfunc a() {}\n\nfunc b() {}\nfunc c() {}\n```\n\nLast paragraph that is long enough.\n"
	tests := []struct {
		name     string
		text     string
		budget   int
		wantHead string
	}{
		{"fits", "short text", 100, "short text"},
		{"paragraph boundary before a fence", fenced, 12, "## H\n\nFirst paragraph."},
		{"a blank line inside a fence is not a boundary", fenced, 22, "## H\n\nFirst paragraph."},
		{"inside a fence with no paragraph: the fence is closed", "```go\nfunc a() {}\nfunc b() {}\nfunc c() {}\n```\n", 14, "```go\nfunc a() {}\n```"},
		{"one long line is cut between runes", strings.Repeat("é", 40), 10, strings.Repeat("é", 10)},
		{"a fence's one long line is cut inside the fence", "```\n" + strings.Repeat("é", 40) + "\n```", 10, "```\n" + strings.Repeat("é", 4) + "\n```"},
		{"never empty", "αβγ", 0, "α"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head, tail := Cut(tt.text, tt.budget)
			if head != tt.wantHead {
				t.Errorf("head = %q, want %q", head, tt.wantHead)
			}
			if !utf8.ValidString(head) || !utf8.ValidString(tail) {
				t.Errorf("cut inside a rune: %q | %q", head, tail)
			}
			if tt.budget > 0 && Count(head) > max(tt.budget, 1) && tail != "" {
				t.Errorf("head is %d tokens, budget %d", Count(head), tt.budget)
			}
			// Nothing is lost: head and tail hold the text, give or take
			// whitespace and the fence lines a cut inside a fence adds.
			if got, want := squeeze(head+"\n"+tail), squeeze(tt.text); got != want && squeeze(head+tail) != want {
				t.Errorf("head+tail = %q, want %q", got, want)
			}
		})
	}
}

var fences = regexp.MustCompile("(`{3,}|~{3,})[^\n]*")

// squeeze drops whitespace and fence markers.
func squeeze(s string) string {
	return strings.Join(strings.Fields(fences.ReplaceAllString(s, "")), "")
}

// FuzzCut checks Cut on any text and budget: the head is
// never empty, the tail is always shorter than the text (a caller cutting
// again and again ends), nothing is lost, and the head is within the
// budget unless it is the one rune progress takes.
func FuzzCut(f *testing.F) {
	f.Add("## H\n\nFirst paragraph.\n\n```go\nfunc a() {}\n```\n", 5)
	f.Add("```json\n"+strings.Repeat(`{"k":"v"},`, 80)+"\n```\n", 100)
	f.Add(strings.Repeat("é", 40), 3)
	f.Add("~~~\n\n\n~~~", 1)
	f.Fuzz(func(t *testing.T, text string, budget int) {
		if text == "" || budget < 0 || budget > 1<<16 {
			return
		}
		head, tail := Cut(text, budget)
		if head == "" || len(tail) >= len(text) {
			t.Fatalf("Cut(%q, %d) = %q, %q: no progress", text, budget, head, tail)
		}
		if utf8.ValidString(text) && (!utf8.ValidString(head) || !utf8.ValidString(tail)) {
			t.Fatalf("cut inside a rune: %q | %q", head, tail)
		}
		// A cut at a line end drops the newline, one inside a line does
		// not: either way the text is all there.
		if got, want := squeeze(head+"\n"+tail), squeeze(text); got != want && squeeze(head+tail) != want {
			t.Fatalf("Cut(%q, %d) lost text: %q | %q", text, budget, head, tail)
		}
		// Over the budget only when even one rune is: the head is never empty.
		if n := Count(head); n > budget && utf8.RuneCountInString(head) > 1 {
			t.Fatalf("Cut(%q, %d): head %q is %d tokens", text, budget, head, n)
		}
	})
}
