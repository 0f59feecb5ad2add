package notebook

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

// goldenInputs returns the notebooks under testdata.
func goldenInputs(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata")
	}
	return files
}

// goldenResult is what a golden file holds: the Document, and the error
// Split returned, if any.
type goldenResult struct {
	Error    string             `json:"error,omitempty"`
	Document *markdown.Document `json:"document"`
}

// TestGolden splits each notebook under testdata and compares the result
// with its .golden.json (rewritten by go test -update).
func TestGolden(t *testing.T) {
	for _, in := range goldenInputs(t) {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Split("guides/"+name, src, nil, markdown.DefaultOptions())
			if err != nil && !errors.Is(err, ErrNotDocumentation) {
				t.Fatalf("Split: %v", err)
			}
			res := goldenResult{Document: doc}
			if err != nil {
				res.Error = err.Error()
			}
			golden.JSON(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden.json", "Split("+in+")", res, *update)
		})
	}
}
