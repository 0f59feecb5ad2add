package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/search"
)

// statusEngine is an Engine whose Status is given; it answers nothing.
type statusEngine struct{ st search.Status }

func (e statusEngine) Docs(context.Context, search.DocsRequest) (*search.Answer, error) {
	return nil, errors.New("no docs")
}
func (e statusEngine) FindLibraries(context.Context, libraries.Request) (*libraries.Result, error) {
	return nil, errors.New("no libraries")
}
func (e statusEngine) Resolve(context.Context, string) (*catalog.Resolved, error) {
	return nil, errors.New("no ids")
}
func (e statusEngine) Status() search.Status { return e.st }

// TestUnrankableCounted checks that versions refused because the ranker
// cannot read their index are counted apart, for an alert.
func TestUnrankableCounted(t *testing.T) {
	st := search.Status{Status: catalog.Status{Ready: true, Refused: []catalog.Refused{
		{Library: "/a/b", Version: "main", Cause: fmt.Errorf("open index: %w: 2 segments", index.ErrUnrankable)},
		{Library: "/a/c", Version: "main", Cause: fmt.Errorf("open index: %w", index.ErrCorruptStore)},
	}}}
	if got := catalogStats(statusEngine{st}); got.Refused != 2 || got.Unrankable != 1 {
		t.Errorf("stats %+v: want 2 refused, 1 of them unrankable", got)
	}
}
