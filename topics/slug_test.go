package topics

import (
	"bufio"
	"crypto/sha256"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// atxHeading matches a markdown ATX heading line and captures its text.
var atxHeading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+(.*?)[ \t#]*$`)

// slugInputs returns the names topics are made from in the markdown
// files under root: each heading's text, each path segment, and the
// segment without its ordering prefix and extension, humanized. They are
// sorted and unique.
func slugInputs(t *testing.T, root string) []string {
	t.Helper()
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".md" && ext != ".mdx" {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
			seen[seg] = true
			seen[humanize(stripOrder(seg))] = true
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if m := atxHeading.FindStringSubmatch(sc.Text()); m != nil {
				seen[m[1]] = true
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	delete(seen, "")
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// slugTable returns "input<TAB>slug" lines for inputs.
func slugTable(inputs []string) string {
	var b strings.Builder
	for _, in := range inputs {
		fmt.Fprintf(&b, "%q\t%s\n", in, Slug(in))
	}
	return b.String()
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("%s differs at line %d:\n got %s\nwant %s", path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: got %d lines, want %d", path, len(gl), len(wl))
	}
}

// slugEdgeCases are names whose punctuation, case or script a change to
// Slug would most likely treat differently.
var slugEdgeCases = []string{
	"  --Hello__World--", "useFetch()", "C++", "C#", "v2.x", "1.2.3", "API: `fetch()`",
	"Größe", "İstanbul", "日本語のガイド", "Ünïcödé", "e\u0301", "a_b", "--", "¿Qué?",
	"Examples {/*examples*/}", "<Tabs> & MDX", "foo---bar", "Ⅻ chapters", "١٢٣",
}

// TestSlugFixtures pins the topic slug, the id of a topic in topics.json,
// of every heading and path segment of the fixtures and of slugEdgeCases:
// a change to Slug would change the ids of existing artifacts.
func TestSlugFixtures(t *testing.T) {
	inputs := append(slugInputs(t, filepath.Join("..", "fixtures", "docs")), slugEdgeCases...)
	checkGolden(t, "slugs_fixtures.golden", slugTable(inputs))
}

// TestSlugCorpus pins the topic slugs of every heading and path segment of
// the shared corpora (../../shared/corpus, skipped when absent), as a
// count and a SHA-256 of the slug table per corpus, which is what
// testdata/slugs_corpus.golden holds.
func TestSlugCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads every file of the corpora")
	}
	dir := filepath.Join("..", "..", "shared", "corpus")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no corpus at %s: %v", dir, err)
	}
	var b strings.Builder
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		inputs := slugInputs(t, filepath.Join(dir, e.Name()))
		fmt.Fprintf(&b, "%s\t%d\t%x\n", e.Name(), len(inputs), sha256.Sum256([]byte(slugTable(inputs))))
	}
	checkGolden(t, "slugs_corpus.golden", b.String())
}
