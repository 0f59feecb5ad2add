package search

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// Markdown renders the answer as an agent reads it: a header line, any
// notes, the sections (each under its heading path and provenance) or the
// listing, and a footer saying what was left out and which call gets the
// next page. Its size in tokens is at most the answer's budget: packing
// counts every part of it. The rendering is kept with the answer, so a
// cached answer is rendered once.
func (a *Answer) Markdown() string {
	if a.markdown != "" {
		return a.markdown
	}
	return a.render()
}

// sectionGap ends each section of an answer's body: a blank line.
const sectionGap = "\n\n"

// gapTokens is what sectionGap adds to a section's text (which never ends
// in whitespace): whitespace beyond a single separator costs tokens.
func gapTokens() int { return tokens.Count(sectionGap) }

// finish renders the answer and sets Tokens to the rendering's size. The
// head states that size, so it is rendered again until the two agree; the
// body and foot, which do not change, are counted once. Every part ends in
// a newline and the next starts with none, so the parts' counts add up to
// the whole's, but for whitespace a body starts with (a document page
// continuing an indented block): it is counted with the head's blank line,
// as one run.
func (a *Answer) finish() {
	foot := a.foot()
	n := tokens.Count(foot)
	var body, lead string
	if a.Kind == KindSearch {
		n += a.searchTokens()
	} else {
		body = a.body()
		lead = leadingSpace(body)
		n += tokens.Count(body[len(lead):])
	}
	head := a.head()
	for range 4 {
		total := tokens.Count(head+lead) + n
		if total == a.Tokens {
			break
		}
		a.Tokens = total
		head = a.head()
	}
	if a.Kind != KindSearch {
		a.markdown = head + body + foot
		return
	}
	// A search's body, about 20 KB, is written once, in place.
	var b strings.Builder
	b.Grow(len(head) + a.bodySize() + len(foot))
	b.WriteString(head)
	a.writeBody(&b)
	b.WriteString(foot)
	a.markdown = b.String()
}

// searchTokens returns tokens.Count(a.body()) for a search. Its body is
// its sections' heads and texts, each ending in a blank line (sectionGap),
// and counts add up across a single newline, so it is the sum of the
// heads', the texts' and the gaps' counts: an untrimmed section's text is
// the whole section, whose count the index holds (Section.Tokens, the
// splitter's tokens.Count of it).
// Counting the ten or so sections of an answer again was a tenth of a
// search's CPU.
func (a *Answer) searchTokens() int {
	n := 0
	for i := range a.Sections {
		s := &a.Sections[i]
		// Whitespace the text starts with joins the head's blank line.
		lead := leadingSpace(s.Text)
		n += tokens.Count(sectionHead(s)+lead) - tokens.Count(lead) + gapTokens()
		if s.Trimmed {
			n += tokens.Count(s.Text) + tokens.Count(trimHint(s))
		} else {
			n += s.Tokens
		}
	}
	return n
}

// leadingSpace returns the whitespace text starts with. After a blank
// line it is one run of whitespace with it, which tokens.Count charges
// less than the two apart.
func leadingSpace(text string) string {
	return text[:len(text)-len(strings.TrimLeft(text, " \t\n\r\f\v"))]
}

func (a *Answer) render() string { return a.head() + a.body() + a.foot() }

// body is the sections or the listing.
func (a *Answer) body() string {
	var b strings.Builder
	b.Grow(a.bodySize())
	a.writeBody(&b)
	return b.String()
}

// bodySize is about the size of the body, at least its sections'.
func (a *Answer) bodySize() int {
	size := 0
	for i := range a.Sections {
		s := &a.Sections[i]
		size += len(s.Text) + len(s.Path) + len(s.Anchor) + 64
		for _, h := range s.HeadingPath {
			size += len(h) + 8
		}
	}
	return size
}

// writeBody writes the sections or the listing to b.
func (a *Answer) writeBody(b *strings.Builder) {
	switch a.Kind {
	case KindFolder:
		for _, d := range a.Documents {
			b.WriteString(folderLine(d))
		}
	case KindOutline:
		for _, o := range a.Outline {
			b.WriteString(outlineLine(o))
		}
	case KindDocument:
		for _, s := range a.Sections {
			b.WriteString(s.Text)
			b.WriteString(sectionGap)
		}
	default:
		for i := range a.Sections {
			s := &a.Sections[i]
			b.WriteString(sectionHead(s))
			b.WriteString(s.Text)
			b.WriteString(sectionGap)
			if s.Trimmed {
				b.WriteString(trimHint(s))
			}
		}
	}
}

// notesBlock is how notes open an answer: a line each, then a blank line.
func notesBlock(notes []string) string {
	if len(notes) == 0 {
		return ""
	}
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	b.WriteString("\n")
	return b.String()
}

// head is what comes before the sections: notes and a title line.
func (a *Answer) head() string {
	var b strings.Builder
	b.WriteString(notesBlock(a.Notes))
	at := a.Library + "@" + a.Version
	switch a.Kind {
	case KindFolder:
		fmt.Fprintf(&b, "# Documents under %s in %s (%s)\n\n", a.Path, at, a.pageOf())
	case KindOutline:
		fmt.Fprintf(&b, "# Outline of %s (%s) in %s, commit %.12s (%s)\n\n", a.Path, a.Title, at, a.Commit, a.pageOf())
	case KindDocument:
		fmt.Fprintf(&b, "# %s\nSource: %s %s (commit %.12s), %s\n\n", a.Title, at, a.Path, a.Commit, a.pageOf())
	default:
		if len(a.Sections) == 0 {
			fmt.Fprintf(&b, "No section of %s matches. Try other words, or fewer topics.\n", at)
			switch a.Mode {
			case request.ModeCode:
				b.WriteString("Nothing matched in mode 'code' (code examples). Try mode='info'.\n")
			case request.ModeInfo:
				b.WriteString("Nothing matched in mode 'info' (prose). Try mode='code'.\n")
			}
			return b.String()
		}
		fmt.Fprintf(&b, "# %s (commit %.12s): %s, %d of %d tokens, %s\n\n", at, a.Commit, plural(len(a.Sections), "section"), a.Tokens, a.Budget, a.pageOf())
	}
	return b.String()
}

// foot is what comes after the sections: how to get more.
func (a *Answer) foot() string {
	switch {
	case a.Kind == KindFolder:
		return "Read one with {\"path\": \"<its path>\"}, or its outline with {\"path\": \"<its path>\", \"outline\": true}.\n" + a.next()
	case a.hasNext():
		return a.next()
	case a.Kind == KindSearch && (a.LeftOut > 0 || a.Duplicates > 0):
		// The last page. Sections left out of it were never ranked: only
		// the best maxCandidates are cut into pages.
		var b strings.Builder
		b.WriteString("---\n")
		if a.LeftOut > 0 {
			fmt.Fprintf(&b, "%s not shown: only the best %d are paged; narrow the query or give topics.\n", plural(a.LeftOut, "more matching section"), maxCandidates)
		}
		if a.Duplicates > 0 {
			fmt.Fprintf(&b, "%s (the same text elsewhere) left out.\n", plural(a.Duplicates, "near-duplicate section"))
		}
		return b.String()
	}
	return ""
}

func (a *Answer) hasNext() bool { return a.Page < a.Pages || a.MorePages }

// next says how to get the next page, or nothing on the last.
func (a *Answer) next() string {
	if !a.hasNext() {
		return ""
	}
	more := ""
	if a.Kind == KindSearch && a.LeftOut > 0 {
		more = fmt.Sprintf(" %s did not fit.", plural(a.LeftOut, "more matching section"))
	}
	return fmt.Sprintf("---\nNext: the same call with \"page\": %d.%s\n", a.Page+1, more)
}

func (a *Answer) pageOf() string {
	if a.MorePages {
		return fmt.Sprintf("page %d of at least %d", a.Page, max(a.Pages, a.Page+1))
	}
	return fmt.Sprintf("page %d of %d", a.Page, a.Pages)
}

// sectionHead is a section's heading path and where it comes from; the
// library, version and commit are the answer's, named in its title line.
// Packing measures the head of every candidate section, so it is written
// without fmt and into one allocation.
func sectionHead(s *Section) string {
	if s.short {
		return shortSectionHead(s)
	}
	const (
		sep     = " › "
		source  = "\nSource: "
		code    = " (code: "
		langSep = ", "
	)
	n := len("## ") + len(source) + len(s.Path) + len("#") + len(s.Anchor) + len(code) + len(")\n\n")
	for _, h := range s.HeadingPath {
		n += len(h) + len(sep)
	}
	for _, l := range s.Langs {
		n += len(l) + len(langSep)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString("## ")
	for i, h := range s.HeadingPath {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(h)
	}
	b.WriteString(source)
	b.WriteString(s.Path)
	if s.Anchor != "" {
		b.WriteByte('#')
		b.WriteString(s.Anchor)
	}
	if len(s.Langs) > 0 {
		b.WriteString(code)
		for i, l := range s.Langs {
			if i > 0 {
				b.WriteString(langSep)
			}
			b.WriteString(l)
		}
		b.WriteByte(')')
	}
	b.WriteString("\n\n")
	return b.String()
}

// trimHint follows a trimmed section: how to read it whole.
func trimHint(s *Section) string {
	switch {
	case s.short && s.Text == "":
		return tooLargeHint
	case s.short:
		return "(Cut to fit the budget: read it whole with the path above.)\n\n"
	}
	return fmt.Sprintf("(Cut to fit the budget: read it whole with \"path\": %q.)\n\n", s.Path)
}

// tooLargeHint follows a section shown short with none of its text, the
// longest hint of a short section.
const tooLargeHint = "(Too large for this budget: read it whole with the path above, or ask for more tokens.)\n\n"

// shortSectionHead is the head of a section shown short: only where it is.
// Its text, when any is shown, starts with its own heading.
func shortSectionHead(s *Section) string {
	return "Source: " + s.Path + "\n\n"
}

func folderLine(d DocumentEntry) string {
	return fmt.Sprintf("- %s — %s (%d tokens)\n", d.Path, d.Title, d.Tokens)
}

func outlineLine(o OutlineEntry) string {
	return fmt.Sprintf("%s- %s #%s (%d tokens)\n", strings.Repeat("  ", max(o.Level-1, 0)), o.Title, o.Anchor, o.Tokens)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// envelope is the most the head and foot of an answer can cost, whatever
// its counts and page numbers: packing leaves that much of the budget free.
func (a *Answer) envelope() int {
	const big = 99999999
	w := *a
	w.Sections = []Section{{}} // a search's title line, not its "no match" text
	w.Tokens, w.Budget, w.Page, w.Pages, w.LeftOut, w.Duplicates, w.MorePages = big, big, big, big+1, big, big, true
	head, foot := tokens.Count(w.head()), tokens.Count(w.foot())
	w.Pages, w.MorePages = big, false // the last page: no next, maybe duplicates
	return head + max(foot, tokens.Count(w.foot()))
}
