package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/topics"
)

// Limits on what a request may ask, so one request cannot cost the server
// more than a normal one many times over.
const (
	// MaxQueryBytes bounds a query; agents paste error messages, rarely
	// more than a few lines.
	MaxQueryBytes = 4096
	// MaxTopicsGiven bounds the topics a request may name; only the first
	// 20 distinct ones are used (see NormalizeTopics).
	MaxTopicsGiven = 100
	// MaxLimit bounds Request.Limit.
	MaxLimit = 500
)

// Modes of a search: prose sections or code examples.
const (
	ModeInfo = index.KindInfo
	ModeCode = index.KindCode
)

// Request is one search.
type Request struct {
	// Library is an agent's library id ("/org/project", "org/project@v1", a URL…).
	Library string
	Query   string
	// Topics keeps sections tagged with any of them (names or slugs).
	Topics []string
	// Limit is the number of hits (default 10, at most MaxLimit).
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
	err := e.with(func(st *state) error {
		q, r, v, err := st.prepare(scopeOf(ctx), req.Library, req.Query, req.Topics, req.Mode)
		if err != nil {
			return err
		}
		q.Limit, q.WithText = min(req.Limit, MaxLimit), req.WithText
		hits, err := v.reader.Search(ctx, q.Query)
		if err != nil {
			return err
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
func (st *state) prepare(sc Scope, library, query string, topicList []string, mode string) (*prepared, *Resolved, *version, error) {
	mode = strings.ToLower(strings.TrimSpace(mode))
	if mode != "" && mode != ModeInfo && mode != ModeCode {
		return nil, nil, nil, fmt.Errorf("%w (got %q)", ErrInvalidMode, mode)
	}
	if len(query) > MaxQueryBytes {
		return nil, nil, nil, fmt.Errorf("%w: the query is %d bytes, at most %d: keep the key words or the first line of the error", ErrInvalidRequest, len(query), MaxQueryBytes)
	}
	if len(topicList) > MaxTopicsGiven {
		return nil, nil, nil, fmt.Errorf("%w: %d topics given, at most %d (only the first 20 distinct ones are used)", ErrInvalidRequest, len(topicList), MaxTopicsGiven)
	}
	r, v, err := st.open(sc, library)
	if err != nil {
		return nil, nil, nil, err
	}
	names, capped := NormalizeTopics(topicList)
	var slugs, unknown []string
	for _, t := range names {
		if s := topics.Slug(t); v.slugs[s] {
			slugs = append(slugs, s)
		} else {
			unknown = append(unknown, t)
		}
	}
	if len(unknown) > 0 {
		return nil, nil, nil, &TopicError{Topics: unknown, Available: v.tree.Slugs()}
	}
	text := prepareQuery(query, r.Library)
	if text == "" && len(slugs) == 0 {
		return nil, nil, nil, ErrEmptyQuery
	}
	return &prepared{Query: index.Query{Text: text, Topics: slugs, Kind: mode}, capped: capped}, r, v, nil
}
