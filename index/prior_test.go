package index

import (
	"slices"
	"testing"

	"github.com/codex7/codex7/markdown"
)

func TestFlags(t *testing.T) {
	tests := []struct {
		name, path string
		s          *markdown.Section
		want       []string
	}{
		{"guide", "docs/guide/cors.md", sec("cors", "CORS", "Allow origins."), nil},
		{"introduction", "docs/guide/cors.md", &markdown.Section{Title: "CORS", Level: 1, HeadingPath: []string{"CORS"}, Prose: "CORS lets a page call another origin."}, []string{FlagIntro}},
		{"text before the first heading", "docs/guide/cors.md", &markdown.Section{Title: "CORS", HeadingPath: []string{"CORS"}, Prose: "CORS lets a page call another origin."}, []string{FlagIntro}},
		{"an H1 that is not the title", "docs/guide/cors.md", &markdown.Section{Title: "Setup", Level: 1, HeadingPath: []string{"CORS", "Setup"}, Prose: "Setup install it."}, nil},
		{"changelog file", "CHANGELOG.md", sec("fixes", "Fixes", "Fixed a bug."), []string{FlagChangelog}},
		{"release notes file", "docs/en/docs/release-notes.md", sec("features", "Features", "New things."), []string{FlagChangelog}},
		{"release heading", "docs/history.md", &markdown.Section{Title: "Fixes", HeadingPath: []string{"History", "v1.2.0 (2024-01-02)", "Fixes"}, Prose: "Fixes fixed"}, []string{FlagChangelog}},
		{"changelog title", "docs/whatsup.md", &markdown.Section{Title: "x", HeadingPath: []string{"Changelog", "x"}, Prose: "x y"}, []string{FlagChangelog}},
		{"release policy is no changelog", "docs/releases.md", sec("cycle", "Release cycle", "Every six weeks."), nil},
		{"a version in prose is no changelog", "docs/guide/migration.md", sec("v5", "Migrating from v4", "Version 5.0 changes defaults."), nil},
		{"blog post", "docs/blog/announcing-v3.md", sec("news", "New features", "Faster builds."), []string{FlagBlog}},
		{"heading only", "docs/guide/workers.md", sec("web-workers", "Web Workers", ""), []string{FlagStub}},
		{"heading and code", "docs/guide/workers.md", sec("example", "Example", "", "new Worker(url)"), nil},
		{"later chunk of a section", "docs/guide/workers.md", &markdown.Section{Title: "Long", Part: 1, Prose: "Long"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sectionFlags(tt.path, tt.s); !slices.Equal(got, tt.want) {
				t.Errorf("sectionFlags(%s) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestPriors checks that a flagged section ranks below an unflagged one
// with the same text. Flagged sections are indexed first so that, without
// priors, ties would put them on top.
func TestPriors(t *testing.T) {
	body := "Configure the dev server proxy for API requests."
	entries := []Entry{
		{Path: "docs/blog/announcing.md", Section: sec("proxy", "Server proxy", body)},
		{Path: "CHANGELOG.md", Section: sec("proxy", "Server proxy", body)},
		{Path: "docs/config/net.md", Section: sec("proxy", "Server proxy", body)},
		{Path: "docs/config/net.md", Section: sec("server-options", "Server proxy options", "")},
		{Path: "docs/guide/a.md", Section: sec("web-workers", "Web workers", "")},
		{Path: "docs/guide/b.md", Section: sec("web-workers", "Web workers", "Import a script as a worker with a query suffix and construct it.")},
		{Path: "docs/cors.md", Section: &markdown.Section{Anchor: "cors", Title: "CORS", Level: 1, Parts: 1, HeadingPath: []string{"CORS"},
			Prose: "CORS lets a browser app call an API on another origin."}},
		{Path: "docs/ru/lifespan.md", Section: sec("lifespan", "Lifespan", "Lifespan events run startup code with asynccontextmanager."), Translation: true},
		{Path: "docs/en/lifespan.md", Section: sec("lifespan", "Lifespan", "Lifespan events run startup code with asynccontextmanager.")},
		{Path: "docs/cors.md", Section: &markdown.Section{Anchor: "middleware", Title: "Middleware", Level: 2, Parts: 1, HeadingPath: []string{"CORS", "Middleware"},
			Prose: "Middleware Add the CORS middleware and list each origin a browser app calls from."}},
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tests := []struct {
		query, want string
		rank        int
	}{
		{"server proxy", "docs/config/net.md#proxy", 1},
		{"server proxy", "docs/blog/announcing.md#proxy", 2},
		{"server proxy", "CHANGELOG.md#proxy", 3},
		{"server proxy options", "docs/config/net.md#server-options", 1},
		{"web workers", "docs/guide/b.md#web-workers", 1},
		{"cors origin", "docs/cors.md#middleware", 1},
		{"lifespan asynccontextmanager", "docs/en/lifespan.md#lifespan", 1},
		{"lifespan asynccontextmanager", "docs/ru/lifespan.md#lifespan", 2},
	}
	for _, tt := range tests {
		if got := rank(t, r, tt.query, tt.want); got != tt.rank {
			t.Errorf("%q: %s ranks %d, want %d", tt.query, tt.want, got, tt.rank)
		}
	}
}
