package context7

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// testKey is the API key the fake accepts.
const testKey = "ctx7sk-0123456789-secret"

// fakeLib is a library the fake Context7 serves.
type fakeLib struct {
	id, title, description string
	versions               []string
	code                   []apiCodeSnippet
	info                   []apiInfoSnippet
}

// fake is an httptest server following the Context7 API as documented in
// the package comment: /v2/libs/search, /v2/context (json and txt),
// /v1/search and /v1/{org}/{project}[/{version}] (txt), bearer keys, and
// errors as {"error", "message", "status"}. override, when set, answers a
// request instead.
type fake struct {
	srv *httptest.Server

	mu       sync.Mutex
	libs     map[string]*fakeLib
	requests []*http.Request
	override func(w http.ResponseWriter, r *http.Request) bool
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{libs: map[string]*fakeLib{}}
	for _, l := range fixtureLibs() {
		f.libs[l.id] = l
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// client returns a client of the fake with the test key.
func (f *fake) client(opts Options) *Client {
	opts.BaseURL = f.srv.URL + "/api"
	if opts.APIKey == "" {
		opts.APIKey = testKey
	}
	return New(opts)
}

func (f *fake) setOverride(h func(w http.ResponseWriter, r *http.Request) bool) {
	f.mu.Lock()
	f.override = h
	f.mu.Unlock()
}

func (f *fake) addLib(l *fakeLib) {
	f.mu.Lock()
	f.libs[l.id] = l
	f.mu.Unlock()
}

// count returns how many requests reached the fake.
func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.requests)
}

// last returns the last request that reached the fake.
func (f *fake) last(t *testing.T) *http.Request {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no request reached the fake")
	}
	return f.requests[len(f.requests)-1]
}

func apiError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": code, "message": msg, "status": status})
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(r.Context()))
	override := f.override
	f.mu.Unlock()
	if override != nil && override(w, r) {
		return
	}
	if r.Method != http.MethodGet {
		apiError(w, 405, "method_not_allowed", "GET only")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+testKey {
		apiError(w, 401, "invalid_api_key", "Invalid or expired API key")
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/api")
	if !ok {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	switch {
	case path == "/v2/libs/search":
		if q.Get("libraryName") == "" || q.Get("query") == "" {
			apiError(w, 400, "invalid_input", "query and libraryName are required")
			return
		}
		f.writeSearch(w, q.Get("libraryName"))
	case path == "/v1/search":
		if q.Get("query") == "" {
			apiError(w, 400, "invalid_input", "query is required")
			return
		}
		f.writeSearch(w, q.Get("query"))
	case path == "/v2/context":
		if q.Get("libraryId") == "" || q.Get("query") == "" {
			apiError(w, 400, "invalid_input", "query and libraryId are required")
			return
		}
		typ := q.Get("type")
		if typ == "" {
			typ = "txt"
		}
		if typ != "txt" && typ != "json" {
			apiError(w, 400, "invalid_type", "Invalid type parameter. Supported values: json, txt")
			return
		}
		lib, ok := f.lookup(w, q.Get("libraryId"))
		if !ok {
			return
		}
		code, info := lib.matching(q.Get("query"))
		if typ == "json" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"selectedLibrary": lib.id, "codeSnippets": code, "infoSnippets": info})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, v2Text(code, info))
	case strings.HasPrefix(path, "/v1/"):
		if q.Get("type") != "txt" {
			apiError(w, 400, "invalid_type", "this fake serves type=txt only")
			return
		}
		if t := q.Get("tokens"); t != "" {
			if _, err := strconv.Atoi(t); err != nil {
				apiError(w, 400, "invalid_tokens", "tokens must be a number")
				return
			}
		}
		lib, ok := f.lookup(w, strings.TrimPrefix(path, "/v1"))
		if !ok {
			return
		}
		code, info := lib.matching(q.Get("topic"))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, v1Text(code, info))
	default:
		apiError(w, 404, "not_found", "no such endpoint")
	}
}

func (f *fake) writeSearch(w http.ResponseWriter, name string) {
	f.mu.Lock()
	results := []map[string]any{}
	for _, l := range f.libs {
		n := strings.ToLower(name)
		if strings.Contains(strings.ToLower(l.id), n) || strings.Contains(strings.ToLower(l.title), n) {
			results = append(results, map[string]any{
				"id": l.id, "title": l.title, "description": l.description, "branch": "main",
				"lastUpdateDate": "2026-01-02T03:04:05.000Z", "state": "finalized",
				"totalTokens": 1000, "totalSnippets": len(l.code), "stars": -1, "trustScore": 9,
				"benchmarkScore": 88.5, "versions": l.versions,
			})
		}
	}
	f.mu.Unlock()
	// Best first: the shortest id that matches.
	slices.SortFunc(results, func(a, b map[string]any) int { return len(a["id"].(string)) - len(b["id"].(string)) })
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"results": results, "metadata": map[string]string{"authentication": "personal"}})
}

// lookup finds "/org/project[/version]", answering 404 as Context7 does.
func (f *fake) lookup(w http.ResponseWriter, id string) (*fakeLib, bool) {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) < 2 || len(segs) > 3 {
		apiError(w, 400, "invalid_format", "Invalid library format. Expected: owner/repo[/version]")
		return nil, false
	}
	f.mu.Lock()
	lib := f.libs["/"+segs[0]+"/"+segs[1]]
	f.mu.Unlock()
	if lib == nil {
		apiError(w, 404, "library_not_found", fmt.Sprintf("Library \"/%s/%s\" not found.", segs[0], segs[1]))
		return nil, false
	}
	if len(segs) == 3 && !slices.Contains(lib.versions, segs[2]) {
		apiError(w, 404, "tag_not_found", fmt.Sprintf("Tag '%s' not found for library %s", segs[2], lib.id))
		return nil, false
	}
	return lib, true
}

// matching returns the snippets mentioning a word of query, or all for
// the general query or none.
func (l *fakeLib) matching(query string) ([]apiCodeSnippet, []apiInfoSnippet) {
	if query == "" || query == GeneralQuery {
		return append([]apiCodeSnippet{}, l.code...), append([]apiInfoSnippet{}, l.info...)
	}
	words := strings.Fields(strings.ToLower(query))
	has := func(s string) bool {
		s = strings.ToLower(s)
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	code, info := []apiCodeSnippet{}, []apiInfoSnippet{}
	for _, c := range l.code {
		if has(c.CodeTitle + " " + c.CodeDescription) {
			code = append(code, c)
		}
	}
	for _, i := range l.info {
		if has(i.Breadcrumb + " " + i.Content) {
			info = append(info, i)
		}
	}
	return code, info
}

// v2Text renders snippets as /v2/context does with type=txt: code
// snippets then info snippets, 32 dashes between snippets of a kind, and
// only a blank line between the last code and the first info snippet.
func v2Text(code []apiCodeSnippet, info []apiInfoSnippet) string {
	var cs, is []string
	for _, c := range code {
		s, _ := codeSnippet(c)
		cs = append(cs, s.Text)
	}
	for _, i := range info {
		s, _ := infoSnippet(i)
		is = append(is, s.Text)
	}
	parts := []string{}
	if len(cs) > 0 {
		parts = append(parts, strings.Join(cs, "\n\n--------------------------------\n\n"))
	}
	if len(is) > 0 {
		parts = append(parts, strings.Join(is, "\n\n--------------------------------\n\n"))
	}
	return strings.Join(parts, "\n\n")
}

// v1Text renders snippets as the /v1 documentation endpoint does.
func v1Text(code []apiCodeSnippet, info []apiInfoSnippet) string {
	var parts []string
	for _, c := range code {
		var b strings.Builder
		fmt.Fprintf(&b, "TITLE: %s\nDESCRIPTION: %s\nSOURCE: %s\n", c.CodeTitle, c.CodeDescription, c.CodeID)
		for _, e := range c.CodeList {
			fmt.Fprintf(&b, "\nLANGUAGE: %s\nCODE:\n```\n%s\n```\n", e.Language, e.Code)
		}
		parts = append(parts, b.String())
	}
	for _, i := range info {
		parts = append(parts, fmt.Sprintf("TITLE: %s\nSOURCE: %s\n\n%s\n", i.Breadcrumb, i.PageID, i.Content))
	}
	return strings.Join(parts, "\n----------------------------------------\n\n")
}

func code(title, desc, lang, src string) apiCodeSnippet {
	s := apiCodeSnippet{CodeTitle: title, CodeDescription: desc, CodeLanguage: lang, CodeID: src + "#_snippet_0", PageTitle: title}
	s.CodeList = append(s.CodeList, struct {
		Language string `json:"language"`
		Code     string `json:"code"`
	}{lang, "// " + title + "\nrun()"})
	return s
}

func info(crumb, content, src string) apiInfoSnippet {
	return apiInfoSnippet{Breadcrumb: crumb, Content: content, PageID: src}
}

// fixtureLibs are the fake's libraries.
func fixtureLibs() []*fakeLib {
	next := &fakeLib{
		id: "/vercel/next.js", title: "Next.js", description: "The React Framework",
		versions: []string{"v16.0.3", "v15.1.8"},
		code: []apiCodeSnippet{
			code("Dynamic routes", "Create a dynamic routing segment.", "tsx", "https://github.com/vercel/next.js/blob/canary/docs/routing.mdx"),
			code("Enable PPR", "Turn on partial pre-rendering (PPR).", "js", "https://github.com/vercel/next.js/blob/canary/docs/ppr.mdx"),
		},
		info: []apiInfoSnippet{
			info("Routing > Overview", "The App Router uses file-system routing.", "https://github.com/vercel/next.js/blob/canary/docs/routing.mdx"),
			info("Rendering > Partial Pre-rendering", "PPR combines static and dynamic rendering: partial pre rendering.", "https://github.com/vercel/next.js/blob/canary/docs/ppr.mdx"),
			info("Getting started", "Install Next.js with create-next-app.", "https://github.com/vercel/next.js/blob/canary/docs/install.mdx"),
		},
	}
	react := &fakeLib{
		id: "/facebook/react", title: "React", description: "A JavaScript library for building user interfaces",
		code: []apiCodeSnippet{code("useState hook", "Hooks: store state in a component.", "jsx", "https://react.dev/reference/useState")},
		info: []apiInfoSnippet{info("Learn > Hooks", "Hooks let you use state and other React features.", "https://react.dev/learn/hooks")},
	}
	// prose has no code at all; examples has no prose.
	prose := &fakeLib{id: "/acme/prose", title: "Prose", info: []apiInfoSnippet{info("Guide", "Only words here, t.", "https://acme.dev/guide")}}
	examples := &fakeLib{id: "/acme/examples", title: "Examples", code: []apiCodeSnippet{code("Example t", "An example.", "go", "https://acme.dev/ex")}}
	// many has 25 info snippets about "t", for pages.
	many := &fakeLib{id: "/acme/many", title: "Many"}
	for i := 1; i <= 25; i++ {
		many.info = append(many.info, info(fmt.Sprintf("Part %02d", i), fmt.Sprintf("Snippet number %02d about t.", i), fmt.Sprintf("https://acme.dev/many/%d", i)))
	}
	// big has large snippets, for budgets.
	big := &fakeLib{id: "/acme/big", title: "Big"}
	for i := 1; i <= 5; i++ {
		var b strings.Builder
		for p := range 6 {
			fmt.Fprintf(&b, "Paragraph %d of part %d about budgets: %s\n\n", p, i, strings.Repeat("words fill the budget ", 12))
		}
		b.WriteString("```go\n" + strings.Repeat("x := budget()\n", 40) + "```")
		big.info = append(big.info, info(fmt.Sprintf("Budget part %d", i), b.String(), fmt.Sprintf("https://acme.dev/big/%d", i)))
	}
	return []*fakeLib{next, react, prose, examples, many, big}
}
