// Package context7test provides a fake of the hosted Context7 API for
// tests: an httptest server that follows the contract written down in
// package context7's documentation, with libraries a test chooses, and
// hooks to make it fail.
package context7test

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

// Key is the only API key the server accepts.
const Key = "ctx7sk-test-0123456789-secret"

// GeneralQuery is the query for which /v2/context returns every snippet of
// a library (context7.GeneralQuery, which this package cannot import).
const GeneralQuery = "overview, installation and getting started"

// CodeExample is one entry of a code snippet's codeList.
type CodeExample struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

// CodeSnippet is a code snippet as /v2/context sends it.
type CodeSnippet struct {
	CodeTitle       string        `json:"codeTitle"`
	CodeDescription string        `json:"codeDescription"`
	CodeLanguage    string        `json:"codeLanguage"`
	CodeTokens      int           `json:"codeTokens"`
	CodeID          string        `json:"codeId"`
	PageTitle       string        `json:"pageTitle"`
	CodeList        []CodeExample `json:"codeList"`
}

// InfoSnippet is an info snippet as /v2/context sends it.
type InfoSnippet struct {
	PageID        string `json:"pageId"`
	Breadcrumb    string `json:"breadcrumb"`
	Content       string `json:"content"`
	ContentTokens int    `json:"contentTokens"`
}

// Library is a library the server knows.
type Library struct {
	ID, Title, Description string
	Versions               []string
	Code                   []CodeSnippet
	Info                   []InfoSnippet
}

// Code returns a code snippet with one example.
func Code(title, desc, lang, source string) CodeSnippet {
	return CodeSnippet{
		CodeTitle: title, CodeDescription: desc, CodeLanguage: lang, CodeID: source + "#_snippet_0", PageTitle: title,
		CodeList: []CodeExample{{Language: lang, Code: "// " + title + "\nrun()"}},
	}
}

// Info returns an info snippet.
func Info(breadcrumb, content, source string) InfoSnippet {
	return InfoSnippet{Breadcrumb: breadcrumb, Content: content, PageID: source}
}

// Server is a fake Context7. It is safe for concurrent use.
type Server struct {
	*httptest.Server

	mu       sync.Mutex
	libs     map[string]Library
	requests []*http.Request
	override func(w http.ResponseWriter, r *http.Request) bool
}

// NewServer starts a fake Context7 serving libs, closed when the test
// ends.
func NewServer(t testing.TB, libs ...Library) *Server {
	s := &Server{libs: map[string]Library{}}
	for _, l := range libs {
		s.libs[l.ID] = l
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// BaseURL is the API base to give a client: the server's URL and /api.
func (s *Server) BaseURL() string { return s.URL + "/api" }

// Add adds or replaces a library.
func (s *Server) Add(l Library) {
	s.mu.Lock()
	s.libs[l.ID] = l
	s.mu.Unlock()
}

// Override makes h see every request first; it answers those for which
// it returns true. nil removes it.
func (s *Server) Override(h func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.override = h
	s.mu.Unlock()
}

// Count returns how many requests reached the server.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// Last returns the last request that reached the server, or nil.
func (s *Server) Last() *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return nil
	}
	return s.requests[len(s.requests)-1]
}

// APIError answers as Context7 does on error.
func APIError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": code, "message": msg, "status": status})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, r.Clone(r.Context()))
	override := s.override
	s.mu.Unlock()
	if override != nil && override(w, r) {
		return
	}
	if r.Method != http.MethodGet {
		APIError(w, 405, "method_not_allowed", "GET only")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Key {
		APIError(w, 401, "invalid_api_key", "Invalid or expired API key")
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
			APIError(w, 400, "invalid_input", "query and libraryName are required")
			return
		}
		s.writeSearch(w, q.Get("libraryName"))
	case path == "/v1/search":
		if q.Get("query") == "" {
			APIError(w, 400, "invalid_input", "query is required")
			return
		}
		s.writeSearch(w, q.Get("query"))
	case path == "/v2/context":
		if q.Get("libraryId") == "" || q.Get("query") == "" {
			APIError(w, 400, "invalid_input", "query and libraryId are required")
			return
		}
		typ := q.Get("type")
		if typ == "" {
			typ = "txt"
		}
		if typ != "txt" && typ != "json" {
			APIError(w, 400, "invalid_type", "Invalid type parameter. Supported values: json, txt")
			return
		}
		lib, ok := s.lookup(w, q.Get("libraryId"))
		if !ok {
			return
		}
		code, info := lib.matching(q.Get("query"))
		if typ == "json" {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"selectedLibrary": lib.ID, "codeSnippets": code, "infoSnippets": info})
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, V2Text(code, info))
	case strings.HasPrefix(path, "/v1/"):
		if q.Get("type") != "txt" {
			APIError(w, 400, "invalid_type", "this fake serves type=txt only")
			return
		}
		if t := q.Get("tokens"); t != "" {
			if _, err := strconv.Atoi(t); err != nil {
				APIError(w, 400, "invalid_tokens", "tokens must be a number")
				return
			}
		}
		lib, ok := s.lookup(w, strings.TrimPrefix(path, "/v1"))
		if !ok {
			return
		}
		code, info := lib.matching(q.Get("topic"))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, V1Text(code, info))
	default:
		APIError(w, 404, "not_found", "no such endpoint")
	}
}

// writeSearch answers libraries whose id or title contains name, shortest
// id first.
func (s *Server) writeSearch(w http.ResponseWriter, name string) {
	s.mu.Lock()
	results := []map[string]any{}
	n := strings.ToLower(name)
	for _, l := range s.libs {
		if strings.Contains(strings.ToLower(l.ID), n) || strings.Contains(strings.ToLower(l.Title), n) {
			results = append(results, map[string]any{
				"id": l.ID, "title": l.Title, "description": l.Description, "branch": "main",
				"lastUpdateDate": "2026-01-02T03:04:05.000Z", "state": "finalized",
				"totalTokens": 1000, "totalSnippets": len(l.Code), "stars": -1, "trustScore": 9,
				"benchmarkScore": 88.5, "versions": l.Versions,
			})
		}
	}
	s.mu.Unlock()
	slices.SortFunc(results, func(a, b map[string]any) int {
		if d := len(a["id"].(string)) - len(b["id"].(string)); d != 0 {
			return d
		}
		return strings.Compare(a["id"].(string), b["id"].(string))
	})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"results": results, "metadata": map[string]string{"authentication": "personal"}})
}

// lookup finds "/org/project[/version]", answering 400 or 404 as Context7
// does.
func (s *Server) lookup(w http.ResponseWriter, id string) (Library, bool) {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) < 2 || len(segs) > 3 {
		APIError(w, 400, "invalid_format", "Invalid library format. Expected: owner/repo[/version]")
		return Library{}, false
	}
	s.mu.Lock()
	lib, ok := s.libs["/"+segs[0]+"/"+segs[1]]
	s.mu.Unlock()
	if !ok {
		APIError(w, 404, "library_not_found", fmt.Sprintf("Library \"/%s/%s\" not found.", segs[0], segs[1]))
		return Library{}, false
	}
	if len(segs) == 3 && !slices.Contains(lib.Versions, segs[2]) {
		APIError(w, 404, "tag_not_found", fmt.Sprintf("Tag '%s' not found for library %s", segs[2], lib.ID))
		return Library{}, false
	}
	return lib, true
}

// matching returns the snippets mentioning a word of query, or all of
// them for GeneralQuery or no query.
func (l Library) matching(query string) ([]CodeSnippet, []InfoSnippet) {
	code, info := []CodeSnippet{}, []InfoSnippet{}
	words := strings.Fields(strings.ToLower(query))
	has := func(s string) bool {
		if query == "" || query == GeneralQuery {
			return true
		}
		s = strings.ToLower(s)
		for _, w := range words {
			if strings.Contains(s, w) {
				return true
			}
		}
		return false
	}
	for _, c := range l.Code {
		if has(c.CodeTitle + " " + c.CodeDescription) {
			code = append(code, c)
		}
	}
	for _, i := range l.Info {
		if has(i.Breadcrumb + " " + i.Content) {
			info = append(info, i)
		}
	}
	return code, info
}

// V2Text renders snippets as /v2/context does with type=txt: code
// snippets, then info snippets, each "### title", "Source: url" and the
// text; 32 dashes between snippets of a kind, and only a blank line
// between the last code snippet and the first info snippet.
func V2Text(code []CodeSnippet, info []InfoSnippet) string {
	var cs, is []string
	for _, c := range code {
		var b strings.Builder
		fmt.Fprintf(&b, "### %s\n\nSource: %s\n\n%s", c.CodeTitle, strings.TrimSuffix(c.CodeID, "#_snippet_0"), c.CodeDescription)
		for _, e := range c.CodeList {
			fmt.Fprintf(&b, "\n\n```%s\n%s\n```", e.Language, e.Code)
		}
		cs = append(cs, b.String())
	}
	for _, i := range info {
		is = append(is, fmt.Sprintf("### %s\n\nSource: %s\n\n%s", i.Breadcrumb, i.PageID, i.Content))
	}
	var parts []string
	if len(cs) > 0 {
		parts = append(parts, strings.Join(cs, "\n\n--------------------------------\n\n"))
	}
	if len(is) > 0 {
		parts = append(parts, strings.Join(is, "\n\n--------------------------------\n\n"))
	}
	return strings.Join(parts, "\n\n")
}

// V1Text renders snippets as the /v1 documentation endpoint does: TITLE,
// DESCRIPTION and SOURCE lines, LANGUAGE and CODE for each example, and
// 40 dashes between snippets.
func V1Text(code []CodeSnippet, info []InfoSnippet) string {
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

// Fixtures returns a few libraries: /vercel/next.js (versions v16.0.3 and
// v15.1.8; code and info about routing and PPR), /facebook/react (hooks),
// /acme/prose (info only), /acme/examples (code only), /acme/many (25
// info snippets about "t") and /acme/big (five large info snippets about
// "budgets").
func Fixtures() []Library {
	next := Library{
		ID: "/vercel/next.js", Title: "Next.js", Description: "The React Framework",
		Versions: []string{"v16.0.3", "v15.1.8"},
		Code: []CodeSnippet{
			Code("Dynamic routes", "Create a dynamic routing segment.", "tsx", "https://github.com/vercel/next.js/blob/canary/docs/routing.mdx"),
			Code("Enable PPR", "Turn on partial pre-rendering (PPR).", "js", "https://github.com/vercel/next.js/blob/canary/docs/ppr.mdx"),
		},
		Info: []InfoSnippet{
			Info("Routing > Overview", "The App Router uses file-system routing.", "https://github.com/vercel/next.js/blob/canary/docs/routing.mdx"),
			Info("Rendering > Partial Pre-rendering", "PPR combines static and dynamic rendering: partial pre rendering.", "https://github.com/vercel/next.js/blob/canary/docs/ppr.mdx"),
			Info("Getting started", "Install Next.js with create-next-app.", "https://github.com/vercel/next.js/blob/canary/docs/install.mdx"),
		},
	}
	react := Library{
		ID: "/facebook/react", Title: "React", Description: "A JavaScript library for building user interfaces",
		Code: []CodeSnippet{Code("useState hook", "Hooks: store state in a component.", "jsx", "https://react.dev/reference/useState")},
		Info: []InfoSnippet{Info("Learn > Hooks", "Hooks let you use state and other React features.", "https://react.dev/learn/hooks")},
	}
	prose := Library{ID: "/acme/prose", Title: "Prose", Info: []InfoSnippet{Info("Guide", "Only words here, t.", "https://acme.dev/guide")}}
	examples := Library{ID: "/acme/examples", Title: "Examples", Code: []CodeSnippet{Code("Example t", "An example.", "go", "https://acme.dev/ex")}}
	many := Library{ID: "/acme/many", Title: "Many"}
	for i := 1; i <= 25; i++ {
		many.Info = append(many.Info, Info(fmt.Sprintf("Part %02d", i), fmt.Sprintf("Snippet number %02d about t.", i), fmt.Sprintf("https://acme.dev/many/%d", i)))
	}
	big := Library{ID: "/acme/big", Title: "Big"}
	for i := 1; i <= 5; i++ {
		var b strings.Builder
		for p := range 6 {
			fmt.Fprintf(&b, "Paragraph %d of part %d about budgets: %s\n\n", p, i, strings.Repeat("words fill the budget ", 12))
		}
		b.WriteString("```go\n" + strings.Repeat("x := budget()\n", 40) + "```")
		big.Info = append(big.Info, Info(fmt.Sprintf("Budget part %d", i), b.String(), fmt.Sprintf("https://acme.dev/big/%d", i)))
	}
	return []Library{next, react, prose, examples, many, big}
}
