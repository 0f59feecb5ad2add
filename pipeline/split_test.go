package pipeline

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/markdown"
)

// TestSplitAllKeepsPartialDocuments checks how splitAll sorts what the
// readers return: a document read in part (an include missing) is kept and
// reported to log, one that is not documentation is skipped with the
// reason, and includes are resolved in the repository given.
func TestSplitAllKeepsPartialDocuments(t *testing.T) {
	repo := fstest.MapFS{"docs/usage.rst": {Data: []byte("Run ``app``.\n")}}
	sources := []Source{
		{Path: "docs/a.rst", Format: formats.RST, Data: []byte("A\n=\n\n.. include:: usage.rst\n")},
		{Path: "docs/b.rst", Format: formats.RST, Data: []byte("B\n=\n\n.. include:: missing.rst\n\nText.\n")},
		{Path: "docs/c.txt", Format: formats.RST, Data: []byte("just some notes\n")},
	}
	serial := func(n int, f func(int)) {
		for i := range n {
			f(i)
		}
	}
	kept, skipped, partial := splitAll(sources, repo, markdown.DefaultOptions(), serial)
	if len(kept) != 2 || kept[0].doc.Path != "docs/a.rst" || kept[1].doc.Path != "docs/b.rst" {
		t.Fatalf("kept %d documents, want a.rst and b.rst", len(kept))
	}
	if !strings.Contains(kept[0].doc.Sections[0].Text, "Run") {
		t.Errorf("a.rst: the include was not resolved in the repository: %q", kept[0].doc.Sections[0].Text)
	}
	if len(partial) != 1 || partial[0].Path != "docs/b.rst" || !strings.Contains(partial[0].Reason, "missing.rst") {
		t.Errorf("partial %+v, want b.rst naming the missing include", partial)
	}
	if len(skipped) != 1 || skipped[0].Path != "docs/c.txt" || !strings.Contains(skipped[0].Reason, "not documentation") {
		t.Errorf("skipped %+v, want c.txt as not documentation", skipped)
	}
}

// TestSelectionRefusesUnknownFormats checks that a library made in code
// (not loaded, so not validated) naming an unknown format fails its
// build, rather than reading every format.
func TestSelectionRefusesUnknownFormats(t *testing.T) {
	b := &builder{}
	if _, err := b.selection(config.Library{ID: "/a/b", Formats: []string{"markdwn"}}, nil); !errors.Is(err, formats.ErrUnknown) || !strings.Contains(err.Error(), "/a/b") {
		t.Errorf("selection error %v, want formats.ErrUnknown naming the library", err)
	}
	sel, err := b.selection(config.Library{ID: "/a/b", Formats: []string{"rst"}}, nil)
	if err != nil || sel.Formats.Has(formats.Markdown) || !sel.Formats.Has(formats.RST) {
		t.Errorf("selection(rst) = %+v, %v: want reStructuredText alone", sel.Formats, err)
	}
}
