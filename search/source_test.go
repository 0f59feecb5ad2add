package search

import (
	"context"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// TestSectionSource checks that a section an AsciiDoc include brought
// into a page names the file it is written in, from the build to the
// engine's answers: on search hits, on get-library-docs' sections, in
// the document's outline, and that Evaluate counts a question naming
// that file (a partial is not a page; its text is the including page's).
func TestSectionSource(t *testing.T) {
	const partial = "docs/modules/ROOT/partials/opts.adoc"
	w := gittest.New(t, "main")
	w.Write(map[string]string{
		"docs/antora.yml":                  "name: tool\nversion: ~\n",
		"docs/modules/ROOT/pages/man.adoc": "= Manual\n\n== Synopsis\n\nRun the tool.\n\ninclude::partial$opts.adoc[]\n",
		partial:                            "== Zebra options\n\nThe zebra flag stripes the output.\n",
	})
	w.Commit("docs")
	e := openCatalog(t, "  - id: /acme/tool\n    repo: "+w.Dir+"\n")
	ctx := context.Background()
	res, err := e.Search(ctx, Request{Library: "/acme/tool", Query: "zebra flag", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Title != "Zebra options" {
		t.Fatalf("hits %+v, want the partial's section first", res.Hits)
	}
	if h := res.Hits[0]; h.Path != "docs/modules/ROOT/pages/man.adoc" || h.Source != partial {
		t.Errorf("hit path %q source %q, want the page and %q", h.Path, h.Source, partial)
	}
	ans, err := e.Docs(ctx, DocsRequest{Library: "/acme/tool", Query: "zebra flag"})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]string{}
	for _, s := range ans.Sections {
		sources[s.Title] = s.Source
	}
	if sources["Zebra options"] != partial || sources["Synopsis"] != "" {
		t.Errorf("docs sections' sources %q, want the partial's on its section only", sources)
	}
	_, docs, err := e.Documents(ctx, "/acme/tool")
	if err != nil {
		t.Fatal(err)
	}
	outline := map[string]string{}
	for _, d := range docs {
		for _, o := range d.Outline {
			outline[o.Title] = o.Source
		}
	}
	if outline["Zebra options"] != partial || outline["Synopsis"] != "" {
		t.Errorf("outline sources %q, want the partial's on its section only", outline)
	}
	rep, err := Evaluate(ctx, e, []Question{{Library: "/acme/tool", Query: "zebra flag", Kind: "api",
		Expected: []Expected{{Path: partial, Heading: "Zebra options"}}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := rep.Overall; s.RecallAt1 != 1 {
		t.Errorf("a question naming the partial: %+v, want it answered first", s)
	}
}

// TestEntryWithin checks that a Sphinx object description, which the rst
// reader makes a section of its own, counts as a chunk of the section
// that holds it on the published page when a question names that section;
// a real subsection of that section does not.
func TestEntryWithin(t *testing.T) {
	w := gittest.New(t, "main")
	w.Write(map[string]string{
		"docs/config.rst": "Configuration\n=============\n\nBuiltin Values\n--------------\n\n" +
			".. py:data:: ZEBRA_HOSTS\n\n   Hosts the zebra serves.\n\n" +
			"Striped Things\n~~~~~~~~~~~~~~\n\nThe quagga stripes.\n",
	})
	w.Commit("docs")
	e := openCatalog(t, "  - id: /acme/tool\n    repo: "+w.Dir+"\n")
	ctx := context.Background()
	ask := func(query, title string) Scores {
		t.Helper()
		res, err := e.Search(ctx, Request{Library: "/acme/tool", Query: query, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Title != title {
			t.Fatalf("%q: hits %+v, want %q first", query, res.Hits, title)
		}
		rep, err := Evaluate(ctx, e, []Question{{Library: "/acme/tool", Query: query, Kind: "api",
			Expected: []Expected{{Path: "docs/config.rst", Heading: "Builtin Values", HeadingNorm: "Builtin Values"}}}}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Overall
	}
	if s := ask("ZEBRA_HOSTS", "ZEBRA_HOSTS"); s.RecallAt1 != 1 {
		t.Errorf("the entry inside the named section: %+v, want it answered first", s)
	}
	if s := ask("quagga stripes", "Striped Things"); s.RecallAt5 != 0 {
		t.Errorf("a subsection of the named section: %+v, want it not counted", s)
	}
}
