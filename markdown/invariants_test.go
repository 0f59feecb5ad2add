package markdown

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/codex7/codex7/tokens"
)

// invariantErrors splits src and returns what is wrong with the result:
// the sections' ranges must partition the cleaned body (a leading omitted
// range may only hold whitespace), every section must have non-empty Text
// and Tokens == tokens.Count(Text), anchors must be unique per part,
// parents must come before their children and lines must not decrease.
func invariantErrors(path string, src []byte, opts Options) []string {
	doc, res, err := split(path, src, opts)
	if err != nil {
		return []string{fmt.Sprintf("split: %v", err)}
	}
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if len(res.ranges) != len(doc.Sections) {
		add("got %d ranges, want %d (one per section)", len(res.ranges), len(doc.Sections))
		return errs
	}
	var rebuilt []byte
	pos := 0
	for i, r := range res.ranges {
		if r.start != pos {
			add("section %d starts at %d, want %d", i, r.start, pos)
		}
		if r.end < r.start || r.end > len(res.body) {
			add("section %d has range [%d,%d) outside body of %d bytes", i, r.start, r.end, len(res.body))
			return errs
		}
		rebuilt = append(rebuilt, res.body[r.start:r.end]...)
		pos = r.end
	}
	if len(doc.Sections) == 0 {
		if len(bytes.TrimSpace(res.body)) != 0 {
			add("no sections for a body with content: %q", res.body)
		}
	} else if !bytes.Equal(rebuilt, res.body) {
		add("sections do not partition the body: got %d bytes, want %d", len(rebuilt), len(res.body))
	}
	sum := 0
	seen := map[string]bool{}
	lastLine := 0
	for i, s := range doc.Sections {
		if s.Text == "" {
			add("section %d (%q) has empty Text", i, s.Heading)
		}
		if got, want := s.Tokens, tokens.Count(s.Text); got != want {
			add("section %d: got Tokens %d, want %d", i, got, want)
		}
		sum += s.Tokens
		key := fmt.Sprintf("%s#%d", s.Anchor, s.Part)
		if seen[key] {
			add("section %d: anchor %q part %d is not unique", i, s.Anchor, s.Part)
		}
		seen[key] = true
		if s.Parent >= i || s.Parent < -1 {
			add("section %d: got Parent %d, want -1 <= Parent < %d", i, s.Parent, i)
		} else if s.Parent >= 0 && doc.Sections[s.Parent].Level >= s.Level {
			add("section %d: parent %d has level %d, want < %d", i, s.Parent, doc.Sections[s.Parent].Level, s.Level)
		}
		if s.Part < 0 || s.Part >= s.Parts {
			add("section %d: got Part %d of %d", i, s.Part, s.Parts)
		}
		if s.Line < 1 || s.Line < lastLine {
			add("section %d: got Line %d after line %d", i, s.Line, lastLine)
		}
		lastLine = s.Line
		if len(s.HeadingPath) == 0 || s.HeadingPath[0] != doc.Title {
			add("section %d: HeadingPath %q does not start with the title %q", i, s.HeadingPath, doc.Title)
		}
	}
	if sum != doc.Tokens {
		add("got Document.Tokens %d, want sum %d", doc.Tokens, sum)
	}
	if doc.Title == "" {
		add("empty Title")
	}
	return errs
}

// checkInvariants fails t with every invariant src breaks.
func checkInvariants(t testing.TB, path string, src []byte, opts Options) {
	t.Helper()
	for _, e := range invariantErrors(path, src, opts) {
		t.Errorf("%s: %s", path, e)
	}
}
