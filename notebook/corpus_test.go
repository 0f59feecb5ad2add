package notebook

import (
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// corpusDir is where the shared documentation corpora live; the notebooks
// are those of keras-team__keras-io, but every corpus is walked.
var corpusDir = flag.String("corpus", filepath.Join("..", "..", "shared", "corpus"), "directory of documentation corpora")

// corpusNotebook is one .ipynb file of a corpus.
type corpusNotebook struct {
	rel  string // slash-separated path inside its repository
	path string // path on disk
}

// corpusNotebooks lists the notebooks of every corpus directory, or skips
// when there is no corpus.
func corpusNotebooks(t *testing.T) []corpusNotebook {
	t.Helper()
	entries, err := os.ReadDir(*corpusDir)
	if err != nil {
		t.Skipf("no corpus at %s: %v", *corpusDir, err)
	}
	var files []corpusNotebook
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		root := filepath.Join(*corpusDir, e.Name())
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".ipynb") {
				return nil
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, corpusNotebook{rel: filepath.ToSlash(rel), path: p})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		t.Skipf("no notebooks under %s", *corpusDir)
	}
	return files
}

// TestCorpus splits every notebook of the corpora, reports the share of
// documentation notebooks that give at least one section (and why the
// others do not), asserts it is at least 95%, and checks each Document
// against its notebook: no word of a code cell or plain markdown line is
// lost, each section's Line names a cell, and a heading's cell is a
// markdown cell holding the heading's text.
func TestCorpus(t *testing.T) {
	files := corpusNotebooks(t)
	withSections := 0
	var failures []string
	for _, f := range files {
		src, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Split(f.rel, src, nil, markdown.DefaultOptions())
		switch {
		case errors.Is(err, ErrNotDocumentation):
			failures = append(failures, f.rel+": not documentation (no markdown cell)")
			continue
		case err != nil:
			failures = append(failures, f.rel+": "+err.Error())
			continue
		case len(doc.Sections) == 0:
			failures = append(failures, f.rel+": no sections")
			continue
		}
		withSections++
		checkCorpusDoc(t, f.rel, src, doc)
	}
	share := float64(withSections) / float64(len(files))
	t.Logf("notebooks with sections: %d of %d (%.1f%%)", withSections, len(files), 100*share)
	for _, fl := range failures {
		t.Logf("no sections: %s", fl)
	}
	if share < 0.95 {
		t.Errorf("got %.1f%% of notebooks with sections, want at least 95%%", 100*share)
	}
}

// checkCorpusDoc checks a corpus notebook's Document against its cells.
func checkCorpusDoc(t *testing.T, rel string, src []byte, doc *markdown.Document) {
	t.Helper()
	var nb struct {
		Cells []struct {
			Type   string    `json:"cell_type"`
			Source multiline `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(src, &nb); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	if doc.Title == "" || doc.Title == strings.TrimSuffix(filepath.Base(rel), ".ipynb") {
		t.Errorf("%s: got title %q, want the first cell's H1", rel, doc.Title)
	}
	var all strings.Builder
	for _, s := range doc.Sections {
		all.WriteString(s.Text)
		all.WriteByte('\n')
	}
	for k, c := range nb.Cells {
		words := strings.Fields(string(c.Source))
		if c.Type == "markdown" {
			words = plainWords(string(c.Source))
		}
		for _, w := range words {
			if !strings.Contains(all.String(), w) {
				t.Errorf("%s: word %q of cell %d lost", rel, w, k)
				break
			}
		}
	}
	for i, s := range doc.Sections {
		if s.Line < 1 || s.Line > len(nb.Cells) {
			t.Errorf("%s: section %d (%q) has Line %d, want a cell index in 1..%d", rel, i, s.Heading, s.Line, len(nb.Cells))
			continue
		}
		if s.Level == 0 || s.Part > 0 {
			continue
		}
		c := nb.Cells[s.Line-1]
		if c.Type != "markdown" {
			t.Errorf("%s: section %d (%q) is in cell %d of type %s, want markdown", rel, i, s.Heading, s.Line-1, c.Type)
		}
		if !strings.Contains(string(c.Source), s.Heading) {
			t.Errorf("%s: section %d heading %q is not in cell %d: %q", rel, i, s.Heading, s.Line-1, c.Source)
		}
		if s.Text == "" {
			t.Errorf("%s: section %d (%q) has empty Text", rel, i, s.Heading)
		}
	}
}

// TestCorpusTwins checks that Twin finds no twin for the corpus notebooks,
// which keras-io keeps without their .py and .md siblings here, and that
// it would find them in the keras-io layout.
func TestCorpusTwins(t *testing.T) {
	for _, f := range corpusNotebooks(t) {
		root := strings.TrimSuffix(filepath.ToSlash(f.path), f.rel)
		exists := func(p string) bool {
			_, err := os.Stat(filepath.FromSlash(root + p))
			return err == nil
		}
		if twin, ok := Twin(f.rel, exists); ok {
			t.Errorf("%s: got twin %s, want none in this corpus", f.rel, twin)
		}
	}
}
