package formats

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/markdown"
)

func TestOf(t *testing.T) {
	all := Set{}
	for p, want := range map[string]Format{"docs/a.md": Markdown, "A.MDX": Markdown, "x.markdown": Markdown, "guides/x.ipynb": Notebook, "docs/cli.rst": RST, "docs/modules/ROOT/pages/a.adoc": AsciiDoc} {
		if got, ok := all.Of(p); !ok || got != want {
			t.Errorf("Of(%q) = %q, %v; want %q", p, got, ok, want)
		}
	}
	for _, p := range []string{"main.go", "README", "LICENSE.txt", "image.png"} {
		if got, ok := all.Of(p); ok {
			t.Errorf("Of(%q) = %q, want none", p, got)
		}
	}
}

func TestParse(t *testing.T) {
	s, err := Parse([]string{" Markdown "})
	if err != nil || !s.Has(Markdown) {
		t.Fatalf("Parse(Markdown) = %+v, %v", s, err)
	}
	if _, err := Parse([]string{"markdwn"}); !errors.Is(err, ErrUnknown) {
		t.Errorf("Parse(markdwn) error %v, want ErrUnknown", err)
	}
	if !(Set{}).Has(Markdown) {
		t.Error("the zero Set does not read markdown")
	}
	if _, ok := s.Of("guides/x.ipynb"); ok {
		t.Error("a Set of markdown alone reads notebooks")
	}
}

func TestRead(t *testing.T) {
	doc, err := Read("docs/a.md", []byte("# A\n\nText.\n"), fstest.MapFS{}, markdown.DefaultOptions())
	if err != nil || doc.Title != "A" || len(doc.Sections) == 0 {
		t.Fatalf("Read(a.md) = %+v, %v", doc, err)
	}
	if _, err := Read("main.go", []byte("package main"), fstest.MapFS{}, markdown.DefaultOptions()); !errors.Is(err, ErrNotDocumentation) {
		t.Errorf("Read(main.go) error %v, want ErrNotDocumentation", err)
	}
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "markdown", "metadata": {}, "source": ["# Guide\n", "\n", "Train a model."]},
		{"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [], "source": "model.fit(x, y)"}]}`
	doc, err = Read("guides/guide.ipynb", []byte(nb), nil, markdown.DefaultOptions())
	if err != nil || doc.Title != "Guide" || len(doc.Sections) == 0 || len(doc.Sections[0].Code) == 0 {
		t.Errorf("Read(guide.ipynb) = %+v, %v; want the notebook's sections with its code", doc, err)
	}
	codeOnly := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
		{"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [], "source": "print(1)"}]}`
	if _, err := Read("x.ipynb", []byte(codeOnly), nil, markdown.DefaultOptions()); !errors.Is(err, ErrNotDocumentation) {
		t.Errorf("Read(code-only notebook) error %v, want ErrNotDocumentation", err)
	}
}

// TestReadPartial checks that a document read in part (an include outside
// the repository) comes back, with an error wrapping ErrPartial to log.
func TestReadPartial(t *testing.T) {
	src := "Changes\n=======\n\nSee below.\n\n.. include:: ../../outside.rst\n\nUsage\n-----\n\nRun it.\n"
	doc, err := Read("docs/changes.rst", []byte(src), fstest.MapFS{}, markdown.DefaultOptions())
	if !errors.Is(err, ErrPartial) || doc == nil || doc.Title != "Changes" || len(doc.Sections) < 2 {
		t.Fatalf("Read(changes.rst) = %+v, %v; want the document and ErrPartial", doc, err)
	}
	if doc, err := Read("docs/a.rst", []byte("Title\n=====\n\nText.\n"), fstest.MapFS{}, markdown.DefaultOptions()); err != nil || doc.Title != "Title" {
		t.Errorf("Read(a.rst) = %+v, %v", doc, err)
	}
}

func TestReadAsciiDoc(t *testing.T) {
	repo := fstest.MapFS{
		"docs/antora.yml":                       {Data: []byte("name: docs\nversion: ~\n")},
		"docs/modules/ROOT/partials/intro.adoc": {Data: []byte("Shared intro.\n")},
	}
	src := "= Install\n\n== Gem\n\n[source,sh]\n----\ngem install asciidoctor\n----\n\ninclude::partial$intro.adoc[]\n"
	doc, err := Read("docs/modules/ROOT/pages/install.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil || doc.Title != "Install" || len(doc.Sections) == 0 {
		t.Fatalf("Read(install.adoc) = %+v, %v", doc, err)
	}
	for _, p := range []string{"docs/modules/ROOT/partials/intro.adoc", "docs/modules/ROOT/examples/x.adoc", "docs/modules/ROOT/nav.adoc"} {
		if _, err := Read(p, []byte("* xref:a.adoc[]\n"), repo, markdown.DefaultOptions()); !errors.Is(err, ErrNotDocumentation) {
			t.Errorf("Read(%s) error %v, want ErrNotDocumentation (not an Antora page)", p, err)
		}
	}
	doc, err = Read("docs/modules/ROOT/pages/more.adoc", []byte("= More\n\ninclude::../../../../../outside.adoc[]\n\n== Usage\n\nText.\n"), repo, markdown.DefaultOptions())
	if !errors.Is(err, ErrPartial) || doc == nil {
		t.Errorf("Read(more.adoc) = %v, %v; want the document and ErrPartial", doc, err)
	}
}

// TestReadMarkdownIncludes checks that a markdown page's include
// directives are expanded from the repository (fastapi's examples are
// files of their own), that its sections keep the page's line numbers,
// and that a directive whose file is missing comes back as ErrPartial
// with the page.
func TestReadMarkdownIncludes(t *testing.T) {
	repo := fstest.MapFS{"docs_src/app.py": {Data: []byte("from fastapi import FastAPI\n\napp = FastAPI()\n")}}
	src := "# Static Files\n\n## Use it\n\n```Python\n{!../../../docs_src/app.py!}\n```\n\n## Details\n\nMore.\n"
	doc, err := Read("docs/en/docs/tutorial/static-files.md", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var use, details *markdown.Section
	for i := range doc.Sections {
		switch doc.Sections[i].Title {
		case "Use it":
			use = &doc.Sections[i]
		case "Details":
			details = &doc.Sections[i]
		}
	}
	if use == nil || len(use.Code) != 1 || use.Code[0].Code != "from fastapi import FastAPI\n\napp = FastAPI()" {
		t.Fatalf("the section's code is not the included file: %+v", use)
	}
	if details == nil || details.Line != 9 {
		t.Errorf("## Details is on line %d, want the page's 9", details.Line)
	}

	doc, err = Read("docs/en/docs/tutorial/static-files.md", []byte(src), fstest.MapFS{}, markdown.DefaultOptions())
	if !errors.Is(err, ErrPartial) || doc == nil || doc.Title != "Static Files" {
		t.Fatalf("missing include: %v, %+v; want the page and ErrPartial", err, doc)
	}
	if want := "line 6: mdx_include ../../../docs_src/app.py: missing from the repository"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not say %q", err, want)
	}
}

// TestReadMarkdownIncludesSource checks, through the reader the build
// uses, that a section whose heading a markdown include brought in names
// the file the heading is written in (the innermost one for nested
// includes) on each of its chunks, at the page's line of the directive,
// and that the page's own sections, before and after it, name none.
func TestReadMarkdownIncludesSource(t *testing.T) {
	long := strings.Repeat("Enough words to make this section larger than the chunk size. ", 30)
	repo := fstest.MapFS{
		"docs/parts/install.md": {Data: []byte("## Install\n\n" + long + "\n\n" + long + "\n\n--8<-- \"docs/parts/pip.md\"\n")},
		"docs/parts/pip.md":     {Data: []byte("### With pip\n\nRun pip.\n")},
		"docs/_usage.mdx":       {Data: []byte("---\ntitle: hidden\n---\n## Usage\n\nUse it.\n")},
	}
	src := "# Guide\n\nIntro.\n\n{!parts/install.md!}\n\n## Own\n\nText.\n"
	doc, err := Read("docs/guide.md", []byte(src), repo, markdown.Options{MaxSectionTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	install := 0
	for _, s := range doc.Sections {
		got = append(got, fmt.Sprintf("%s/%d line %d: %q", s.Title, s.Part, s.Line, s.Source))
		if s.Title == "Install" {
			install++
		}
	}
	want := []string{`Guide/0 line 1: ""`}
	for i := range install {
		want = append(want, fmt.Sprintf(`Install/%d line 5: "docs/parts/install.md"`, i))
	}
	want = append(want, `With pip/0 line 5: "docs/parts/pip.md"`, `Own/0 line 7: ""`)
	if install < 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant (## Install in chunks):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// An MDX partial's heading, with the partial's front matter left out.
	doc, err = Read("docs/page.mdx", []byte("import Usage from './_usage.mdx';\n\n# Page\n\n<Usage />\n"), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	last := doc.Sections[len(doc.Sections)-1]
	if last.Title != "Usage" || last.Source != "docs/_usage.mdx" || last.Line != 5 || doc.Sections[0].Source != "" {
		t.Errorf("partial: %+v", doc.Sections)
	}
}
