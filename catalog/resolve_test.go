package catalog

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/request"
)

// TestBareNameOfTwoLibrariesNotPicked: a bare name that is the project
// name of two libraries resolves to neither (the agent is told both ids),
// while each resolves by its id, and the name resolves to the one library
// a scope lets the request see.
func TestBareNameOfTwoLibrariesNotPicked(t *testing.T) {
	out := t.TempDir()
	cfg := "libraries:\n"
	for _, id := range []string{"/acme/widgets", "/other/widgets"} {
		r := gittest.New(t, "main")
		r.Write(map[string]string{"docs/guide.md": "# Guide\n\nWidgets of " + id + " for dashboards.\n"})
		r.Commit("docs")
		cfg += "  - id: " + id + "\n    repo: " + r.Dir + "\n"
	}
	buildtest.Build(t, out, cfg)
	e, err := Open([]string{out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	r, err := e.Resolve(context.Background(), "widgets")
	var lerr *LibraryError
	if !errors.Is(err, ErrLibraryNotFound) || !errors.As(err, &lerr) {
		var got string
		if r != nil {
			got = r.Library.ID
		}
		t.Fatalf("resolving %q: %q, %v; want ErrLibraryNotFound naming both libraries", "widgets", got, err)
	}
	if !slices.Contains(lerr.Closest, "/acme/widgets") || !slices.Contains(lerr.Closest, "/other/widgets") {
		t.Errorf("suggested %v, want both /acme/widgets and /other/widgets", lerr.Closest)
	}
	for _, id := range []string{"/acme/widgets", "/other/widgets"} {
		if r, err := e.Resolve(context.Background(), id); err != nil || r.Library.ID != id {
			t.Errorf("resolving %s: %+v, %v", id, r, err)
		}
	}
	ctx := request.WithScope(context.Background(), prefixScope("/other/"))
	if r, err := e.Resolve(ctx, "widgets"); err != nil || r.Library.ID != "/other/widgets" {
		t.Errorf("resolving %q in a scope that sees /other/widgets only: %+v, %v", "widgets", r, err)
	}
}

// prefixScope allows the libraries whose id starts with it.
type prefixScope string

func (p prefixScope) Allows(id string) bool { return strings.HasPrefix(id, string(p)) }

// TestConflictErrorNamesNoServerPath: a library that two artifact
// directories both hold is refused with ErrConflict; the operator is told
// which directories (Status), the agent asking for it is not: no server
// path reaches an agent.
func TestConflictErrorNamesNoServerPath(t *testing.T) {
	a, b := buildtest.NewSite(t, t.TempDir()), buildtest.NewSite(t, t.TempDir())
	a.Build()
	b.Build()
	e, err := Open([]string{a.Out, b.Out}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, id := range []string{"/acme/site", "/acme/site@main", "site"} {
		_, err := e.Resolve(context.Background(), id)
		if !errors.Is(err, ErrConflict) || !errors.Is(err, ErrVersionUnavailable) {
			t.Fatalf("resolving %s: %v, want ErrVersionUnavailable and ErrConflict", id, err)
		}
		if msg := err.Error(); strings.Contains(msg, a.Out) || strings.Contains(msg, b.Out) {
			t.Errorf("resolving %s: %q names a server path", id, msg)
		}
	}
	var reasons []string
	for _, r := range e.Status().Refused {
		if r.Library == "/acme/site" {
			reasons = append(reasons, r.Reason)
		}
	}
	if len(reasons) != 1 || !strings.Contains(reasons[0], a.Out) || !strings.Contains(reasons[0], b.Out) {
		t.Errorf("refusals of /acme/site in the status: %q, want one naming both directories", reasons)
	}
}
