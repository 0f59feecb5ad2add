package libraries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/topics"
)

// lib is a catalog library at one version, "v1", with counts.
func lib(id, title, description string, aliases ...string) artifacts.CatalogLib {
	return artifacts.CatalogLib{
		Library:  artifacts.Library{ID: id, Title: title, Description: description, Aliases: aliases},
		Latest:   "v1",
		Versions: []artifacts.CatalogVersion{{Version: "v1", Counts: artifacts.Counts{Documents: 3, Sections: 9}}},
	}
}

// tree is a topic tree of one category per argument: "Guide: Routing,
// Data Fetching" is category Guide with two topics.
func tree(cats ...string) *topics.Tree {
	t := &topics.Tree{}
	for _, c := range cats {
		name, list, _ := strings.Cut(c, ":")
		cat := topics.Category{Slug: topics.Slug(name), Name: name}
		for _, tp := range strings.Split(list, ",") {
			if tp = strings.TrimSpace(tp); tp != "" {
				cat.Topics = append(cat.Topics, topics.Topic{Slug: topics.Slug(tp), Name: tp})
			}
		}
		t.Categories = append(t.Categories, cat)
	}
	return t
}

// testCatalog is a small catalog shaped like real ones: ids whose project
// is the name, ids whose project is generic ("docs"), titles and aliases
// from the config, descriptions that mention other libraries.
func testCatalog() (*artifacts.Catalog, map[string]*topics.Tree) {
	cat := &artifacts.Catalog{Libraries: []artifacts.CatalogLib{
		lib("/vitejs/vite", "Vite", "Next generation frontend tooling"),
		lib("/vitejs/vite-plugin-react", "Vite React plugin", "The default Vite plugin for React projects"),
		lib("/acme/bundler-guide", "Bundler guide", "How to configure vite, webpack and rollup for vite projects with vite"),
		lib("/vercel/next.js", "Next.js", "The React framework for the web", "nextjs"),
		lib("/facebook/react", "React", "The library for web and native user interfaces"),
		lib("/remix-run/react-router", "React Router", "Declarative routing for React"),
		lib("/tailwindlabs/tailwindcss", "Tailwind CSS", "A utility-first CSS framework", "tailwind"),
		lib("/tiangolo/fastapi", "FastAPI", "FastAPI framework, high performance, easy to learn"),
		lib("/tiangolo/sqlmodel", "SQLModel", "SQL databases in Python, designed for simplicity"),
		lib("/denoland/docs", "docs", ""),
		lib("/prometheus/docs", "docs", ""),
		lib("/gohugoio/hugoDocs", "hugoDocs", ""),
		lib("/expressjs/expressjs.com", "expressjs.com", ""),
		lib("/webpack/webpack.js.org", "webpack.js.org", ""),
		lib("/golang/go", "Go", "The Go programming language"),
		lib("/go-gitea/docs", "docs", ""),
		lib("/d3/d3", "D3", "Bring data to life with SVG, Canvas and HTML"),
		lib("/acme/widgets", "Acme Widgets", "Dashboard widgets"),
		lib("/other/widgets", "Widgets", "Widgets for forms"),
	}}
	trees := map[string]*topics.Tree{
		"/vitejs/vite":             tree("Guide: Features, Plugin API, Server-Side Rendering", "Config: Server Options"),
		"/withastro/docs":          tree("Guides: Routing"),
		"/acme/widgets":            tree("Guides: Themes, Data sources"),
		"/acme/bundler-guide":      tree("Bundlers: Vite, Webpack"),
		"/other/widgets":           tree("Guides: Charts, Validation"),
		"/denoland/docs":           tree("Runtime: Deno KV, Permissions", "Examples: Vue app"),
		"/expressjs/expressjs.com": tree("Guide: Routing, Middleware"),
	}
	return cat, trees
}

func ids(ms []Match) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Library.ID
	}
	return out
}

func TestLibrarySearch(t *testing.T) {
	x := NewIndex(testCatalog())
	tests := []struct {
		name, query string
		// want are the first ids, in order; match is how the first matched.
		want  []string
		match string
	}{
		// Exact names first, whatever mentions them.
		{"vite", "", []string{"/vitejs/vite", "/vitejs/vite-plugin-react", "/acme/bundler-guide"}, MatchName},
		{"VITE", "", []string{"/vitejs/vite"}, MatchName},
		{"Vite", "how do I configure the dev server", []string{"/vitejs/vite"}, MatchName},
		// Punctuation and spacing variants.
		{"next.js", "", []string{"/vercel/next.js"}, MatchName},
		{"nextjs", "", []string{"/vercel/next.js"}, MatchName},
		{"Next JS", "", []string{"/vercel/next.js"}, MatchName},
		{"NextJS", "", []string{"/vercel/next.js"}, MatchName},
		{"next", "", []string{"/vercel/next.js"}, MatchName},
		{`"next.js"`, "", []string{"/vercel/next.js"}, MatchName},
		{"react", "", []string{"/facebook/react", "/remix-run/react-router"}, MatchName},
		{"react-router", "", []string{"/remix-run/react-router", "/facebook/react"}, MatchName},
		{"React Router", "", []string{"/remix-run/react-router"}, MatchName},
		{"react hooks", "", []string{"/facebook/react"}, MatchPartial},
		// Aliases.
		{"tailwind", "", []string{"/tailwindlabs/tailwindcss"}, MatchName},
		{"tailwindcss", "", []string{"/tailwindlabs/tailwindcss"}, MatchName},
		// Ids and URLs.
		{"/vitejs/vite", "", []string{"/vitejs/vite"}, MatchID},
		{"vitejs/vite", "", []string{"/vitejs/vite"}, MatchID},
		{"https://github.com/vitejs/vite", "", []string{"/vitejs/vite"}, MatchID},
		{"/vitejs/vite@v1", "", []string{"/vitejs/vite"}, MatchID},
		{"/facebook/react-dom", "", []string{"/facebook/react"}, MatchPartial},
		// Orgs.
		{"tiangolo", "", []string{"/tiangolo/fastapi", "/tiangolo/sqlmodel"}, MatchOrg},
		{"tiangolo/", "", []string{"/tiangolo/fastapi", "/tiangolo/sqlmodel"}, MatchOrg},
		{"tiangolo", "sql databases", []string{"/tiangolo/sqlmodel", "/tiangolo/fastapi"}, MatchOrg},
		// Generic project names: the org, or the part before "Docs", is the name.
		{"prometheus", "", []string{"/prometheus/docs"}, MatchName},
		{"deno", "", []string{"/denoland/docs"}, MatchPartial},
		{"hugo", "", []string{"/gohugoio/hugoDocs"}, MatchName},
		{"express", "", []string{"/expressjs/expressjs.com"}, MatchName},
		{"webpack", "", []string{"/webpack/webpack.js.org", "/acme/bundler-guide"}, MatchName},
		{"gitea", "", []string{"/go-gitea/docs"}, MatchPartial},
		// Short names.
		{"go", "", []string{"/golang/go", "/go-gitea/docs"}, MatchName},
		{"d3", "", []string{"/d3/d3"}, MatchName},
		// Descriptions and topics.
		{"dashboard", "", []string{"/acme/widgets"}, MatchText},
		{"middleware", "", []string{"/expressjs/expressjs.com"}, MatchText},
		{"vue", "", []string{"/denoland/docs"}, MatchText},
		// The question breaks ties between equal names.
		{"widgets", "", []string{"/other/widgets", "/acme/widgets"}, MatchName}, // its title is just Widgets
		{"widgets", "validation charts for my form", []string{"/other/widgets", "/acme/widgets"}, MatchName},
		{"widgets", "dashboard themes", []string{"/acme/widgets", "/other/widgets"}, MatchName},
		// Nothing.
		{"kubernetes", "", nil, ""},
		{"!!!", "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+"|"+tt.query, func(t *testing.T) {
			got := x.Search(nil, tt.name, tt.query, 10)
			if len(tt.want) == 0 {
				if len(got) != 0 {
					t.Fatalf("got %v, want no match", ids(got))
				}
				return
			}
			if g := ids(got); len(g) < len(tt.want) || !slices.Equal(g[:len(tt.want)], tt.want) {
				t.Fatalf("got %v, want it to start with %v", g, tt.want)
			}
			if got[0].Match != tt.match {
				t.Errorf("first match is a %q match, want %q", got[0].Match, tt.match)
			}
		})
	}
}

func TestLibraryRelevance(t *testing.T) {
	x := NewIndex(testCatalog())
	for _, name := range []string{"vite", "react", "widgets", "tiangolo", "routing", "deno", "web framework", "react hooks"} {
		t.Run(name, func(t *testing.T) {
			got := x.Search(nil, name, "forms and charts", 50)
			if len(got) == 0 {
				t.Fatal("no match")
			}
			if got[0].Relevance != 1 {
				t.Errorf("top relevance %v, want 1", got[0].Relevance)
			}
			for i, m := range got {
				if m.Relevance < 0 || m.Relevance > 1 {
					t.Errorf("%s: relevance %v, want within 0-1", m.Library.ID, m.Relevance)
				}
				if i > 0 && m.Relevance > got[i-1].Relevance {
					t.Errorf("%s: relevance %v above the previous match's %v", m.Library.ID, m.Relevance, got[i-1].Relevance)
				}
			}
		})
	}
	// An exact name is worth more than any description's mention.
	got := x.Search(nil, "vite", "", 10)
	if last := got[len(got)-1]; last.Match != MatchText || last.Relevance > 0.5 {
		t.Errorf("description match %s: %s, %v; want a text match well below 1", last.Library.ID, last.Match, last.Relevance)
	}
}

func TestLibrarySearchMaxResults(t *testing.T) {
	cat := &artifacts.Catalog{}
	for i := range 80 {
		cat.Libraries = append(cat.Libraries, lib(fmt.Sprintf("/org%02d/widgets-%02d", i, i), "", "widgets"))
	}
	x := NewIndex(cat, nil)
	for _, tt := range []struct{ max, want int }{{0, 10}, {-3, 10}, {1, 1}, {3, 3}, {50, 50}, {51, 50}, {1000, 50}} {
		if got := len(x.Search(nil, "widgets", "", tt.max)); got != tt.want {
			t.Errorf("max %d: %d matches, want %d", tt.max, got, tt.want)
		}
	}
}

func TestNameKeys(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"next.js", []string{"nextjs", "next"}},
		{"Next JS", []string{"nextjs", "next"}},
		{"NextJS", []string{"nextjs", "next"}},
		{"hugoDocs", []string{"hugodocs", "hugo"}},
		{"react.dev", []string{"reactdev", "react"}},
		{"webpack.js.org", []string{"webpackjsorg", "webpack"}},
		{"expressjs.com", []string{"expressjscom", "expressjs", "express"}},
		{"tldr-pages", []string{"tldrpages", "tldr"}},
		{"docs", nil},
		{"fastapi", []string{"fastapi"}},
		{"Café Crème", []string{"cafécrème"}},
	}
	for _, tt := range tests {
		if got := nameKeys(tt.name); !slices.Equal(got, tt.want) {
			t.Errorf("nameKeys(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	for in, want := range map[string]string{"hugoDocs": "hugo docs", "HTTPServer": "http server", "es6-shim": "es6 shim", "__init__": "init", "日本語 docs": "日本語 docs"} {
		if got := strings.Join(nameWords(in), " "); got != want {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello", 5, "hello"},
		{"hello world", 6, "hello…"},
		{"hello world", 7, "hello…"}, // no space before the ellipsis
		{"héllo wörld", 4, "hél…"},
		{"日本語のドキュメント", 4, "日本語…"},
		{"👩‍💻 emoji", 2, "👩…"},
		{"abc", 0, ""},
		{"abc", 1, "…"},
	}
	for _, tt := range tests {
		if got := truncateRunes(tt.in, tt.n); got != tt.want {
			t.Errorf("truncateRunes(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
	// Every cut of multi-byte text is valid UTF-8 and within n runes.
	s := "Ünïcödé 文字列 🎉🎉 ok"
	for n := 0; n <= utf8.RuneCountInString(s)+1; n++ {
		got := truncateRunes(s, n)
		if !utf8.ValidString(got) || utf8.RuneCountInString(got) > n {
			t.Errorf("truncateRunes(%q, %d) = %q: invalid UTF-8 or longer than %d runes", s, n, got, n)
		}
	}
	// Invalid bytes are left as they are, never made worse.
	if got := truncateRunes("ab\xffcdef", 4); got != "ab\xff…" {
		t.Errorf("invalid input: got %q", got)
	}
}

func TestParseDetail(t *testing.T) {
	for in, want := range map[string]Detail{"": DetailSummary, "summary": DetailSummary, " Topics ": DetailTopics, "FULL": DetailFull} {
		if got, err := ParseDetail(in); err != nil || got != want {
			t.Errorf("ParseDetail(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"verbose", "all", "schema", "summary,topics"} {
		_, err := ParseDetail(in)
		if !errors.Is(err, ErrInvalidDetail) {
			t.Errorf("ParseDetail(%q) error %v, want ErrInvalidDetail", in, err)
			continue
		}
		for _, valid := range []string{`"summary"`, `"topics"`, `"full"`, in} {
			if !strings.Contains(err.Error(), valid) {
				t.Errorf("ParseDetail(%q) error %q does not name %s", in, err, valid)
			}
		}
	}
	x := NewIndex(testCatalog())
	if _, err := x.Find(context.Background(), Request{Name: "vite"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Find(context.Background(), Request{Name: "vite", Detail: "everything"}, nil); !errors.Is(err, ErrInvalidDetail) {
		t.Errorf("Find with detail everything: error %v, want ErrInvalidDetail", err)
	}
}

// bigLibrary is a library of n documents in the shape of tldr: pages/<platform>/<command>.md
// and translations of them in pages.<lang>/, plus a few root files.
func bigLibrary(n int) []artifacts.DocumentInfo {
	var docs []artifacts.DocumentInfo
	docs = append(docs, artifacts.DocumentInfo{Path: "README.md", Title: "tldr-pages"}, artifacts.DocumentInfo{Path: "CONTRIBUTING.md", Title: "Contributing"})
	platforms := []string{"common", "linux", "osx", "windows"}
	for i := 0; len(docs) < n; i++ {
		p := platforms[i%len(platforms)]
		cmd := fmt.Sprintf("cmd%05d", i)
		if i == 7 {
			cmd = "tar"
		}
		docs = append(docs, artifacts.DocumentInfo{Path: "pages/" + p + "/" + cmd + ".md", Title: cmd})
		for _, lang := range []string{"de", "fr", "ko"} {
			if len(docs) < n && i%2 == 0 {
				docs = append(docs, artifacts.DocumentInfo{Path: "pages." + lang + "/" + p + "/" + cmd + ".md", Title: cmd + " (" + lang + ")"})
			}
		}
	}
	slices.SortFunc(docs, func(a, b artifacts.DocumentInfo) int { return strings.Compare(a.Path, b.Path) })
	return docs
}

// bigTree is a tree of cats categories of per topics each, with long names.
func bigTree(cats, per int) *topics.Tree {
	t := &topics.Tree{}
	for c := range cats {
		cat := topics.Category{Slug: fmt.Sprintf("category-%d", c), Name: fmt.Sprintf("Category %d", c)}
		for i := range per {
			name := fmt.Sprintf("Topic %d.%d", c, i)
			cat.Topics = append(cat.Topics, topics.Topic{Slug: topics.Slug(name), Name: name})
		}
		t.Categories = append(t.Categories, cat)
	}
	return t
}

// slugCount is the number of slugs (categories and topics) of a tree.
func slugCount(t *topics.Tree) int { return len(t.Slugs()) }

func listedSlugs(info Info) int {
	n := 0
	for _, c := range info.Topics {
		n += 1 + len(c.Topics)
	}
	return n
}

func TestFindLibrariesDetail(t *testing.T) {
	cat := &artifacts.Catalog{}
	trees := map[string]*topics.Tree{}
	docs := map[string][]artifacts.DocumentInfo{}
	for i := range 10 {
		id := fmt.Sprintf("/tldr-pages/tldr%d", i)
		if i == 0 {
			id = "/tldr-pages/tldr"
		}
		l := lib(id, "", "Collaborative cheatsheets for console commands")
		l.Versions[0].Counts.Documents = 38000
		cat.Libraries = append(cat.Libraries, l)
		trees[id] = bigTree(8, 10)
		docs[id] = bigLibrary(38000)
	}
	x := NewIndex(cat, trees)
	docsOf := func(id string) ([]artifacts.DocumentInfo, error) { return docs[id], nil }
	ctx := context.Background()

	for _, detail := range []Detail{DetailSummary, DetailTopics, DetailFull} {
		t.Run(string(detail), func(t *testing.T) {
			res, err := x.Find(ctx, Request{Name: "tldr", Max: 10, Detail: string(detail)}, docsOf)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Matches) != 10 || res.Matches[0].Library.ID != "/tldr-pages/tldr" || res.Detail != detail {
				t.Fatalf("got %d matches, first %s, detail %s", len(res.Matches), res.Matches[0].Library.ID, res.Detail)
			}
			first := res.Matches[0]
			for _, m := range res.Matches {
				// What is listed and what is left out add up.
				if detail != DetailSummary {
					if got, want := listedSlugs(m)+m.TopicsLeftOut, slugCount(trees[m.Library.ID]); got != want {
						t.Errorf("%s: %d slugs listed + left out, want %d", m.Library.ID, got, want)
					}
				} else if m.Topics != nil || m.TopicsLeftOut != 0 {
					t.Errorf("%s: topics at summary detail", m.Library.ID)
				}
				if detail == DetailFull {
					if got := len(m.Docs) + m.DocsLeftOut; got != 38000 {
						t.Errorf("%s: %d documents listed + left out, want 38000", m.Library.ID, got)
					}
					if len(m.Docs) > MaxDocumentsPerLibrary {
						t.Errorf("%s: %d documents listed, cap %d", m.Library.ID, len(m.Docs), MaxDocumentsPerLibrary)
					}
				} else if m.Docs != nil || m.DocsLeftOut != 0 || m.Folders != nil {
					t.Errorf("%s: documents below full detail", m.Library.ID)
				}
			}
			if detail == DetailSummary {
				return
			}
			// The best match gets its whole tree; the answer stays small.
			if first.TopicsLeftOut != 0 {
				t.Errorf("best match: %d slugs left out, want its whole tree", first.TopicsLeftOut)
			}
			if res.Matches[9].TopicsLeftOut == 0 {
				t.Error("tenth match has its whole tree: the answer's budget is not applied")
			}
			size := 0
			for _, m := range res.Matches {
				data, _ := json.Marshal([]any{m.Topics, m.Docs, m.Folders})
				size += len(data)
			}
			if tokens, limit := size/4, TopicsBudget+DocumentsBudget; tokens > limit {
				t.Errorf("trees, documents and folders are about %d tokens, want at most %d", tokens, limit)
			}
			if detail != DetailFull {
				return
			}
			if len(first.Docs) == 0 || first.Docs[0].Path != "CONTRIBUTING.md" && first.Docs[0].Path != "README.md" {
				t.Errorf("best match's documents start with %v, want the root files", first.Docs)
			}
			for _, d := range first.Docs {
				if strings.HasPrefix(d.Path, "pages.") {
					t.Errorf("translation %s listed before the main pages were exhausted", d.Path)
				}
			}
			var folders []string
			for _, f := range first.Folders {
				folders = append(folders, fmt.Sprintf("%s=%d", f.Path, f.Documents))
			}
			under := func(prefix string) int {
				n := 0
				for _, d := range docs["/tldr-pages/tldr"] {
					if strings.HasPrefix(d.Path, prefix+"/") {
						n++
					}
				}
				return n
			}
			common, de := fmt.Sprintf("pages/common=%d", under("pages/common")), fmt.Sprintf("pages.de=%d", under("pages.de"))
			if len(folders) == 0 || len(folders) > MaxFoldersPerLibrary || !slices.Contains(folders, common) || !slices.Contains(folders, de) {
				t.Errorf("folders %v, want %s and %s among them, at most %d", folders, common, de, MaxFoldersPerLibrary)
			}
		})
	}

	// The question puts the documents it names first.
	res, err := x.Find(ctx, Request{Name: "/tldr-pages/tldr", Query: "how do I extract a tar archive", Max: 1, Detail: string(DetailFull)}, docsOf)
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Matches[0].Docs; len(d) == 0 || d[0].Path != "pages/windows/tar.md" {
		t.Errorf("with a question about tar, documents start with %v", d[:min(3, len(d))])
	}

	// A library whose documents cannot be read still comes back, and says why.
	res, err = x.Find(ctx, Request{Name: "tldr", Max: 2, Detail: string(DetailFull)}, func(id string) ([]artifacts.DocumentInfo, error) {
		if id == "/tldr-pages/tldr" {
			return nil, errors.New("documents.json: corrupt file")
		}
		return docs[id], nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches[0]; !strings.Contains(m.Problem, "corrupt file") || m.Docs != nil || len(m.Topics) == 0 {
		t.Errorf("unreadable documents: %+v", m)
	}
	if m := res.Matches[1]; m.Problem != "" || len(m.Docs) == 0 {
		t.Errorf("second match suffered from the first's problem: %+v", m.Problem)
	}

	// An error wrapping ErrAbort ends the answer with it.
	abort := fmt.Errorf("%w: republished", ErrAbort)
	if _, err := x.Find(ctx, Request{Name: "tldr", Max: 2, Detail: string(DetailFull)}, func(string) ([]artifacts.DocumentInfo, error) { return nil, abort }); err != abort {
		t.Errorf("Find with a DocumentsFunc that aborts: error %v, want %v", err, abort)
	}

	// A cancelled context stops the answer.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := x.Find(cctx, Request{Name: "tldr", Detail: string(DetailFull)}, docsOf); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: error %v", err)
	}
}

func TestFindLibrariesSmallLibraryWhole(t *testing.T) {
	cat, trees := testCatalog()
	x := NewIndex(cat, trees)
	docs := []artifacts.DocumentInfo{{Path: "README.md", Title: "Vite"}, {Path: "docs/config/index.md", Title: "Configuring Vite"}, {Path: "docs/guide/index.md", Title: "Getting Started"}}
	res, err := x.Find(context.Background(), Request{Name: "vite", Max: 1, Detail: string(DetailFull)}, func(string) ([]artifacts.DocumentInfo, error) { return docs, nil })
	if err != nil {
		t.Fatal(err)
	}
	m := res.Matches[0]
	if len(m.Docs) != 3 || m.DocsLeftOut != 0 || m.Folders != nil || m.TopicsLeftOut != 0 || len(m.Topics) != 2 || len(m.Topics[0].Topics) != 3 {
		t.Errorf("small library: %+v", m)
	}
	if m.Topics[0].Topics[2] != (TopicRef{Slug: "server-side-rendering", Name: "Server-Side Rendering"}) {
		t.Errorf("topic = %+v", m.Topics[0].Topics[2])
	}
	// A library that only mentions the name gets no details beside a
	// better match: its version is not even opened.
	opened := map[string]bool{}
	res, err = x.Find(context.Background(), Request{Name: "vite", Detail: string(DetailFull)}, func(id string) ([]artifacts.DocumentInfo, error) {
		opened[id] = true
		return docs, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Matches {
		if m.Library.ID != "/acme/bundler-guide" {
			continue
		}
		if m.Match != MatchText || m.Topics != nil || m.TopicsLeftOut != 3 || m.Docs != nil || m.DocsLeftOut != 3 || opened[m.Library.ID] {
			t.Errorf("text match beside a name match: %+v, opened %v", m, opened[m.Library.ID])
		}
	}
	if !opened["/vitejs/vite"] {
		t.Error("the name match's documents were not read")
	}

	// A library without a readable tree says so.
	res, err = x.Find(context.Background(), Request{Name: "react", Max: 1, Detail: string(DetailTopics)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Matches[0]; m.Library.ID != "/facebook/react" || m.Topics != nil || m.Problem != "topic tree unavailable" {
		t.Errorf("no tree: %s, topics %v, problem %q", m.Library.ID, m.Topics, m.Problem)
	}
}

func TestSummarizeCaps(t *testing.T) {
	l := lib("/a/b", strings.Repeat("T", 500), strings.Repeat("é", 1000))
	l.Versions = nil
	for i := range 30 {
		l.Versions = append(l.Versions, artifacts.CatalogVersion{Version: fmt.Sprintf("v%02d", i)})
	}
	l.Latest = "v29"
	info := summarize(Match{Library: &l, Relevance: 1})
	if n := utf8.RuneCountInString(info.Description); n != MaxDescriptionRunes || !utf8.ValidString(info.Description) {
		t.Errorf("description: %d runes, want %d", n, MaxDescriptionRunes)
	}
	if n := utf8.RuneCountInString(info.Title); n != MaxTitleRunes {
		t.Errorf("title: %d runes, want %d", n, MaxTitleRunes)
	}
	if len(info.Versions) != MaxVersionsListed || info.VersionsLeftOut != 10 || !slices.Contains(info.Versions, "v29") {
		t.Errorf("versions %v (+%d), want %d including the latest, v29", info.Versions, info.VersionsLeftOut, MaxVersionsListed)
	}
}

// TestLibraryIndexConcurrent runs answers at once on a fresh index, so
// that the first listing of a version is worked out concurrently too, and
// compares them with the same answer from another index.
func TestLibraryIndexConcurrent(t *testing.T) {
	docs := bigLibrary(2000)
	docsOf := func(string) ([]artifacts.DocumentInfo, error) { return docs, nil }
	answerOf := func(x *Index) string {
		res, err := x.Find(context.Background(), Request{Name: "react", Query: "routing cmd00042", Detail: string(DetailFull)}, docsOf)
		if err != nil {
			return err.Error()
		}
		data, _ := json.Marshal(res)
		return string(data)
	}
	want := answerOf(NewIndex(testCatalog()))
	x := NewIndex(testCatalog())
	done := make(chan string)
	for range 8 {
		go func() { done <- answerOf(x) }()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("concurrent answers differ:\n%s\n%s", got, want)
		}
	}
}

// benchCatalog is n libraries with descriptions, aliases and a tree of
// 8 categories × 8 topics each, like a real catalog's.
func benchCatalog(n int) (*artifacts.Catalog, map[string]*topics.Tree) {
	words := strings.Fields("react vue svelte router state query form table chart auth http client server cache queue stream test mock build bundle lint format css style icon date time i18n log trace metric")
	cat := &artifacts.Catalog{}
	trees := map[string]*topics.Tree{}
	for i := range n {
		w1, w2 := words[i%len(words)], words[(i*7+3)%len(words)]
		id := fmt.Sprintf("/org%d/%s-%s-%d", i%97, w1, w2, i)
		cat.Libraries = append(cat.Libraries, lib(id, fmt.Sprintf("%s %s %d", w1, w2, i), "A library for "+w1+" and "+w2+" in modern web applications, with plugins", fmt.Sprintf("%s%s%d", w1, w2, i)))
		t := bigTree(8, 8)
		trees[id] = t
	}
	cat.Libraries = append(cat.Libraries, lib("/vitejs/vite", "Vite", "Next generation frontend tooling"), lib("/vercel/next.js", "Next.js", "The React framework", "nextjs"))
	return cat, trees
}

func BenchmarkLibrarySearch(b *testing.B) {
	x := NewIndex(benchCatalog(500))
	for _, q := range []struct{ name, query string }{
		{"vite", ""},
		{"Next JS", "app router middleware"},
		{"react router", "nested routes with loaders"},
		{"org42", ""},
		{"nothing-like-this", ""},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				x.Search(nil, q.name, q.query, 10)
			}
		})
	}
}

func BenchmarkNewLibraryIndex(b *testing.B) {
	cat, trees := benchCatalog(500)
	for b.Loop() {
		NewIndex(cat, trees)
	}
}

// BenchmarkFindLibrariesFull is a full-detail answer for a library of
// 38,000 documents (tldr's size), documents already loaded: the listing's
// folder tree and order are built per call.
func BenchmarkFindLibrariesFull(b *testing.B) {
	cat := &artifacts.Catalog{Libraries: []artifacts.CatalogLib{lib("/tldr-pages/tldr", "tldr", "")}}
	x := NewIndex(cat, map[string]*topics.Tree{"/tldr-pages/tldr": bigTree(5, 13)})
	docs := bigLibrary(38000)
	docsOf := func(string) ([]artifacts.DocumentInfo, error) { return docs, nil }
	for _, query := range []string{"", "extract a tar archive"} {
		b.Run(fmt.Sprintf("query=%q", query), func(b *testing.B) {
			for b.Loop() {
				if _, err := x.Find(context.Background(), Request{Name: "tldr", Query: query, Detail: string(DetailFull)}, docsOf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestDocumentOrder(t *testing.T) {
	docs := []artifacts.DocumentInfo{
		{Path: "src/content/es/learn/effects.md", Title: "Efectos"},
		{Path: "src/content/es/reference/useEffect.md", Title: "useEffect"},
		{Path: "src/content/learn/effects.md", Title: "Synchronizing with Effects"},
		{Path: "src/content/learn/index.md", Title: "Quick Start"},
		{Path: "src/content/reference/eslint-plugin-react-hooks/lints/set-state-in-effect.md", Title: "set-state-in-effect"},
		{Path: "src/content/reference/react/useEffect.md", Title: "useEffect"},
		{Path: "src/content/reference/react/useState.md", Title: "useState"},
		{Path: "src/index.md", Title: "React"},
	}
	tests := []struct {
		query string
		want  []string // the first paths, in order
	}{
		// Breadth first, main documentation before the translation.
		{"", []string{"src/index.md", "src/content/learn/effects.md", "src/content/learn/index.md", "src/content/reference/react/useEffect.md", "src/content/reference/react/useState.md", "src/content/reference/eslint-plugin-react-hooks/lints/set-state-in-effect.md", "src/content/es/learn/effects.md"}},
		// The document named as written first, then titles before folders.
		{"how do I clean up in a useEffect hook", []string{"src/content/reference/react/useEffect.md", "src/content/es/reference/useEffect.md", "src/content/reference/eslint-plugin-react-hooks/lints/set-state-in-effect.md"}},
		{"quick start", []string{"src/content/learn/index.md"}},
	}
	for _, tt := range tests {
		order := newListing(docs).orderFor(newDocQuestion(tt.query))
		var got []string
		for _, i := range order[:len(tt.want)] {
			got = append(got, docs[i].Path)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: order starts\n%q\nwant\n%q", tt.query, got, tt.want)
		}
	}
}

// TestListingsBounded: an index lists the documents of any number of
// versions (a version closed and opened again reads its documents into a
// new slice) and keeps the listings of the most recent maxListings only,
// the latest one reused.
func TestListingsBounded(t *testing.T) {
	x := NewIndex(&artifacts.Catalog{}, nil)
	var last []artifacts.DocumentInfo
	for i := range 3 * maxListings {
		last = []artifacts.DocumentInfo{{Path: fmt.Sprintf("docs/page-%d.md", i), Title: "Page"}}
		x.listingOf(last)
	}
	if n := x.listings.Len(); n > maxListings {
		t.Errorf("%d listings kept, want at most %d", n, maxListings)
	}
	if a, b := x.listingOf(last), x.listingOf(last); a != b {
		t.Error("the latest listing was worked out again")
	}
}
