package index

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

func sec(anchor, title, prose string, code ...string) *markdown.Section {
	s := &markdown.Section{Anchor: anchor, Heading: title, Title: title, Level: 2, Parts: 1,
		HeadingPath: []string{"Doc", title}, Prose: title + " " + prose, Text: "## " + title + "\n\n" + prose}
	for _, c := range code {
		s.Code = append(s.Code, markdown.CodeBlock{Lang: "py", Code: c})
	}
	s.Tokens = len(s.Text) / 4
	return s
}

func testEntries() []Entry {
	return []Entry{
		{Path: "docs/cors.md", Section: sec("use-corsmiddleware", "Use CORSMiddleware", "Allow origins from another domain.", "app.add_middleware(CORSMiddleware)"), Topics: []string{"cors", "tutorial"}},
		{Path: "docs/cors.md", Section: sec("origin", "Origin", "An origin is the combination of protocol, domain and port."), Topics: []string{"cors", "tutorial"}},
		{Path: "docs/path-params.md", Section: sec("order-matters", "Order matters", "Declare /users/me before /users/{user_id}."), Topics: []string{"path-parameters", "tutorial"}},
		{Path: "docs/deploy/docker.md", Section: sec("build-image", "Build a Docker image", "Write a Dockerfile and build the image.", "docker build -t app ."), Topics: []string{"deployment"}},
	}
}

func writeIndex(t testing.TB, entries []Entry) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "index")
	if err := Write(context.Background(), dir, entries); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSearch(t *testing.T) {
	r, err := Open(writeIndex(t, testEntries()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, _ := r.Count(); n != 4 {
		t.Fatalf("Count = %d, want 4", n)
	}
	tests := []struct {
		name  string
		q     Query
		first string
		n     int
	}{
		{"heading word", Query{Text: "origin"}, "docs/cors.md#origin", 2},
		{"identifier in code", Query{Text: "add_middleware"}, "docs/cors.md#use-corsmiddleware", 1},
		{"camel part", Query{Text: "middleware"}, "docs/cors.md#use-corsmiddleware", 1},
		{"stemmed prose", Query{Text: "declaring users"}, "docs/path-params.md#order-matters", 1},
		{"path word", Query{Text: "docker"}, "docs/deploy/docker.md#build-image", 1},
		{"topic filter", Query{Text: "domain", Topics: []string{"deployment"}}, "", 0},
		{"topic only", Query{Topics: []string{"cors"}}, "docs/cors.md#use-corsmiddleware", 2},
		{"any of topics", Query{Topics: []string{"deployment", "path-parameters"}}, "docs/path-params.md#order-matters", 2},
		{"kind code", Query{Text: "origin domain", Kind: KindCode}, "docs/cors.md#use-corsmiddleware", 1},
		{"path only", Query{Path: "docs/path-params.md"}, "docs/path-params.md#order-matters", 1},
		{"path and text", Query{Path: "docs/cors.md", Text: "docker"}, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits, err := r.Search(context.Background(), tt.q)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tt.n {
				t.Fatalf("got %d hits %v, want %d", len(hits), ids(hits), tt.n)
			}
			if tt.n == 0 {
				return
			}
			if hits[0].ID != tt.first {
				t.Errorf("first hit %s, want %s (all: %v)", hits[0].ID, tt.first, ids(hits))
			}
			if hits[0].Relevance != 1 {
				t.Errorf("top relevance %v, want 1", hits[0].Relevance)
			}
			for _, h := range hits {
				if h.Relevance <= 0 || h.Relevance > 1 {
					t.Errorf("%s relevance %v out of (0,1]", h.ID, h.Relevance)
				}
			}
		})
	}
}

func TestSearchReturnsStoredSection(t *testing.T) {
	r, err := Open(writeIndex(t, testEntries()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	hits, err := r.Search(context.Background(), Query{Text: "CORSMiddleware", Limit: 1, WithText: true})
	if err != nil || len(hits) != 1 {
		t.Fatalf("hits %v, err %v", hits, err)
	}
	h := hits[0]
	want := Meta{Path: "docs/cors.md", Anchor: "use-corsmiddleware", Heading: "Use CORSMiddleware", Title: "Use CORSMiddleware",
		HeadingPath: []string{"Doc", "Use CORSMiddleware"}, Level: 2, Parts: 1, Tokens: h.Tokens,
		Topics: []string{"cors", "tutorial"}, Kinds: []string{KindInfo, KindCode}, Langs: []string{"py"},
		Hash: TextHash(h.Text), SimHash: SimHash(h.Text)}
	if fmt.Sprint(h.Meta) != fmt.Sprint(want) {
		t.Errorf("meta = %+v\nwant %+v", h.Meta, want)
	}
	if !strings.HasPrefix(h.Text, "## Use CORSMiddleware") {
		t.Errorf("text = %q", h.Text)
	}
	if text, err := r.Text(h.Record); err != nil || text != h.Text {
		t.Errorf("Text(%d) = %.30q, %v; want the hit's text", h.Record, text, err)
	}
	doc, err := r.Document("docs/cors.md", true)
	if err != nil || len(doc) != 2 || doc[0].Anchor != "use-corsmiddleware" || doc[1].Anchor != "origin" || doc[1].Text == "" {
		t.Errorf("Document(docs/cors.md) = %d sections, err %v; want both, in order, with text", len(doc), err)
	}
	if doc, err := r.Document("docs/none.md", false); err != nil || len(doc) != 0 {
		t.Errorf("Document(docs/none.md) = %v, %v; want none", doc, err)
	}
	if _, err := r.Search(context.Background(), Query{Text: "  "}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("empty query error = %v, want ErrEmptyQuery", err)
	}
}

// TestWriteIsReproducible guards the manifest's checksums: the same entries
// must give byte-identical index files.
func TestWriteIsReproducible(t *testing.T) {
	a, b := digest(t, writeIndex(t, testEntries())), digest(t, writeIndex(t, testEntries()))
	if a != b {
		t.Errorf("two builds differ:\n%s\n---\n%s", a, b)
	}
}

func digest(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, fmt.Sprintf("%s %x", rel, sha256.Sum256(data)))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func ids(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestEmptyIndex(t *testing.T) {
	r, err := Open(writeIndex(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, _ := r.Count(); n != 0 {
		t.Errorf("Count = %d, want 0", n)
	}
	if hits, err := r.Search(context.Background(), Query{Text: "anything"}); err != nil || len(hits) != 0 {
		t.Errorf("Search = %v, %v; want nothing", hits, err)
	}
}

func TestManySegmentsMerge(t *testing.T) {
	var entries []Entry
	for i := 0; i < 2*batchSize+10; i++ {
		entries = append(entries, Entry{Path: fmt.Sprintf("d%05d.md", i), Section: sec("a", fmt.Sprintf("Page %d", i), "text")})
	}
	r, err := Open(writeIndex(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if n, _ := r.Count(); n != uint64(len(entries)) {
		t.Errorf("Count = %d, want %d", n, len(entries))
	}
}

func TestWriteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Write(ctx, filepath.Join(t.TempDir(), "i"), testEntries()); !errors.Is(err, context.Canceled) {
		t.Errorf("Write error = %v, want context.Canceled", err)
	}
}
