package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
)

func TestLinkerShowsLinksAsDocumentViews(t *testing.T) {
	docs := []artifacts.DocumentInfo{
		{Path: "docs/config.md", Outline: []artifacts.Outline{{Anchor: "config"}, {Anchor: "base", Inner: []string{"ex-base"}}}},
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
		"mailto:a@example.com":          "mailto:a@example.com",
		"#":                             "#", // the top of the page
		// Relative links the version's documents do not resolve lead
		// nowhere on this site: shown as their text (nil).
		"missing.md":           "",
		"../config.md#nowhere": "",
		"#module-json":         "",
		"50%.md":               "", // does not parse as a URL: relative all the same
		"//other.example/x":    "//other.example/x",
		`\\evil.example`:       "",
		"../config.md#ex-base": "/acme/vite/v5/-/doc/docs/config.md#base", // an id inside the section
	} {
		if got := string(fix([]byte(dest))); got != want {
			t.Errorf("%s: %s, want %s", dest, got, want)
		}
	}
	if newLinker("/x", docs).from("docs/other.md") != nil || (*linker)(nil).from("docs/config.md") != nil {
		t.Error("a document the linker does not know, or no linker, should leave links as written")
	}
	// An escaped target is read as the build reads it (markdown.LinkTarget).
	html := string(renderMarkdown(newMarkdown(0), "See [the base](..\\/config.md#base) and [elsewhere](https://example.com/x), [`json`](#module-json) and [an *empty* one]().", fix))
	for _, want := range []string{`<a href="/acme/vite/v5/-/doc/docs/config.md#base">the base</a>`, `<a href="https://example.com/x">elsewhere</a>`,
		`, <code>json</code> and`, `<a href="">an <em>empty</em> one</a>`} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered %s, want %s", html, want)
		}
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
	if a, b := s.linkerFor(&catalog.Resolved{}, "/x/y", docs), s.linkerFor(&catalog.Resolved{}, "/x/y", docs); a == b {
		t.Error("versions without a build share a linker")
	}
}

// TestLinkerMadeAtFirstLink checks that a page's links are resolved from
// a linker made at its first link only: a page without links neither
// lists the version's documents nor indexes them.
func TestLinkerMadeAtFirstLink(t *testing.T) {
	s := New(nil, Options{})
	docs := []artifacts.DocumentInfo{{Path: "a.md", Outline: []artifacts.Outline{{Anchor: "a"}}}, {Path: "b.md", Outline: []artifacts.Outline{{Anchor: "b"}}}}
	listed := 0
	list := listOnce(func() (*catalog.Resolved, []artifacts.DocumentInfo, error) {
		listed++
		return &catalog.Resolved{Build: "sum1"}, docs, nil
	})
	md := newMarkdown(0)
	renderMarkdown(md, "No links here.", s.linkFixer("/x/y", "a.md", list))
	if listed != 0 || s.linkers.Len() != 0 {
		t.Fatalf("a page without links listed the documents %d times and kept %d linkers", listed, s.linkers.Len())
	}
	html := renderMarkdown(md, "See [b](b.md) and [a](#a).", s.linkFixer("/x/y", "a.md", list))
	if !strings.Contains(string(html), `href="/x/y/-/doc/b.md"`) {
		t.Errorf("the link to b.md was not made a document view: %s", html)
	}
	renderMarkdown(md, "[b](b.md)", s.linkFixer("/x/y", "b.md", list))
	if listed != 1 || s.linkers.Len() != 1 {
		t.Errorf("sections with links listed the documents %d times and kept %d linkers, want 1 and 1", listed, s.linkers.Len())
	}
}

// TestLinkerOfALargeVersionKept checks that the linker of a version of
// tens of thousands of small pages is kept, not made again at each view:
// it is charged by its documents' and anchors' count.
func TestLinkerOfALargeVersionKept(t *testing.T) {
	s := New(nil, Options{})
	docs := make([]artifacts.DocumentInfo, 40000)
	for i := range docs {
		docs[i] = artifacts.DocumentInfo{Path: fmt.Sprintf("pages/common/tool-%d.md", i), Outline: []artifacts.Outline{{Anchor: "tool"}}}
	}
	res := &catalog.Resolved{Build: "big"}
	if l := s.linkerFor(res, "/x/y", docs); s.linkerFor(res, "/x/y", docs) != l {
		t.Error("the linker of 40,000 one-section pages was made twice")
	}
}
