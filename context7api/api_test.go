package context7api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current answers")

// fixtureEngine builds the fixture widgets library at v1.0.0 and main, and
// the fixture CLI at main, and opens an engine on the artifacts. The
// repositories' dates are fixed, so commits and answers are the same on
// every run.
func fixtureEngine(t *testing.T) *search.Engine {
	t.Helper()
	widgets := gittest.New(t, "main")
	widgets.CopyDir("../fixtures/docs/acme-widgets", "")
	widgets.Commit("docs")
	widgets.Git("tag", "v1.0.0")
	cli := gittest.New(t, "main")
	cli.CopyDir("../fixtures/docs/acme-cli", "")
	cli.Commit("docs")
	src := "libraries:\n" +
		"  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets for TypeScript apps\n    repo: " + widgets.Dir + "\n    versions: [{ref: v1.0.0}, {ref: main}]\n" +
		"  - id: /acme/cli\n    title: Acme CLI\n    description: Create, build and deploy Acme apps from the terminal\n    repo: " + cli.Dir + "\n"
	out := t.TempDir()
	buildtest.Build(t, out, src)
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	return engine
}

// serve mounts the API under /api as server.Handler does.
func serve(t *testing.T, s Searcher) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/api/", http.StripPrefix("/api", New(s, Options{})))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// response is a request and its answer as a golden file shows it: status,
// content type, the X-Context7 and Allow headers, and the body, JSON
// indented.
type response struct {
	status int
	header http.Header
	body   []byte
}

func do(t *testing.T, method, u string) response {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer ctx7sk-ignored")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

func (r response) golden(t *testing.T, method, path string) []byte {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %s\n%d %s\nContent-Type: %s\n", method, truncate(path, 160), r.status, http.StatusText(r.status), r.header.Get("Content-Type"))
	var names []string
	for k := range r.header {
		if strings.HasPrefix(k, "X-Context7-") || k == "Allow" || k == "Retry-After" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&b, "%s: %s\n", k, r.header.Get(k))
	}
	b.WriteString("\n")
	if strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		if err := json.Indent(&b, r.body, "", "  "); err != nil {
			t.Fatalf("body is not JSON: %v\n%s", err, r.body)
		}
		b.WriteString("\n")
	} else {
		b.Write(r.body)
	}
	return b.Bytes()
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("answer differs from %s (go test -update to accept):\ngot:\n%s\nwant:\n%s", file, got, want)
	}
}

// errorOf decodes an error body, failing unless it is one.
func errorOf(t *testing.T, r response) errorBody {
	t.Helper()
	var e errorBody
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error == "" || e.Message == "" {
		t.Fatalf("body %s is not {error, message} (%v)", r.body, err)
	}
	return e
}

func TestEndpoints(t *testing.T) {
	ts := serve(t, fixtureEngine(t))
	long := url.QueryEscape(strings.Repeat("why ", request.MaxQueryBytes/4+1))
	tests := []struct {
		golden string
		method string
		path   string
		status int
		code   string   // the error code, for errors
		want   []string // substrings of the body
	}{
		// v2 library search.
		{"v2-search", "GET", "/api/v2/libs/search?libraryName=widgets&query=poll+a+data+source", 200, "", []string{`"id":"/acme/widgets"`}},
		{"v2-search-org", "GET", "/api/v2/libs/search?libraryName=acme", 200, "", []string{`"/acme/widgets"`, `"/acme/cli"`}},
		{"v2-search-id", "GET", "/api/v2/libs/search?libraryName=/acme/cli&query=deploy", 200, "", []string{`"id":"/acme/cli"`}},
		{"", "GET", "/api/v2/libs/search?libraryName=terminal", 200, "", []string{`"results":[{"id":"/acme/cli"`}}, // only its description names it
		{"v2-search-none", "GET", "/api/v2/libs/search?libraryName=no-such-library-anywhere&query=x", 200, "", []string{`"results":[]`}},
		{"v2-search-no-name", "GET", "/api/v2/libs/search?query=x", 400, "validation_error", []string{"libraryName is required"}},
		{"", "GET", "/api/v2/libs/search?libraryName=" + strings.Repeat("a", MaxNameRunes+1), 400, "validation_error", []string{"at most 500"}},
		{"", "GET", "/api/v2/libs/search?libraryName=widgets&query=" + long, 400, "validation_error", []string{"at most 4096"}},
		// v2 context.
		{"v2-context-txt", "GET", "/api/v2/context?libraryId=/acme/widgets&query=poll+a+data+source&tokens=1000", 200, "", []string{"# /acme/widgets@v1.0.0 (commit ", "Source: docs/guides/data-sources.md#polling"}},
		{"v2-context-json", "GET", "/api/v2/context?libraryId=/acme/widgets&query=poll+a+data+source&type=json&tokens=1000", 200, "", []string{`"codeList":[{"language":"ts"`, `"codeId":"docs/guides/data-sources.md#`}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=poll+a+data+source&type=TXT", 200, "", []string{"# /acme/widgets@v1.0.0"}},
		{"v2-context-version-slash", "GET", "/api/v2/context?libraryId=/acme/widgets/main&query=layout&tokens=500", 200, "", []string{"# /acme/widgets@main (commit "}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets@main&query=layout&tokens=500", 200, "", []string{"# /acme/widgets@main (commit "}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets/v1.0.0&query=layout&tokens=500", 200, "", []string{"# /acme/widgets@v1.0.0 (commit "}},
		{"", "GET", "/api/v2/context?libraryId=acme/widgets&query=layout", 200, "", []string{"# /acme/widgets@v1.0.0 (commit "}},
		{"v2-context-unbuilt-version", "GET", "/api/v2/context?libraryId=/acme/widgets/v9.9.9&query=layout", 404, "tag_not_found", []string{"built versions: main, v1.0.0"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets@v9.9.9&query=layout&type=json", 404, "tag_not_found", []string{"built versions: main, v1.0.0"}},
		{"v2-context-unknown-library", "GET", "/api/v2/context?libraryId=/acme/widget&query=layout", 404, "library_not_found", []string{"closest: ", "/acme/widgets", "resolve-library-id", "/api/v2/libs/search"}},
		{"v2-context-bad-type", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&type=xml", 400, "validation_error", []string{"txt or json"}},
		{"v2-context-no-query", "GET", "/api/v2/context?libraryId=/acme/widgets", 400, "validation_error", []string{"query is required"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=+++", 400, "validation_error", []string{"query is required"}},
		{"", "GET", "/api/v2/context?query=layout", 400, "validation_error", []string{"libraryId is required", "/api/v2/libs/search"}},
		{"v2-context-huge-query", "GET", "/api/v2/context?libraryId=/acme/widgets&query=" + long, 400, "validation_error", []string{"at most 4096"}},
		{"", "GET", "/api/v2/context?libraryId=/a/b/c/d&query=layout", 400, "invalid_library_id", []string{"/org/project"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/wid%20gets!&query=layout", 400, "invalid_library_id", nil},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&tokens=lots", 400, "validation_error", []string{"tokens must be a whole number"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&tokens=-5", 200, "", []string{"tokens -5 raised to the minimum of 200"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&tokens=99999999999999999999999", 200, "", []string{"lowered to the maximum of 50000"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&page=0", 200, "", []string{"page 1 of"}},
		{"", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&page=-1", 400, "validation_error", []string{"pages start at 1"}},
		{"v2-context-page-past-last", "GET", "/api/v2/context?libraryId=/acme/widgets&query=layout&page=500", 404, "page_not_found", []string{"page"}},
		// v1.
		{"v1-search", "GET", "/api/v1/search?query=widgets", 200, "", []string{`{"results":[{"id":"/acme/widgets"`}},
		{"", "GET", "/api/v1/search", 400, "validation_error", []string{"query is required"}},
		{"v1-docs", "GET", "/api/v1/acme/widgets?type=txt&topic=error+handling&tokens=800", 200, "", []string{"# /acme/widgets@v1.0.0 (commit ", "Error handling"}},
		{"v1-docs-no-topic", "GET", "/api/v1/acme/cli?tokens=600", 200, "", []string{"# /acme/cli@main (commit "}},
		{"v1-docs-version", "GET", "/api/v1/acme/widgets/main?topic=layout&tokens=500", 200, "", []string{"# /acme/widgets@main (commit "}},
		{"", "GET", "/api/v1/acme/widgets?topic=layout&type=json&tokens=500", 200, "", []string{`"codeSnippets":`, `"infoSnippets":`}},
		{"v1-docs-unbuilt-version", "GET", "/api/v1/acme/widgets/2.0.0?topic=layout", 404, "tag_not_found", []string{"built versions: main, v1.0.0"}},
		{"", "GET", "/api/v1/acme/nope?topic=layout", 404, "library_not_found", []string{"resolve-library-id"}},
		{"", "GET", "/api/v1/acme/widgets?topic=" + long, 400, "validation_error", []string{"topic is", "at most 4096"}},
		// Methods and paths.
		{"post", "POST", "/api/v2/context?libraryId=/acme/widgets&query=layout", 405, "method_not_allowed", []string{"GET"}},
		{"unknown-path", "GET", "/api/v3/search?query=x", 404, "not_found", []string{"/api/v2/libs/search", "/api/v2/context"}},
		{"", "GET", "/api/v1/a/b/c/d", 404, "not_found", nil},
		{"", "HEAD", "/api/v2/libs/search?libraryName=widgets", 200, "", nil},
	}
	for _, tt := range tests {
		name := tt.golden
		if name == "" {
			name = tt.method + " " + tt.path
			if len(name) > 100 {
				name = name[:100]
			}
		}
		t.Run(name, func(t *testing.T) {
			got := do(t, tt.method, ts.URL+tt.path)
			if got.status != tt.status {
				t.Fatalf("status %d, want %d; body:\n%s", got.status, tt.status, got.body)
			}
			ct := got.header.Get("Content-Type")
			switch {
			case tt.code != "":
				if e := errorOf(t, got); e.Error != tt.code || ct != "application/json; charset=utf-8" {
					t.Errorf("error %q (Content-Type %q), want %q as JSON", e.Error, ct, tt.code)
				}
			case strings.Contains(tt.path, "type=json") || strings.Contains(tt.path, "search"):
				if ct != "application/json; charset=utf-8" {
					t.Errorf("Content-Type %q, want JSON", ct)
				}
			case tt.method != "HEAD":
				if ct != "text/plain; charset=utf-8" {
					t.Errorf("Content-Type %q, want text", ct)
				}
			}
			for _, w := range tt.want {
				if !bytes.Contains(got.body, []byte(w)) {
					t.Errorf("body does not contain %q:\n%s", w, got.body)
				}
			}
			if tt.golden != "" {
				checkGolden(t, tt.golden, got.golden(t, tt.method, tt.path))
			}
		})
	}
}

// TestTokensClamped checks that any budget is served, clamped to
// request.MinTokens..request.MaxTokens, and that the answer fits it.
func TestTokensClamped(t *testing.T) {
	ts := serve(t, fixtureEngine(t))
	for _, tt := range []struct {
		tokens     string
		wantBudget int
	}{
		{"", request.DefaultTokens},
		{"0", request.DefaultTokens},
		{"1", request.MinTokens},
		{"300", 300},
		{"1000000", request.MaxTokens},
	} {
		t.Run(tt.tokens, func(t *testing.T) {
			got := do(t, "GET", ts.URL+"/api/v2/context?libraryId=/acme/widgets&query=widgets&tokens="+tt.tokens)
			if got.status != 200 {
				t.Fatalf("status %d: %s", got.status, got.body)
			}
			if limit := got.header.Get("X-Context7-Limit"); limit != fmt.Sprint(tt.wantBudget) {
				t.Errorf("X-Context7-Limit %s, want %d", limit, tt.wantBudget)
			}
			var size int
			fmt.Sscan(got.header.Get("X-Context7-Total-Tokens"), &size)
			if size <= 0 || size > tt.wantBudget {
				t.Errorf("X-Context7-Total-Tokens %d, want 1..%d", size, tt.wantBudget)
			}
		})
	}
}

// TestJSONMatchesText checks that the JSON answer holds the same sections
// as the text one, best first, with their code and sources.
func TestJSONMatchesText(t *testing.T) {
	engine := fixtureEngine(t)
	ts := serve(t, engine)
	ans, err := engine.Docs(context.Background(), search.DocsRequest{Library: "/acme/widgets", Query: "create a widget", Tokens: 3000})
	if err != nil {
		t.Fatal(err)
	}
	got := do(t, "GET", ts.URL+"/api/v2/context?libraryId=/acme/widgets&query=create+a+widget&tokens=3000&type=json")
	var cr ContextResponse
	if err := json.Unmarshal(got.body, &cr); err != nil {
		t.Fatal(err)
	}
	if n := len(cr.CodeSnippets) + len(cr.InfoSnippets); n != len(ans.Sections) || n == 0 {
		t.Fatalf("%d snippets, want the answer's %d sections", n, len(ans.Sections))
	}
	var sources []string
	for _, c := range cr.CodeSnippets {
		sources = append(sources, c.CodeID)
		if len(c.CodeList) == 0 || c.CodeList[0].Code == "" || c.CodeLanguage != c.CodeList[0].Language {
			t.Errorf("code snippet %+v: want code and its language", c)
		}
		if strings.Contains(c.CodeDescription, "```") {
			t.Errorf("code description %q holds a fence", c.CodeDescription)
		}
	}
	for _, c := range cr.InfoSnippets {
		sources = append(sources, c.PageID)
		if c.Content == "" && c.Breadcrumb == "" {
			t.Errorf("info snippet %+v is empty", c)
		}
	}
	for _, s := range ans.Sections {
		src := s.Path
		if s.Anchor != "" {
			src += "#" + s.Anchor
		}
		if !slices.Contains(sources, src) {
			t.Errorf("section %s missing from the JSON answer (have %v)", src, sources)
		}
	}
}

// stub is a Searcher that fails with err.
type stub struct{ err error }

func (s stub) FindLibraries(context.Context, libraries.Request) (*libraries.Result, error) {
	return nil, s.err
}

func (s stub) Docs(context.Context, search.DocsRequest) (*search.Answer, error) { return nil, s.err }

func (s stub) Status() search.Status { return search.Status{Status: catalog.Status{Ready: true}} }

// TestServerErrors checks what a client gets when the engine fails: 5xx
// with a message, never a stack or an empty body.
func TestServerErrors(t *testing.T) {
	empty, err := search.OpenWith(t.TempDir(), search.Options{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	for _, tt := range []struct {
		name       string
		s          Searcher
		status     int
		code       string
		retryAfter string
	}{
		{"not ready", empty, 503, "not_ready", "5"},
		{"timeout", stub{fmt.Errorf("search: %w", context.DeadlineExceeded)}, 504, "timeout", ""},
		{"refused version", stub{&catalog.VersionError{Library: "/acme/widgets", Version: "main", Reason: "checksum mismatch"}}, 503, "library_unavailable", ""},
		{"engine fault", stub{errors.New("read segment: input/output error")}, 500, "internal_error", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, tt.s)
			for _, path := range []string{"/api/v2/libs/search?libraryName=widgets", "/api/v2/context?libraryId=/acme/widgets&query=x"} {
				got := do(t, "GET", ts.URL+path)
				e := errorOf(t, got)
				if got.status != tt.status || e.Error != tt.code || got.header.Get("Retry-After") != tt.retryAfter {
					t.Errorf("%s: %d %+v Retry-After %q; want %d %s Retry-After %q", path, got.status, e, got.header.Get("Retry-After"), tt.status, tt.code, tt.retryAfter)
				}
				if strings.Contains(e.Message, "input/output") {
					t.Errorf("%s: the message %q shows an internal error", path, e.Message)
				}
			}
		})
	}
}

// matches is a Searcher whose library search finds res.
type matches struct {
	stub
	res *libraries.Result
}

func (m matches) FindLibraries(context.Context, libraries.Request) (*libraries.Result, error) {
	return m.res, nil
}

// TestTextMatchesLeftOut checks that libraries which only mention the name
// are left out beside one named so, and kept when they are all there is:
// Context7's clients cannot tell the two kinds apart.
func TestTextMatchesLeftOut(t *testing.T) {
	lib := func(id string) *artifacts.CatalogLib {
		return &artifacts.CatalogLib{Library: artifacts.Library{ID: id, Title: id}}
	}
	named := libraries.Info{Library: lib("/a/named"), Match: libraries.MatchName}
	text := libraries.Info{Library: lib("/b/mentions"), Match: libraries.MatchText}
	for _, tt := range []struct {
		name string
		in   []libraries.Info
		want []string
	}{
		{"named first", []libraries.Info{named, text}, []string{"/a/named"}},
		{"text only", []libraries.Info{text}, []string{"/b/mentions"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts := serve(t, matches{res: &libraries.Result{Matches: tt.in}})
			got := do(t, "GET", ts.URL+"/api/v2/libs/search?libraryName=x")
			var res SearchResponse
			if err := json.Unmarshal(got.body, &res); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range res.Results {
				ids = append(ids, l.ID)
				if l.Versions == nil || l.TrustScore != unknownTrust || l.State != "finalized" {
					t.Errorf("%+v: want versions [], trustScore -1, state finalized", l)
				}
			}
			if !slices.Equal(ids, tt.want) {
				t.Errorf("results %v, want %v", ids, tt.want)
			}
		})
	}
}
