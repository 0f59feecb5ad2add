package web

import (
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
)

func TestLinkerShowsLinksAsDocumentViews(t *testing.T) {
	docs := []artifacts.DocumentInfo{
		{Path: "docs/config.md", Outline: []artifacts.Outline{{Anchor: "config"}, {Anchor: "base"}}},
		{Path: "docs/guide/build.md", Outline: []artifacts.Outline{{Anchor: ""}, {Anchor: "public-base-path"}}},
	}
	fix := newLinker("/acme/vite/v5", docs).from("docs/guide/build.md")
	for dest, want := range map[string]string{
		"../config.md#base":             "/acme/vite/v5/-/doc/docs/config.md#base",
		"../config":                     "/acme/vite/v5/-/doc/docs/config.md",
		"/guide/build#Public-Base-Path": "/acme/vite/v5/-/doc/docs/guide/build.md#public-base-path",
		"#public-base-path":             "/acme/vite/v5/-/doc/docs/guide/build.md#public-base-path",
		"https://example.com/x":         "https://example.com/x",
		"javascript:alert(1)":           "javascript:alert(1)",
		"missing.md":                    "missing.md",
		"../config.md#nowhere":          "../config.md#nowhere",
	} {
		if got := string(fix([]byte(dest))); got != want {
			t.Errorf("%s: %s, want %s", dest, got, want)
		}
	}
	if newLinker("/x", docs).from("docs/other.md") != nil || (*linker)(nil).from("docs/config.md") != nil {
		t.Error("a document the linker does not know, or no linker, should leave links as written")
	}
	// An escaped target is read as the build reads it (markdown.LinkTarget).
	html := string(renderMarkdown(newMarkdown(0), "See [the base](..\\/config.md#base) and [elsewhere](https://example.com/x).", fix))
	if want := `<a href="/acme/vite/v5/-/doc/docs/config.md#base">the base</a>`; !strings.Contains(html, want) {
		t.Errorf("rendered %s, want %s", html, want)
	}
}

// TestLinkerKeptPerBuild checks that a version's linker is made once per
// build and base, and anew for another build.
func TestLinkerKeptPerBuild(t *testing.T) {
	s := New(nil, Options{})
	docs := []artifacts.DocumentInfo{{Path: "a.md", Outline: []artifacts.Outline{{Anchor: "a"}}}}
	one := &catalog.Resolved{Build: "sum1"}
	l := s.linkerFor(one, "/x/y", docs)
	if s.linkerFor(one, "/x/y", docs) != l {
		t.Error("the same build and base made a second linker")
	}
	if s.linkerFor(&catalog.Resolved{Build: "sum2"}, "/x/y", docs) == l || s.linkerFor(one, "/x/y/v1", docs) == l {
		t.Error("another build or base got the first linker")
	}
	if s.linkerFor(&catalog.Resolved{}, "/x/y", docs) == s.linkerFor(&catalog.Resolved{}, "/x/y", docs) {
		t.Error("versions without a build share a linker")
	}
}
