// Package contextitems assembles the documentation an agent should see
// with a prompt, for `indexer context` and agent hooks: it finds the
// libraries the prompt is about (package mentions), asks the local search
// engine for each one's best sections — or, for a library not built
// locally, a remote documentation service such as Context7 — all in
// parallel under one time budget, and returns context items with their
// provenance, as JSON or Markdown.
//
// Nothing here fails a prompt: an unknown library, a remote error, a
// library that does not answer within the time budget, a token budget too
// small to search every library found all leave fewer items, and say so
// in Result.Libraries.
package contextitems

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/mentions"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/tokens"
)

// Defaults of Options.
const (
	// DefaultTimeout is the total time budget: seed 003's fast path.
	DefaultTimeout = 3 * time.Second
	// DefaultTokens is the budget of all items together: a hook's context
	// stays well under what agents accept whole (about 10,000 characters).
	DefaultTokens = 2000
	// DefaultPerLibrary is how many items a library gives at most.
	DefaultPerLibrary = 3
)

// maxQueryBytes bounds the query sent for a prompt (see Query).
const maxQueryBytes = 1000

// Sources of items.
const (
	// SourceLocal marks items from the local artifacts.
	SourceLocal = "codex7"
	// SourceRemote marks items from the remote service.
	SourceRemote = "context7"
)

// What became of a library found in the prompt (Library.Status).
const (
	// StatusOK: it gave items.
	StatusOK = "ok"
	// StatusNoMatch: it was found, but no section matches the prompt.
	StatusNoMatch = "no match"
	// StatusUnknown: neither the artifacts nor the remote service has it.
	StatusUnknown = "unknown"
	// StatusTimeout: it did not answer within the time budget.
	StatusTimeout = "timeout"
	// StatusError: asking for it failed; Library.Error says why.
	StatusError = "error"
	// StatusNoBudget: it was not asked, because the token budget
	// (Options.Tokens) cannot give every library found the least a search
	// answers with (request.MinTokens), and better-evidenced libraries
	// took it; Library.Error says what budget would cover it.
	StatusNoBudget = "no budget"
)

// Engine is the local search engine; *search.Engine satisfies it. It
// must be safe for concurrent use.
type Engine interface {
	Catalog() *artifacts.Catalog
	Resolve(ctx context.Context, id string) (*catalog.Resolved, error)
	Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error)
}

var _ Engine = (*search.Engine)(nil)

// ErrUnknownLibrary is what Remote.Resolve returns (wrapped) when the
// service knows no library of that name; any other error is a failure.
var ErrUnknownLibrary = errors.New("unknown library")

// Remote is a remote documentation service, such as the Context7 client.
// It must be safe for concurrent use and give up when ctx ends.
type Remote interface {
	// Resolve returns the service's id of the library a name means
	// ("TanStack Query", "react-query", "github.com/spf13/cobra"); query is
	// the user's question, to rank candidates by. An error means none.
	Resolve(ctx context.Context, name, query string) (libraryID string, err error)
	// Docs returns the library's best snippets for topic, best first,
	// within tokens.
	Docs(ctx context.Context, libraryID, topic string, tokens int) ([]Snippet, error)
}

// Snippet is one piece of documentation from a Remote.
type Snippet struct {
	Title string
	// Text is the snippet's Markdown.
	Text string
	// URL is the snippet's source page, when known.
	URL string
	// Version of the library documented, when known.
	Version string
	// Relevance is the service's score in (0, 1], or 0 when it gives none
	// (the order then ranks the snippets).
	Relevance float64
}

// Options configure Assemble. The zero value asks nothing of anyone.
type Options struct {
	// Engine searches the local artifacts; nil when there are none.
	Engine Engine
	// Remote is asked for libraries the artifacts lack; nil for none.
	Remote Remote
	// Timeout is the total time budget (DefaultTimeout when 0). A library
	// that has not answered when it ends is left out.
	Timeout time.Duration
	// Tokens is the budget of all items (DefaultTokens when 0), shared
	// evenly by the libraries asked. A search answers with no less than
	// request.MinTokens, so when Tokens cannot give that much to every
	// library found, only the best Tokens/request.MinTokens are asked and
	// the others are listed with StatusNoBudget: the total asked never
	// exceeds Tokens. A budget under request.MinTokens is raised to it.
	Tokens int
	// PerLibrary bounds the items of one library (DefaultPerLibrary when 0).
	PerLibrary int
	// Repos returns the repository URL a local library version was built
	// from (see ManifestRepos), for items' URLs; nil leaves URLs empty.
	Repos func(library, version string) string
	// Logger receives one line per library left out; nil discards them.
	Logger *slog.Logger
}

// Result is the context assembled for a prompt.
type Result struct {
	// Libraries are the libraries found in the prompt, best first, with
	// what became of each.
	Libraries []Library `json:"libraries"`
	// Items are the documentation found, library by library, best first.
	Items []Item `json:"items"`
}

// Library is a library found in the prompt.
type Library struct {
	// Name is the library's name as detected (see mentions.Candidate).
	Name string `json:"name"`
	// ID is the library that answered: a local id, or the remote
	// service's; empty when none did.
	ID      string `json:"id,omitempty"`
	Version string `json:"version,omitempty"`
	// Source is SourceLocal or SourceRemote when a source knew it.
	Source string `json:"source,omitempty"`
	// Status is StatusOK, StatusNoMatch, StatusUnknown, StatusTimeout,
	// StatusError or StatusNoBudget.
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Relevance is how much the prompt is about it, 1 for the first.
	Relevance float64 `json:"relevance"`
	// Found says where in the prompt it was found.
	Found []mentions.Found `json:"found"`
}

// Item is one piece of documentation for the prompt, with its provenance.
type Item struct {
	// ID is unique and stable: "codex7:/org/project@version:path#anchor"
	// for local items, with ":N" after it for chunk N > 0 of a section
	// indexed in chunks (search.Section.Part; its first has none), and
	// "context7:/org/project:N" for remote ones.
	ID string `json:"id"`
	// Source is SourceLocal or SourceRemote.
	Source string `json:"source"`
	// Title is the library's name and the section's heading path.
	Title string `json:"title"`
	// Summary is the start of the section's first paragraph (at most 200
	// characters).
	Summary string `json:"summary"`
	// Excerpt is the section's Markdown as the token budget allows (cut at
	// a block boundary when the section is larger).
	Excerpt string `json:"excerpt"`
	// Relevance is the section's relevance times its library's: 1 for the
	// best section of the first library.
	Relevance float64 `json:"relevance"`
	Library   string  `json:"library"`
	Version   string  `json:"version"`
	// Path is the document's path in the library's repository (empty for
	// remote items).
	Path string `json:"path"`
	// URL is the section's web page: on the repository's forge at the
	// commit for local items, the service's source for remote ones; empty
	// when unknown.
	URL string `json:"url"`
	// Commit and Anchor complete a local item's provenance.
	Commit string `json:"commit,omitempty"`
	Anchor string `json:"anchor,omitempty"`
	// Tokens is the excerpt's size.
	Tokens int `json:"tokens,omitempty"`
}

// Known returns the libraries to detect in prompts: every library of the
// catalog, by its title, project name and the project name without
// generic words (libraries.ShortName) (and org, when the project's name
// is generic, the org has no other project and the library is not a
// well-known one) and aliases plus the package names mentions.WellKnown
// gives the same id; and, when remote is true, the well-known libraries
// the catalog lacks, which only a remote service can answer for. A
// well-known library's org is left out because it is a company's name,
// written for other reasons ("microsoft" is no name of Playwright,
// "facebook" none of React), and the library has names enough.
func Known(cat *artifacts.Catalog, remote bool) []mentions.Library {
	well := mentions.WellKnown()
	byID := map[string]int{}
	for i, w := range well {
		byID[strings.ToLower(w.ID)] = i
	}
	var out []mentions.Library
	local := map[string]bool{}
	if cat != nil {
		orgs := map[string]int{}
		for _, l := range cat.Libraries {
			org, _ := splitID(l.ID)
			orgs[strings.ToLower(org)]++
		}
		for _, l := range cat.Libraries {
			org, project := splitID(l.ID)
			names := []string{l.Title, project}
			if short := libraries.ShortName(project); short != "" {
				names = append(names, short) // "React" for /reactjs/react.dev, as resolve-library-id finds it
			}
			i, isWell := byID[strings.ToLower(l.ID)]
			if mentions.Ambiguous(project) && orgs[strings.ToLower(org)] == 1 && !isWell {
				names = append(names, org) // "/mongodb/docs" is mongodb, unless mongodb has other projects
			}
			names = append(names, l.Aliases...)
			if isWell {
				names = append(names, well[i].Names...)
			}
			out = append(out, mentions.Library{ID: l.ID, Names: names})
			local[strings.ToLower(l.ID)] = true
		}
	}
	if remote {
		for _, w := range well {
			if !local[strings.ToLower(w.ID)] {
				out = append(out, w)
			}
		}
	}
	return out
}

func splitID(id string) (org, project string) {
	id = strings.Trim(id, "/")
	org, project, _ = strings.Cut(id, "/")
	return org, project
}

// Assemble finds the libraries prompt is about and the documentation of
// each, in parallel, within opts.Timeout. It never fails: what could not
// be found is absent from the items and explained in Result.Libraries.
// Requests still running when the budget ends are abandoned (their
// context is canceled) and their answers dropped.
func Assemble(ctx context.Context, prompt string, opts Options) *Result {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Tokens <= 0 {
		opts.Tokens = DefaultTokens
	}
	opts.Tokens = max(opts.Tokens, request.MinTokens)
	if opts.PerLibrary <= 0 {
		opts.PerLibrary = DefaultPerLibrary
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts.Logger = log
	var cat *artifacts.Catalog
	if opts.Engine != nil {
		cat = opts.Engine.Catalog()
	}
	cands := mentions.NewIndex(Known(cat, opts.Remote != nil)).Detect(prompt)
	res := &Result{Libraries: []Library{}, Items: []Item{}}
	if len(cands) == 0 {
		return res
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	asked, tokens := share(opts.Tokens, len(cands))
	a := &assembly{opts: opts, cat: cat, query: Query(prompt), tokens: tokens}
	type outcome struct {
		i     int
		lib   Library
		items []Item
	}
	done := make(chan outcome, asked) // buffered: late answers never block
	for i, c := range cands[:asked] {
		go func() {
			lib, items := a.fetch(ctx, c)
			done <- outcome{i, lib, items}
		}()
	}
	libs := make([]*Library, len(cands))
	items := make([][]Item, len(cands))
	for i := asked; i < len(cands); i++ {
		libs[i] = &Library{Status: StatusNoBudget, Error: fmt.Sprintf(
			"not searched: a budget of %d tokens covers %d of the %d libraries found at the minimum of %d each; a budget of %d would cover them all",
			opts.Tokens, asked, len(cands), request.MinTokens, len(cands)*request.MinTokens)}
	}
wait:
	for range asked {
		select {
		case o := <-done:
			libs[o.i], items[o.i] = &o.lib, o.items
		case <-ctx.Done():
			break wait
		}
	}
	for i, c := range cands {
		lib := libs[i]
		if lib == nil {
			lib = &Library{Status: StatusTimeout, Error: "no answer within " + opts.Timeout.String()}
		}
		lib.Name, lib.Relevance, lib.Found = c.Name, c.Relevance, c.Found
		switch lib.Status {
		case StatusTimeout, StatusError:
			log.Warn("context: library left out", "library", c.Name, "status", lib.Status, "err", lib.Error)
		case StatusUnknown, StatusNoMatch:
			log.Debug("context: library left out", "library", c.Name, "status", lib.Status)
		case StatusNoBudget:
			log.Debug("context: library left out", "library", c.Name, "status", lib.Status, "reason", lib.Error)
		}
		res.Libraries = append(res.Libraries, *lib)
		for _, it := range items[i] {
			it.Relevance = round(it.Relevance * c.Relevance)
			res.Items = append(res.Items, it)
		}
	}
	return res
}

// share divides a token budget among n libraries found, best first: it
// returns how many of them to ask and the tokens each gets. Every library
// asked gets at least request.MinTokens (a search answers with no less),
// so when the budget cannot give that much to all n, only the first
// budget/request.MinTokens are asked (at least one); asked*tokens never
// exceeds a budget of request.MinTokens or more.
func share(budget, n int) (asked, tokens int) {
	asked = n
	if budget/n < request.MinTokens {
		asked = max(1, budget/request.MinTokens)
	}
	return asked, max(budget/asked, request.MinTokens)
}

// assembly is one Assemble call's shared, read-only state.
type assembly struct {
	opts   Options
	cat    *artifacts.Catalog
	query  string
	tokens int // per library
}

// fetch asks for one library's documentation: from the artifacts when
// they have it (they are authoritative: a private library is never sent
// to the remote service), else from the remote service.
func (a *assembly) fetch(ctx context.Context, c mentions.Candidate) (Library, []Item) {
	if e := a.opts.Engine; e != nil {
		id := ""
		if c.ID != "" && catalogLibrary(a.cat, c.ID) != nil {
			id = c.ID
		} else if c.ID == "" {
			if r, err := e.Resolve(ctx, c.Name); err == nil {
				id = r.Library.ID // a form Detect does not know ("github.com/org/project")
			}
		}
		if id != "" {
			return a.local(ctx, id)
		}
	}
	if a.opts.Remote != nil {
		return a.remote(ctx, c)
	}
	return Library{Status: StatusUnknown}, nil
}

func (a *assembly) local(ctx context.Context, id string) (Library, []Item) {
	lib := Library{ID: id, Source: SourceLocal}
	ans, err := a.opts.Engine.Docs(ctx, search.DocsRequest{Library: id, Query: a.query, Tokens: a.tokens})
	if err != nil {
		return failed(ctx, lib, err), nil
	}
	lib.ID, lib.Version = ans.Library, ans.Version
	title := id
	if l := catalogLibrary(a.cat, ans.Library); l != nil && l.Title != "" {
		title = l.Title
	}
	repo := ""
	if a.opts.Repos != nil {
		repo = a.opts.Repos(ans.Library, ans.Version)
	}
	var items []Item
	for _, s := range ans.Sections {
		if len(items) == a.opts.PerLibrary {
			break
		}
		size := s.Tokens // the whole section's, which a trimmed one is not
		if s.Trimmed {
			size = tokens.Count(s.Text)
		}
		id := SourceLocal + ":" + s.Library + "@" + s.Version + ":" + s.Path + "#" + s.Anchor
		if s.Part > 0 {
			id += ":" + strconv.Itoa(s.Part) // chunks share the section's path and anchor
		}
		items = append(items, Item{
			ID:        id,
			Source:    SourceLocal,
			Title:     title + ": " + strings.Join(s.HeadingPath, " › "),
			Summary:   Summary(s.Text),
			Excerpt:   s.Text,
			Relevance: s.Relevance,
			Library:   s.Library,
			Version:   s.Version,
			Path:      s.Path,
			URL:       SourceURL(repo, s.Commit, cmp.Or(s.Source, s.Path), s.Anchor),
			Commit:    s.Commit,
			Anchor:    s.Anchor,
			Tokens:    size,
		})
	}
	lib.Status = StatusOK
	if len(items) == 0 {
		lib.Status = StatusNoMatch
	}
	return lib, items
}

func (a *assembly) remote(ctx context.Context, c mentions.Candidate) (Library, []Item) {
	lib := Library{Source: SourceRemote}
	id, err := a.opts.Remote.Resolve(ctx, c.Name, a.query)
	switch {
	case ctx.Err() != nil:
		return failed(ctx, lib, ctx.Err()), nil
	case err == nil && id == "", errors.Is(err, ErrUnknownLibrary):
		return Library{Status: StatusUnknown}, nil
	case err != nil:
		// A refused key, a spent quota, an outage: say so, never pass it
		// off as a library the service does not know.
		a.opts.Logger.Warn("context: remote library search failed", "name", c.Name, "err", err)
		return failed(ctx, lib, err), nil
	}
	lib.ID = id
	snippets, err := a.opts.Remote.Docs(ctx, id, a.query, a.tokens)
	if err != nil {
		return failed(ctx, lib, err), nil
	}
	var items []Item
	for i, s := range snippets {
		if len(items) == a.opts.PerLibrary {
			break
		}
		rel := s.Relevance
		if rel <= 0 || rel > 1 {
			rel = math.Max(0.1, 1-0.1*float64(i))
		}
		title := c.Name
		if s.Title != "" {
			title += ": " + s.Title
		}
		if lib.Version == "" {
			lib.Version = s.Version
		}
		items = append(items, Item{
			ID: SourceRemote + ":" + id + ":" + strconv.Itoa(i), Source: SourceRemote, Title: title,
			Summary: Summary(s.Text), Excerpt: s.Text, Relevance: rel,
			Library: id, Version: s.Version, URL: s.URL,
		})
	}
	lib.Status = StatusOK
	if len(items) == 0 {
		lib.Status = StatusNoMatch
	}
	return lib, items
}

// failed fills lib's status for err: a timeout when the budget ran out.
func failed(ctx context.Context, lib Library, err error) Library {
	lib.Status, lib.Error = StatusError, err.Error()
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		lib.Status = StatusTimeout
	}
	return lib
}

func round(f float64) float64 { return math.Round(f*1000) / 1000 }
