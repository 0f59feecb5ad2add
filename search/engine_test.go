package search

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/pipeline"
	"github.com/codex7/codex7/request"
)

// buildFixtures publishes /acme/widgets at v1.0.0, v1.1.0 and main, and
// /acme/cli at main, from the fixture docs, and opens an engine on them.
func buildFixtures(t *testing.T) *Engine {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Commit("v1.0")
	w.Git("tag", "v1.0.0")
	w.Write(map[string]string{"docs/guides/themes.md": "# Themes\n\nCustom themes are CSS custom properties.\n"})
	w.Commit("v1.1")
	w.Git("tag", "v1.1.0")
	return openCatalog(t, "  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    repo: "+w.Dir+
		"\n    versions: [{ref: v1.0.0}, {ref: v1.1.0}, {ref: main}]\n    latest: v1.1.0\n  - id: /acme/cli\n    repo: "+fixtureRepo(t, "acme-cli")+"\n")
}

// fixtureRepo returns a git repository holding ../fixtures/docs/dir.
func fixtureRepo(t *testing.T, dir string) string {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/"+dir, "")
	w.Commit("docs")
	return w.Dir
}

// openCatalog builds the libraries of a config's list (YAML items) and
// opens an engine on them, closed when the test ends.
func openCatalog(t *testing.T, libraries string) *Engine {
	t.Helper()
	out := t.TempDir()
	buildtest.Build(t, out, "libraries:\n"+libraries)
	e, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestResolve(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	tests := []struct {
		id, lib, version string
		err              error
	}{
		{"/acme/widgets", "/acme/widgets", "v1.1.0", nil},
		{"acme/widgets", "/acme/widgets", "v1.1.0", nil},
		{`"/acme//widgets/"`, "/acme/widgets", "v1.1.0", nil},
		{"/acme/widgets@v1.0.0", "/acme/widgets", "v1.0.0", nil},
		{"/acme/widgets/main", "/acme/widgets", "main", nil},
		{"https://github.com/acme/widgets", "/acme/widgets", "v1.1.0", nil},
		{"widgets", "/acme/widgets", "v1.1.0", nil},
		{"AcmeWidgets", "/acme/widgets", "v1.1.0", nil}, // the title in another spelling
		{"acme", "", "", catalog.ErrLibraryNotFound},    // an org names two libraries, not one
		{"Acme Widgets", "", "", request.ErrInvalidKey}, // a title is for resolve-library-id to match, not an id
		{"/ACME/Widgets", "/acme/widgets", "v1.1.0", nil},
		{"/acme/widgets@v9.9.9", "", "", catalog.ErrVersionNotFound},
		{"/acme/gadgets", "", "", catalog.ErrLibraryNotFound},
		{"", "", "", request.ErrInvalidKey},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			r, err := e.Resolve(ctx, tt.id)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Library.ID != tt.lib || r.Version.Version != tt.version {
				t.Errorf("resolved %s@%s, want %s@%s", r.Library.ID, r.Version.Version, tt.lib, tt.version)
			}
		})
	}
	var ve *catalog.VersionError
	if _, err := e.Resolve(ctx, "/acme/widgets@v9.9.9"); !errors.As(err, &ve) || strings.Join(ve.Available, ",") != "main,v1.0.0,v1.1.0" {
		t.Errorf("version error %v, want the built versions listed", err)
	}
	var le *catalog.LibraryError
	if _, err := e.Resolve(ctx, "/acme/widget"); !errors.As(err, &le) || len(le.Closest) == 0 || le.Closest[0] != "/acme/widgets" {
		t.Errorf("library error %v, want /acme/widgets suggested first", err)
	}
}

// TestTopicsDoesNotOpenTheIndex checks that a topic tree is read without
// opening (and checksumming) the version's whole index.
func TestTopicsDoesNotOpenTheIndex(t *testing.T) {
	e := buildFixtures(t)
	for _, id := range []string{"/acme/widgets", "/acme/widgets@v1.0.0", "/acme/cli"} {
		t.Run(id, func(t *testing.T) {
			r, tree, err := e.Topics(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if len(tree.Slugs()) == 0 || r.Library == nil || r.Version == nil {
				t.Errorf("topics of %s: %+v, %+v", id, r, tree)
			}
			if open := e.Status().Open; open != 0 {
				t.Errorf("%d indexes open after Topics, want 0", open)
			}
		})
	}
	if _, _, err := e.Topics(context.Background(), "/acme/widgets@v9"); !errors.Is(err, catalog.ErrVersionNotFound) {
		t.Errorf("topics of a version never built: %v, want catalog.ErrVersionNotFound", err)
	}
}

func TestSearchVersionsAreExact(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	res, err := e.Search(ctx, Request{Library: "/acme/widgets@v1.0.0", Query: "custom themes css"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		if h.Path == "docs/guides/themes.md" {
			t.Error("v1.0.0 answered with a page added in v1.1.0")
		}
	}
	if res.Version != "v1.0.0" || len(res.Commit) != 40 {
		t.Errorf("provenance %s %s", res.Version, res.Commit)
	}
	res, err = e.Search(ctx, Request{Library: "/acme/widgets", Query: "custom themes css"})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "docs/guides/themes.md" || res.Version != "v1.1.0" {
		t.Errorf("latest search = %+v, %v", res, err)
	}
}

func TestSearchTopics(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	res, err := e.Search(ctx, Request{Library: "/acme/widgets", Topics: []string{`"Getting Started"`}, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits for a topic")
	}
	for _, h := range res.Hits {
		if !strings.Contains(h.Path, "getting-started") {
			t.Errorf("topic getting-started returned %s", h.ID)
		}
	}
	_, err = e.Search(ctx, Request{Library: "/acme/widgets", Query: "x", Topics: []string{"quantum-physics"}})
	var te *TopicError
	if !errors.As(err, &te) || !errors.Is(err, ErrTopicNotFound) || !strings.Contains(err.Error(), "getting-started") {
		t.Errorf("unknown topic error = %v, want ErrTopicNotFound listing the topics", err)
	}
	if _, err := e.Search(ctx, Request{Library: "/acme/widgets", Query: "<relevant topic>"}); !errors.Is(err, ErrEmptyQuery) {
		t.Errorf("placeholder query error = %v, want ErrEmptyQuery", err)
	}
	// A question keeps its slashes and hyphens.
	res, err = e.Search(ctx, Request{Library: "/acme/widgets", Query: "mount target is null TypeError"})
	if err != nil || len(res.Hits) == 0 || !strings.HasSuffix(res.Hits[0].Path, "installation.md") {
		t.Errorf("question search = %+v, %v", res, err)
	}
}

func TestEngineConcurrent(t *testing.T) {
	e := buildFixtures(t)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			lib := []string{"/acme/widgets", "/acme/widgets@v1.0.0", "/acme/cli"}[i%3]
			if _, err := e.Search(context.Background(), Request{Library: lib, Query: "install", WithText: true}); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
}

func TestEvaluate(t *testing.T) {
	e := buildFixtures(t)
	qs, err := ReadQuestions(strings.NewReader(`
{"library":"acme/widgets","query":"Widget.destroy stops polling and removes the DOM","expected":[{"path":"docs/api/create-widget.md","heading":"Widget.destroy()","heading_norm":"Widget.destroy()"}],"kind":"api"}
{"library":"acme/cli","query":"log in","expected":[{"path":"index.mdx","heading":"Log in {/*log-in*/}","heading_norm":"Log in"}],"kind":"howto"}
{"library":"acme/cli","query":"zzyzx nothing","expected":[{"path":"index.mdx","heading":"Install","heading_norm":"Install"}],"kind":"howto"}
{"library":"acme/nope","query":"x","expected":[{"path":"a.md","heading":"A","heading_norm":"A"}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(context.Background(), e, qs, 0)
	if err != nil {
		t.Fatal(err)
	}
	o := rep.Overall
	if o.Questions != 4 || o.Errors != 1 || o.RecallAt5 != 0.5 || o.InDocs != 0.5 {
		t.Errorf("overall = %+v, want 4 questions, 1 error, recall@5 and in docs 0.5", o)
	}
	if w := rep.Libraries["acme/widgets"]; w.RecallAt1 != 1 || w.MRRAt10 != 1 {
		t.Errorf("widgets = %+v, want a hit at rank 1", w)
	}
	if k := rep.Kinds["api"]; k.Questions != 1 || k.RecallAt1 != 1 {
		t.Errorf("api kind = %+v, want its one question answered first", k)
	}
	if k := rep.Kinds["howto"]; k.Questions != 2 {
		t.Errorf("howto kind = %+v, want 2 questions", k)
	}
	if k := rep.Kinds[""]; k.Questions != 1 || k.Errors != 1 {
		t.Errorf("questions without a kind = %+v, want the failed one", k)
	}
	var missed []string
	for _, m := range rep.Misses {
		missed = append(missed, m.Query)
	}
	if want := []string{"zzyzx nothing", "x"}; !slices.Equal(missed, want) {
		t.Errorf("misses = %q, want %q", missed, want)
	}
	var out strings.Builder
	rep.Format(&out, true)
	for _, want := range []string{"kind ", "howto", "rank 0: zzyzx nothing", "want index.mdx#Install", "error: ", "in docs", "at 5000 tokens"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if _, err := ReadQuestions(strings.NewReader(`{"library":"x"}`)); err == nil {
		t.Error("a question without query and expected was accepted")
	}
}

// TestEvaluateInDocs: "in docs" counts an answer ranked below the top 5
// that get-library-docs still packs at the budget, and not at a budget
// the sections ranked above it fill.
func TestEvaluateInDocs(t *testing.T) {
	e := buildFixtures(t)
	qs, err := ReadQuestions(strings.NewReader(`{"library":"acme/widgets","query":"widget","expected":[{"path":"docs/api/create-widget.md","heading":"createWidget","heading_norm":"createWidget"}],"kind":"api"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		budget, wantBudget int
		inDocs             bool
	}{
		{0, request.DefaultTokens, true},
		{request.MinTokens, request.MinTokens, false},
	} {
		rep, err := Evaluate(context.Background(), e, qs, c.budget)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Misses) != 1 || rep.Misses[0].Rank <= 5 {
			t.Fatalf("budget %d: misses = %+v, want the answer below the top 5", c.budget, rep.Misses)
		}
		want := 0.0
		if c.inDocs {
			want = 1
		}
		if rep.Budget != c.wantBudget || rep.Overall.InDocs != want || rep.Kinds["api"].InDocs != want || rep.Misses[0].InDocs != c.inDocs {
			t.Errorf("budget %d: report budget %d, in docs %v (api %v, miss %v), want budget %d and in docs %v",
				c.budget, rep.Budget, rep.Overall.InDocs, rep.Kinds["api"].InDocs, rep.Misses[0].InDocs, c.wantBudget, c.inDocs)
		}
	}
}

// TestMarkdownLiterals: a reStructuredText heading quoted as written
// matches the title the rst reader renders.
func TestMarkdownLiterals(t *testing.T) {
	for in, want := range map[string]string{
		"View Lifetime and ``self``": "View Lifetime and `self`",
		"Use `CORSMiddleware`":       "Use `CORSMiddleware`",
		"Plain":                      "Plain",
	} {
		if got := markdownLiterals(in); got != want {
			t.Errorf("markdownLiterals(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithoutAnchor(t *testing.T) {
	for in, want := range map[string]string{
		"View Lifetime and `self` {#view-lifetime-and-self}": "View Lifetime and `self`",
		"Sets {x}":  "Sets {x}",
		"No anchor": "No anchor",
		"A {#b} c":  "A {#b} c",
	} {
		if got := withoutAnchor(in); got != want {
			t.Errorf("withoutAnchor(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithoutLibraryName(t *testing.T) {
	lib := &artifacts.CatalogLib{Library: artifacts.Library{ID: "/tiangolo/fastapi", Title: "FastAPI", Aliases: []string{"fast-api"}}}
	for in, want := range map[string]string{
		"my fastapi backend is blocked by CORS": "my backend is blocked by CORS",
		"FastAPI, CORS":                         "CORS",
		"fastapi":                               "fastapi", // one word: nothing else to search for
		"fast-api lifespan events":              "lifespan events",
		"fastapi fastapi":                       "fastapi fastapi",
	} {
		if got := withoutLibraryName(in, lib); got != want {
			t.Errorf("withoutLibraryName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDocsPath reads documents and folders by path.
func TestDocsPath(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	read := func(library, p string) (*Answer, error) {
		return e.Docs(ctx, DocsRequest{Library: library, Path: p, Tokens: request.MaxTokens})
	}
	a, err := read("/acme/widgets", "./docs//guides/data-sources.md")
	if err != nil {
		t.Fatal(err)
	}
	var anchors []string
	for _, s := range a.Sections {
		anchors = append(anchors, s.Anchor)
		if s.Text == "" {
			t.Errorf("%s#%s has no text", s.Path, s.Anchor)
		}
	}
	if a.Kind != KindDocument || a.Pages != 1 || a.Title != "Data sources" || strings.Join(anchors, ",") != "data-sources,polling,example,streaming,example-1,error-handling" {
		t.Errorf("%s %q of %d pages, sections %v; want the document whole, all six sections in document order", a.Kind, a.Title, a.Pages, anchors)
	}
	a, err = read("/acme/widgets", "docs/getting-started")
	if err != nil || a.Kind != KindFolder || len(a.Documents) != 2 || len(a.Sections) != 0 {
		t.Fatalf("folder = %+v, %v; want two documents", a, err)
	}
	if a, err := read("/acme/widgets@v1.0.0", "."); err != nil || a.Kind != KindFolder || len(a.Documents) != 6 {
		t.Errorf("root listing = %+v, %v; want every document of v1.0.0", a, err)
	}
	// Backslashes are separators: a Windows path names the same document.
	if a, err := read("/acme/widgets", `.\docs\guides\data-sources.md`); err != nil || a.Kind != KindDocument || a.Title != "Data sources" || len(a.Sections) != 6 {
		t.Errorf(`path .\docs\guides\data-sources.md = %+v, %v; want docs/guides/data-sources.md whole`, a, err)
	}
	// A leading slash is the repository's root, as in a site's links.
	if a, err := read("/acme/widgets", "/docs/guides/data-sources.md"); err != nil || a.Title != "Data sources" {
		t.Errorf("path /docs/guides/data-sources.md = %+v, %v; want the document", a, err)
	}
	for _, bad := range []string{"../secrets.md", "//server/x.md", "docs/../../x.md", `docs\..\..\x.md`, `\etc\passwd`, "docs/\x00.md", "C:/x.md", `C:\x.md`} {
		if _, err := read("/acme/widgets", bad); !errors.Is(err, request.ErrInvalidPath) {
			t.Errorf("path %q: error %v, want request.ErrInvalidPath", bad, err)
		}
	}
	_, err = read("/acme/widgets", "docs/data-sources.md")
	var de *DocumentError
	if !errors.As(err, &de) || !errors.Is(err, ErrDocumentNotFound) || len(de.Closest) == 0 || de.Closest[0] != "docs/guides/data-sources.md" {
		t.Errorf("missing document error = %v, want a suggestion of docs/guides/data-sources.md", err)
	}
}

// TestDocsPathReturnsEveryChunk reads back, page by page, a document whose
// one section is split into far more chunks than its outline suggests.
func TestDocsPathReturnsEveryChunk(t *testing.T) {
	r := gittest.New(t, "main")
	var big strings.Builder
	big.WriteString("# Huge\n\n## Everything\n\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&big, "Paragraph %d. %s\n\n", i, strings.Repeat("word ", 1000))
	}
	r.Write(map[string]string{"huge.md": big.String()})
	r.Commit("huge")
	cfg, err := config.Parse(strings.NewReader("libraries:\n  - id: /acme/huge\n    repo: "+r.Dir+"\n"), "codex7.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if res, err := pipeline.Build(context.Background(), cfg, pipeline.Options{Out: out}); err != nil || res.Err() != nil {
		t.Fatal(err, res.Err())
	}
	e, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var text strings.Builder
	sections, pages := 0, 1
	for page := 1; page <= pages; page++ {
		a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/huge", Path: "huge.md", Tokens: request.MaxTokens, Page: page})
		if err != nil {
			t.Fatal(err)
		}
		pages = a.Pages
		for _, s := range a.Sections {
			text.WriteString(s.Text + "\n")
			sections++
		}
	}
	for _, want := range []string{"Paragraph 0.", "Paragraph 75.", "Paragraph 149."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("%d sections returned on %d pages; %q missing", sections, pages, want)
		}
	}
}

// TestCancelledRequestOpensNothing: a request whose context has ended
// before it starts (its client gone) returns the context's error and
// opens, reads and checksums nothing: Docs, Search, Documents and Topics.
func TestCancelledRequestOpensNothing(t *testing.T) {
	e := buildFixtures(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := map[string]func() error{
		"Docs": func() error {
			_, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Query: "polling"})
			return err
		},
		"Search":    func() error { _, err := e.Search(ctx, Request{Library: "/acme/widgets", Query: "polling"}); return err },
		"Documents": func() error { _, _, err := e.Documents(ctx, "/acme/widgets"); return err },
		"Topics":    func() error { _, _, err := e.Topics(ctx, "/acme/widgets"); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s on a cancelled context: %v, want context.Canceled", name, err)
		}
	}
	if open := e.Status().Open; open != 0 {
		t.Errorf("%d versions open after cancelled requests, want 0", open)
	}
}

// TestFindLibrariesDamagedDocuments: documents.json damaged after its
// version opened (a directory in its place) is found when FindLibraries
// lists the documents at full detail: the match's Problem says why
// without a server path, and the version is refused and the catalog
// reloaded without it at once, as when a request meets the damage.
func TestFindLibrariesDamagedDocuments(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	if _, err := e.Search(ctx, Request{Library: "/acme/cli", Query: "deploy"}); err != nil { // opened and verified
		t.Fatal(err)
	}
	dist := e.Dirs()[0]
	var docs string
	filepath.WalkDir(filepath.Join(dist, "acme", "cli"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == artifacts.DocumentsFile {
			docs = p
		}
		return nil
	})
	// A directory where the file was: the read error names its path.
	if err := os.Remove(docs); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := e.FindLibraries(ctx, libraries.Request{Name: "/acme/cli", Detail: "full"})
	if err != nil || len(res.Matches) == 0 {
		t.Fatalf("FindLibraries: %+v, %v", res, err)
	}
	p := res.Matches[0].Problem
	if !strings.Contains(p, "documents.json") || strings.Contains(p, dist) {
		t.Errorf("problem %q: want documents.json named, no server path", p)
	}
	if r := e.Status().Refused; len(r) != 1 || r[0].Library != "/acme/cli" {
		t.Errorf("refused %+v, want /acme/cli", r)
	}
	if l := e.Catalog().Library("/acme/cli"); l != nil {
		t.Errorf("the catalog served still lists /acme/cli (%d versions): want it reloaded without the refused version", len(l.Versions))
	}
}
