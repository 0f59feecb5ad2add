package search

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

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
	// MaxTopicBytes bounds one topic: a slug or a name of a few words. It
	// keeps what an error message quotes back (the unknown topics) small.
	MaxTopicBytes = 256
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
	if err := checkLimits(query, topicList, mode); err != nil {
		return nil, nil, nil, err
	}
	mode = strings.ToLower(strings.TrimSpace(mode))
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

// checkLimits refuses a query, topics or mode beyond what any request
// needs, before any work is done for it: a request of a megabyte costs no
// more than a normal one, and its error quotes at most a few dozen
// characters of it back.
func checkLimits(query string, topicList []string, mode string) error {
	if m := strings.ToLower(strings.TrimSpace(mode)); m != "" && m != ModeInfo && m != ModeCode {
		return fmt.Errorf("%w (got %q)", ErrInvalidMode, clip(mode, 40))
	}
	if len(query) > MaxQueryBytes {
		return fmt.Errorf("%w: the query is %d bytes, at most %d: keep the key words or the first line of the error", ErrInvalidRequest, len(query), MaxQueryBytes)
	}
	if len(topicList) > MaxTopicsGiven {
		return fmt.Errorf("%w: %d topics given, at most %d (only the first 20 distinct ones are used)", ErrInvalidRequest, len(topicList), MaxTopicsGiven)
	}
	for i, t := range topicList {
		if len(t) > MaxTopicBytes {
			return fmt.Errorf("%w: topic %d (%q) is %d bytes, at most %d: give topic slugs from the library's topic tree, and put a question in the query", ErrInvalidRequest, i+1, clip(t, 40), len(t), MaxTopicBytes)
		}
	}
	return nil
}

// clip shortens s to at most n bytes of valid UTF-8, marking a cut with
// "…", for quoting input in messages.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\ufffd")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
