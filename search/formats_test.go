package search

import (
	"context"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// TestNotebookLibrary builds a library documented by a Jupyter notebook,
// beside the markdown twin of it the notebook's tools export, through the
// real pipeline, and asks the engine: the notebook's sections answer,
// naming the notebook and its cells' code, and the twin is not indexed a
// second time.
func TestNotebookLibrary(t *testing.T) {
	repo := gittest.New(t, "main")
	nb := `{"nbformat": 4, "nbformat_minor": 5,
 "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# Transfer learning\n", "\n", "Reuse a pretrained backbone."]},
  {"cell_type": "markdown", "metadata": {}, "source": "## Freezing layers\n\nSet trainable to False on the base model before compiling."},
  {"cell_type": "code", "metadata": {}, "execution_count": 1, "source": ["base_model.trainable = False\n", "model.compile()"],
   "outputs": [{"output_type": "stream", "name": "stdout", "text": ["compiled\n"]}]}
 ]}`
	repo.Write(map[string]string{
		"guides/ipynb/transfer.ipynb": nb,
		"guides/md/transfer.md":       "# Transfer learning\n\n## Freezing layers\n\nSet trainable to False.\n",
	})
	repo.Commit("guides")
	e := openCatalog(t, "  - id: /acme/keras\n    repo: "+repo.Dir+"\n")
	ans, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/keras", Query: "freeze the layers of the base model"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Sections) == 0 {
		t.Fatal("no section answers")
	}
	top := ans.Sections[0]
	if top.Path != "guides/ipynb/transfer.ipynb" || top.Title != "Freezing layers" || !strings.Contains(top.Text, "base_model.trainable = False") {
		t.Errorf("top section %s#%s %q: want the notebook's Freezing layers with its code", top.Path, top.Anchor, top.Title)
	}
	if !strings.Contains(top.Text, "compiled") {
		t.Errorf("the cell's output is missing: %q", top.Text)
	}
	_, docs, err := e.Documents(context.Background(), "/acme/keras")
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 1 {
		t.Errorf("documents %+v: want the notebook alone, its markdown twin indexed once", docs)
	}
}

// TestAntoraNavigationOrdersFolders builds an Antora component through the
// real pipeline and lists its folder: the pages its navigation lists come
// first, in the navigation's order, then the others by path.
func TestAntoraNavigationOrdersFolders(t *testing.T) {
	repo := gittest.New(t, "main")
	repo.Write(map[string]string{
		"docs/antora.yml":                    "name: w\nversion: ~\nnav:\n- modules/ROOT/nav.adoc\n",
		"docs/modules/ROOT/nav.adoc":         "* xref:start.adoc[]\n** xref:zebra.adoc[]\n** xref:apple.adoc[]\n",
		"docs/modules/ROOT/pages/apple.adoc": "= Apple\n\nApples.\n",
		"docs/modules/ROOT/pages/start.adoc": "= Start\n\nStart here.\n",
		"docs/modules/ROOT/pages/zebra.adoc": "= Zebra\n\nZebras.\n",
		"docs/modules/ROOT/pages/aside.adoc": "= Aside\n\nNot in the navigation.\n",
	})
	repo.Commit("docs")
	e := openCatalog(t, "  - id: /acme/widgets\n    repo: "+repo.Dir+"\n")
	ans, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/widgets", Path: "docs/modules/ROOT/pages"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range ans.Documents {
		got = append(got, path.Base(d.Path))
	}
	if want := []string{"start.adoc", "zebra.adoc", "apple.adoc", "aside.adoc"}; !slices.Equal(got, want) {
		t.Errorf("folder lists %v, want %v", got, want)
	}
}

// TestSearchDropsDuplicates: a guide kept in two copies (a port beside the
// original, as keras-io keeps its guides) answers once, and the hit it
// would have pushed out of the limit takes its place, text included.
func TestSearchDropsDuplicates(t *testing.T) {
	repo := gittest.New(t, "main")
	guide := "# Training\n\n## Class weights\n\nPass class weights to fit so that a rare class counts more in the loss.\n"
	repo.Write(map[string]string{
		"guides/training.md":      guide,
		"guides/core/training.md": guide,
		"guides/sampling.md":      "# Sampling\n\n## Resampling\n\nA rare class can also be resampled before fit.\n",
	})
	repo.Commit("guides")
	e := openCatalog(t, "  - id: /acme/ml\n    repo: "+repo.Dir+"\n")
	res, err := e.Search(context.Background(), Request{Library: "/acme/ml", Query: "class weights for a rare class in fit", Limit: 2, WithText: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.Path+"#"+h.Title)
		if h.Text == "" {
			t.Errorf("%s: no text", h.Path)
		}
	}
	if len(got) != 2 || !strings.HasSuffix(got[0], "#Class weights") || got[1] != "guides/sampling.md#Resampling" {
		t.Errorf("hits %q: want one copy of Class weights, then Resampling", got)
	}
}
