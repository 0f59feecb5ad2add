package markdown

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/codex7/codex7/tokens"
)

// invariantErrors splits src and returns what is wrong with the result:
// the sections' ranges must partition the cleaned body (a leading omitted
// range may only hold whitespace), every section must have non-empty Text
// and Tokens == tokens.Count(Text), anchors must be unique per part,
// parents must come before their children and lines must not decrease.
// No text may be lost (see lostTextErrors).
func invariantErrors(path string, src []byte, opts Options) []string {
	_, errs := checkDocument(path, src, opts)
	return errs
}

// checkDocument splits src and returns the Document (nil if split failed)
// and what invariantErrors says is wrong with it.
func checkDocument(path string, src []byte, opts Options) (*Document, []string) {
	doc, res, err := split(path, src, opts)
	if err != nil {
		return nil, []string{fmt.Sprintf("split: %v", err)}
	}
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	if len(res.ranges) != len(doc.Sections) {
		add("got %d ranges, want %d (one per section)", len(res.ranges), len(doc.Sections))
		return doc, errs
	}
	var rebuilt []byte
	pos := 0
	for i, r := range res.ranges {
		if r.start != pos {
			add("section %d starts at %d, want %d", i, r.start, pos)
		}
		if r.end < r.start || r.end > len(res.body) {
			add("section %d has range [%d,%d) outside body of %d bytes", i, r.start, r.end, len(res.body))
			return doc, errs
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
	return doc, append(errs, lostTextErrors(src, doc, res)...)
}

// lostTextErrors checks that no text is lost between src and doc's
// sections, in two steps.
//
// From the file, less the near copies among its content tabs
// (collapseTabs), to the cleaned body: the cleaner keeps every line (and
// limitParse only adds blank lines, which res.inserted lists), so line i of
// the body is line i of the file. A plain line (see isPlainLine: one that
// holds nothing the cleaner drops or rewrites) must come out with the same
// text, give or take whitespace and backslash escapes, or come out blank
// because a construct opened on an earlier line that is not plain swallowed
// it and every line since.
//
// From the cleaned body to the sections: the non-blank lines of each
// section's body range must be exactly the non-blank lines of its Text,
// less the heading line that chunks after the first repeat, and with MDX
// comments taken out of its heading line.
func lostTextErrors(src []byte, doc *Document, res *splitResult) []string {
	var errs []string
	add := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }

	bodyStart, _ := splitFrontMatter(src)
	// Tabs that are near copies of others are left out on purpose, before
	// cleaning (see collapseTabs and its own tests).
	srcLines := bytes.Split(collapseTabs(src[bodyStart:]), []byte("\n"))
	var bodyLines [][]byte
	for p := 0; p <= len(res.body); {
		e := len(res.body)
		if i := bytes.IndexByte(res.body[p:], '\n'); i >= 0 {
			e = p + i
		}
		if _, inserted := slices.BinarySearch(res.inserted, p); !inserted {
			bodyLines = append(bodyLines, res.body[p:e])
		}
		p = e + 1
	}
	if len(srcLines) != len(bodyLines) {
		add("body has %d lines, want the file's %d", len(bodyLines), len(srcLines))
		return errs
	}
	swallowed := false // a construct opened on a line that is not plain may have taken this one
	for i, s := range srcLines {
		c := bodyLines[i]
		switch {
		case !isPlainLine(s):
			swallowed = true
		case isBlank(s):
		case bytes.Equal(normLine(s), normLine(c)):
			swallowed = false
		case isBlank(c):
			if !swallowed {
				add("body line %d is blank, want %q", i+1, s)
			}
		default:
			add("body line %d is %q, want %q", i+1, c, s)
			swallowed = false
		}
	}

	for i, r := range res.ranges {
		if i >= len(doc.Sections) || r.start > r.end || r.end > len(res.body) {
			break // reported by invariantErrors
		}
		sec := doc.Sections[i]
		want := nonBlankLines(res.body[r.start:r.end])
		got := nonBlankLines([]byte(sec.Text))
		if sec.Level > 0 && sec.Part > 0 && len(got) > 0 {
			got = got[1:] // the repeated heading line
		}
		if sec.Level > 0 && sec.Part == 0 && len(want) > 0 {
			want[0] = bytes.TrimRight(mdxComment.ReplaceAll(want[0], nil), " \t")
		}
		if !slices.EqualFunc(want, got, bytes.Equal) {
			add("section %d (%q): Text lines %q, want the body's %q", i, sec.Heading, got, want)
		}
	}
	return errs
}

// mdxComment matches an MDX comment, which Split drops from heading lines.
var mdxComment = regexp.MustCompile(`\{/\*.*?\*/\}`)

// isPlainLine reports whether a line of a file holds nothing the cleaner
// drops or rewrites: no tag, expression, comment or shortcode delimiter
// ('<', '>', '{', '}'), no admonition, MDC or include line (starting with
// '/' or ':'), no import or export statement, no webpack marker ("T>").
func isPlainLine(l []byte) bool {
	if bytes.ContainsAny(l, "<>{}") {
		return false
	}
	t := bytes.TrimLeft(l, " \t")
	for _, p := range []string{"/", ":", "import", "export"} {
		if bytes.HasPrefix(t, []byte(p)) {
			return false
		}
	}
	return true
}

// normLine returns l without whitespace and backslashes.
func normLine(l []byte) []byte {
	return bytes.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\v', '\f', '\\':
			return -1
		}
		return r
	}, l)
}

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

// nonBlankLines returns the lines of b that are not blank, with trailing
// whitespace trimmed.
func nonBlankLines(b []byte) [][]byte {
	var out [][]byte
	for l := range bytes.SplitSeq(b, []byte("\n")) {
		if !isBlank(l) {
			out = append(out, bytes.TrimRight(l, " \t\r"))
		}
	}
	return out
}

// checkInvariants fails t with every invariant src breaks.
func checkInvariants(t testing.TB, path string, src []byte, opts Options) {
	t.Helper()
	for _, e := range invariantErrors(path, src, opts) {
		t.Errorf("%s: %s", path, e)
	}
}
