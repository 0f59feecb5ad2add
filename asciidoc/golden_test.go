package asciidoc

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/golden"
	"github.com/codex7/codex7/markdown"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenResult is what a golden file holds: the Document and the
// includes dropped.
type goldenResult struct {
	Document *markdown.Document `json:"document"`
	Dropped  []DroppedInclude   `json:"dropped,omitempty"`
}

// goldenInputs returns the AsciiDoc inputs under testdata, as paths
// relative to testdata (the repository the golden tests read).
func goldenInputs(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.adoc", "antora/modules/*/pages/*.adoc"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			rel, err := filepath.Rel("testdata", f)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, filepath.ToSlash(rel))
		}
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata")
	}
	return files
}

func TestGolden(t *testing.T) {
	repo := os.DirFS("testdata")
	for _, in := range goldenInputs(t) {
		t.Run(in, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", in))
			if err != nil {
				t.Fatal(err)
			}
			opts := markdown.DefaultOptions()
			doc, dropped, err := SplitReport(in, src, repo, opts)
			if err != nil {
				t.Fatalf("SplitReport: %v", err)
			}
			checkDocument(t, in, doc)
			checkHeadingLines(t, in, src, doc)
			checkWords(t, in, src, doc, nil)
			golden.JSON(t, filepath.Join("testdata", strings.TrimSuffix(in, filepath.Ext(in))+".golden.json"), "SplitReport("+in+")", goldenResult{doc, dropped}, *update)
		})
	}
}

func TestNavGolden(t *testing.T) {
	const in = "antora/modules/ROOT/nav.adoc"
	src, err := os.ReadFile(filepath.Join("testdata", in))
	if err != nil {
		t.Fatal(err)
	}
	nav, err := Nav(in, src)
	if err != nil {
		t.Fatal(err)
	}
	want := []NavEntry{
		{Path: "antora/modules/ROOT/pages/index.adoc", Level: 1},
		{Path: "antora/modules/ROOT/pages/features.adoc", Title: "Feature tour", Level: 2},
		{Path: "antora/modules/ROOT/pages/features.adoc", Fragment: "_tables", Title: "Tables", Level: 2},
		{Title: "Reference", Level: 1},
		{Path: "antora/modules/other/pages/api.adoc", Title: "API", Level: 2},
	}
	if g, w := mustJSON(t, nav), mustJSON(t, want); g != w {
		t.Errorf("Nav(%s):\n got %s\nwant %s", in, g, w)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
