package search

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/tokens"
)

// Token budget bounds of an answer. A budget outside them is clamped, with
// a note; none is refused.
const (
	DefaultTokens = 5000
	MinTokens     = 100
	MaxTokens     = 50000
)

// maxCandidates bounds the ranked sections an answer's pages are cut from.
const maxCandidates = 500

// candidatesPerPage is how many ranked sections are fetched per page asked
// for: far more than a page holds, so near-duplicates and sections left for
// later pages do not leave a page short.
const candidatesPerPage = 60

// DocsRequest asks for documentation of one library version: ranked
// sections (Query, Topics, Mode), or, with Path, a whole document page by
// page, a folder's documents or, with Outline, a document's heading tree.
type DocsRequest struct {
	Library string
	Query   string
	Topics  []string
	Mode    string
	Path    string
	Outline bool
	// Tokens is the budget of the answer (DefaultTokens when 0).
	Tokens int
	// Page is the page of the answer, from 1 (1 when 0).
	Page int
}

// Answer kinds.
const (
	KindSearch   = "search"
	KindDocument = "document"
	KindFolder   = "folder"
	KindOutline  = "outline"
)

// Answer is a packed answer: everything in it fits the token budget.
type Answer struct {
	Library string `json:"library"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// Kind is search, document, folder or outline.
	Kind string `json:"kind"`
	// Path and Title name the document or folder of a path answer.
	Path  string `json:"path,omitempty"`
	Title string `json:"title,omitempty"`
	// Sections are ranked sections (search) or one page of a document.
	Sections []Section `json:"sections"`
	// Documents lists a folder's documents (this page of them).
	Documents []DocumentEntry `json:"documents,omitempty"`
	// Outline is a document's heading tree (this page of it).
	Outline []OutlineEntry `json:"outline,omitempty"`
	Page    int            `json:"page"`
	Pages   int            `json:"pages"`
	// Matched counts the sections that match a search.
	Matched int `json:"matched,omitempty"`
	// LeftOut counts matching sections on later pages or beyond them.
	LeftOut int `json:"left_out,omitempty"`
	// Duplicates counts near-duplicate sections dropped (the same text in
	// another place, such as a page copied for two versions).
	Duplicates int `json:"duplicates,omitempty"`
	// Tokens is the size of what is returned; Budget what was allowed.
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Mode is the mode searched ("info", "code" or "").
	Mode string `json:"mode,omitempty"`
	// Notes say what was adjusted (a clamped budget, too many topics).
	Notes []string `json:"notes,omitempty"`
}

// Section is one returned section with its provenance.
type Section struct {
	Library     string   `json:"library"`
	Version     string   `json:"version"`
	Commit      string   `json:"commit"`
	Path        string   `json:"path"`
	Anchor      string   `json:"anchor"`
	Title       string   `json:"title"`
	HeadingPath []string `json:"heading_path"`
	// Langs are the languages of the section's code blocks.
	Langs     []string `json:"langs,omitempty"`
	Tokens    int      `json:"tokens"`
	Relevance float64  `json:"relevance"`
	Text      string   `json:"text"`
	// Trimmed says Text is the start of a section too large for the budget,
	// cut at a paragraph or code block boundary; read it whole by path.
	Trimmed bool `json:"trimmed,omitempty"`
	// Continued says Text continues on the next page (document pages).
	Continued bool `json:"continued,omitempty"`
}

// DocumentEntry is one document of a folder listing.
type DocumentEntry struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Tokens int    `json:"tokens"`
}

// OutlineEntry is one heading of a document's outline.
type OutlineEntry struct {
	Anchor string `json:"anchor"`
	Title  string `json:"title"`
	Level  int    `json:"level"`
	Line   int    `json:"line"`
	Tokens int    `json:"tokens"`
}

// Docs answers a documentation request within its token budget. The
// answer's slices may be shared with other callers: do not modify them.
func (e *Engine) Docs(ctx context.Context, req DocsRequest) (*Answer, error) {
	budget, notes := clampTokens(req.Tokens)
	page := req.Page
	if page < 0 {
		return nil, fmt.Errorf("%w: page %d: pages start at 1", ErrInvalidRequest, page)
	}
	if page == 0 {
		page = 1
	}
	var clean string
	if strings.TrimSpace(req.Path) != "" || req.Outline {
		var err error
		if clean, err = cleanPath(req.Path); err != nil {
			return nil, err
		}
	}
	var ans *Answer
	err := e.with(func(st *state) error {
		r, _, err := st.resolve(req.Library)
		if err != nil {
			return err
		}
		key := answerKey(r.Version.Path, &req, budget, page)
		if a, ok := st.answers.get(key); ok {
			e.answerHits.Add(1)
			ans = a
			return nil
		}
		e.answerMisses.Add(1)
		if clean != "" {
			ans, err = st.read(req.Library, clean, req.Outline, budget, page)
		} else {
			ans, err = st.search(ctx, req, budget, page)
		}
		if err == nil {
			st.answers.put(key, ans)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(notes) == 0 {
		return ans, nil
	}
	out := *ans
	out.Notes = append(notes, ans.Notes...)
	return &out, nil
}

func clampTokens(n int) (int, []string) {
	switch {
	case n == 0:
		return DefaultTokens, nil
	case n < MinTokens:
		return MinTokens, []string{fmt.Sprintf("tokens %d raised to the minimum of %d", n, MinTokens)}
	case n > MaxTokens:
		return MaxTokens, []string{fmt.Sprintf("tokens %d lowered to the maximum of %d", n, MaxTokens)}
	}
	return n, nil
}

// search packs ranked sections into pages and returns page number page.
func (st *state) search(ctx context.Context, req DocsRequest, budget, page int) (*Answer, error) {
	q, r, v, err := st.prepare(req.Library, req.Query, req.Topics, req.Mode)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Kind: KindSearch,
		Sections: []Section{}, Budget: budget, Mode: q.Kind}
	if q.capped {
		ans.Notes = append(ans.Notes, "only the first 20 distinct topics were used")
	}
	q.Limit = min(maxCandidates, candidatesPerPage*page)
	hits, matched, err := v.reader.SearchCount(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	ans.Matched = matched
	pages, dups := packPages(hits, budget, func(h *index.Hit) int { return sectionCost(r, h, h.Tokens) })
	ans.Duplicates = dups
	ans.Pages = len(pages)
	ans.Page = page
	if len(pages) == 0 {
		return ans, nil
	}
	if page > len(pages) {
		return nil, fmt.Errorf("%w: page %d of a search with %d pages of %d tokens", ErrPageNotFound, page, len(pages), budget)
	}
	shown := 0
	for i := 0; i < page; i++ {
		shown += len(pages[i])
	}
	ans.LeftOut = max(0, ans.Matched-shown-dups)
	for _, item := range pages[page-1] {
		h := &hits[item.hit]
		text, err := v.reader.Text(h.Record)
		if err != nil {
			return nil, err
		}
		s := newSection(r, h, text)
		if item.trim > 0 {
			s.Text, s.Trimmed = trimToTokens(text, item.trim), true
		}
		ans.Sections = append(ans.Sections, s)
		ans.Tokens += tokens.Count(s.Text)
	}
	return ans, nil
}

func newSection(r *Resolved, h *index.Hit, text string) Section {
	return Section{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Path: h.Path, Anchor: h.Anchor,
		Title: h.Title, HeadingPath: h.HeadingPath, Langs: h.Langs, Tokens: h.Tokens, Relevance: h.Relevance, Text: text}
}

// sectionCost is what a section costs in an answer: its text and the line
// of provenance a reader of the answer sees above it.
func sectionCost(r *Resolved, h *index.Hit, textTokens int) int {
	return textTokens + tokens.Count(strings.Join(h.HeadingPath, " › ")) + tokens.Count(r.Library.ID+r.Version.Version+h.Path+h.Anchor) + 12
}

// packed is one section placed on a page: its index in the hits, and the
// budget it is trimmed to (0 when whole).
type packed struct {
	hit, trim int
}

// lookahead is how many sections past one that does not fit a page are
// tried for the room left; those skipped start the next page.
const lookahead = 8

// packPages cuts ranked hits into pages of at most budget tokens, best
// first: near-duplicates of a section already placed are dropped (and
// counted); a section that does not fit waits for the next page while
// smaller ones behind it fill the room; a section larger than a whole page
// is trimmed to it rather than dropped. The result is deterministic.
func packPages(hits []index.Hit, budget int, cost func(*index.Hit) int) (pages [][]packed, dups int) {
	var kept []int
	pool := make([]int, 0, len(hits))
	for i := range hits {
		dup := false
		for _, k := range kept {
			a, b := &hits[i], &hits[k]
			if index.NearDuplicate(a.Hash, a.SimHash, a.Tokens, b.Hash, b.SimHash, b.Tokens) {
				dup = true
				break
			}
		}
		if dup {
			dups++
			continue
		}
		kept = append(kept, i)
		pool = append(pool, i)
	}
	for len(pool) > 0 {
		var page []packed
		left := budget
		var rest []int
		skipped := 0
		for j, i := range pool {
			c := cost(&hits[i])
			switch {
			case c <= left:
				page = append(page, packed{hit: i})
				left -= c
			case len(page) == 0:
				// Larger than a whole page: trim it to the page.
				page = append(page, packed{hit: i, trim: max(left-(c-hits[i].Tokens), MinTokens/2)})
				left = 0
			default:
				rest = append(rest, i)
				skipped++
			}
			if left < MinTokens/2 || skipped > lookahead {
				rest = append(rest, pool[j+1:]...)
				break
			}
		}
		pages = append(pages, page)
		pool = rest
	}
	return pages, dups
}

// read answers a path: a document page, a folder listing page, or a
// document's outline page.
func (st *state) read(library, clean string, outline bool, budget, page int) (*Answer, error) {
	r, v, err := st.open(library)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Path: clean, Sections: []Section{}, Budget: budget, Page: page}
	docs, err := v.documents()
	if err != nil {
		return nil, err
	}
	d := document(docs, clean)
	switch {
	case d != nil && outline:
		ans.Kind, ans.Title = KindOutline, d.Title
		var entries []OutlineEntry
		var costs []int
		for _, o := range d.Outline {
			entries = append(entries, OutlineEntry{Anchor: o.Anchor, Title: o.Title, Level: o.Level, Line: o.Line, Tokens: o.Tokens})
			costs = append(costs, tokens.Count(o.Title+o.Anchor)+8)
		}
		lo, hi, pages, err := pageRange(costs, budget, page, clean)
		if err != nil {
			return nil, err
		}
		ans.Outline, ans.Pages = entries[lo:hi], max(pages, 1)
		for _, c := range costs[lo:hi] {
			ans.Tokens += c
		}
		return ans, nil
	case d != nil:
		ans.Kind, ans.Title = KindDocument, d.Title
		hits, err := v.reader.Document(clean, true)
		if err != nil {
			return nil, err
		}
		pages := documentPages(r, hits, budget)
		ans.Pages = max(len(pages), 1)
		if page > ans.Pages {
			return nil, fmt.Errorf("%w: page %d of %s, which has %d pages of %d tokens", ErrPageNotFound, page, clean, ans.Pages, budget)
		}
		if len(pages) > 0 {
			ans.Sections = pages[page-1]
		}
		for _, s := range ans.Sections {
			ans.Tokens += tokens.Count(s.Text)
		}
		return ans, nil
	case outline:
		return nil, fmt.Errorf("%w: an outline is of a document, and %q is not one", ErrDocumentNotFound, clean)
	}
	ans.Kind = KindFolder
	var entries []DocumentEntry
	var costs []int
	for _, doc := range docs {
		if clean == "." || strings.HasPrefix(doc.Path, clean+"/") {
			entries = append(entries, DocumentEntry{Path: doc.Path, Title: doc.Title, Tokens: doc.Tokens})
			costs = append(costs, tokens.Count(doc.Path+doc.Title)+6)
		}
	}
	if len(entries) == 0 {
		return nil, &DocumentError{Path: clean, Closest: closestPaths(docs, clean)}
	}
	lo, hi, pages, err := pageRange(costs, budget, page, clean)
	if err != nil {
		return nil, err
	}
	ans.Documents, ans.Pages = entries[lo:hi], pages
	for _, c := range costs[lo:hi] {
		ans.Tokens += c
	}
	return ans, nil
}

// pageRange cuts items of the given costs into pages of at most budget
// (at least one item a page) and returns page's bounds and the page count.
func pageRange(costs []int, budget, page int, what string) (lo, hi, pages int, err error) {
	var starts []int
	used := budget
	for i, c := range costs {
		if used+c > budget {
			starts = append(starts, i)
			used = 0
		}
		used += c
	}
	if len(starts) == 0 {
		return 0, 0, 0, nil
	}
	if page > len(starts) {
		return 0, 0, 0, fmt.Errorf("%w: page %d of %s, which has %d pages of %d tokens", ErrPageNotFound, page, what, len(starts), budget)
	}
	lo, hi = starts[page-1], len(costs)
	if page < len(starts) {
		hi = starts[page]
	}
	return lo, hi, len(starts), nil
}

// documentPages cuts a document's sections, in order, into pages of at
// most budget tokens; a section larger than a page is cut at paragraph or
// code block boundaries and continues on the next page, so reading every
// page gives the whole document.
func documentPages(r *Resolved, hits []index.Hit, budget int) [][]Section {
	var pages [][]Section
	var cur []Section
	left := budget
	flush := func() {
		if len(cur) > 0 {
			pages = append(pages, cur)
		}
		cur, left = nil, budget
	}
	for i := range hits {
		h := &hits[i]
		overhead := sectionCost(r, h, 0)
		text := h.Text
		for text != "" {
			room := left - overhead
			if tokens.Count(text) <= room {
				s := newSection(r, h, text)
				cur = append(cur, s)
				left -= overhead + tokens.Count(text)
				text = ""
				continue
			}
			if len(cur) > 0 && room < budget/4 {
				flush()
				continue
			}
			head, tail := cutToTokens(text, max(room, MinTokens/2))
			s := newSection(r, h, head)
			s.Continued = true
			cur = append(cur, s)
			text = tail
			flush()
		}
	}
	flush()
	return pages
}

// trimToTokens returns the start of text within about budget tokens, cut
// at the last paragraph or code block boundary, followed by an ellipsis.
func trimToTokens(text string, budget int) string {
	head, tail := cutToTokens(text, budget)
	if tail == "" {
		return head
	}
	return head + "\n\n…"
}

// cutToTokens splits text into a head of at most budget tokens and the
// rest. The cut falls after the last blank line outside code fences that
// fits; failing that, at the last line end that fits (inside a fence, the
// fence is closed in the head and reopened in the tail); failing that, at
// the last rune that fits. The head is never empty when text is not.
func cutToTokens(text string, budget int) (head, tail string) {
	if tokens.Count(text) <= budget {
		return text, ""
	}
	para, line := 0, 0
	used, off := 0, 0
	inFence, fence, fenceAtLine := false, "", ""
	for _, l := range strings.SplitAfter(text, "\n") {
		c := tokens.Count(l)
		if used+c > budget {
			break
		}
		used += c
		off += len(l)
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if !inFence {
				inFence, fence = true, t
			} else if strings.HasPrefix(t, fence[:3]) && strings.Trim(t, fence[:1]) == "" {
				inFence = false
			}
		}
		if t == "" && !inFence {
			para = off
		}
		// A cut inside a fence closes it in the head: leave room for that.
		if !inFence {
			line, fenceAtLine = off, ""
		} else if used+tokens.Count("\n"+fence[:3]) <= budget {
			line, fenceAtLine = off, fence
		}
	}
	switch {
	case para > 0:
		return strings.TrimRight(text[:para], "\n"), strings.TrimLeft(text[para:], "\n")
	case line > 0:
		head, tail = strings.TrimRight(text[:line], "\n"), text[line:]
		if fenceAtLine != "" {
			head += "\n" + fenceAtLine[:3]
			tail = fenceAtLine + "\n" + tail
		}
		return head, tail
	}
	// One line longer than the budget: cut at the last rune boundary that
	// fits, found by bisection (the count of a prefix grows with it).
	lo, hi := 0, len(text) // text[:lo] fits, text[:hi] does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(text[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if tokens.Count(text[:mid]) <= budget {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		_, lo = utf8.DecodeRuneInString(text)
	}
	return text[:lo], text[lo:]
}
