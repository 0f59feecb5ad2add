package search

import (
	"context"
	"errors"
	"fmt"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
)

// FindLibraries ranks the catalog's libraries for req.Name (see
// Libraries) and describes each match to req.Detail, within the caps
// in package libraries. An invalid detail is an error wrapping libraries.ErrInvalidDetail; no match
// is not an error. Documents are read from the artifacts of each match's
// latest version (opening it on first use); a version that cannot be read
// leaves its match without documents and says why in Problem. The matches
// and their documents all come from one catalog, even if another is loaded
// meanwhile. It is safe for concurrent use.
func (e *Engine) FindLibraries(ctx context.Context, req libraries.Request) (*libraries.Result, error) {
	var res *libraries.Result
	err := e.catalogs.With(func(st *catalog.Snapshot) error {
		docsOf := func(id string) ([]artifacts.DocumentInfo, error) {
			_, v, err := st.Open(nil, id) // id is a match, already in scope
			if err != nil {
				return nil, err
			}
			docs, err := v.Documents()
			switch {
			case errors.Is(err, catalog.ErrStale):
				err = fmt.Errorf("%w: %w", libraries.ErrAbort, err)
			case err != nil:
				// Said as a request would be told it, with no server
				// path, and a damaged version dropped by the next load.
				err = st.Unusable(err)
			}
			return docs, err
		}
		var err error
		res, err = st.Libraries().Find(ctx, req, docsOf)
		return err
	})
	return res, err
}

// Libraries ranks the catalog's libraries for a library name and,
// optionally, the user's question; it returns up to max matches (clamped
// to 1–libraries.MaxLibraries), best first, and none when nothing matches. Exact
// matches of an id, a project name, a title or an alias come first, then
// the org, then partial name matches, then libraries whose description or
// topics have the words; BM25 orders each group and the question breaks
// ties.
//
// It reads one catalog's index once and does no I/O, so it needs no
// reference on the state; after Close it finds nothing.
func (e *Engine) Libraries(ctx context.Context, name, query string, max int) []libraries.Match {
	return e.catalogs.Libraries().Search(request.ScopeOf(ctx), name, query, max)
}
