package markdown

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/golden"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenOptions returns the options a golden input is split with: inputs
// whose name contains "chunked" use a small limit to exercise chunking.
func goldenOptions(name string) Options {
	if strings.Contains(name, "chunked") {
		return Options{MaxSectionTokens: 60}
	}
	return DefaultOptions()
}

// goldenInputs returns the markdown and MDX inputs under testdata.
func goldenInputs(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.md", "*.mdx"} {
		m, err := filepath.Glob(filepath.Join("testdata", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata")
	}
	return files
}

func TestGolden(t *testing.T) {
	for _, in := range goldenInputs(t) {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			opts := goldenOptions(name)
			doc, err := Split("docs/"+name, src, opts)
			if err != nil {
				t.Fatalf("Split: %v", err)
			}
			checkInvariants(t, "docs/"+name, src, opts)
			golden.JSON(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden.json", "Split("+in+")", doc, *update)
		})
	}
}
