package asciidoc

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// corpusDir is where the shared documentation corpora live; the AsciiDoc
// one is an Antora component of Asciidoctor's documentation.
var corpusDir = flag.String("corpus", filepath.Join("..", "..", "shared", "corpus"), "directory of the shared corpora")

const corpusRepo = "asciidoctor__asciidoctor"

// TestCorpus splits every page of the AsciiDoc corpus (navigation files
// and partials aside) with the repository as its include tree and asserts
// that at least 95% produce a section; it lists those that do not, the
// includes dropped and the nav entries found.
func TestCorpus(t *testing.T) {
	root := filepath.Join(*corpusDir, corpusRepo)
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no corpus at %s: %v", root, err)
	}
	repo := os.DirFS(root)
	var pages, navs, others []string
	err := fs.WalkDir(repo, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if d.IsDir() || ext != ".adoc" && ext != ".asciidoc" {
			return nil
		}
		base := filepath.Base(p)
		switch {
		case strings.HasPrefix(base, "nav") && !strings.Contains(p, "/pages/"):
			navs = append(navs, p)
		case strings.Contains(p, "/partials/") || strings.Contains(p, "/examples/"):
			others = append(others, p) // included by pages, not published alone
		default:
			pages = append(pages, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Skip("no AsciiDoc pages in the corpus")
	}
	withSections := 0
	var without []string
	dropped := 0
	for _, p := range pages {
		src, err := fs.ReadFile(repo, p)
		if err != nil {
			t.Fatal(err)
		}
		doc, drops, err := SplitReport(p, src, repo, markdown.DefaultOptions())
		if err != nil {
			without = append(without, p+": "+err.Error())
			continue
		}
		for _, d := range drops {
			t.Logf("%s:%d: include %s dropped: %s", p, d.Line, d.Target, d.Reason)
		}
		dropped += len(drops)
		if len(doc.Sections) > 0 {
			withSections++
		} else {
			without = append(without, p+": no sections")
		}
		checkDocument(t, p, doc)
		checkHeadingLines(t, p, src, doc)
	}
	share := float64(withSections) / float64(len(pages))
	t.Logf("%d of %d AsciiDoc pages (%.1f%%) produce sections; %d includes dropped", withSections, len(pages), 100*share, dropped)
	for _, w := range without {
		t.Logf("without sections: %s", w)
	}
	if share < 0.95 {
		t.Errorf("only %.1f%% of pages produce sections, want at least 95%%", 100*share)
	}
	// Every .adoc file, navigation files and partials included, as a
	// build that does not tell them apart would split them.
	all, allWith := 0, 0
	for _, p := range slices.Concat(pages, navs, others) {
		src, err := fs.ReadFile(repo, p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Split(p, src, repo, markdown.DefaultOptions())
		all++
		if err == nil && len(doc.Sections) > 0 {
			allWith++
		} else {
			t.Logf("all files: %s has no sections", p)
		}
	}
	t.Logf("%d of %d .adoc files (%.1f%%) produce sections", allWith, all, 100*float64(allWith)/float64(all))
	entries := 0
	for _, p := range navs {
		src, err := fs.ReadFile(repo, p)
		if err != nil {
			t.Fatal(err)
		}
		nav, err := Nav(p, src)
		if err != nil {
			t.Errorf("Nav(%s): %v", p, err)
			continue
		}
		for _, e := range nav {
			if e.Path == "" {
				continue // a plain-text heading
			}
			if _, err := fs.Stat(repo, e.Path); err != nil {
				t.Errorf("%s: entry %q names a missing page: %v", p, e.Path, err)
			}
		}
		entries += len(nav)
	}
	t.Logf("%d nav files, %d page entries", len(navs), entries)
}

// checkHeadingLines checks that each heading section's Line is the line
// of its title in the file (or of the include that brought it in).
func checkHeadingLines(t *testing.T, p string, src []byte, doc *markdown.Document) {
	t.Helper()
	lines := strings.Split(string(src), "\n")
	for _, s := range doc.Sections {
		if s.Level == 0 || s.Part > 0 {
			continue
		}
		if s.Line < 1 || s.Line > len(lines) {
			t.Errorf("%s: section %q at line %d of %d", p, s.Title, s.Line, len(lines))
			continue
		}
		l := lines[s.Line-1]
		if !strings.HasPrefix(l, "=") && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "include::") {
			t.Errorf("%s: section %q at line %d, which is %q", p, s.Title, s.Line, l)
		}
	}
}

// checkDocument checks what every Document must satisfy: unique anchors
// per part, lines within the file and not decreasing, parents before
// their children.
func checkDocument(t *testing.T, p string, doc *markdown.Document) {
	t.Helper()
	seen := map[string]bool{}
	last := 0
	for i, s := range doc.Sections {
		if s.Part == 0 {
			if seen[s.Anchor] {
				t.Errorf("%s: anchor %q repeats", p, s.Anchor)
			}
			seen[s.Anchor] = true
		}
		if s.Line < last {
			t.Errorf("%s: section %d (%q) at line %d after line %d", p, i, s.Title, s.Line, last)
		}
		last = s.Line
		if s.Parent >= i {
			t.Errorf("%s: section %d has parent %d", p, i, s.Parent)
		}
	}
}
