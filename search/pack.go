package search

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// maxCandidates bounds the ranked sections an answer's pages are cut from.
const maxCandidates = 500

// candidatesPerPage is how many ranked sections are fetched per page asked
// for at first: far more than a page holds, so near-duplicates and
// sections left for later pages rarely leave a page short. A variable so
// that tests can make it small.
var candidatesPerPage = 32

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
	// Tokens is the budget of the answer (request.DefaultTokens when 0).
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
	// Build identifies the build answered from (catalog.Resolved.Build,
	// its manifest's sha256): a rebuild of one commit (another config or
	// indexer) is another build. Not sent to agents.
	Build string `json:"-"`
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
	// MorePages says pages follow beyond Pages: a search's best sections
	// were packed, and more match than were ranked for packing.
	MorePages bool `json:"more_pages,omitempty"`
	// Matched counts the sections that match a search.
	Matched int `json:"matched,omitempty"`
	// LeftOut counts matching sections on later pages or beyond them.
	LeftOut int `json:"left_out,omitempty"`
	// Duplicates counts near-duplicate sections dropped (the same text in
	// another place, such as a page copied for two versions).
	Duplicates int `json:"duplicates,omitempty"`
	// Tokens is the size of the answer as Markdown renders it, at most
	// Budget.
	Tokens int `json:"tokens"`
	Budget int `json:"budget"`
	// Mode is the mode searched ("info", "code" or "").
	Mode string `json:"mode,omitempty"`
	// Notes say what was adjusted (a clamped budget, too many topics).
	Notes []string `json:"notes,omitempty"`

	markdown string // the rendering, once finished
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
	// Source is the file the section is written in when an include
	// brought it into Path (an AsciiDoc partial, an rst include): the
	// file to read or edit it in.
	Source string `json:"source,omitempty"`
	// Langs are the languages of the section's code blocks.
	Langs     []string `json:"langs,omitempty"`
	Tokens    int      `json:"tokens"`
	Relevance float64  `json:"relevance"`
	// Text is the section's markdown; the MCP tool sends it in the text
	// content only, so it is omitted from its structured content.
	Text string `json:"text,omitempty"`
	// Trimmed says Text is the start of a section too large for the budget,
	// cut at a paragraph or code block boundary; read it whole by path.
	Trimmed bool `json:"trimmed,omitempty"`
	// short shows a trimmed section under a short head (its path alone;
	// its text starts with its heading), when the full head would leave
	// less than minTrim for its text; Text is then empty when even that
	// leaves less. The markdown only: the fields above stay whole.
	short bool
	// Continued says Text continues on the next page (document pages).
	Continued bool `json:"continued,omitempty"`
	// Part is which chunk of its section it is, from 0: a section too
	// large to index whole is indexed in chunks, each with the section's
	// path and anchor, and two may be on one page. For callers that need
	// an id per chunk (contextitems); not sent to agents.
	Part int `json:"-"`
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
	budget, notes := request.ClampTokens(req.Tokens)
	page := req.Page
	if page < 0 {
		return nil, fmt.Errorf("%w: page %d: pages start at 1", request.ErrInvalidRequest, page)
	}
	if page == 0 {
		page = 1
	}
	if page > request.MaxPage {
		return nil, fmt.Errorf("%w: page %d: no answer has more than %d pages", ErrPageNotFound, page, request.MaxPage)
	}
	// The limits are checked before the library is resolved, so that no
	// answer, not even "library not found", carries an oversized request
	// back.
	if err := request.CheckLimits(req.Query, req.Topics, req.Mode); err != nil {
		return nil, err
	}
	var clean string
	if strings.TrimSpace(req.Path) != "" || req.Outline {
		var err error
		if clean, err = request.CleanPath(req.Path); err != nil {
			return nil, err
		}
	}
	var ans *Answer
	err := e.catalogs.With(func(st *catalog.Snapshot) error {
		if err := ctx.Err(); err != nil { // a request given up opens nothing
			return err
		}
		r, err := st.Resolve(request.ScopeOf(ctx), req.Library)
		if err != nil {
			return err
		}
		room := roomFor(budget)
		key := answerKey(r, &req, budget, page)
		if a, ok := e.answers.get(key); ok {
			e.answerHits.Add(1)
			ans = a
			return nil
		}
		e.answerMisses.Add(1)
		if clean != "" {
			ans, err = readPath(ctx, st, req.Library, clean, req.Outline, budget, room, page)
		} else {
			ans, err = searchPages(ctx, st, req, budget, room, page)
		}
		if err == nil {
			e.answers.put(key, ans)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := *ans // the cached answer stays as it is
	if len(notes) > 0 {
		out.Notes = append(notes, ans.Notes...)
		out.finish()
	}
	return &out, nil
}

// roomFor is what an answer of the budget may fill: the budget less the
// longest note a request clamped to it can carry. The request's own notes
// are not part of a cached answer but must fit too; reserving the most
// they can take, rather than what this request's take, makes the room a
// function of the budget alone, so that one answer suits every request of
// that budget, and the pages of one query are cut alike whether they were
// asked for with tokens 1 or 200.
func roomFor(budget int) int {
	var notes []string
	switch budget {
	case request.MinTokens:
		_, notes = request.ClampTokens(math.MinInt)
	case request.MaxTokens:
		_, notes = request.ClampTokens(math.MaxInt)
	}
	return budget - noteCost(notes)
}

// noteCost is what notes add to an answer's head: the whole block, whose
// blank line costs too, counted as the head renders it.
func noteCost(notes []string) int { return tokens.Count(notesBlock(notes)) }

// searchPages packs ranked sections into pages and returns page number page.
// room is the budget less the request's notes.
//
// Pages are cut from one ranking, best first, so that asking for page 2
// after page 1 never skips or repeats a section. Only the best sections
// are ranked for packing (enough for the pages up to page, more when
// duplicates or a section waiting for the next page leave a page short,
// at most maxCandidates); a page is cut only when every section it could
// hold was ranked, which makes it the same whatever number were.
func searchPages(ctx context.Context, st *catalog.Snapshot, req DocsRequest, budget, room, page int) (*Answer, error) {
	q, r, v, err := prepare(st, request.ScopeOf(ctx), req.Library, req.Query, req.Topics, req.Mode)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Build: r.Build, Kind: KindSearch,
		Sections: []Section{}, Budget: budget, Mode: q.Kind, Page: page}
	if q.capped {
		ans.Notes = append(ans.Notes, "only the first 20 distinct topics were used")
	}
	room -= noteCost(ans.Notes) + ans.envelope()
	var hits []index.Hit
	// heads holds each hit's head cost once measured, plus one: packing
	// weighs a section each time it tries it for a page.
	var heads []int
	overhead := func(i int, form headForm) int {
		h := &hits[i]
		if form == shortHead {
			return tokens.Count(shortSectionHead(&Section{Path: h.Path})) + gapTokens() + tokens.Count(tooLargeHint)
		}
		if heads[i] == 0 {
			heads[i] = 1 + tokens.Count(sectionHead(&Section{HeadingPath: h.HeadingPath, Path: h.Path, Anchor: h.Anchor, Langs: h.Langs})) + gapTokens()
		}
		n := heads[i] - 1
		if form == trimmedHead {
			n += tokens.Count(trimHint(&Section{Path: h.Path}))
		}
		return n
	}
	var pages [][]packed
	var dups int
	for limit := min(maxCandidates, candidatesPerPage*page); ; limit = min(maxCandidates, 2*limit) {
		q.Limit = limit
		if hits, ans.Matched, err = v.SearchCount(ctx, q.Query); err != nil {
			return nil, err
		}
		heads = make([]int, len(hits))
		all := len(hits) >= ans.Matched
		pages, dups = packPages(hits, room, overhead, !all && limit < maxCandidates)
		if len(pages) >= page || all || limit == maxCandidates {
			// More pages follow when more candidates could be ranked; past
			// maxCandidates, the pages cut are all there are.
			ans.MorePages = !all && len(pages) > 0 && limit < maxCandidates
			break
		}
	}
	ans.Duplicates, ans.Pages = dups, len(pages)
	if page > max(len(pages), 1) {
		return nil, fmt.Errorf("%w: page %d of a search with %d pages of %d tokens", ErrPageNotFound, page, len(pages), budget)
	}
	if len(pages) == 0 {
		ans.Pages = 1
		ans.finish()
		return ans, nil
	}
	shown := 0
	for i := 0; i < page; i++ {
		shown += len(pages[i])
	}
	ans.LeftOut = max(0, ans.Matched-shown-dups)
	if page == len(pages) && ans.MorePages && ans.LeftOut == 0 {
		ans.MorePages = false
	}
	for _, item := range pages[page-1] {
		h := &hits[item.hit]
		text, err := v.Text(h.Record)
		if err != nil {
			return nil, err
		}
		s := newSection(r, h, text)
		switch {
		case item.short:
			s.Text, s.Trimmed, s.short = "", true, true
			if item.trim > 0 {
				s.Text = trimToTokens(text, item.trim)
			}
		case item.trim > 0:
			s.Text, s.Trimmed = trimToTokens(text, item.trim), true
		}
		ans.Sections = append(ans.Sections, s)
	}
	ans.finish()
	return ans, nil
}

func newSection(r *catalog.Resolved, h *index.Hit, text string) Section {
	return Section{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Path: h.Path, Anchor: h.Anchor,
		Title: h.Title, HeadingPath: h.HeadingPath, Source: h.Source, Langs: h.Langs, Tokens: h.Tokens, Relevance: h.Relevance, Text: text, Part: h.Part}
}

// packed is one section placed on a page: its index in the hits, the
// budget its text is trimmed to (0 when whole), and whether it is shown
// under its short head.
type packed struct {
	hit, trim int
	short     bool
}

// headForm is how a section's head is shown: in full, in full with the
// hint of a trimmed section, or short (see Section.short).
type headForm int

const (
	fullHead headForm = iota
	trimmedHead
	shortHead
)

// lookahead is how many sections past one that does not fit a page are
// tried for the room left; those skipped start the next page.
const lookahead = 8

// minTrim is the least text a trimmed section keeps.
const minTrim = 20

// packPages cuts ranked hits into pages of at most room tokens each, best
// first. A section costs its text and overhead (its head, and the hint a
// trimmed one gets; given the hit's index). Near-duplicates of a section already kept are
// dropped and counted; a section that does not fit waits for the next
// page while smaller ones behind it fill the room; a section larger than
// a whole page is trimmed to it rather than dropped, under its short head
// (Section.short) when its full head would leave it less than minTrim (a
// long heading path and file path at a small budget), with no text when
// even that does, and left out only when its short head alone does not
// fit: a page never exceeds room.
//
// With truncated set, hits are the best of more that match: a page whose
// filling ran out of hits might have held a later one, so it and the pages
// after it are left out, and the pages returned are the ones any longer
// list of the same ranking would give. The result is deterministic.
func packPages(hits []index.Hit, room int, overhead func(hit int, form headForm) int, truncated bool) (pages [][]packed, dups int) {
	var pool []int
	for i := range hits {
		dup := false
		for _, k := range pool {
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
		pool = append(pool, i)
	}
	for len(pool) > 0 {
		var page []packed
		left := room
		var rest []int
		skipped := 0
		full := false
		for j, i := range pool {
			h := &hits[i]
			c := overhead(i, fullHead) + h.Tokens
			switch {
			case c <= left:
				page = append(page, packed{hit: i})
				left -= c
			case len(page) == 0:
				// Larger than a whole page: trimmed to it, under its short
				// head when the full one leaves less than minTrim of text,
				// and left out (counted in LeftOut) when even that does.
				if t := left - overhead(i, trimmedHead); t >= minTrim {
					page = append(page, packed{hit: i, trim: t})
					left = 0
				} else if t := left - overhead(i, shortHead); t >= 0 {
					if t < minTrim {
						t = 0 // where to read it, and none of its text
					}
					page = append(page, packed{hit: i, trim: t, short: true})
					left = 0
				}
			default:
				rest = append(rest, i)
				skipped++
			}
			if left < minTrim || skipped > lookahead {
				rest = append(rest, pool[j+1:]...)
				full = true
				break
			}
		}
		if truncated && !full {
			break
		}
		if len(page) > 0 {
			pages = append(pages, page)
		}
		pool = rest
	}
	return pages, dups
}

// readPath answers a path: a document page, a folder listing page, or a
// document's outline page. room is the budget less the request's notes.
func readPath(ctx context.Context, st *catalog.Snapshot, library, clean string, outline bool, budget, room, page int) (*Answer, error) {
	r, v, err := st.Open(request.ScopeOf(ctx), library)
	if err != nil {
		return nil, err
	}
	ans := &Answer{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Build: r.Build, Path: clean, Sections: []Section{}, Budget: budget, Page: page}
	docs, err := v.Documents()
	if err != nil {
		return nil, err
	}
	d := document(docs, clean)
	switch {
	case d != nil && outline:
		ans.Kind, ans.Title = KindOutline, d.Title
		fitTitle(ans, room)
		var entries []OutlineEntry
		var costs []int
		fill := room - ans.envelope()
		for _, o := range d.Outline {
			e := OutlineEntry{Anchor: o.Anchor, Title: o.Title, Level: o.Level, Line: o.Line, Tokens: o.Tokens}
			// A heading that is a paragraph has an anchor as long (its
			// slug): both are cut, the title first, the anchor marked cut.
			c := tokens.Count(outlineLine(e))
			for c > fill && e.Title+e.Anchor != "" {
				if e.Title != "" {
					e.Title = halveTitle(e.Title)
				} else {
					e.Anchor = halveTitle(e.Anchor)
				}
				c = tokens.Count(outlineLine(e))
			}
			entries = append(entries, e)
			costs = append(costs, c)
		}
		lo, hi, pages, err := pageRange(costs, fill, page, clean)
		if err != nil {
			return nil, err
		}
		ans.Outline, ans.Pages = entries[lo:hi], pages
	case d != nil:
		ans.Kind, ans.Title = KindDocument, d.Title
		fitTitle(ans, room)
		hits, err := v.Document(clean, true)
		if err != nil {
			return nil, err
		}
		pages, err := documentPages(ctx, r, hits, room-ans.envelope())
		if err != nil {
			return nil, err
		}
		ans.Pages = max(len(pages), 1)
		if page > ans.Pages {
			return nil, fmt.Errorf("%w: page %d of %s, which has %d pages of %d tokens", ErrPageNotFound, page, clean, ans.Pages, budget)
		}
		if len(pages) > 0 {
			ans.Sections = pages[page-1]
		}
	case outline:
		return nil, fmt.Errorf("%w: an outline is of a document, and %q is not one", ErrDocumentNotFound, clean)
	default:
		ans.Kind = KindFolder
		var entries []DocumentEntry
		var costs []int
		fill := room - ans.envelope()
		for _, doc := range navOrder(docs) {
			if clean == "." || strings.HasPrefix(doc.Path, clean+"/") {
				e := DocumentEntry{Path: doc.Path, Title: doc.Title, Tokens: doc.Tokens}
				c := tokens.Count(folderLine(e))
				for c > fill && e.Title != "" {
					e.Title = halveTitle(e.Title)
					c = tokens.Count(folderLine(e))
				}
				entries = append(entries, e)
				costs = append(costs, c)
			}
		}
		if len(entries) == 0 {
			return nil, &DocumentError{Path: clean, Closest: closestPaths(docs, clean)}
		}
		lo, hi, pages, err := pageRange(costs, fill, page, clean)
		if err != nil {
			return nil, err
		}
		ans.Documents, ans.Pages = entries[lo:hi], pages
	}
	ans.finish()
	return ans, nil
}

// fitTitle cuts the document title an answer shows until its head and
// foot leave at least minTrim tokens of room for the page: a title can be
// a paragraph, and an answer never exceeds its budget.
func fitTitle(ans *Answer, room int) {
	for ans.Title != "" && room-ans.envelope() < minTrim {
		ans.Title = halveTitle(ans.Title)
	}
}

// halveTitle returns the first half of a title, marked cut with "…", or
// "" when little is left. A folder listing's or an outline's page holds
// at least one entry, so an entry whose line alone is larger than a page
// (a title or heading that is a paragraph) has its title (and an
// outline's anchor) cut by it until the line fits.
func halveTitle(title string) string {
	r := []rune(strings.TrimSuffix(title, "…"))
	if len(r) <= 8 {
		return ""
	}
	return string(r[:len(r)/2]) + "…"
}

// pageRange cuts items of the given costs into pages of at most room (at
// least one item a page) and returns page's bounds and the page count,
// which is 1 for no items.
func pageRange(costs []int, room, page int, what string) (lo, hi, pages int, err error) {
	starts := []int{0}
	used := 0
	for i, c := range costs {
		if used > 0 && used+c > room {
			starts = append(starts, i)
			used = 0
		}
		used += c
	}
	if page > len(starts) {
		return 0, 0, 0, fmt.Errorf("%w: page %d of %s, which has %d pages of %d tokens", ErrPageNotFound, page, what, len(starts), room)
	}
	lo, hi = starts[page-1], len(costs)
	if page < len(starts) {
		hi = starts[page]
	}
	return lo, hi, len(starts), nil
}

// documentPages cuts a document's sections, in order, into pages of at
// most room tokens; a section larger than a page is cut at paragraph or
// code block boundaries and continues on the next page, so reading every
// page gives the whole document. Every cut makes progress, so the loop
// ends; ctx ends it early.
func documentPages(ctx context.Context, r *catalog.Resolved, hits []index.Hit, room int) ([][]Section, error) {
	room = max(room, minTrim)
	var pages [][]Section
	var cur []Section
	left := room
	flush := func() {
		if len(cur) > 0 {
			pages = append(pages, cur)
		}
		cur, left = nil, room
	}
	for i := range hits {
		h := &hits[i]
		text := h.Text
		for text != "" {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if n := tokens.Count(text) + gapTokens(); n <= left {
				cur = append(cur, newSection(r, h, text))
				left -= n
				break
			}
			// A page whose room left is too small to cut a piece for
			// (under a quarter of it, or under minTrim, which a room of a
			// short page, beside a long title, is sooner) ends here.
			if len(cur) > 0 && (left < room/4 || left-gapTokens() < minTrim) {
				flush()
				continue
			}
			head, tail := tokens.Cut(text, max(left-gapTokens(), minTrim))
			if len(tail) >= len(text) {
				return nil, fmt.Errorf("%w: cannot cut %s#%s", request.ErrInvalidRequest, h.Path, h.Anchor) // tokens.Cut always makes progress
			}
			s := newSection(r, h, head)
			s.Continued = true
			cur = append(cur, s)
			text = tail
			flush()
		}
	}
	flush()
	return pages, nil
}

// trimToTokens returns the start of text within about budget tokens, cut
// at the last paragraph or code block boundary, followed by an ellipsis.
func trimToTokens(text string, budget int) string {
	head, tail := tokens.Cut(text, budget)
	if tail == "" {
		return head
	}
	return head + "\n\n…"
}
