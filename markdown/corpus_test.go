package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// corpusDir is where the shared documentation corpora live, relative to
// this package.
var corpusDir = filepath.Join("..", "..", "shared", "corpus")

// corpusFile is one markdown or MDX file of a corpus.
type corpusFile struct {
	rel  string // slash-separated path inside its repository
	path string // path on disk
}

// corpusFiles lists the .md and .mdx files of one corpus directory.
func corpusFiles(t testing.TB, repo string) []corpusFile {
	t.Helper()
	root := filepath.Join(corpusDir, repo)
	var files []corpusFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".md" && ext != ".mdx" {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		files = append(files, corpusFile{rel: filepath.ToSlash(rel), path: p})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// corpusRepos lists the corpus directories, or skips when there are none.
func corpusRepos(t testing.TB) []string {
	t.Helper()
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Skipf("no corpus at %s: %v", corpusDir, err)
	}
	var repos []string
	for _, e := range entries {
		if e.IsDir() {
			repos = append(repos, e.Name())
		}
	}
	if len(repos) == 0 {
		t.Skipf("no corpus at %s", corpusDir)
	}
	return repos
}

func TestCorpus(t *testing.T) {
	start := time.Now()
	for _, repo := range corpusRepos(t) {
		t.Run(repo, func(t *testing.T) {
			if testing.Short() && repo == "tldr-pages__tldr" {
				t.Skip("tldr-pages is large; skipped in -short mode")
			}
			t.Parallel()
			for _, f := range corpusFiles(t, repo) {
				src, err := os.ReadFile(f.path)
				if err != nil {
					t.Fatal(err)
				}
				if !utf8.Valid(src) {
					continue
				}
				doc, err := Split(f.rel, src, DefaultOptions())
				if err != nil {
					t.Errorf("%s: %v", f.rel, err)
					continue
				}
				if doc.Title == "" {
					t.Errorf("%s: empty Title", f.rel)
				}
				for i, s := range doc.Sections {
					if s.Text == "" {
						t.Errorf("%s: section %d (%q) has empty Text", f.rel, i, s.Heading)
					}
				}
				// The full invariant check costs a second split; do it for a sample.
				if len(f.rel)%7 == 0 {
					checkInvariants(t, f.rel, src, DefaultOptions())
				}
			}
		})
	}
	t.Cleanup(func() { t.Logf("corpus split in %v", time.Since(start)) })
}

// findSection returns the first section of doc with the given heading.
func findSection(doc *Document, heading string) (Section, bool) {
	for _, s := range doc.Sections {
		if s.Heading == heading {
			return s, true
		}
	}
	return Section{}, false
}

func TestCorpusFacts(t *testing.T) {
	corpusRepos(t)
	read := func(t *testing.T, rel string) *Document {
		t.Helper()
		src, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Skipf("corpus file missing: %v", err)
		}
		_, inRepo, _ := strings.Cut(rel, "/")
		doc, err := Split(inRepo, src, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}

	t.Run("fastapi cors", func(t *testing.T) {
		doc := read(t, "tiangolo__fastapi/docs/en/docs/tutorial/cors.md")
		s, ok := findSection(doc, "Use `CORSMiddleware`")
		if !ok {
			t.Fatalf("no section with heading %q", "Use `CORSMiddleware`")
		}
		if s.Level != 2 || s.Line != 35 || s.Anchor != "use-corsmiddleware" || s.Title != "Use CORSMiddleware" {
			t.Errorf("got Level %d Line %d Anchor %q Title %q, want 2, 35, use-corsmiddleware, Use CORSMiddleware", s.Level, s.Line, s.Anchor, s.Title)
		}
		if doc.Title != "CORS (Cross-Origin Resource Sharing)" {
			t.Errorf("got Title %q", doc.Title)
		}
		last := doc.Sections[len(doc.Sections)-1]
		if !strings.Contains(last.Text, "**Note:** Technical Details") || strings.Contains(last.Text, "///") {
			t.Errorf("admonition not rewritten in %q", last.Text)
		}
	})

	t.Run("react useState", func(t *testing.T) {
		doc := read(t, "reactjs__react.dev/src/content/reference/react/useState.md")
		if doc.Title != "useState" {
			t.Errorf("got Title %q, want useState", doc.Title)
		}
		explicit := 0
		for _, s := range doc.Sections {
			if id := mdxAnchor(s.Heading); id != "" {
				explicit++
				if s.Anchor != id {
					t.Errorf("heading %q: got Anchor %q, want %q", s.Heading, s.Anchor, id)
				}
				if strings.Contains(s.Title, "{") {
					t.Errorf("heading %q: Title %q keeps the anchor", s.Heading, s.Title)
				}
			}
			for _, bad := range []string{"<Sandpack>", "<Intro>", "<Pitfall>", "</DeepDive>", "<Solution>"} {
				if strings.Contains(s.Prose, bad) {
					t.Errorf("section %q: prose keeps %s", s.Title, bad)
				}
			}
		}
		if explicit < 20 {
			t.Errorf("got %d sections with explicit anchors, want at least 20", explicit)
		}
		s, ok := findSection(doc, "`useState(initialState)` {/*usestate*/}")
		if !ok || s.Line != 21 || s.Level != 3 || s.Anchor != "usestate" {
			t.Errorf("got %+v, want the usestate section at line 21, level 3", s)
		}
	})

	t.Run("react anchors everywhere", func(t *testing.T) {
		files := corpusFiles(t, "reactjs__react.dev")
		n := 0
		for _, f := range files {
			src, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Split(f.rel, src, DefaultOptions())
			if err != nil {
				continue
			}
			seen := map[string]bool{}
			for _, s := range doc.Sections {
				if id := mdxAnchor(s.Heading); id != "" && !seen[id] {
					seen[id] = true
					n++
					if s.Anchor != id {
						t.Errorf("%s: heading %q: got Anchor %q, want %q", f.rel, s.Heading, s.Anchor, id)
					}
				}
			}
		}
		if n < 1000 {
			t.Errorf("got %d explicit anchors in react.dev, want at least 1000", n)
		}
	})

	t.Run("express mdx", func(t *testing.T) {
		doc := read(t, "expressjs__expressjs.com/src/content/blog/2025-12-01-security-releases.mdx")
		for _, s := range doc.Sections {
			for _, bad := range []string{"import ", "<Alert", "</Alert>"} {
				if strings.Contains(s.Text, bad) {
					t.Errorf("section %q keeps %q", s.Title, bad)
				}
			}
		}
		if !strings.Contains(doc.Sections[0].Text, "We recommend upgrading") {
			t.Errorf("JSX children lost: %q", doc.Sections[0].Text)
		}
	})

	// contains reports whether some section of doc has want in its Text.
	contains := func(doc *Document, want string) bool {
		for _, s := range doc.Sections {
			if strings.Contains(s.Text, want) {
				return true
			}
		}
		return false
	}
	facts := []struct {
		name, rel string
		want      []string // in some section's Text
		bad       []string // in no section's Text
	}{
		{"express command attribute", "expressjs__expressjs.com/src/content/docs/en/5x/starter/installing.mdx",
			[]string{"`npm install express`", "`npm init`"}, nil},
		{"express params", "expressjs__expressjs.com/src/content/api/5x/api/response/index.mdx",
			[]string{"`domain` (String):"}, []string{"<Param"}},
		{"astro since", "withastro__docs/src/content/docs/en/reference/configuration-reference.mdx",
			[]string{"Since 2.9.0"}, []string{"<Since"}},
		{"react team", "reactjs__react.dev/src/content/community/team.md",
			[]string{"**Andrew Clark**: Engineer at Vercel"}, []string{"{/*leadership-council*/}"}},
		{"react diagram alt", "reactjs__react.dev/src/content/learn/preserving-and-resetting-state.md",
			[]string{"Diagram of a tree of React components."}, nil},
		{"vite script setup", "vitejs__vite/docs/acknowledgements.md",
			[]string{"# Acknowledgements"}, []string{"useSponsor", "stackblitz-links"}},
		{"fastapi style", "tiangolo__fastapi/docs/en/docs/index.md",
			nil, []string{"md-typeset"}},
		{"deno comment around a fence", "denoland__docs/deploy/reference/env_vars_and_contexts.md",
			nil, []string{"Expose as file", "Deno.readTextFile"}},
		{"fastapi mkdocstrings", "tiangolo__fastapi/docs/en/docs/reference/fastapi.md",
			[]string{"`fastapi.FastAPI`"}, []string{"**Fastapi:**", "openapi_version"}},
		{"webpack tip", "webpack__webpack.js.org/src/content/configuration/output.mdx",
			[]string{"**Tip:** Although the `charset`"}, []string{"\nT> "}},
		{"hugo code-toggle", "gohugoio__hugoDocs/content/en/methods/site/Taxonomies.md",
			[]string{"```toml\ntaxonomy a:"}, nil},
		{"nuxt card props", "nuxt__nuxt/docs/5.community/7.changelog.md",
			[]string{"nuxt/nuxt (see https://github.com/nuxt/nuxt/releases)"}, []string{"icon: i-simple-icons-github"}},
		{"prometheus sup", "prometheus__docs/docs/introduction/faq.md",
			[]string{"2^53"}, []string{"253"}},
	}
	for _, f := range facts {
		t.Run(f.name, func(t *testing.T) {
			doc := read(t, f.rel)
			for _, w := range f.want {
				if !contains(doc, w) {
					t.Errorf("no section contains %q", w)
				}
			}
			for _, b := range f.bad {
				if contains(doc, b) {
					t.Errorf("a section contains %q", b)
				}
			}
		})
	}

	t.Run("astro locals heading", func(t *testing.T) {
		doc := read(t, "withastro__docs/src/content/docs/en/reference/api-reference.mdx")
		s, ok := findSection(doc, "`locals`")
		if !ok || s.Level != 3 || s.Line != 530 {
			t.Errorf("got %v Level %d Line %d, want a level-3 `locals` heading at line 530", ok, s.Level, s.Line)
		}
	})

	t.Run("titles", func(t *testing.T) {
		for rel, want := range map[string]string{
			"tldr-pages__tldr/pages/common/less-than-more-than.md": "<>",
			"denoland__docs/lint/rules/prefer-const.md":            "prefer-const",
		} {
			if doc := read(t, rel); doc.Title != want {
				t.Errorf("%s: got Title %q, want %q", rel, doc.Title, want)
			}
		}
	})
}

// benchFiles are corpus files of different kinds for BenchmarkSplit.
var benchFiles = []string{
	"reactjs__react.dev/src/content/reference/react/useState.md",
	"tiangolo__fastapi/docs/en/docs/tutorial/cors.md",
	"expressjs__expressjs.com/src/content/blog/2025-12-01-security-releases.mdx",
	"withastro__docs/src/content/docs/en/editor-setup.mdx",
	"gohugoio__hugoDocs/content/en/shortcodes/details.md",
	"vitejs__vite/docs/guide/features.md",
}

// benchFile is one of benchFiles, read.
type benchFile struct {
	rel string
	src []byte
}

// readBenchFiles reads benchFiles, sets b's bytes per run to their size
// and skips b when the corpus is not there.
func readBenchFiles(b *testing.B) []benchFile {
	var files []benchFile
	total := 0
	for _, rel := range benchFiles {
		src, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(rel)))
		if err != nil {
			continue
		}
		files = append(files, benchFile{rel, src})
		total += len(src)
	}
	if len(files) == 0 {
		b.Skipf("no corpus at %s", corpusDir)
	}
	b.SetBytes(int64(total))
	b.ReportAllocs()
	return files
}

// BenchmarkSplit times Split over benchFiles.
func BenchmarkSplit(b *testing.B) {
	files := readBenchFiles(b)
	for b.Loop() {
		for _, f := range files {
			if _, err := Split(f.rel, f.src, DefaultOptions()); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkCollapseTabs times the content-tab pass alone over the same
// files as BenchmarkSplit, to read its share of Split.
func BenchmarkCollapseTabs(b *testing.B) {
	files := readBenchFiles(b)
	for b.Loop() {
		for _, f := range files {
			collapseTabs(f.src)
		}
	}
}
