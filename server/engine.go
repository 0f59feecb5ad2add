package server

import (
	"context"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/search"
)

// Engine is what the server needs of the search engine: the tools' answers
// and, for /readyz and /metrics, its status. *search.Engine has it; its
// methods must be safe for concurrent use. It is also the REST API's
// context7api.Searcher.
type Engine interface {
	Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error)
	FindLibraries(ctx context.Context, req libraries.Request) (*libraries.Result, error)
	Resolve(ctx context.Context, id string) (*catalog.Resolved, error)
	Status() search.Status
}

var _ Engine = (*search.Engine)(nil)
