package pipeline

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/topics"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenSection is what the golden files pin down about each section.
type goldenSection struct {
	ID          string   `json:"id"`
	Heading     string   `json:"heading"`
	Level       int      `json:"level"`
	Line        int      `json:"line"`
	HeadingPath []string `json:"heading_path"`
	Tokens      int      `json:"tokens"`
	Topics      []string `json:"topics"`
	Kinds       []string `json:"kinds"`
}

type golden struct {
	Topics    *topics.Tree             `json:"topics"`
	Documents []artifacts.DocumentInfo `json:"documents"`
	Sections  []goldenSection          `json:"sections"`
}

// TestFixturesGolden splits the bundled fixture libraries as the build does
// (the same selection, splitter and topic derivation, config overrides
// included) and compares sections, documents and topics with golden files.
// Run with -update to rewrite them, then read the diff.
func TestFixturesGolden(t *testing.T) {
	cfg, err := config.Load("../fixtures/codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	root := os.DirFS("..") // the fixture libraries live in this repository
	for _, lib := range cfg.Libraries {
		t.Run(lib.ID, func(t *testing.T) {
			sources, skipped, err := Discover(root, Selection{Include: lib.Docs, Exclude: append(config.DefaultExcludes(false), lib.Exclude...)})
			if err != nil {
				t.Fatal(err)
			}
			if len(skipped) > 0 || len(sources) == 0 {
				t.Fatalf("discovered %d files, skipped %v", len(sources), skipped)
			}
			kept, failed, _ := splitAll(sources, nil, markdown.DefaultOptions(), func(n int, f func(int)) {
				for i := 0; i < n; i++ {
					f(i)
				}
			})
			if len(failed) > 0 {
				t.Fatalf("split failures: %v", failed)
			}
			v, err := Assemble(docsOf(kept), lib.Topics, Navigation{})
			if err != nil {
				t.Fatal(err)
			}
			g := golden{Topics: v.Topics, Documents: v.Documents}
			for _, e := range v.Entries {
				s := e.Section
				g.Sections = append(g.Sections, goldenSection{
					ID: index.ID(e.Path, s.Anchor, s.Part), Heading: s.Heading, Level: s.Level, Line: s.Line,
					HeadingPath: s.HeadingPath, Tokens: s.Tokens, Topics: e.Topics, Kinds: index.Kinds(s),
				})
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(g); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join("testdata", strings.ReplaceAll(strings.Trim(lib.ID, "/"), "/", "_")+".golden.json")
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test ./pipeline -run TestFixturesGolden -update)", err)
			}
			if !bytes.Equal(want, buf.Bytes()) {
				t.Errorf("%s differs from the golden file; rerun with -update and review the diff.\ngot:\n%s", file, buf.String())
			}
		})
	}
}
