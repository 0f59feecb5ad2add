package markdown

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
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
			got, err := json.MarshalIndent(doc, "", "  ")
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
