package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// sameWords reports whether got holds want's words in order, ignoring the
// fence language tags Cut repeats when it reopens a fence.
func sameWords(got, want []string) bool {
	i := 0
	for _, w := range got {
		if i < len(want) && w == want[i] {
			i++
		}
	}
	return i == len(want)
}

// hitsOf makes ranked hits of the given sizes; texts with the same key are
// duplicates.
func hitsOf(sizes []int, keys []string) []index.Hit {
	var hits []index.Hit
	for i, n := range sizes {
		var b strings.Builder
		for j := 0; j < n; j++ {
			fmt.Fprintf(&b, "w%s%d ", keys[i], j%50) // a vocabulary of the key's own
		}
		text := b.String()
		hits = append(hits, index.Hit{ID: fmt.Sprint(i), Meta: index.Meta{Anchor: fmt.Sprint(i), Tokens: n, Hash: index.TextHash(text), SimHash: index.SimHash(text)}})
	}
	return hits
}

func TestTrimToTokens(t *testing.T) {
	text := "## H\n\nFirst paragraph.\n\n```go\nfunc a() {}\n```\n\nLast paragraph.\n"
	if got := trimToTokens(text, 12); !strings.HasSuffix(got, "…") || strings.Contains(got, "```") {
		t.Errorf("trimToTokens = %q, want the text before the fence and an ellipsis", got)
	}
	if trimToTokens(text, 1000) != text {
		t.Error("text within budget was changed")
	}
}

func TestPackPages(t *testing.T) {
	none := func(int, headForm) int { return 0 }
	tests := []struct {
		name      string
		sizes     []int
		keys      []string
		budget    int
		truncated bool
		wantPages string // anchors per page, "|" between pages, "~" for trimmed
		wantDups  int
	}{
		{"all fit on one page", []int{100, 200, 300}, []string{"a", "b", "c"}, 1000, false, "0,1,2", 0},
		{"best first, the next page for the rest", []int{400, 400, 400}, []string{"a", "b", "c"}, 1000, false, "0,1|2", 0},
		{"a smaller section behind fills the room", []int{600, 500, 300, 100}, []string{"a", "b", "c", "d"}, 1000, false, "0,2,3|1", 0},
		{"the top section is larger than a page: trimmed, not dropped", []int{3000, 200}, []string{"a", "b"}, 1000, false, "0~|1", 0},
		{"a large section later leads the next page, trimmed", []int{200, 3000}, []string{"a", "b"}, 1000, false, "0|1~", 0},
		{"duplicates are dropped and counted", []int{100, 100, 100}, []string{"a", "a", "b"}, 1000, false, "0,2", 1},
		{"nothing", nil, nil, 1000, false, "", 0},
		// More match than were ranked: a page that ran out of sections
		// might have held one of the others, so it is not cut.
		{"truncated: a page filled stands, the last is left for a longer list", []int{500, 490, 300}, []string{"a", "b", "c"}, 1000, true, "0,1", 0},
		{"truncated: a page with room left is not cut", []int{400, 400, 400}, []string{"a", "b", "c"}, 1000, true, "", 0},
		{"truncated: a page ended by the lookahead stands", []int{600, 500, 500, 500, 500, 500, 500, 500, 500, 500}, []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}, 1000, true, "0|1,2|3,4|5,6|7,8", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := hitsOf(tt.sizes, tt.keys)
			pages, dups := packPages(hits, tt.budget, none, tt.truncated)
			var got []string
			for _, p := range pages {
				var ids []string
				used := 0
				for _, it := range p {
					id := hits[it.hit].Anchor
					if it.trim > 0 {
						id += "~"
						used += it.trim
					} else {
						used += hits[it.hit].Tokens
					}
					ids = append(ids, id)
				}
				if used > tt.budget {
					t.Errorf("page %v uses %d tokens, budget %d", ids, used, tt.budget)
				}
				got = append(got, strings.Join(ids, ","))
			}
			if g := strings.Join(got, "|"); g != tt.wantPages || dups != tt.wantDups {
				t.Errorf("pages %q, %d duplicates; want %q, %d", g, dups, tt.wantPages, tt.wantDups)
			}
		})
	}
}

func TestPackPagesPlacesEverySectionOnce(t *testing.T) {
	var sizes []int
	var keys []string
	for i := 0; i < 200; i++ {
		sizes = append(sizes, 50+(i*37)%900)
		keys = append(keys, fmt.Sprint(i))
	}
	hits := hitsOf(sizes, keys)
	none := func(int, headForm) int { return 0 }
	pages, dups := packPages(hits, 1500, none, false)
	seen := map[int]int{}
	for _, p := range pages {
		for _, it := range p {
			seen[it.hit]++
		}
	}
	if dups != 0 || len(seen) != len(hits) {
		t.Fatalf("%d of %d sections placed, %d duplicates", len(seen), len(hits), dups)
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("section %d placed %d times", i, n)
		}
	}
	again, _ := packPages(hits, 1500, none, false)
	if fmt.Sprint(again) != fmt.Sprint(pages) {
		t.Error("packing the same hits twice gave different pages")
	}
}

func TestDocsBudgetAndPages(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	for _, budget := range []int{request.MinTokens, 300, 1000, 5000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			req := DocsRequest{Library: "/acme/widgets", Query: "widget data source polling theme", Tokens: budget}
			first, err := e.Docs(ctx, req)
			if err != nil {
				t.Fatal(err)
			}
			if len(first.Sections) == 0 || first.Page != 1 || first.Pages < 1 || first.Matched == 0 {
				t.Fatalf("answer %+v: want sections on page 1 of some", first)
			}
			seen := map[string]bool{}
			for page := 1; page <= first.Pages; page++ {
				req.Page = page
				a, err := e.Docs(ctx, req)
				if err != nil {
					t.Fatalf("page %d: %v", page, err)
				}
				if n := tokens.Count(a.Markdown()); a.Tokens != n || n > budget {
					t.Errorf("page %d: renders to %d tokens, says %d, budget %d", page, n, a.Tokens, budget)
				}
				if len(a.Sections) == 0 {
					t.Errorf("page %d is empty", page)
				}
				for _, s := range a.Sections {
					id := s.Path + "#" + s.Anchor
					if seen[id] {
						t.Errorf("page %d repeats %s", page, id)
					}
					seen[id] = true
					if s.Library != "/acme/widgets" || s.Version != "v1.1.0" || len(s.Commit) != 40 || s.Path == "" || s.Text == "" {
						t.Errorf("section without provenance or text: %+v", s)
					}
				}
				if page < first.Pages && a.LeftOut == 0 {
					t.Errorf("page %d of %d says nothing is left out", page, first.Pages)
				}
			}
			req.Page = first.Pages + 1
			if _, err := e.Docs(ctx, req); !errors.Is(err, ErrPageNotFound) {
				t.Errorf("page past the last: %v, want ErrPageNotFound", err)
			}
		})
	}
}

func TestDocsRequests(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	tests := []struct {
		name     string
		req      DocsRequest
		err      error
		wantNote string
	}{
		{"tiny budget raised", DocsRequest{Library: "/acme/widgets", Query: "theme", Tokens: 5}, nil, "raised to the minimum of 200"},
		{"huge budget lowered", DocsRequest{Library: "/acme/widgets", Query: "theme", Tokens: 1 << 30}, nil, "lowered to the maximum of 50000"},
		{"negative budget raised", DocsRequest{Library: "/acme/widgets", Query: "theme", Tokens: -3}, nil, "raised to the minimum"},
		{"negative page", DocsRequest{Library: "/acme/widgets", Query: "theme", Page: -1}, request.ErrInvalidRequest, ""},
		{"query too long", DocsRequest{Library: "/acme/widgets", Query: strings.Repeat("a ", request.MaxQueryBytes)}, request.ErrInvalidRequest, ""},
		{"too many topics", DocsRequest{Library: "/acme/widgets", Topics: make([]string, request.MaxTopicsGiven+1)}, request.ErrInvalidRequest, ""},
		{"bad mode", DocsRequest{Library: "/acme/widgets", Query: "theme", Mode: "poetry"}, request.ErrInvalidMode, ""},
		{"traversal", DocsRequest{Library: "/acme/widgets", Path: "../../etc/passwd"}, request.ErrInvalidPath, ""},
		{"network path", DocsRequest{Library: "/acme/widgets", Path: "//server/etc/passwd"}, request.ErrInvalidPath, ""},
		{"unknown document", DocsRequest{Library: "/acme/widgets", Path: "docs/nope.md"}, ErrDocumentNotFound, ""},
		{"outline of a folder", DocsRequest{Library: "/acme/widgets", Path: "docs", Outline: true}, ErrDocumentNotFound, ""},
		{"unknown version", DocsRequest{Library: "/acme/widgets@v9", Query: "theme"}, catalog.ErrVersionNotFound, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := e.Docs(ctx, tt.req)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("error %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(a.Notes, "; "), tt.wantNote) {
				t.Errorf("notes %q, want %q", a.Notes, tt.wantNote)
			}
		})
	}
}

func TestDocsPaths(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	const doc = "docs/guides/data-sources.md"
	whole, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: doc, Tokens: request.MaxTokens})
	if err != nil || whole.Pages != 1 {
		t.Fatalf("the whole document: %+v, %v", whole, err)
	}
	var want []string
	for _, s := range whole.Sections {
		want = append(want, strings.Fields(s.Text)...)
	}
	// Reading a document page by page gives all of it, at any budget.
	for _, budget := range []int{request.MinTokens, 250, 5000} {
		a, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: doc, Tokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if a.Kind != KindDocument || a.Title != "Data sources" {
			t.Fatalf("answer %+v, want the document", a)
		}
		var got []string
		for page := 1; page <= a.Pages; page++ {
			p, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: doc, Tokens: budget, Page: page})
			if err != nil {
				t.Fatal(err)
			}
			if n := tokens.Count(p.Markdown()); n > budget {
				t.Errorf("budget %d page %d: renders to %d tokens", budget, page, n)
			}
			for _, s := range p.Sections {
				got = append(got, strings.Fields(strings.ReplaceAll(s.Text, "```", " ``` "))...)
			}
		}
		if !sameWords(got, strings.Fields(strings.ReplaceAll(strings.Join(want, " "), "```", " ``` "))) {
			t.Errorf("budget %d: %d pages hold %d words, want all %d of the document", budget, a.Pages, len(got), len(want))
		}
	}
	outline, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: doc, Outline: true})
	if err != nil || outline.Kind != KindOutline || len(outline.Outline) < 3 || outline.Outline[0].Title != "Data sources" {
		t.Fatalf("outline: %+v, %v", outline, err)
	}
	for _, o := range outline.Outline {
		if o.Tokens <= 0 || o.Level < 0 {
			t.Errorf("outline entry %+v without a size", o)
		}
	}
	folder, err := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: ".", Tokens: request.MinTokens})
	if err != nil || folder.Kind != KindFolder || folder.Pages < 2 {
		t.Fatalf("folder: %+v, %v; want several pages at %d tokens", folder, err, request.MinTokens)
	}
	n := 0
	for page := 1; page <= folder.Pages; page++ {
		p, _ := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Path: ".", Tokens: request.MinTokens, Page: page})
		if n := tokens.Count(p.Markdown()); n > request.MinTokens {
			t.Errorf("folder page %d renders to %d tokens", page, n)
		}
		n += len(p.Documents)
	}
	_, docs, _ := e.Documents(ctx, "/acme/widgets")
	if n != len(docs) {
		t.Errorf("folder pages list %d documents, want %d", n, len(docs))
	}
}

// TestSearchPagesAreStable walks a search's pages by separate calls, with
// few sections ranked per page so that later pages need more ranked: every
// matching section shows up exactly once (or is a counted duplicate), and
// no page claims to be the last while sections are left.
func TestSearchPagesAreStable(t *testing.T) {
	defer func(n int) { candidatesPerPage = n }(candidatesPerPage)
	candidatesPerPage = 3
	e := buildFixtures(t)
	ctx := context.Background()
	req := DocsRequest{Library: "/acme/widgets", Query: "widget data source polling theme config", Tokens: request.MinTokens}
	seen := map[string]bool{}
	var last *Answer
	for page := 1; ; page++ {
		req.Page = page
		a, err := e.Docs(ctx, req)
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		for _, s := range a.Sections {
			id := s.Path + "#" + s.Anchor
			if seen[id] {
				t.Errorf("page %d repeats %s", page, id)
			}
			seen[id] = true
		}
		last = a
		if a.Page >= a.Pages && !a.MorePages {
			break
		}
		if page > 100 {
			t.Fatal("no last page")
		}
	}
	if len(seen)+last.Duplicates != last.Matched || last.LeftOut != 0 {
		t.Errorf("pages showed %d sections and %d duplicates of %d matched, %d left out", len(seen), last.Duplicates, last.Matched, last.LeftOut)
	}
}

func TestSectionHead(t *testing.T) {
	tests := []struct {
		s    Section
		want string
	}{
		{Section{HeadingPath: []string{"CORS", "Use `CORSMiddleware`"}, Path: "docs/cors.md", Anchor: "use-corsmiddleware", Langs: []string{"py", "sh"}},
			"## CORS › Use `CORSMiddleware`\nSource: docs/cors.md#use-corsmiddleware (code: py, sh)\n\n"},
		{Section{HeadingPath: []string{"Intro"}, Path: "README.md"}, "## Intro\nSource: README.md\n\n"},
		{Section{Path: "a.md", Anchor: "x", Langs: []string{"go"}}, "## \nSource: a.md#x (code: go)\n\n"},
	}
	for _, tt := range tests {
		if got := sectionHead(&tt.s); got != tt.want {
			t.Errorf("sectionHead(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestSearchTokensWithTrimmedSections checks the token count of answers
// whose sections are trimmed to the budget: the count is summed from the
// sections' parts (see bodyTokens), and must be the rendering's.
func TestSearchTokensWithTrimmedSections(t *testing.T) {
	w := gittest.New(t, "main")
	var big strings.Builder
	big.WriteString("# Zebras\n\n## Stripes\n\n")
	for i := range 60 {
		fmt.Fprintf(&big, "Zebra stripes paragraph %d: every zebra has its own pattern of stripes, `zebra.stripes()` lists them.\n\n", i)
	}
	w.Write(map[string]string{
		"docs/zebras.md": big.String(),
		"docs/herd.md":   "# Herd\n\n## Herd size\n\nA zebra herd is a few zebras.\n\n```js\nherd.count(zebra)\n```\n",
	})
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	trimmed := 0
	for _, budget := range []int{request.MinTokens, 300, 700} {
		for _, mode := range []string{"", request.ModeCode} {
			a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/zoo", Query: "zebra stripes", Tokens: budget, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range a.Sections {
				if s.Trimmed {
					trimmed++
				}
			}
			if n := tokens.Count(a.Markdown()); a.Tokens != n || n > budget {
				t.Errorf("budget %d, mode %q: renders to %d tokens, says %d", budget, mode, n, a.Tokens)
			}
		}
	}
	if trimmed == 0 {
		t.Error("no section was trimmed: the test shows nothing")
	}
}

// TestChunksOnOnePageAreTold: a section too large to index whole is
// indexed in chunks that share its path and anchor; two on one page are
// told apart by Part, which callers that key by section need.
func TestChunksOnOnePageAreTold(t *testing.T) {
	w := gittest.New(t, "main")
	var b strings.Builder
	b.WriteString("# Zebras\n\n## Herds\n\n")
	for i := range 400 {
		fmt.Fprintf(&b, "Zebra herd w%dq w%dr w%ds w%dt graze w%du.\n\n", i*7, i*11, i*13, i*17, i*19)
	}
	w.Write(map[string]string{"docs/z.md": b.String()})
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/zoo", Query: "zebra herds graze", Tokens: 8000})
	if err != nil {
		t.Fatal(err)
	}
	anchors, parts := map[string]int{}, map[string]bool{}
	for _, s := range a.Sections {
		anchors[s.Path+"#"+s.Anchor]++
		parts[fmt.Sprintf("%s#%s:%d", s.Path, s.Anchor, s.Part)] = true
	}
	if anchors["docs/z.md#herds"] < 2 {
		t.Fatalf("want two chunks of docs/z.md#herds on the page, got %v: the test shows nothing", anchors)
	}
	if len(parts) != len(a.Sections) {
		t.Errorf("%d sections, %d distinct by path, anchor and part", len(a.Sections), len(parts))
	}
}
