package rst

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// corpusDir is where the shared documentation corpora live, relative to
// this package; RST_CORPUS overrides it.
func corpusDir() string {
	if d := os.Getenv("RST_CORPUS"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared", "corpus")
}

// TestCorpus splits every .rst and .txt file of the corpora that hold
// reStructuredText and asserts that at least 95% of the documentation
// files give a section, listing those that do not and why.
func TestCorpus(t *testing.T) {
	root := corpusDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Skipf("no corpus at %s: %v", root, err)
	}
	total, withSections := 0, 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		repoDir := filepath.Join(root, e.Name())
		repo := os.DirFS(repoDir)
		err := fs.WalkDir(repo, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			ext := strings.ToLower(filepath.Ext(p))
			if d.IsDir() || (ext != ".rst" && ext != ".txt") {
				return nil
			}
			src, err := fs.ReadFile(repo, p)
			if err != nil {
				return err
			}
			doc, err := Split(p, src, repo, markdown.DefaultOptions())
			switch {
			case errors.Is(err, ErrNotRST):
				return nil // not documentation this reader reads
			case errors.Is(err, ErrDropped):
				t.Logf("%s/%s: %v", e.Name(), p, err)
			case err != nil:
				t.Errorf("%s/%s: %v", e.Name(), p, err)
				return nil
			}
			total++
			if len(doc.Sections) > 0 {
				withSections++
			} else {
				t.Logf("%s/%s: no section (empty or only dropped markup)", e.Name(), p)
			}
			if m := missingWords(src, doc); len(m) > 0 {
				t.Errorf("%s/%s: words lost: %q", e.Name(), p, m[:min(len(m), 10)])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if total == 0 {
		t.Skipf("no reStructuredText in the corpus at %s", root)
	}
	share := float64(withSections) / float64(total)
	t.Logf("files with sections: %d/%d (%.1f%%)", withSections, total, 100*share)
	if share < 0.95 {
		t.Errorf("only %d of %d files give a section, want at least 95%%", withSections, total)
	}
}
