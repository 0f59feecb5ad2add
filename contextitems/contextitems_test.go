package contextitems

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/mentions"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/tokens"
)

// fakeEngine serves a catalog of three libraries with canned sections.
// delay and fail make a library slow or failing; block makes it ignore
// its context until release is closed.
type fakeEngine struct {
	cat     *artifacts.Catalog
	delay   map[string]time.Duration
	fail    map[string]error
	block   map[string]bool
	release chan struct{}

	mu   sync.Mutex
	reqs []search.DocsRequest
}

func newFakeEngine() *fakeEngine {
	lib := func(id, title string, aliases ...string) artifacts.CatalogLib {
		return artifacts.CatalogLib{Library: artifacts.Library{ID: id, Title: title, Aliases: aliases}, Latest: "v1",
			Versions: []artifacts.CatalogVersion{{Version: "v1", Commit: "0123456789abcdef0123456789abcdef01234567", Path: strings.TrimPrefix(id, "/") + "/v1"}}}
	}
	return &fakeEngine{
		cat: &artifacts.Catalog{Libraries: []artifacts.CatalogLib{
			lib("/acme/cli", "Acme CLI"),
			lib("/acme/widgets", "Acme Widgets", "widgets"),
			lib("/vercel/next.js", "Next.js", "nextjs"),
		}},
		delay: map[string]time.Duration{}, fail: map[string]error{}, block: map[string]bool{}, release: make(chan struct{}),
	}
}

func (e *fakeEngine) Catalog() *artifacts.Catalog { return e.cat }

func (e *fakeEngine) Resolve(_ context.Context, id string) (*catalog.Resolved, error) {
	key := strings.ToLower(id)
	if key == "acme-deployer" {
		key = "/acme/cli" // a name only the engine's resolution knows
	}
	for i := range e.cat.Libraries {
		if l := &e.cat.Libraries[i]; strings.EqualFold(l.ID, key) {
			return &catalog.Resolved{Library: l, Version: &l.Versions[0]}, nil
		}
	}
	return nil, &catalog.LibraryError{Key: id}
}

func (e *fakeEngine) Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error) {
	e.mu.Lock()
	e.reqs = append(e.reqs, req)
	e.mu.Unlock()
	if e.block[req.Library] {
		<-e.release
	}
	select {
	case <-time.After(e.delay[req.Library]):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := e.fail[req.Library]; err != nil {
		return nil, err
	}
	r, err := e.Resolve(ctx, req.Library)
	if err != nil {
		return nil, err
	}
	ans := &search.Answer{Library: r.Library.ID, Version: "v1", Commit: r.Version.Commit}
	for i, h := range []string{"Deploy", "Configure", "Log in", "Uninstall"} {
		ans.Sections = append(ans.Sections, search.Section{
			Library: r.Library.ID, Version: "v1", Commit: r.Version.Commit,
			Path: "docs/" + strings.ToLower(strings.ReplaceAll(h, " ", "-")) + ".md", Anchor: "usage",
			Title: "Usage", HeadingPath: []string{h, "Usage"}, Tokens: 20, Relevance: 1 - 0.25*float64(i),
			Text: "## Usage\n\nHow to " + strings.ToLower(h) + " with " + r.Library.Title + ".\n",
		})
	}
	// A section an include brought into its page links to the file it
	// is written in.
	ans.Sections[1].Source = "docs/partials/configure.adoc"
	return ans, nil
}

func (e *fakeEngine) requests() []search.DocsRequest {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.reqs)
}

// fakeRemote knows /tanstack/query and /facebook/react by name.
type fakeRemote struct {
	delay      map[string]time.Duration // by library id
	failDocs   map[string]error
	relevances []float64

	mu    sync.Mutex
	names []string
}

func (r *fakeRemote) Resolve(ctx context.Context, name, query string) (string, error) {
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	switch name {
	case "TanStack Query":
		return "/tanstack/query", nil
	case "React":
		return "/facebook/react", nil
	}
	return "", fmt.Errorf("%w: no library matches %s", ErrUnknownLibrary, name)
}

func (r *fakeRemote) Docs(ctx context.Context, id, topic string, tokens int) ([]Snippet, error) {
	select {
	case <-time.After(r.delay[id]):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := r.failDocs[id]; err != nil {
		return nil, err
	}
	var out []Snippet
	for i := range 4 {
		s := Snippet{Title: fmt.Sprintf("Snippet %d", i), Text: fmt.Sprintf("Use %s like this.\n\n```js\ncall(%d)\n```", id, i),
			URL: fmt.Sprintf("https://docs.example/%s/%d", strings.Trim(id, "/"), i), Version: "5.0.0"}
		if i < len(r.relevances) {
			s.Relevance = r.relevances[i]
		}
		out = append(out, s)
	}
	return out, nil
}

func (r *fakeRemote) asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.names)
}

// libs renders Result.Libraries as "name=status" for comparison.
func libs(r *Result) []string {
	var out []string
	for _, l := range r.Libraries {
		out = append(out, l.Name+"="+l.Status)
	}
	return out
}

func TestAssembleLocal(t *testing.T) {
	e := newFakeEngine()
	repos := func(lib, version string) string { return "https://github.com" + lib + ".git" }
	prompt := "How do I deploy with the Acme CLI?\n\n```\nacme deploy --prod\n```\nAnd the acme widgets config."
	res := Assemble(context.Background(), prompt, Options{Engine: e, Repos: repos, Tokens: 1000, PerLibrary: 2})
	if got, want := libs(res), []string{"Acme CLI=ok", "Acme Widgets=ok"}; !slices.Equal(got, want) {
		t.Fatalf("libraries %q, want %q", got, want)
	}
	if len(res.Items) != 4 {
		t.Fatalf("%d items, want 2 per library: %+v", len(res.Items), res.Items)
	}
	want := Item{
		ID: "codex7:/acme/cli@v1:docs/deploy.md#usage", Source: SourceLocal, Title: "Acme CLI: Deploy › Usage",
		Summary: "How to deploy with Acme CLI.", Excerpt: "## Usage\n\nHow to deploy with Acme CLI.\n", Relevance: 1,
		Library: "/acme/cli", Version: "v1", Path: "docs/deploy.md",
		URL:    "https://github.com/acme/cli/blob/0123456789abcdef0123456789abcdef01234567/docs/deploy.md#usage",
		Commit: "0123456789abcdef0123456789abcdef01234567", Anchor: "usage", Tokens: 20,
	}
	if res.Items[0] != want {
		t.Errorf("first item\n got %+v\nwant %+v", res.Items[0], want)
	}
	// Section relevance times library relevance: both libraries are named
	// by their titles, so both are at 1.
	if res.Items[1].Relevance != 0.75 || res.Items[2].Library != "/acme/widgets" {
		t.Errorf("items %+v", res.Items)
	}
	if u := res.Items[1].URL; !strings.HasSuffix(u, "/blob/0123456789abcdef0123456789abcdef01234567/docs/partials/configure.adoc#usage") || res.Items[1].Path != "docs/configure.md" {
		t.Errorf("an included section's item: path %q, URL %q; want its page and a link to the file it is written in", res.Items[1].Path, u)
	}
	for _, r := range e.requests() {
		if r.Tokens != 500 || strings.Contains(r.Query, "--prod") || !strings.Contains(r.Query, "How do I deploy") {
			t.Errorf("request %+v: want half the tokens each and the prose of the prompt as query", r)
		}
	}
}

func TestAssembleRemote(t *testing.T) {
	e := newFakeEngine()
	remote := &fakeRemote{relevances: []float64{0.9}}
	res := Assemble(context.Background(), "npm i @tanstack/react-query, then deploy it with the Acme CLI and nextjs", Options{Engine: e, Remote: remote})
	if got, want := libs(res), []string{"TanStack Query=ok", "Acme CLI=ok", "Next.js=ok"}; !slices.Equal(got, want) {
		t.Fatalf("libraries %q, want %q", got, want)
	}
	if got := remote.asked(); !slices.Equal(got, []string{"TanStack Query"}) {
		t.Errorf("the remote was asked for %q; local libraries must never be sent to it", got)
	}
	l := res.Libraries[0]
	if l.ID != "/tanstack/query" || l.Source != SourceRemote || l.Version != "5.0.0" || len(l.Found) != 1 || l.Found[0].Via != "npm" {
		t.Errorf("remote library %+v", l)
	}
	var remoteItems []Item
	for _, it := range res.Items {
		if it.Source == SourceRemote {
			remoteItems = append(remoteItems, it)
		}
	}
	if len(remoteItems) != DefaultPerLibrary {
		t.Fatalf("%d remote items, want %d", len(remoteItems), DefaultPerLibrary)
	}
	first := remoteItems[0]
	if first.ID != "context7:/tanstack/query:0" || first.Title != "TanStack Query: Snippet 0" || first.Library != "/tanstack/query" ||
		first.URL != "https://docs.example/tanstack/query/0" || first.Relevance != 0.9 || first.Summary != "Use /tanstack/query like this." || first.Path != "" {
		t.Errorf("first remote item %+v", first)
	}
	// Without a score, the order ranks snippets.
	if remoteItems[1].Relevance != 0.9 || remoteItems[2].Relevance != 0.8 {
		t.Errorf("remote relevances %v, %v; want 0.9 and 0.8 by rank", remoteItems[1].Relevance, remoteItems[2].Relevance)
	}
}

func TestAssembleTimeBudget(t *testing.T) {
	e := newFakeEngine()
	e.delay["/acme/cli"] = 10 * time.Second // honours its context
	e.block["/acme/widgets"] = true         // ignores it
	defer close(e.release)
	remote := &fakeRemote{delay: map[string]time.Duration{"/facebook/react": 10 * time.Second}}
	start := time.Now()
	res := Assemble(context.Background(), "Deploy the Acme CLI and Acme Widgets in a Next.js app that uses React hooks",
		Options{Engine: e, Remote: remote, Timeout: 300 * time.Millisecond})
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Assemble took %v with a 300ms budget", d)
	}
	want := []string{"Acme CLI=timeout", "Acme Widgets=timeout", "Next.js=ok", "React=timeout"}
	if got := libs(res); !slices.Equal(got, want) {
		t.Fatalf("libraries %q, want %q", got, want)
	}
	for _, it := range res.Items {
		if it.Library != "/vercel/next.js" {
			t.Errorf("item of a library that did not answer in time: %+v", it)
		}
	}
	if len(res.Items) == 0 {
		t.Error("the library that answered in time gave no items")
	}
}

func TestAssembleDegrades(t *testing.T) {
	e := newFakeEngine()
	remote := &fakeRemote{failDocs: map[string]error{"/facebook/react": errors.New("429 too many requests")}}
	e.fail["/acme/widgets"] = errors.New("index damaged")
	prompt := "pip install left-pad-py\nnpm i acme-deployer\nConfigure Acme Widgets. Also `react` hooks and npm i @tanstack/react-query"
	res := Assemble(context.Background(), prompt, Options{Engine: e, Remote: remote})
	want := []string{"left-pad-py=unknown", "acme-deployer=ok", "TanStack Query=ok", "Acme Widgets=error", "React=error"}
	if got := libs(res); !slices.Equal(got, want) {
		t.Fatalf("libraries %q, want %q", got, want)
	}
	if l := res.Libraries[1]; l.ID != "/acme/cli" || l.Source != SourceLocal {
		t.Errorf("a name the engine resolves is served locally: %+v", l)
	}
	got := remote.asked()
	slices.Sort(got)
	if !slices.Equal(got, []string{"React", "TanStack Query", "left-pad-py"}) {
		t.Errorf("the remote was asked for %q", got)
	}
	if l := res.Libraries[3]; l.Error != "index damaged" || l.Source != SourceLocal {
		t.Errorf("local failure %+v", l)
	}
	for _, it := range res.Items {
		if it.Library == "/acme/widgets" || it.Library == "/facebook/react" {
			t.Errorf("item of a failed library: %+v", it)
		}
	}

	// Nothing to search at all: the libraries are still listed.
	res = Assemble(context.Background(), "npm i react-query", Options{})
	if got := libs(res); !slices.Equal(got, []string{"react-query=unknown"}) || len(res.Items) != 0 {
		t.Errorf("without engine or remote: %q, %d items", got, len(res.Items))
	}
	// Nothing found: empty lists, not nil, for JSON.
	res = Assemble(context.Background(), "what are the next steps?", Options{Engine: e})
	if res.Libraries == nil || res.Items == nil || len(res.Libraries)+len(res.Items) != 0 {
		t.Errorf("nothing found: %+v", res)
	}
}

// TestAssembleSharesTheTokenBudget: Options.Tokens is the budget of all
// items together. When it cannot give every library found the least a
// search answers with (request.MinTokens), the best-evidenced libraries
// are asked within it and the others are listed as left out for want of
// budget, saying what budget would cover them, never asked over it.
func TestAssembleSharesTheTokenBudget(t *testing.T) {
	prompt := "Deploy the Acme Widgets with the Acme CLI on Next.js"
	for _, tc := range []struct {
		tokens int
		want   []string
		each   int
	}{
		{400, []string{"Acme Widgets=ok", "Acme CLI=ok", "Next.js=no budget"}, 200},
		{599, []string{"Acme Widgets=ok", "Acme CLI=ok", "Next.js=no budget"}, 299},
		{200, []string{"Acme Widgets=ok", "Acme CLI=no budget", "Next.js=no budget"}, 200},
		{100, []string{"Acme Widgets=ok", "Acme CLI=no budget", "Next.js=no budget"}, 200}, // raised to the minimum
		{600, []string{"Acme Widgets=ok", "Acme CLI=ok", "Next.js=ok"}, 200},
		{0, []string{"Acme Widgets=ok", "Acme CLI=ok", "Next.js=ok"}, DefaultTokens / 3},
	} {
		e := newFakeEngine()
		res := Assemble(context.Background(), prompt, Options{Engine: e, Tokens: tc.tokens})
		if got := libs(res); !slices.Equal(got, tc.want) {
			t.Errorf("tokens %d: libraries %q, want %q", tc.tokens, got, tc.want)
		}
		total, asked := 0, 0
		for _, r := range e.requests() {
			total += r.Tokens
			asked++
			if r.Tokens != tc.each {
				t.Errorf("tokens %d: request %+v, want %d tokens", tc.tokens, r, tc.each)
			}
		}
		if budget := max(tc.tokens, request.MinTokens); tc.tokens != 0 && total > budget {
			t.Errorf("tokens %d: %d asked in all, over the budget", tc.tokens, total)
		}
		for _, l := range res.Libraries {
			if l.Status != StatusNoBudget {
				continue
			}
			asked++
			if !strings.Contains(l.Error, "a budget of 600 would cover them all") || l.ID != "" {
				t.Errorf("tokens %d: %+v: want the budget that would cover every library", tc.tokens, l)
			}
			for _, it := range res.Items {
				if it.Title == l.Name || strings.HasPrefix(it.Title, l.Name+":") {
					t.Errorf("tokens %d: item %+v of a library left out", tc.tokens, it)
				}
			}
		}
		if asked != 3 {
			t.Errorf("tokens %d: %d libraries asked or listed as left out, want all 3", tc.tokens, asked)
		}
	}
}

func TestShare(t *testing.T) {
	for _, tc := range []struct{ budget, n, asked, tokens int }{
		{2000, 5, 5, 400},
		{2000, 1, 1, 2000},
		{400, 3, 2, 200},
		{500, 3, 2, 250},
		{200, 5, 1, 200},
		{999, 5, 4, 249},
		{1000, 5, 5, 200},
	} {
		asked, tokens := share(tc.budget, tc.n)
		if asked != tc.asked || tokens != tc.tokens {
			t.Errorf("share(%d, %d) = %d, %d; want %d, %d", tc.budget, tc.n, asked, tokens, tc.asked, tc.tokens)
		}
		if asked*tokens > tc.budget || tokens < request.MinTokens {
			t.Errorf("share(%d, %d) = %d × %d: over the budget or under the minimum", tc.budget, tc.n, asked, tokens)
		}
	}
}

func TestKnown(t *testing.T) {
	cat := &artifacts.Catalog{Libraries: []artifacts.CatalogLib{
		{Library: artifacts.Library{ID: "/TanStack/query", Title: "TanStack Query"}},
		{Library: artifacts.Library{ID: "/mongodb/docs", Title: "MongoDB Docs", Aliases: []string{"mongo"}}},
	}}
	local := Known(cat, false)
	if len(local) != 2 {
		t.Fatalf("Known(cat, false) = %d libraries, want the catalog's 2", len(local))
	}
	if !slices.Contains(local[0].Names, "@tanstack/react-query") || local[0].ID != "/TanStack/query" {
		t.Errorf("a catalog library gets the well-known names of its id: %+v", local[0])
	}
	if want := []string{"MongoDB Docs", "docs", "mongodb", "mongo"}; !slices.Equal(local[1].Names, want) {
		t.Errorf("names %q, want %q (the org of a generic project)", local[1].Names, want)
	}
	all := Known(cat, true)
	if len(all) <= 2 || all[2].ID == "/tanstack/query" {
		t.Errorf("Known(cat, true) must add the well-known libraries the catalog lacks, once")
	}
	for _, l := range all[2:] {
		if strings.EqualFold(l.ID, "/tanstack/query") {
			t.Errorf("%s listed twice", l.ID)
		}
	}
	// A project named with a site's generic words is found by its short
	// name, as resolve-library-id finds it.
	cat = &artifacts.Catalog{Libraries: []artifacts.CatalogLib{
		{Library: artifacts.Library{ID: "/reactjs/react.dev"}}, {Library: artifacts.Library{ID: "/keras-team/keras-io"}}}}
	x := mentions.NewIndex(Known(cat, false))
	for prompt, want := range map[string]string{
		"React hooks: when should I use useMemo?":     "/reactjs/react.dev",
		"In React, how do I pass data to a child?":    "/reactjs/react.dev",
		"Keras callbacks: stop training on a plateau": "/keras-team/keras-io",
	} {
		if got := x.Detect(prompt); len(got) != 1 || got[0].ID != want {
			t.Errorf("Detect(%q) = %+v, want %s", prompt, got, want)
		}
	}
	// A well-known library with a generic name does not get its org, a
	// company's name: "Microsoft" is no mention of Playwright.
	cat = &artifacts.Catalog{Libraries: []artifacts.CatalogLib{{Library: artifacts.Library{ID: "/microsoft/playwright", Title: "Playwright"}}}}
	if l := Known(cat, false)[0]; slices.Contains(l.Names, "microsoft") || !slices.Contains(l.Names, "@playwright/test") {
		t.Errorf("names %q: want the well-known names and not the org", l.Names)
	}
	if got := mentions.NewIndex(Known(cat, false)).Detect("Deploy the site to Microsoft Azure"); len(got) != 0 {
		t.Errorf("Detect = %+v, want nothing", got)
	}
}

func TestMarkdown(t *testing.T) {
	if md := (&Result{}).Markdown(); md != "" {
		t.Errorf("no items: %q, want nothing", md)
	}
	res := Assemble(context.Background(), "npm i react-query; deploy with the Acme CLI",
		Options{Engine: newFakeEngine(), Remote: &fakeRemote{}, PerLibrary: 1, Repos: func(string, string) string { return "git@github.com:acme/cli.git" }})
	md := res.Markdown()
	for _, want := range []string{
		"# Documentation for this prompt\n",
		"Codex7 found TanStack Query (/tanstack/query@5.0.0, Context7), Acme CLI (/acme/cli@v1) in the prompt.",
		"\n## TanStack Query: Snippet 0\n\nSource: Context7 `/tanstack/query` · <https://docs.example/tanstack/query/0>\n\nUse /tanstack/query like this.",
		"\n## Acme CLI: Deploy › Usage\n\nSource: `/acme/cli@v1` · `docs/deploy.md#usage` · commit 0123456789ab · <https://github.com/acme/cli/blob/0123456789abcdef0123456789abcdef01234567/docs/deploy.md#usage>\n\nHow to deploy with Acme CLI.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "## Usage") {
		t.Errorf("the excerpt's own heading is repeated:\n%s", md)
	}
}

func TestSourceURL(t *testing.T) {
	const c = "abc123"
	tests := []struct{ repo, want string }{
		{"https://github.com/vercel/next.js", "https://github.com/vercel/next.js/blob/abc123/docs/a.md#x"},
		{"https://github.com/vercel/next.js.git", "https://github.com/vercel/next.js/blob/abc123/docs/a.md#x"},
		{"git@github.com:vercel/next.js.git", "https://github.com/vercel/next.js/blob/abc123/docs/a.md#x"},
		{"ssh://git@github.com/vercel/next.js.git", "https://github.com/vercel/next.js/blob/abc123/docs/a.md#x"},
		{"https://gitlab.com/group/sub/project", "https://gitlab.com/group/sub/project/-/blob/abc123/docs/a.md#x"},
		{"https://gitlab.example.com/team/docs.git", "https://gitlab.example.com/team/docs/-/blob/abc123/docs/a.md#x"},
		{"https://bitbucket.org/team/repo", "https://bitbucket.org/team/repo/src/abc123/docs/a.md#x"},
		{"https://codeberg.org/team/repo", "https://codeberg.org/team/repo/src/commit/abc123/docs/a.md#x"},
		{"https://git.example.com/team/repo", ""},
		{"..", ""},
		{"/srv/repos/docs", ""},
		{"file:///srv/repos/docs", ""},
		{"https://github.com/", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := SourceURL(tt.repo, c, "docs/a.md", "x"); got != tt.want {
			t.Errorf("SourceURL(%q) = %q, want %q", tt.repo, got, tt.want)
		}
	}
	// A file name with a space, "#" or "?" is escaped: the URL is one,
	// and names the file rather than a fragment or a query.
	for path, want := range map[string]string{
		"docs/Getting Started.md": "https://github.com/o/r/blob/abc123/docs/Getting%20Started.md#x",
		"docs/C#.md":              "https://github.com/o/r/blob/abc123/docs/C%23.md#x",
		"docs/why?.md":            "https://github.com/o/r/blob/abc123/docs/why%3F.md#x",
	} {
		if got := SourceURL("https://github.com/o/r", c, path, "x"); got != want {
			t.Errorf("SourceURL(path %q) = %q, want %q", path, got, want)
		}
	}
}

func TestSummary(t *testing.T) {
	tests := []struct{ md, want string }{
		{"## Usage\n\nRun **it** with [the CLI](https://x.dev).\nTwice.\n\nMore.", "Run it with the CLI. Twice."},
		{"Setext\n------\n\nProse here.", "Prose here."},
		{"## Code only\n\n```js\nconst a = 1\n```", "const a = 1"},
		{"## Table\n\n| A | B |\n|---|---|\n| 1 | 2 |", "A ; B 1 ; 2"},
		{"- one item\n- two", "one item two"},
		{strings.Repeat("word ", 100), strings.TrimSpace(strings.Repeat("word ", 40)) + "…"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Summary(tt.md); got != tt.want {
			t.Errorf("Summary(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
}

func TestQuery(t *testing.T) {
	tests := []struct{ prompt, want string }{
		{"How do I\n  deploy?\n\n```sh\nacme deploy --prod\n```\nThanks", "How do I deploy? Thanks"},
		{"```\nonly code\n```", "``` only code ```"},
		{strings.Repeat("ab ", 600), strings.TrimSpace(strings.Repeat("ab ", 333))},
		// Control and invisible characters, which remote services refuse in
		// a topic, become spaces; emoji stay.
		{"routes in next.js? 🧑\u200d💻", "routes in next.js? 🧑 💻"},
		{"next.js\u200broutes\ufeff", "next.js routes"},
		{"fails: \x1b[31mError\x1b[0m\x00", "fails: [31mError [0m"},
		{"bad \xff\xfebytes, a real \ufffd", "bad bytes, a real \ufffd"},
		{"\u202eright-to-left\u202c\tand\u00adsoft", "right-to-left and soft"},
		{"```\ncode\u200b\n```", "``` code ```"},
	}
	for _, tt := range tests {
		if got := Query(tt.prompt); got != tt.want {
			t.Errorf("Query(%q) = %q, want %q", tt.prompt, got, tt.want)
		}
	}
}

// TestMarkdownKeepsAFenceOpeningOnADashLine: an excerpt that starts with
// a code block whose first line is "---" (YAML front matter) has no
// setext heading to drop: dropping the fence's opening line would leave
// its closing one to open a fence that swallows the items after it.
func TestMarkdownKeepsAFenceOpeningOnADashLine(t *testing.T) {
	res := &Result{
		Libraries: []Library{{Name: "Acme", ID: "/acme/site", Version: "v1", Status: StatusOK}},
		Items: []Item{
			{Title: "Acme: Front matter", Source: SourceLocal, Library: "/acme/site", Version: "v1", Path: "docs/a.md",
				Excerpt: "```yaml\n---\ntitle: Home\n---\n```"},
			{Title: "Acme: Pages", Source: SourceLocal, Library: "/acme/site", Version: "v1", Path: "docs/b.md",
				Excerpt: "## Pages\n\nPages are files."},
		},
	}
	md := res.Markdown()
	if !strings.Contains(md, "```yaml\n---\ntitle: Home\n---\n```\n") {
		t.Errorf("the first excerpt's code block lost its opening:\n%s", md)
	}
	if strings.Count(md, "```")%2 != 0 {
		t.Errorf("a fence is left open:\n%s", md)
	}
}

// TestMarkdownTitleOnOneLine: a title holding a newline (Context7 writes
// its own) stays the item's heading, and its second line does not become
// the excerpt's first.
func TestMarkdownTitleOnOneLine(t *testing.T) {
	res := &Result{
		Libraries: []Library{{Name: "React", ID: "/facebook/react", Status: StatusOK, Source: SourceRemote}},
		Items: []Item{{Title: "useEffect\n# Not a heading\r\nof the prompt", Source: SourceRemote, Library: "/facebook/react",
			Excerpt: "Runs after render."}},
	}
	md := res.Markdown()
	if !strings.Contains(md, "\n## useEffect # Not a heading of the prompt\n\n") || strings.Contains(md, "\n# Not a heading") {
		t.Errorf("the title is not one heading line:\n%s", md)
	}
}

// trimmingEngine answers as fakeEngine does, with its first section
// trimmed to the budget (search.Section.Trimmed): its Tokens stay the
// whole section's.
type trimmingEngine struct{ *fakeEngine }

func (e trimmingEngine) Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error) {
	ans, err := e.fakeEngine.Docs(ctx, req)
	if err != nil {
		return nil, err
	}
	s := &ans.Sections[0]
	s.Text, s.Trimmed, s.Tokens = "## Usage\n\nHow to deploy.\n\n…", true, 5000
	return ans, nil
}

// TestItemTokensOfATrimmedSection: an item's Tokens is its excerpt's
// size, also when the section was cut to the budget.
func TestItemTokensOfATrimmedSection(t *testing.T) {
	res := Assemble(context.Background(), "deploy with the Acme CLI", Options{Engine: trimmingEngine{newFakeEngine()}})
	if len(res.Items) == 0 {
		t.Fatalf("no items: %+v", res.Libraries)
	}
	it := res.Items[0]
	if want := tokens.Count(it.Excerpt); it.Tokens != want {
		t.Errorf("item Tokens = %d, want %d (the excerpt %q)", it.Tokens, want, it.Excerpt)
	}
}

// chunkingEngine answers as fakeEngine does, with its second section
// another chunk of its first: the same path and anchor, Part 1.
type chunkingEngine struct{ *fakeEngine }

func (e chunkingEngine) Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error) {
	ans, err := e.fakeEngine.Docs(ctx, req)
	if err != nil {
		return nil, err
	}
	second := ans.Sections[0]
	second.Part, second.Text = 1, "## Usage\n\nMore on deploying."
	ans.Sections[1] = second
	return ans, nil
}

// TestItemIDsOfChunksDiffer: two chunks of one section, which share its
// path and anchor, are two items with two ids.
func TestItemIDsOfChunksDiffer(t *testing.T) {
	res := Assemble(context.Background(), "deploy with the Acme CLI", Options{Engine: chunkingEngine{newFakeEngine()}})
	if len(res.Items) < 2 {
		t.Fatalf("%d items, want at least 2: %+v", len(res.Items), res.Libraries)
	}
	seen := map[string]bool{}
	for _, it := range res.Items {
		if seen[it.ID] {
			t.Errorf("id %q given to two items", it.ID)
		}
		seen[it.ID] = true
	}
}
