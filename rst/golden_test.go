package rst

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
			got, err := json.MarshalIndent(res, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(in, filepath.Ext(in)) + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Split(%s) differs from %s (run go test -update and review the diff):\n%s", in, golden, firstDiff(string(want), string(got)))
			}
		})
	}
}

// firstDiff describes the first differing line of two texts.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n-want " + wl + "\n+got  " + gl
		}
	}
	return "(no line differs)"
}
