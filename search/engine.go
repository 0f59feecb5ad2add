// Package search is the engine the CLI, the MCP tools and the HTTP API
// use. It puts together what the packages below it do: catalog loads,
// verifies and switches the served catalogs, libraries resolves names to
// libraries, request reads what agents send; search ranks a version's
// sections for a question and packs them, page by page, under a token
// budget (Docs, Search), and keeps recent answers.
package search

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/topics"
)

// Options tune an Engine. The zero value suits the CLI.
type Options struct {
	// Logger receives reloads and refused versions; nil discards them.
	Logger *slog.Logger
	// CacheBytes bounds the decoded section text kept in memory across
	// all libraries (default index.DefaultCacheBytes).
	CacheBytes int
	// VerifyInBackground checksums every served version after each load,
	// one at a time, so first requests rarely wait for verification. A
	// version is always verified before its first use either way.
	VerifyInBackground bool
	// AllowEmpty starts the engine without a catalog (not ready) instead
	// of failing, for servers whose artifacts arrive after start.
	AllowEmpty bool
	// AnswerCacheBytes bounds the recent answers Docs keeps (default
	// DefaultAnswerCacheBytes; negative keeps none).
	AnswerCacheBytes int
	// MaxOpen bounds the library versions open at once (see
	// catalog.Options.MaxOpen; default catalog.DefaultMaxOpen, negative:
	// no bound).
	MaxOpen int
}

// Engine answers documentation requests from artifact directories. It is
// safe for concurrent use.
type Engine struct {
	catalogs *catalog.Loader
	log      *slog.Logger
	answers  *answerCache // nil: none kept

	answerHits, answerMisses atomic.Int64
}

// Open serves the artifact directory dir with default options.
func Open(dir string) (*Engine, error) {
	return OpenWith(dir, Options{})
}

// OpenWith serves the artifact directory dir.
func OpenWith(dir string, opts Options) (*Engine, error) {
	return OpenSources([]string{dir}, opts)
}

// OpenSources serves the artifact directories dirs as one catalog (see
// catalog.Open).
func OpenSources(dirs []string, opts Options) (*Engine, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l, err := catalog.Open(dirs, catalog.Options{Logger: log, CacheBytes: opts.CacheBytes,
		VerifyInBackground: opts.VerifyInBackground, AllowEmpty: opts.AllowEmpty, MaxOpen: opts.MaxOpen})
	if err != nil {
		return nil, err
	}
	size := opts.AnswerCacheBytes
	if size == 0 {
		size = DefaultAnswerCacheBytes
	}
	return &Engine{catalogs: l, log: log, answers: newAnswerCache(size)}, nil
}

// Close stops background work and Watch, and closes every index once the
// requests using it end. Afterwards calls fail with catalog.ErrClosed.
// Closing twice is harmless.
func (e *Engine) Close() error { return e.catalogs.Close() }

// Dirs returns the artifact directories served.
func (e *Engine) Dirs() []string { return e.catalogs.Dirs() }

// Catalog returns the catalog served now (see catalog.Loader.Catalog).
func (e *Engine) Catalog() *artifacts.Catalog { return e.catalogs.Catalog() }

// Status describes what the engine serves, for readiness checks and
// metrics: the catalogs' status and the answer cache's counts.
type Status struct {
	catalog.Status
	// AnswerHits and AnswerMisses count Docs answers served from the
	// answer cache and computed, since start.
	AnswerHits   int64 `json:"answer_hits"`
	AnswerMisses int64 `json:"answer_misses"`
}

// Status reports what the engine serves now.
func (e *Engine) Status() Status {
	return Status{Status: e.catalogs.Status(), AnswerHits: e.answerHits.Load(), AnswerMisses: e.answerMisses.Load()}
}

// Reload reads the catalogs again now (SIGHUP); see catalog.Loader.Reload.
func (e *Engine) Reload(ctx context.Context) error { return e.catalogs.Reload(ctx) }

// Watch polls the catalogs every interval until ctx ends or the engine
// closes; see catalog.Loader.Watch.
func (e *Engine) Watch(ctx context.Context, interval time.Duration) {
	e.catalogs.Watch(ctx, interval)
}

// Resolve finds the library version an agent's id names; see
// catalog.Loader.Resolve.
func (e *Engine) Resolve(ctx context.Context, id string) (*catalog.Resolved, error) {
	return e.catalogs.Resolve(ctx, id)
}

// Topics returns the topic tree of the library version id names; see
// catalog.Loader.Topics.
func (e *Engine) Topics(ctx context.Context, id string) (*catalog.Resolved, *topics.Tree, error) {
	return e.catalogs.Topics(ctx, id)
}

// Documents returns the documents of the library version id names; see
// catalog.Loader.Documents.
func (e *Engine) Documents(ctx context.Context, id string) (*catalog.Resolved, []artifacts.DocumentInfo, error) {
	return e.catalogs.Documents(ctx, id)
}
