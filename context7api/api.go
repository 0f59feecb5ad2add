// Package context7api serves the Context7 REST API from local artifacts, so
// that Context7's own clients work unchanged against a self-hosted Codex7 by
// pointing their base URL at http://host:port/api: the official MCP server
// @upstash/context7-mcp (CONTEXT7_API_URL=http://host:port/api), the ctx7
// CLI (--base-url http://host:port; it adds /api itself) and programs
// written against the API's documentation. It answers for the libraries
// built here only; remote libraries are not its business.
//
// # Where the shapes come from
//
// The request and response shapes below are those the clients send and
// read, taken from their published sources: @upstash/context7-mcp 4.1.1
// (dist/lib/api.js: the requests and error handling; dist/lib/utils.js:
// the fields it shows; dist/index.js: the tools resolve-library-id and
// query-docs), @upstash/context7-mcp 1.0.14 (dist/lib/api.js: the v1
// endpoints), @upstash/context7-sdk 0.3.1 (dist/client.js; upstash/context7
// packages/sdk/src/commands/types.ts), ctx7 0.5.12 (dist/index.js:
// resolveLibrary, getLibraryContext, the library and docs commands), and
// the API's own description in upstash/context7: docs/openapi.json
// (schemas Library, SearchResponse, ContextResponse, CodeSnippet,
// InfoSnippet, Error) and docs/api-guide.mdx (error codes).
//
// # Endpoints
//
// All are GET (HEAD works too), without a body; other methods get 405, a
// body 400. Unknown query parameters (such as fast) are ignored. The API
// itself reads no Authorization header: under `indexer serve --auth` the
// server checks it before the API is reached (Context7's clients send
// their API key as a bearer token, so a Codex7 token goes in
// CONTEXT7_API_KEY) and the API then sees only that token's libraries.
// Each request fills in its audit record (package audit) when the server
// made one.
//
// GET /v2/libs/search?libraryName=NAME&query=QUESTION finds libraries.
// libraryName is required (at most 500 characters); query is optional
// (the hosted API requires it; ctx7 omits it) and breaks ties. The answer
// is always JSON, 200 even when nothing matches:
//
//	{"results": [Library...], "searchFilterApplied": false}
//
// where a Library is
//
//	{"id": "/org/project", "title": "...", "description": "...",
//	 "branch": "the latest version's ref", "lastUpdateDate": "2026-01-02T03:04:05.000Z",
//	 "state": "finalized", "totalTokens": 1234, "totalSnippets": 56,
//	 "trustScore": -1, "versions": ["v2.0.0", "v1.0.0"]}
//
// totalTokens and totalSnippets are the latest version's tokens and
// sections; versions are the built versions, the latest first; trustScore
// is -1, which every client shows as an unknown reputation (0 would read
// "Low"); benchmarkScore and stars are left out, which the clients
// handle. Libraries that only mention the name in their description or
// topics are left out when one matches by name.
//
// GET /v2/context?libraryId=ID&query=QUESTION&type=txt|json answers a
// question from one library. libraryId is "/org/project",
// "/org/project/version" or "/org/project@version"; an explicit version is
// served exactly or refused with 404 listing the built ones, never
// replaced; without one the latest is served. query is required (at most
// request.MaxQueryBytes bytes). type defaults to txt, as the hosted API's
// does (the MCP server sends none; the SDK sends json by default; ctx7
// sends txt, or json with --json). Two extensions: tokens (the answer's
// budget, clamped to request.MinTokens..request.MaxTokens with a note,
// default request.DefaultTokens) and page (from 1), whole numbers read as
// the MCP tools read them (request.ParseWhole: 3000, 3000.0 and 3e3 alike).
//
// With type=txt the body is text/plain: the answer exactly as Codex7's MCP
// tool get-library-docs renders it (search.Answer.Markdown): a title line
// naming library@version and commit, then each section under its heading
// path with its source file and anchor. The MCP server hands this text to
// the agent as it is. With type=json the body is
//
//	{"codeSnippets": [{"codeTitle", "codeDescription", "codeLanguage",
//	   "codeTokens", "codeId", "pageTitle", "codeList": [{"language", "code"}]}],
//	 "infoSnippets": [{"pageId", "breadcrumb", "content", "contentTokens"}]}
//
// built from the same sections, best first: a section with fenced code is a
// code snippet (its prose is the description, each fence an entry of
// codeList), any other an info snippet; codeId and pageId are
// "path#anchor" in the library's repository; breadcrumb is the section's
// heading path, pageTitle its document's title and codeTitle the rest of
// the path, joined with " > ". Both answers carry the headers the SDK
// reads from txt answers: X-Context7-Page, X-Context7-Total-Pages,
// X-Context7-Has-Next, X-Context7-Has-Prev, X-Context7-Total-Tokens (the
// answer's size) and X-Context7-Limit (its token budget).
//
// GET /v1/search?query=NAME is the older library search (the MCP server up
// to 1.0.x): query is the library name, and the answer is
// {"results": [Library...]}.
//
// GET /v1/ORG/PROJECT[/VERSION]?type=txt&topic=TOPIC&tokens=N is the older
// docs endpoint: topic is the question (optional: without it the answer
// covers the library's overview and getting started), tokens the budget,
// type txt (default) or json, with the answers of /v2/context.
//
// # Errors
//
// Every error is JSON, {"error": "code", "message": "what was wrong and
// what to do"}, which is what the clients read: the MCP server shows
// message to the agent, the SDK throws error or else message, ctx7 prints
// message or else error. Bad input gets 400 (validation_error,
// invalid_library_id): a value out of its limits, but also a malformed
// query string (%zz, a semicolon), text that is not UTF-8 (%ff) and a
// parameter given twice, which a lenient parser would drop, replace with
// U+FFFD or read the first of, answering another question than the one
// asked. An unknown library 404 library_not_found with the
// closest ids and a hint to search first, an unbuilt version 404
// tag_not_found with the built versions, a page past the last 404
// page_not_found, an unknown path 404 not_found, another method 405
// method_not_allowed. A server without artifacts yet answers 503 not_ready
// with Retry-After, a version it refused (damaged artifacts) 503
// library_unavailable, a request over its time limit 504 timeout. Only a
// fault of the server itself is a 500 (internal_error). Codex7 never sends
// the MCP server's X-Context7-Auth-Prompt header: there is nothing to sign
// in to.
package context7api

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/codex7/codex7/audit"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/index"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

// Searcher is what the API needs of the search engine; *search.Engine
// has it. Its methods must be safe for concurrent use. Status is only
// called when a library search finds nothing, to tell a server without
// artifacts (503) from a name that matches nothing (200, no results).
type Searcher interface {
	FindLibraries(ctx context.Context, req libraries.Request) (*libraries.Result, error)
	Docs(ctx context.Context, req search.DocsRequest) (*search.Answer, error)
	Status() search.Status
}

// DefaultTimeout bounds one request unless Options says otherwise.
const DefaultTimeout = 30 * time.Second

// Limits on what a request may ask.
const (
	// MaxNameRunes bounds libraryName, as the hosted API does.
	MaxNameRunes = 500
)

// retryAfterSeconds is what a 503 for a server without artifacts asks the
// client to wait.
const retryAfterSeconds = 5

// Options configures New. The zero value gives the defaults.
type Options struct {
	// Logger receives one line per request; nil discards them.
	Logger *slog.Logger
	// Timeout bounds one request; 0 means DefaultTimeout.
	Timeout time.Duration
}

// New returns the API's handler. It serves the paths above from its root:
// mount it under /api with http.StripPrefix("/api", ...), since clients add
// /v2/... to a base URL ending in /api. It is safe for concurrent use.
func New(s Searcher, opts Options) http.Handler {
	a := &api{s: s, log: opts.Logger, timeout: opts.Timeout}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.timeout == 0 {
		a.timeout = DefaultTimeout
	}
	mux := http.NewServeMux()
	mux.Handle("/v2/libs/search", a.endpoint("v2 libs/search", a.searchV2))
	mux.Handle("/v2/context", a.endpoint("v2 context", a.contextV2))
	mux.Handle("/v1/search", a.endpoint("v1 search", a.searchV1))
	mux.Handle("/v1/{org}/{project}", a.endpoint("v1 docs", a.docsV1))
	mux.Handle("/v1/{org}/{project}/{version}", a.endpoint("v1 docs", a.docsV1))
	mux.Handle("/", a.endpoint("", func(_ context.Context, r *http.Request) (*reply, error) {
		return nil, &apiError{http.StatusNotFound, "not_found", fmt.Sprintf("no endpoint %s here: this Context7-compatible API serves GET /api/v2/libs/search?libraryName=&query=, GET /api/v2/context?libraryId=&query=&type=txt|json, GET /api/v1/search?query= and GET /api/v1/{org}/{project}[/{version}]?topic=&tokens=", r.URL.Path)}
	}))
	return mux
}

type api struct {
	s       Searcher
	log     *slog.Logger
	timeout time.Duration
}

// reply is a successful answer: JSON (body marshalled) or text.
type reply struct {
	json   any
	text   string
	header http.Header
}

// apiError is an answer with an error status and the JSON error body the
// clients read.
type apiError struct {
	status  int
	code    string
	message string
}

func (e *apiError) Error() string { return e.message }

func badRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "validation_error", fmt.Sprintf(format, args...)}
}

// endpoint wraps an endpoint's function: GET and HEAD only, a deadline,
// the answer or error written, one log line. name is "" for the answer to
// unknown paths, which is the same for every method.
func (a *api) endpoint(name string, fn func(context.Context, *http.Request) (*reply, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		audit.From(r.Context()).SetTool(cmp.Or(name, "unknown"))
		var rep *reply
		var err error
		if name != "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			err = &apiError{http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("method %s not allowed: the Context7 API is read with GET", r.Method)}
		} else if name != "" && r.ContentLength != 0 {
			// A body is never read: refused rather than ignored, so that
			// no client believes its parameters were.
			err = badRequest("the Context7 API takes no request body: send libraryId, query and the other parameters in the query string")
		} else {
			ctx, cancel := context.WithTimeout(r.Context(), a.timeout)
			rep, err = fn(ctx, r)
			cancel()
		}
		status := http.StatusOK
		if err != nil {
			status = a.writeError(w, r, err)
		} else {
			a.write(w, rep)
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelWarn
		}
		// The path as requested, mount point included; not the query
		// string, which holds the user's question.
		path, _, _ := strings.Cut(r.RequestURI, "?")
		a.log.Log(r.Context(), level, "context7 api request", "endpoint", cmp.Or(name, "unknown"), "method", r.Method, "path", path,
			"status", status, "duration_ms", float64(time.Since(start).Microseconds())/1000)
	})
}

func (a *api) write(w http.ResponseWriter, rep *reply) {
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	if rep.json == nil {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte(rep.text))
		return
	}
	writeJSON(w, http.StatusOK, rep.json)
}

// writeJSON writes v compactly, with <, > and & as they are: code
// snippets are full of them.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only strings, numbers and slices of them: this cannot happen.
		http.Error(w, "encode the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write([]byte(b.String()))
}

// errorBody is the API's error shape (schema Error in docs/openapi.json).
type errorBody struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// writeError answers err and returns the status written.
func (a *api) writeError(w http.ResponseWriter, r *http.Request, err error) int {
	e := classify(err)
	if e.status == http.StatusInternalServerError {
		path, _, _ := strings.Cut(r.RequestURI, "?")
		a.log.Error("context7 api request failed", "path", path, "err", err)
	}
	if e.status == http.StatusServiceUnavailable && e.code == "not_ready" {
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds))
	}
	writeJSON(w, e.status, errorBody{Error: e.code, Message: e.message})
	return e.status
}

// classify turns an endpoint's or the engine's error into the answer a
// client gets, with a message saying what to do.
func classify(err error) *apiError {
	var e *apiError
	if errors.As(err, &e) {
		return e
	}
	msg := err.Error()
	switch {
	case errors.Is(err, request.ErrInvalidKey):
		return &apiError{http.StatusBadRequest, "invalid_library_id", msg}
	case errors.Is(err, catalog.ErrLibraryNotFound):
		return &apiError{http.StatusNotFound, "library_not_found", msg + ". Only the libraries indexed on this Codex7 server are served: find the right id with resolve-library-id (GET /api/v2/libs/search?libraryName=...)"}
	case errors.Is(err, catalog.ErrVersionNotFound):
		return &apiError{http.StatusNotFound, "tag_not_found", msg + ". Ask for one of those (/org/project/version), or omit the version for the latest"}
	case errors.Is(err, catalog.ErrVersionUnavailable):
		return &apiError{http.StatusServiceUnavailable, "library_unavailable", msg + ". Ask for one of the versions served, or try again later"}
	case errors.Is(err, search.ErrPageNotFound):
		return &apiError{http.StatusNotFound, "page_not_found", msg + ". Ask for a page from 1 to the last"}
	case errors.Is(err, index.ErrEmptyQuery):
		return badRequest("the query has no words to search for: say what you need in words, e.g. query=how to configure middleware")
	case errors.Is(err, request.ErrInvalidRequest), errors.Is(err, request.ErrInvalidMode), errors.Is(err, search.ErrTopicNotFound),
		errors.Is(err, request.ErrInvalidPath), errors.Is(err, search.ErrDocumentNotFound), errors.Is(err, libraries.ErrInvalidDetail):
		return badRequest("%s", msg)
	case errors.Is(err, catalog.ErrNotReady):
		return &apiError{http.StatusServiceUnavailable, "not_ready", "no documentation loaded yet: the server is waiting for its artifacts; try again shortly"}
	case errors.Is(err, context.DeadlineExceeded):
		return &apiError{http.StatusGatewayTimeout, "timeout", "the request took too long; try again, or ask a shorter question"}
	case errors.Is(err, context.Canceled):
		return &apiError{http.StatusServiceUnavailable, "canceled", "the request was canceled"}
	}
	return &apiError{http.StatusInternalServerError, "internal_error", "an error occurred while processing your request"}
}

// Library is a library as the search endpoints list it (schema Library of
// docs/openapi.json; the fields the clients read).
type Library struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	Branch         string   `json:"branch"`
	LastUpdateDate string   `json:"lastUpdateDate"`
	State          string   `json:"state"`
	TotalTokens    int      `json:"totalTokens"`
	TotalSnippets  int      `json:"totalSnippets"`
	TrustScore     int      `json:"trustScore"`
	Versions       []string `json:"versions"`
}

// SearchResponse is /v2/libs/search's answer.
type SearchResponse struct {
	Results             []Library `json:"results"`
	SearchFilterApplied bool      `json:"searchFilterApplied"`
}

// SearchResponseV1 is /v1/search's answer.
type SearchResponseV1 struct {
	Results []Library `json:"results"`
}

// unknownTrust is the trustScore of every library: every client shows a
// negative score as an unknown reputation.
const unknownTrust = -1

func (a *api) searchV2(ctx context.Context, r *http.Request) (*reply, error) {
	q, err := params(r, "libraryName", "query")
	if err != nil {
		return nil, err
	}
	libs, err := a.libraries(ctx, "libraryName", q.Get("libraryName"), q.Get("query"))
	if err != nil {
		return nil, err
	}
	return &reply{json: SearchResponse{Results: libs}}, nil
}

func (a *api) searchV1(ctx context.Context, r *http.Request) (*reply, error) {
	q, err := params(r, "query")
	if err != nil {
		return nil, err
	}
	libs, err := a.libraries(ctx, "query", q.Get("query"), "")
	if err != nil {
		return nil, err
	}
	return &reply{json: SearchResponseV1{Results: libs}}, nil
}

// libraries finds the libraries name names; param is the parameter it
// came in, for messages.
func (a *api) libraries(ctx context.Context, param, name, question string) ([]Library, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return nil, badRequest("%s is required: the library's name, e.g. %s=next.js", param, param)
	}
	if n := utf8.RuneCountInString(name); n > MaxNameRunes {
		return nil, badRequest("%s is %d characters long, at most %d: give just the library's name", param, n, MaxNameRunes)
	}
	if err := checkQuery("query", question); err != nil {
		return nil, err
	}
	rec := audit.From(ctx)
	rec.SetQuery(strings.TrimSpace(name + " " + question))
	res, err := a.s.FindLibraries(ctx, libraries.Request{Name: name, Query: question})
	if err != nil {
		return nil, err
	}
	if len(res.Matches) == 0 && !a.s.Status().Ready {
		return nil, catalog.ErrNotReady
	}
	out := []Library{}
	for _, m := range res.Matches {
		// Libraries that only mention the name are noise beside one named
		// so: Context7's clients cannot tell them apart.
		if m.Match == libraries.MatchText && res.Matches[0].Match != libraries.MatchText {
			continue
		}
		out = append(out, library(m))
	}
	rec.SetResults(len(out))
	return out, nil
}

func library(m libraries.Info) Library {
	l := Library{ID: m.Library.ID, Title: m.Title, Description: m.Description, State: "finalized",
		TrustScore: unknownTrust, Versions: m.Versions}
	if l.Versions == nil {
		l.Versions = []string{}
	}
	if v := m.Library.Version(m.Latest); v != nil {
		l.Branch = v.Ref
		l.LastUpdateDate = v.BuiltAt.UTC().Format("2006-01-02T15:04:05.000Z")
		l.TotalTokens, l.TotalSnippets = v.Counts.Tokens, v.Counts.Sections
	}
	return l
}

func (a *api) contextV2(ctx context.Context, r *http.Request) (*reply, error) {
	q, err := params(r, "libraryId", "query", "type", "tokens", "page")
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(q.Get("libraryId"))
	if id == "" {
		return nil, badRequest("libraryId is required, e.g. libraryId=/vercel/next.js: find it with GET /api/v2/libs/search?libraryName=...")
	}
	query := strings.TrimSpace(q.Get("query"))
	if query == "" {
		return nil, badRequest("query is required: what you need from the library's documentation, in words, e.g. query=how to add middleware")
	}
	return a.docs(ctx, q, id, "query", query)
}

func (a *api) docsV1(ctx context.Context, r *http.Request) (*reply, error) {
	q, err := params(r, "topic", "type", "tokens", "page")
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"org", "project", "version"} {
		if v := r.PathValue(name); !utf8.ValidString(v) {
			return nil, &apiError{http.StatusBadRequest, "invalid_library_id", fmt.Sprintf("the library id's %s %q is not UTF-8 text: percent-encode the id's UTF-8 bytes", name, truncate(v, 40))}
		}
	}
	id := "/" + r.PathValue("org") + "/" + r.PathValue("project")
	if v := r.PathValue("version"); v != "" {
		id += "/" + v
	}
	query := strings.TrimSpace(q.Get("topic"))
	if err := checkQuery("topic", query); err != nil {
		return nil, err
	}
	if query == "" {
		query = search.OverviewQuery // the hosted API then returns the library's general documentation
	}
	return a.docs(ctx, q, id, "topic", query)
}

// docs answers query, which came in the parameter param, from library id;
// the parameters type, tokens and page are read from q.
func (a *api) docs(ctx context.Context, q url.Values, id, param, query string) (*reply, error) {
	typ := strings.ToLower(strings.TrimSpace(q.Get("type")))
	if typ == "" {
		typ = "txt"
	}
	if typ != "txt" && typ != "json" {
		return nil, badRequest("type must be txt or json, got %q", truncate(q.Get("type"), 40))
	}
	if err := checkQuery(param, query); err != nil {
		return nil, err
	}
	// Numbers are read as get-library-docs reads them (request.ParseWhole),
	// and mean what they mean there: the engine clamps a budget out of
	// range, with a note, and refuses a page it has not.
	tokens, err := wholeParam(q, "tokens")
	if err != nil {
		var e *apiError
		if errors.As(err, &e) {
			e.message += fmt.Sprintf(" (%d by default; budgets outside %d to %d are clamped to them)", request.DefaultTokens, request.MinTokens, request.MaxTokens)
		}
		return nil, err
	}
	page, err := wholeParam(q, "page")
	if err != nil {
		return nil, err
	}
	rec := audit.From(ctx)
	rec.SetLibrary(id, "")
	rec.SetQuery(query)
	ans, err := a.s.Docs(ctx, search.DocsRequest{Library: id, Query: query, Tokens: tokens, Page: page})
	if err != nil {
		return nil, err
	}
	rec.SetLibrary(ans.Library, ans.Version)
	rec.SetResults(len(ans.Sections))
	rep := &reply{header: pageHeaders(ans)}
	if typ == "json" {
		rep.json = contextResponse(ans)
	} else {
		rep.text = ans.Markdown()
	}
	return rep, nil
}

// pageHeaders are the headers the SDK reads from a txt answer
// (extractTxtResponseHeaders in dist/client.js); all six or none count.
func pageHeaders(ans *search.Answer) http.Header {
	h := http.Header{}
	h.Set("X-Context7-Page", strconv.Itoa(ans.Page))
	h.Set("X-Context7-Limit", strconv.Itoa(ans.Budget))
	h.Set("X-Context7-Total-Pages", strconv.Itoa(max(ans.Pages, ans.Page)))
	h.Set("X-Context7-Has-Next", strconv.FormatBool(ans.Page < ans.Pages || ans.MorePages))
	h.Set("X-Context7-Has-Prev", strconv.FormatBool(ans.Page > 1))
	h.Set("X-Context7-Total-Tokens", strconv.Itoa(ans.Tokens))
	return h
}

// params parses r's query string strictly where url.URL.Query is lenient:
// a malformed pair (a bad escape such as %zz, a semicolon) is refused
// rather than dropped, text that is not UTF-8 (%ff, or %ed%b2%80, an
// encoded surrogate) is refused rather than searched for as U+FFFD, and a
// parameter of names given twice is refused rather than read from its
// first value. names are the parameters the endpoint reads; others are
// ignored, but must be UTF-8 too.
func params(r *http.Request, names ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest("the query string is malformed (%s): separate parameters with & and percent-encode their values as UTF-8, e.g. query=how%%20to%%20add%%20middleware", truncate(err.Error(), 80))
	}
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if !utf8.ValidString(k) {
			return nil, badRequest("the parameter name %q is not UTF-8 text: percent-encode parameters as UTF-8", truncate(k, 40))
		}
		for _, v := range q[k] {
			if !utf8.ValidString(v) {
				return nil, badRequest("%s is not UTF-8 text (%q): percent-encode it as UTF-8", truncate(k, 40), truncate(v, 40))
			}
		}
	}
	for _, name := range names {
		if n := len(q[name]); n > 1 {
			return nil, badRequest("%s given %d times: give it once", name, n)
		}
	}
	return q, nil
}

// checkQuery refuses a question longer than the engine reads.
func checkQuery(param, s string) error {
	if len(s) > request.MaxQueryBytes {
		return badRequest("%s is %d bytes long, at most %d: keep the key words, or the first line of an error message", param, len(s), request.MaxQueryBytes)
	}
	return nil
}

// wholeParam reads an optional whole-number parameter by package
// request.ParseWhole's rule, the MCP tools' too: 0 when absent or empty, a
// validation error naming it when not a whole number.
func wholeParam(q url.Values, name string) (int, error) {
	n, err := request.ParseWhole(name, q.Get(name))
	if err != nil {
		return 0, badRequest("%s", err.Error())
	}
	return n, nil
}

// truncate cuts s to at most n runes, for quoting input in messages.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
