package links

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// doc splits markdown source as the pipeline does.
func doc(t testing.TB, path, src string) *markdown.Document {
	t.Helper()
	d, err := markdown.Split(path, []byte(src), markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// inboundOf returns the inbound text of the section titled title in the
// document at path.
func inboundOf(t *testing.T, docs []*markdown.Document, in [][]string, path, title string) string {
	t.Helper()
	for i, d := range docs {
		if d.Path != path {
			continue
		}
		for k, s := range d.Sections {
			if s.Title == title {
				return in[i][k]
			}
		}
	}
	t.Fatalf("no section %q in %s", title, path)
	return ""
}

// inboundCase is the inbound text want of the section titled title in the
// document at path.
type inboundCase struct{ path, title, want string }

// checkInbound checks the inbound texts Inbound gives docs' sections.
func checkInbound(t *testing.T, docs []*markdown.Document, cases []inboundCase) {
	t.Helper()
	in := Inbound(docs)
	for _, c := range cases {
		if got := inboundOf(t, docs, in, c.path, c.title); got != c.want {
			t.Errorf("%s#%s: inbound %q, want %q", c.path, c.title, got, c.want)
		}
	}
}

func TestInboundResolvesEveryKindOfLink(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "docs/config/shared-options.md", "# Shared Options\n\n## resolve.alias\n\nMaps ids.\n\n## base\n\nThe base.\n"),
		doc(t, "docs/guide/build.md", "# Building\n\n## Public Base Path\n\nNested.\n\n## Multi-Page App\n\n"+
			"Use [a nested public path](#public-base-path) and [import shortcuts](../config/shared-options.md#resolve-alias).\n"),
		doc(t, "docs/guide/features.md", "# Features\n\nSee [deploying under a sub-folder](/guide/build#public-base-path), "+
			"[the build page](./build), [options](/config/shared-options.html), "+
			"[path aliases](https://vite.example.org/config/shared-options#RESOLVE-ALIAS) and "+
			"[site-relative aliases](../config/shared-options/#resolve.alias).\n"),
		doc(t, "docs/index.md", "# Home\n\n[Features](guide/features.md), [mail](mailto:a@b.c), [elsewhere](https://example.com/), "+
			"[nowhere](guide/missing.md), [no such anchor](guide/build.md#gone), [itself](#home).\n"),
	}
	checkInbound(t, docs, []inboundCase{
		{"docs/guide/build.md", "Public Base Path", "a nested public path\ndeploying under a sub-folder"},
		{"docs/config/shared-options.md", "resolve.alias", "import shortcuts\npath aliases\nsite-relative aliases"},
		{"docs/guide/build.md", "Building", "the build page"},
		{"docs/config/shared-options.md", "Shared Options", "options"},
		{"docs/guide/features.md", "Features", "Features"},
		{"docs/config/shared-options.md", "base", ""},
		{"docs/index.md", "Home", ""}, // a section's link to itself does not count
	})
}

func TestInboundPrefersTheExactPathThenTheNearest(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "api/build.md", "# Build API\n\ntext\n"),
		doc(t, "guide/build/index.md", "# Build guide\n\ntext\n"),
		doc(t, "guide/intro.md", "# Intro\n\n[how to build](build/) and [building](/build).\n"),
		doc(t, "api/index.md", "# API\n\n[the build API](/build).\n"),
	}
	in := Inbound(docs)
	if got := inboundOf(t, docs, in, "guide/build/index.md", "Build guide"); got != "how to build\nbuilding" {
		t.Errorf("guide/build/index.md: %q, want the relative link and the site-root one from beside it", got)
	}
	if got := inboundOf(t, docs, in, "api/build.md", "Build API"); got != "the build API" {
		t.Errorf("api/build.md: %q, want the site-root link from beside it", got)
	}
}

// TestInboundStaysInItsLanguage checks that a repository holding its
// documentation in several languages links within each: a URL to the
// published page resolves to the copy nearest the linking document.
func TestInboundStaysInItsLanguage(t *testing.T) {
	var docs []*markdown.Document
	for _, lang := range []string{"de", "en", "es"} {
		docs = append(docs,
			doc(t, "docs/"+lang+"/docs/tutorial/files.md", "# Files "+lang+"\n\ntext\n"),
			doc(t, "docs/"+lang+"/docs/release-notes.md", "# Notes\n\n[upload docs "+lang+"](https://example.dev/tutorial/files/).\n"))
	}
	in := Inbound(docs)
	for _, lang := range []string{"de", "en", "es"} {
		if got := inboundOf(t, docs, in, "docs/"+lang+"/docs/tutorial/files.md", "Files "+lang); got != "upload docs "+lang {
			t.Errorf("%s: %q, want its own language's link", lang, got)
		}
	}
}

func TestInboundAnchorOfAnotherDocument(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "config.md", "# Config\n\n## Proxies {#proxy-setup}\n\nSet it.\n\n## Twice {#twice}\n\nOne.\n"),
		doc(t, "deploy.md", "# Deploy\n\n## Again {#twice}\n\nTwo.\n\n## Steps\n\nSee [behind nginx](#proxy-setup) and [which one](#twice).\n"),
		doc(t, "faq.md", "# FAQ\n\nAn anchor two documents have is no one's: [ambiguous](#twice).\n"),
	}
	in := Inbound(docs)
	if got := inboundOf(t, docs, in, "config.md", "Proxies"); got != "behind nginx" {
		t.Errorf("an anchor only another document has: %q, want the link", got)
	}
	// The document's own anchor wins over another's of the same name.
	if got, other := inboundOf(t, docs, in, "deploy.md", "Again"), inboundOf(t, docs, in, "config.md", "Twice"); got != "which one" || other != "" {
		t.Errorf("own anchor: %q, other document's %q", got, other)
	}
}

func TestInboundSiteFoldersLoosely(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "guides/ipynb/keras_core/functional_api.ipynb.md", "# Functional API (core)\n\ntext\n"),
		doc(t, "guides/ipynb/functional_api.md", "# Functional API\n\ntext\n"),
		doc(t, "examples/vision/functional_api.md", "# Elsewhere\n\ntext\n"),
		doc(t, "guides/ipynb/intro.md", "# Intro\n\nSee [the functional API guide](/guides/functional_api/) and [nothing](/tutorials/functional_api/).\n"),
	}
	in := Inbound(docs)
	if got := inboundOf(t, docs, in, "guides/ipynb/functional_api.md", "Functional API"); got != "the functional API guide" {
		t.Errorf("site path served from another folder: %q, want the link", got)
	}
	for _, p := range []string{"guides/ipynb/keras_core/functional_api.ipynb.md", "examples/vision/functional_api.md"} {
		if got := in[slices.IndexFunc(docs, func(d *markdown.Document) bool { return d.Path == p })][0]; got != "" {
			t.Errorf("%s received %q", p, got)
		}
	}
}

func TestInboundBounded(t *testing.T) {
	var src strings.Builder
	src.WriteString("# Index\n\n")
	for i := range MaxPerSection + 10 {
		fmt.Fprintf(&src, "[name %d](target.md) ", i)
	}
	src.WriteString("[" + strings.Repeat("long ", 30) + "](target.md)\n")
	docs := []*markdown.Document{doc(t, "index.md", src.String()), doc(t, "target.md", "# Target\n\ntext\n")}
	got := strings.Split(Inbound(docs)[1][0], "\n")
	if len(got) != MaxPerSection || got[0] != "name 0" || got[MaxPerSection-1] != fmt.Sprintf("name %d", MaxPerSection-1) {
		t.Errorf("kept %d texts (%q … %q), want the first %d", len(got), got[0], got[len(got)-1], MaxPerSection)
	}
}

func TestSitePath(t *testing.T) {
	for in, want := range map[string]string{
		"docs/guide/build.md": "docs/guide/build", "/guide/build/": "guide/build", "guide/index.md": "guide",
		"content/_index.md": "content", "README.md": "", "/": "", "a/../b.mdx": "b", "v1.2/notes": "v1.2/notes",
		"guide/build.html": "guide/build",
	} {
		if got := sitePath(in); got != want {
			t.Errorf("sitePath(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzInbound checks that any link target resolves to a real section or to
// nothing, and that the result has one entry per section.
func FuzzInbound(f *testing.F) {
	for _, s := range []string{"#a", "../b.md#c", "/x/y/", "https://h/p#q", "mailto:x", "%zz", "//h/p", "?q#", "b.md#A-B", ":x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, target string) {
		a := &markdown.Document{Path: "d/a.md", Sections: []markdown.Section{{Title: "A"}, {Anchor: "a-b", Title: "A b", Level: 2,
			Links: []markdown.Link{{Text: "t", Target: target}}}}}
		b := &markdown.Document{Path: "b.md", Sections: []markdown.Section{{Title: "B"}, {Anchor: "c", Title: "C", Level: 2}}}
		in := Inbound([]*markdown.Document{a, b})
		if len(in) != 2 || len(in[0]) != 2 || len(in[1]) != 2 {
			t.Fatalf("shape %d/%d/%d", len(in), len(in[0]), len(in[1]))
		}
		if in[0][1] != "" {
			t.Fatalf("a section received its own link (%q)", target)
		}
		n := 0
		for _, d := range in {
			for _, s := range d {
				if s != "" {
					n++
					if s != "t" {
						t.Fatalf("text %q", s)
					}
				}
			}
		}
		if n > 1 {
			t.Fatalf("one link counted %d times", n)
		}
	})
}

// TestInboundChunkLinksToItsOwnSection checks that a link from a later
// chunk of a long section to that section's anchor is the section's link
// to itself, which does not count.
func TestInboundChunkLinksToItsOwnSection(t *testing.T) {
	docs := []*markdown.Document{{Path: "guide.md", Sections: []markdown.Section{
		{Title: "Guide", Anchor: "guide", Level: 1, Parts: 1},
		{Title: "Big", Anchor: "big", Level: 2, Part: 0, Parts: 2},
		{Title: "Big", Anchor: "big", Level: 2, Part: 1, Parts: 2, Links: []markdown.Link{{Text: "see above", Target: "#big"}}},
	}}}
	if got := Inbound(docs)[0][1]; got != "" {
		t.Errorf("a chunk's link to its own section counted: %q", got)
	}
}

// TestInboundDottedNames checks that a path without an extension whose
// last part has a dot (a Sphinx docname "library/os.path", a versioned
// page "/release/v3.2/") names the document of that name, not the one
// named by its part before the dot, while a document's own extension,
// whatever it is, is dropped.
func TestInboundDottedNames(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "library/os.md", "# os\n\ntext\n"),
		doc(t, "library/os.path.md", "# os.path\n\ntext\n"),
		doc(t, "release/v3.md", "# 3.0\n\ntext\n"),
		doc(t, "release/v3.2.md", "# 3.2\n\ntext\n"),
		// A Sphinx project's .txt files are reStructuredText (Django's).
		doc(t, "docs/topics/http/urls.txt", "# URL dispatcher\n\ntext\n"),
		doc(t, "index.md", "# Home\n\n[path functions](library/os.path), [what changed](/release/v3.2/), [the page](library/os.path.html), "+
			"[URLconfs](/topics/http/urls) and [the source](docs/topics/http/urls.txt).\n"),
	}
	checkInbound(t, docs, []inboundCase{
		{"library/os.path.md", "os.path", "path functions\nthe page"},
		{"library/os.md", "os", ""},
		{"release/v3.2.md", "3.2", "what changed"},
		{"release/v3.md", "3.0", ""},
		{"docs/topics/http/urls.txt", "URL dispatcher", "URLconfs\nthe source"},
	})
}

// TestInboundEmptyTargets checks that a link that names neither a path nor
// an anchor ("[TODO]()", "[back to top](#)") gives no section its text.
func TestInboundEmptyTargets(t *testing.T) {
	docs := []*markdown.Document{doc(t, "guide.md", "# Guide\n\nIntro.\n\n## Usage\n\n[TODO]() and [back to top](#) and [same page](?tab=1).\n")}
	if got := Inbound(docs)[0][0]; got != "" {
		t.Errorf("the document's first section received %q", got)
	}
}

// TestInboundSameSitePath checks that of two documents a site would serve
// at the same path (guide.md and guide/index.md), a link names the shorter.
func TestInboundSameSitePath(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "guide/index.md", "# Guide folder\n\ntext\n"),
		doc(t, "guide.md", "# Guide page\n\ntext\n"),
		doc(t, "start.md", "# Start\n\n[the guide](guide/).\n"),
	}
	in := Inbound(docs)
	if got, other := inboundOf(t, docs, in, "guide.md", "Guide page"), inboundOf(t, docs, in, "guide/index.md", "Guide folder"); got != "the guide" || other != "" {
		t.Errorf("guide.md %q, guide/index.md %q: want the link on guide.md", got, other)
	}
}

// BenchmarkNewResolver indexes a version of 1,000 pages of 20 sections,
// four folders deep: what the web page does for each page it shows.
func BenchmarkNewResolver(b *testing.B) {
	pages := make([]Page, 1000)
	for i := range pages {
		pages[i].Path = fmt.Sprintf("docs/part-%d/chapter-%d/page-%d.md", i%7, i%31, i)
		for k := range 20 {
			pages[i].Anchors = append(pages[i].Anchors, fmt.Sprintf("section-%d", k))
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		NewResolver(pages)
	}
}

// TestInboundExplicitIndexFile: a link that names a file reaches it, though
// another document is served at the same site path (api.md, api/README.md).
func TestInboundExplicitIndexFile(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "docs/api.md", "# API summary\n\ntext\n"),
		doc(t, "docs/api/README.md", "# API reference\n\ntext\n"),
		doc(t, "docs/start.md", "# Start\n\n[the reference](api/README.md) and [the summary](api.md).\n"),
	}
	checkInbound(t, docs, []inboundCase{
		{"docs/api/README.md", "API reference", "the reference"},
		{"docs/api.md", "API summary", "the summary"},
	})
}

// TestInboundInnerAnchors checks that a link to an id inside a section
// (markdown.Section.InnerAnchors: an AsciiDoc inline anchor, a block's
// id) gives that section its text, that a section's own anchor wins over
// another section's inner id of the same name, and that a section's link
// to an id inside itself does not count.
func TestInboundInnerAnchors(t *testing.T) {
	docs := []*markdown.Document{
		{Path: "docs/config.adoc", Sections: []markdown.Section{
			{Title: "Config", Parts: 1},
			{Title: "Proxies", Anchor: "_proxies", Level: 2, Parts: 1, InnerAnchors: []string{"nginx-example", "_tls"},
				Links: []markdown.Link{{Text: "the example below", Target: "#nginx-example"}}},
			{Title: "TLS", Anchor: "_tls", Level: 2, Parts: 1, Links: []markdown.Link{{Text: "proxy example", Target: "#nginx-example"}}},
		}},
		{Path: "docs/deploy.adoc", Sections: []markdown.Section{
			{Title: "Deploy", Parts: 1, Links: []markdown.Link{{Text: "behind nginx", Target: "/docs/config.adoc#nginx-example"}, {Text: "certificates", Target: "config.adoc#_tls"}}},
		}},
	}
	checkInbound(t, docs, []inboundCase{
		{"docs/config.adoc", "Proxies", "proxy example\nbehind nginx"},
		{"docs/config.adoc", "TLS", "certificates"},
	})
}

// TestRetitles: a link whose text is only its own target, as a Sphinx
// :doc: or :ref: to another file comes out of the reader, gets the title
// of the document or section it resolves to; a link with words of its
// own, or one that resolves nowhere, is left alone.
func TestRetitles(t *testing.T) {
	docs := []*markdown.Document{
		doc(t, "docs/index.md", "# Home\n\n## Start\n\nSee [/quickstart](/quickstart), [quickstart](quickstart) and [security-cookie](#security-cookie).\n\nAlso [the quick start](/quickstart) and [/nowhere](/nowhere).\n"),
		doc(t, "docs/quickstart.md", "# Quickstart\n\nFirst steps.\n"),
		doc(t, "docs/security.md", "# Security\n\n## Set-Cookie options {#security-cookie}\n\nCookies.\n"),
	}
	got := Retitles(docs)
	var all []string
	for _, secs := range got {
		for _, rs := range secs {
			for _, r := range rs {
				all = append(all, r.Old+" => "+r.New)
			}
		}
	}
	want := []string{
		"[/quickstart](/quickstart) => [Quickstart](/quickstart)",
		"[quickstart](quickstart) => [Quickstart](quickstart)",
		"[security-cookie](#security-cookie) => [Set-Cookie options](#security-cookie)",
	}
	if !slices.Equal(all, want) {
		t.Errorf("Retitles = %q, want %q", all, want)
	}
}
