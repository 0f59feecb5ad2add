package formats

import (
	"errors"
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
