package search

import (
	"context"
	"strings"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/topics"
)

// Request is one search.
type Request struct {
	// Library is an agent's library id ("/org/project", "org/project@v1", a URL…).
	Library string
	Query   string
	// Topics keeps sections tagged with any of them (names or slugs).
	Topics []string
	// Limit is the number of hits (default 10, at most request.MaxLimit).
	Limit int
	// WithText fills each hit's Text.
	WithText bool
	// Mode keeps only prose ("info") or only sections with code examples
	// ("code"); empty keeps both.
	Mode string
}

// Result is a search's answer, with the provenance of every hit.
type Result struct {
	Library string
	Version string
	Commit  string
	Hits    []index.Hit
	// TopicsCapped says the request named more topics than are used.
	TopicsCapped bool
}

// Search resolves req.Library and ranks the version's sections.
func (e *Engine) Search(ctx context.Context, req Request) (*Result, error) {
	var res *Result
	err := e.catalogs.With(func(st *catalog.Snapshot) error {
		if err := ctx.Err(); err != nil { // a request given up opens nothing
			return err
		}
		q, r, v, err := prepare(st, request.ScopeOf(ctx), req.Library, req.Query, req.Topics, req.Mode)
		if err != nil {
			return err
		}
		limit := min(req.Limit, request.MaxLimit)
		if limit <= 0 {
			limit = 10
		}
		// A few more than asked, to fill the limit after near-duplicates
		// are dropped; their text is read for the hits kept only.
		q.Limit = limit + (limit+1)/2
		hits, err := v.Search(ctx, q.Query)
		if err != nil {
			return err
		}
		hits = withoutDuplicates(hits, limit)
		if req.WithText {
			for i := range hits {
				if hits[i].Text, err = v.Text(hits[i].Record); err != nil {
					return err
				}
			}
		}
		res = &Result{Library: r.Library.ID, Version: r.Version.Version, Commit: r.Version.Commit, Hits: hits, TopicsCapped: q.capped}
		return nil
	})
	return res, err
}

// prepared is a validated query on an opened version.
type prepared struct {
	index.Query
	capped bool
}

// prepare checks a request's parameters, resolves and opens its library
// version and turns the query and topics into an index query.
func prepare(st *catalog.Snapshot, sc request.Scope, library, query string, topicList []string, mode string) (*prepared, *catalog.Resolved, *catalog.Version, error) {
	if err := request.CheckLimits(query, topicList, mode); err != nil {
		return nil, nil, nil, err
	}
	mode = strings.ToLower(strings.TrimSpace(mode))
	r, v, err := st.Open(sc, library)
	if err != nil {
		return nil, nil, nil, err
	}
	names, capped := request.NormalizeTopics(topicList)
	var slugs, unknown []string
	for _, t := range names {
		if s := topics.Slug(t); v.HasTopic(s) {
			slugs = append(slugs, s)
		} else {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		return nil, nil, nil, &TopicError{Topics: unknown, Available: v.Tree().Slugs()}
	}
	text := prepareQuery(query, r.Library)
	if text == "" && len(slugs) == 0 {
		return nil, nil, nil, ErrEmptyQuery
	}
	return &prepared{Query: index.Query{Text: text, Topics: slugs, Kind: mode}, capped: capped}, r, v, nil
}

// withoutDuplicates returns the first limit hits that are not near
// duplicates of a hit ranked above them (index.NearDuplicate), the way
// Docs packs its pages: documentation kept in two copies (a guide and its
// port, a page per major version) would otherwise fill a ranking with
// the same text twice. It filters hits in place (a hit is only ever
// moved to a position already looked at), which the query path's
// allocations gain from.
func withoutDuplicates(hits []index.Hit, limit int) []index.Hit {
	kept := hits[:0]
	for i := range hits {
		if len(kept) == limit {
			break
		}
		dup := false
		for k := range kept {
			a, b := &hits[i], &kept[k]
			if index.NearDuplicate(a.Hash, a.SimHash, a.Tokens, b.Hash, b.SimHash, b.Tokens) {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, hits[i])
		}
	}
	return kept
}
