package rst

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/golden"
	"github.com/codex7/codex7/markdown"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenDir holds the golden inputs; it is also the repository their
// includes are read from.
const goldenDir = "testdata/golden"

// goldenResult is what a golden file records: the Document and the
// includes Split dropped.
type goldenResult struct {
	Document *markdown.Document `json:"document"`
	Dropped  []DroppedInclude   `json:"dropped,omitempty"`
}

// goldenInputs returns the reStructuredText inputs of goldenDir.
func goldenInputs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.rst"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in " + goldenDir)
	}
	return files
}

func TestGolden(t *testing.T) {
	repo := os.DirFS(goldenDir)
	for _, in := range goldenInputs(t) {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Split(name, src, repo, markdown.DefaultOptions())
			res := goldenResult{Document: doc}
			var de *DroppedError
			switch {
			case errors.As(err, &de):
				res.Dropped = de.Includes
			case err != nil:
				t.Fatalf("Split: %v", err)
			}
			checkWords(t, src, doc)
			golden.JSON(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden.json", "Split("+in+")", res, *update)
		})
	}
}
