package context7api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/internal/buildtest"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
)

// canary is written where a library id or path that escapes the artifacts
// would lead: in the library's repository outside its documentation, in
// the artifact directory and beside it. No answer may ever contain it.
const canary = "CANARY-5c1e: this file must never be served"

// hostileAPI builds the fixture widgets library and serves it through
// server.Handler, the API mounted under /api as indexer serve mounts it.
func hostileAPI(t *testing.T) string {
	t.Helper()
	w := gittest.New(t, "main")
	w.CopyDir("../fixtures/docs/acme-widgets", "")
	w.Write(map[string]string{"private/secret.md": "# Secret\n\n" + canary + "\n"})
	w.Commit("docs")
	w.Git("tag", "v1.0.0")
	base := t.TempDir()
	out := filepath.Join(base, "artifacts")
	buildtest.Build(t, out, "libraries:\n  - id: /acme/widgets\n    title: Acme Widgets\n    aliases: [widgets]\n    description: Dashboard widgets\n    repo: "+w.Dir+
		"\n    versions: [{ref: v1.0.0}, {ref: main}]\n    exclude: [\"private/**\"]\n")
	for _, p := range []string{filepath.Join(base, "secret.md"), filepath.Join(out, "secret.md"), filepath.Join(out, "acme", "secret.md"), filepath.Join(out, "etc", "passwd")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(canary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	engine, err := search.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engine.Close() })
	ts := httptest.NewServer(server.Handler(engine, "test", slog.New(slog.DiscardHandler), server.HTTPOptions{}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// apiCase is one hostile request: method and target (the request line's,
// sent byte for byte), an optional body and Content-Type, and what it must
// get.
type apiCase struct {
	name        string
	method      string // GET when ""
	target      string
	body        string
	contentType string
	status      int    // the status wanted
	code        string // the JSON error code wanted, for errors the API answers
	says        string // a part of the body
	// location is the Location of a redirect: the standard library's
	// ServeMux answers a path with "." or ".." segments with a redirect to
	// the cleaned path, on this server.
	location string
}

// maxHostileAnswer bounds every answer to a hostile request: nothing it
// sends is repeated back at length (the fixture's answers to normal
// questions are about 1 KB).
const maxHostileAnswer = 8 << 10

// send writes the request as it is on a new connection, so that neither
// the client nor url.Parse cleans, escapes or refuses the target, and
// reads the answer.
func send(t *testing.T, base string, tc apiCase) (*http.Response, []byte, time.Duration) {
	t.Helper()
	method := tc.method
	if method == "" {
		method = http.MethodGet
	}
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	start := time.Now()
	var req strings.Builder
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer ctx7sk-ignored\r\nConnection: close\r\n", method, tc.target, strings.TrimPrefix(base, "http://"))
	if tc.contentType != "" {
		fmt.Fprintf(&req, "Content-Type: %s\r\n", tc.contentType)
	}
	if tc.body != "" {
		fmt.Fprintf(&req, "Content-Length: %d\r\n", len(tc.body))
	}
	req.WriteString("\r\n")
	req.WriteString(tc.body)
	go io.WriteString(conn, req.String()) // the server may answer before reading it all
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("no answer: %v (after %v)", err, time.Since(start))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	return resp, body, time.Since(start)
}

const (
	ctx  = "/api/v2/context?libraryId=/acme/widgets&query="
	ctxQ = "/api/v2/context?libraryId=/acme/widgets&query=polling"
)

func hostileAPICases() []apiCase {
	return []apiCase{
		// Path traversal: a library id names a library of the catalog; no
		// part of a request names a file.
		{name: "v1 path /../../etc/passwd", target: "/api/v1/../../etc/passwd", status: 307, location: "/etc/passwd"},
		{name: "v1 path /acme/widgets/..", target: "/api/v1/acme/widgets/..?topic=x", status: 307, location: "/api/v1/acme?topic=x"},
		{name: "v2 path /../../../etc/passwd", target: "/api/v2/../../../etc/passwd", status: 307, location: "/etc/passwd"},
		{name: "v1 path %2e%2e/%2e%2e", target: "/api/v1/%2e%2e/%2e%2e?topic=x", status: 400, code: "invalid_library_id", says: `".." is not a name`},
		{name: "v1 path version %2e%2e", target: "/api/v1/acme/widgets/%2e%2e?topic=x", status: 400, code: "invalid_library_id", says: `".." is not a name`},
		{name: "v1 path ..%2f..%2fetc", target: "/api/v1/acme/widgets/..%2f..%2fetc?topic=x", status: 400, code: "invalid_library_id", says: "at most 3"},
		{name: "v1 path ..%5c..%5cetc (backslashes)", target: "/api/v1/acme/..%5c..%5cetc?topic=x", status: 400, code: "invalid_library_id", says: `character '\\'`},
		{name: "v1 path with NUL", target: "/api/v1/acme/wid%00gets?topic=x", status: 400, code: "invalid_library_id", says: "U+0000 (a control character)"},
		{name: "v1 path with NUL at the end", target: "/api/v1/acme/widgets%00?topic=x", status: 400, code: "invalid_library_id", says: "U+0000 (a control character)"},
		{name: "v1 path %2fetc/passwd", target: "/api/v1/%2fetc/passwd?topic=x", status: 404, code: "library_not_found", says: "resolve-library-id"},
		{name: "v1 path etc/passwd (a file beside the artifacts)", target: "/api/v1/etc/passwd?topic=x", status: 404, code: "library_not_found"},
		{name: "api path %2e%2e/%2e%2e/etc/passwd", target: "/api/%2e%2e/%2e%2e/etc/passwd", status: 404, code: "not_found"},
		{name: "libraryId ../../etc/passwd", target: "/api/v2/context?libraryId=../../etc/passwd&query=x", status: 400, code: "invalid_library_id", says: "at most 3"},
		{name: "libraryId /etc/passwd", target: "/api/v2/context?libraryId=/etc/passwd&query=x", status: 404, code: "library_not_found"},
		{name: "libraryId /acme/widgets/..", target: "/api/v2/context?libraryId=/acme/widgets/..&query=x", status: 400, code: "invalid_library_id", says: `".." is not a name`},
		{name: "libraryId /acme/widgets@../../x", target: "/api/v2/context?libraryId=/acme/widgets@../../x&query=x", status: 400, code: "invalid_library_id"},
		{name: `libraryId \acme\widgets`, target: "/api/v2/context?libraryId=%5cacme%5cwidgets&query=x", status: 400, code: "invalid_library_id", says: `character '\\'`},
		{name: "libraryId file:///etc/passwd", target: "/api/v2/context?libraryId=file:///etc/passwd&query=x", status: 400, code: "invalid_library_id"},
		{name: "libraryId with NUL inside", target: "/api/v2/context?libraryId=/acme/wid%00gets&query=x", status: 400, code: "invalid_library_id", says: "U+0000 (a control character)"},
		{name: "libraryId with NUL at the end", target: "/api/v2/context?libraryId=/acme/widgets%00&query=x", status: 400, code: "invalid_library_id", says: "U+0000 (a control character)"},
		{name: "libraryId with a zero-width space", target: "/api/v2/context?libraryId=%E2%80%8B/acme/widgets&query=x", status: 400, code: "invalid_library_id", says: "U+200B (an invisible character)"},
		{name: "libraryId with a bidi override in the version", target: "/api/v2/context?libraryId=/acme/widgets@v1.0.0%E2%80%AE&query=x", status: 400, code: "invalid_library_id", says: "U+202E"},
		{name: "libraryId of 100 KiB", target: "/api/v2/context?libraryId=/acme/" + strings.Repeat("w", 100<<10) + "&query=x", status: 400, code: "invalid_library_id", says: "longer than 1024 bytes"},

		// Enormous and empty queries.
		{name: "query 2 MiB (over the header limit)", target: ctx + strings.Repeat("a", 2<<20), status: 431},
		{name: "query 1,000 KiB", target: ctx + strings.Repeat("a", 1000<<10), status: 400, code: "validation_error", says: "at most 4096"},
		{name: "query 100 KiB of one word", target: ctx + strings.Repeat("a", 100<<10), status: 400, code: "validation_error", says: "at most 4096"},
		{name: "query 10,000 words", target: ctx + words(10000), status: 400, code: "validation_error", says: "at most 4096"},
		{name: "query 4,096 bytes of one word", target: ctx + strings.Repeat("a", 4096), status: 200, says: "No section"},
		{name: "query 4,096 bytes of 900 words", target: ctx + words(1000)[:4096], status: 200},
		{name: "query empty", target: ctx, status: 400, code: "validation_error", says: "query is required"},
		{name: "query absent", target: "/api/v2/context?libraryId=/acme/widgets", status: 400, code: "validation_error", says: "query is required"},
		{name: "query blanks", target: ctx + "%20%09%0a", status: 400, code: "validation_error", says: "query is required"},
		{name: "query placeholder", target: ctx + "%3Crelevant+topic%3E", status: 400, code: "validation_error", says: "no words to search for"},
		{name: "query stop words only", target: ctx + "the+of+and", status: 200, says: "No section"},
		{name: "libraryName 100 KiB", target: "/api/v2/libs/search?libraryName=" + strings.Repeat("w", 100<<10), status: 400, code: "validation_error", says: "at most 500"},
		{name: "libraryName empty", target: "/api/v2/libs/search?libraryName=&query=x", status: 400, code: "validation_error", says: "libraryName is required"},
		{name: "libs/search query 100 KiB", target: "/api/v2/libs/search?libraryName=widgets&query=" + words(20000), status: 400, code: "validation_error", says: "at most 4096"},
		{name: "v1 search query 100 KiB", target: "/api/v1/search?query=" + strings.Repeat("w", 100<<10), status: 400, code: "validation_error", says: "at most 500"},
		{name: "v1 topic 100 KiB", target: "/api/v1/acme/widgets?topic=" + strings.Repeat("w", 100<<10), status: 400, code: "validation_error", says: "at most 4096"},
		{name: "v1 topic empty (the overview)", target: "/api/v1/acme/widgets?topic=", status: 200, says: "/acme/widgets@"},

		// Thousands of topics: the API takes one; a parameter given again
		// is refused.
		{name: "v1 topic given 1,000 times", target: "/api/v1/acme/widgets?" + strings.Repeat("topic=polling&", 1000), status: 400, code: "validation_error", says: "topic given 1000 times"},
		{name: "query given 1,000 times", target: "/api/v2/context?libraryId=/acme/widgets&" + strings.Repeat("query=polling&", 1000), status: 400, code: "validation_error", says: "query given 1000 times"},
		{name: "10,001 parameters (over net/url's limit)", target: ctxQ + strings.Repeat("&t=1", 10000), status: 400, code: "validation_error", says: "number of URL query parameters exceeded limit"},

		// tokens and page.
		{name: "tokens 1e18 (clamped)", target: ctxQ + "&tokens=1000000000000000000", status: 200, says: "of 50000 tokens"},
		{name: "tokens 0 (the default)", target: ctxQ + "&tokens=0", status: 200, says: "of 5000 tokens"},
		{name: "tokens 1 (clamped)", target: ctxQ + "&tokens=1", status: 200, says: "of 200 tokens"},
		{name: "tokens -1 (clamped)", target: ctxQ + "&tokens=-1", status: 200, says: "tokens -1 raised to the minimum of 200"},
		{name: "tokens 1e308 (clamped)", target: ctxQ + "&tokens=1e308", status: 200, says: "lowered to the maximum of 50000"},
		{name: "tokens past int64 (clamped)", target: ctxQ + "&tokens=99999999999999999999999", status: 200, says: "lowered to the maximum of 50000"},
		{name: "tokens NaN", target: ctxQ + "&tokens=NaN", status: 400, code: "validation_error", says: "tokens must be a whole number"},
		{name: "tokens Infinity", target: ctxQ + "&tokens=Infinity", status: 400, code: "validation_error", says: "tokens must be a whole number"},
		{name: "tokens 0x10", target: ctxQ + "&tokens=0x10", status: 400, code: "validation_error", says: "tokens must be a whole number"},
		{name: "tokens 5e3", target: ctxQ + "&tokens=5e3", status: 200, says: "of 5000 tokens"},
		{name: "tokens 1.5", target: ctxQ + "&tokens=1.5", status: 400, code: "validation_error", says: "tokens must be a whole number"},
		{name: "tokens 100 KiB of digits (clamped)", target: ctxQ + "&tokens=" + strings.Repeat("9", 100<<10), status: 200, says: "lowered to the maximum of 50000"},
		{name: "v1 tokens NaN", target: "/api/v1/acme/widgets?topic=polling&tokens=NaN", status: 400, code: "validation_error", says: "tokens must be a whole number"},
		{name: "page 0 (the first)", target: ctxQ + "&page=0", status: 200, says: "page 1 of"},
		{name: "page -1", target: ctxQ + "&page=-1", status: 400, code: "validation_error", says: "pages start at 1"},
		{name: "page 1e18", target: ctxQ + "&page=1000000000000000000", status: 404, code: "page_not_found", says: "no answer has more than 10000 pages"},
		{name: "page 2^62", target: ctx + "widget&page=4611686018427387904", status: 404, code: "page_not_found", says: "no answer has more than 10000 pages"},
		{name: "page NaN", target: ctxQ + "&page=NaN", status: 400, code: "validation_error", says: "page must be a whole number"},
		{name: "page 10,000 of a 1-page answer", target: ctx + "widget&page=10000", status: 404, code: "page_not_found", says: "Ask for a page from 1 to the last"},

		// Text that is not UTF-8, and malformed query strings.
		{name: "query %ff%fe", target: ctx + "poll%ff%feing", status: 400, code: "validation_error", says: "query is not UTF-8"},
		{name: "query an encoded surrogate %ed%b2%80", target: ctx + "poll%ed%b2%80ing", status: 400, code: "validation_error", says: "query is not UTF-8"},
		{name: "query overlong / %c0%af", target: ctx + "%c0%af", status: 400, code: "validation_error", says: "query is not UTF-8"},
		{name: "libraryId %ff", target: "/api/v2/context?libraryId=/acme/wid%ffgets&query=polling", status: 400, code: "validation_error", says: "libraryId is not UTF-8"},
		{name: "type %ff", target: ctxQ + "&type=%ff", status: 400, code: "validation_error", says: "type is not UTF-8"},
		{name: "tokens %ff", target: ctxQ + "&tokens=%ff", status: 400, code: "validation_error", says: "tokens is not UTF-8"},
		{name: "libraryName %ff%fe", target: "/api/v2/libs/search?libraryName=wid%ff%fegets", status: 400, code: "validation_error", says: "libraryName is not UTF-8"},
		{name: "libraryName an encoded surrogate", target: "/api/v2/libs/search?libraryName=%ed%b2%80", status: 400, code: "validation_error", says: "libraryName is not UTF-8"},
		{name: "v1 search query %ff", target: "/api/v1/search?query=wid%ffgets", status: 400, code: "validation_error", says: "query is not UTF-8"},
		{name: "v1 path %ff", target: "/api/v1/acme/wid%ffgets?topic=polling", status: 400, code: "invalid_library_id", says: "not UTF-8"},
		{name: "v1 version %c0%ae%c0%ae (overlong ..)", target: "/api/v1/acme/widgets/%c0%ae%c0%ae?topic=polling", status: 400, code: "invalid_library_id", says: "not UTF-8"},
		{name: "an unknown parameter %ff=1", target: ctxQ + "&%ff=1", status: 400, code: "validation_error", says: "not UTF-8"},
		{name: "query %zz (a bad escape)", target: ctx + "%zz", status: 400, code: "validation_error", says: "malformed"},
		{name: "query with a semicolon", target: ctxQ + ";tokens=1", status: 400, code: "validation_error", says: "malformed"},
		{name: "raw 0xff in the request line", target: "/api/v2/context?libraryId=/acme/widgets&query=poll\xffing", status: 400, code: "validation_error", says: "query is not UTF-8"},
		{name: "raw space in the request line", target: "/api/v2/context?libraryId=/acme/widgets&query=a b", status: 400},

		// Duplicate and unknown parameters.
		{name: "libraryId given twice", target: "/api/v2/context?libraryId=/acme/nope&libraryId=/acme/widgets&query=polling", status: 400, code: "validation_error", says: "libraryId given 2 times"},
		{name: "type given twice", target: ctxQ + "&type=json&type=txt", status: 400, code: "validation_error", says: "type given 2 times"},
		{name: "an unknown parameter (ignored)", target: ctxQ + "&fast=true", status: 200, says: "## Polling"},

		// Bodies, Content-Type and methods.
		{name: "GET with a 2 MiB body", target: ctxQ, body: strings.Repeat("x", 2<<20), status: 400, code: "validation_error", says: "no request body"},
		{name: "GET with a JSON body", target: ctxQ, body: `{"libraryId":"/acme/nope"}`, contentType: "application/json", status: 400, code: "validation_error", says: "no request body"},
		{name: "GET with Content-Type and no body (ignored)", target: ctxQ, contentType: "application/xml", status: 200, says: "## Polling"},
		{name: "POST with a 2 MiB body", method: "POST", target: ctxQ, body: strings.Repeat("x", 2<<20), contentType: "application/json", status: 405, code: "method_not_allowed"},
		{name: "POST form", method: "POST", target: "/api/v2/context", body: "libraryId=/acme/widgets&query=polling", contentType: "application/x-www-form-urlencoded", status: 405, code: "method_not_allowed"},
		{name: "PUT", method: "PUT", target: ctxQ, status: 405, code: "method_not_allowed"},
		{name: "DELETE", method: "DELETE", target: "/api/v2/libs/search?libraryName=widgets", status: 405, code: "method_not_allowed"},
		{name: "PATCH", method: "PATCH", target: "/api/v1/acme/widgets", status: 405, code: "method_not_allowed"},
		{name: "OPTIONS", method: "OPTIONS", target: ctxQ, status: 405, code: "method_not_allowed"},
		{name: "TRACE", method: "TRACE", target: ctxQ, status: 405, code: "method_not_allowed"},
		{name: "BREW (unknown method)", method: "BREW", target: "/api/v1/search?query=widgets", status: 405, code: "method_not_allowed"},
		{name: "HEAD (allowed, no body)", method: "HEAD", target: ctxQ, status: 200},
	}
}

// words returns n distinct words separated by +, as a query string
// writes spaces.
func words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i)
	}
	return strings.Join(ws, "+")
}

// TestHostileAPI sends hostile requests to the Context7-compatible API,
// byte for byte over real HTTP to server.Handler: each gets a 4xx whose
// JSON body says what to do (or, where the standard library answers before
// the API, a 4xx or a redirect within this server), never a 5xx or a hang;
// the answer stays under maxHostileAnswer bytes and never carries a file
// from outside the documentation; and a normal query is answered after
// each. Run with -v for the table of outcomes.
func TestHostileAPI(t *testing.T) {
	base := hostileAPI(t)
	t.Log("| request | status | error | bytes | ms | message |")
	t.Log("|---|---|---|---|---|---|")
	for _, tc := range hostileAPICases() {
		t.Run(tc.name, func(t *testing.T) {
			resp, body, took := send(t, base, tc)
			var e struct{ Error, Message string }
			isJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
			if isJSON {
				json.Unmarshal(body, &e)
			}
			msg := e.Message
			if msg == "" {
				msg = string(body)
			}
			if tc.location != "" {
				msg = "Location: " + resp.Header.Get("Location")
			}
			t.Logf("| %s | %d | %s | %d | %d | %s |", tc.name, resp.StatusCode, e.Error, len(body), took.Milliseconds(), strings.ReplaceAll(strings.ToValidUTF8(clip(strings.TrimSpace(msg), 140), "?"), "\n", " "))
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.status, clip(string(body), 300))
			}
			if tc.code != "" && (!isJSON || e.Error != tc.code || e.Message == "") {
				t.Errorf("body %s, want JSON with error %q and a message", clip(string(body), 300), tc.code)
			}
			if !strings.Contains(msg, tc.says) {
				t.Errorf("message %q does not say %q", clip(msg, 300), tc.says)
			}
			if tc.location != "" && resp.Header.Get("Location") != tc.location {
				t.Errorf("Location %q, want %q", resp.Header.Get("Location"), tc.location)
			}
			if resp.StatusCode >= 400 && strings.TrimSpace(msg) == "" {
				t.Errorf("an error without a message")
			}
			if len(body) > maxHostileAnswer {
				t.Errorf("answer of %d bytes, want at most %d: the request is repeated back", len(body), maxHostileAnswer)
			}
			if strings.Contains(string(body), "CANARY") {
				t.Errorf("a file from outside the documentation was served: %s", clip(string(body), 300))
			}
			// The server still answers a normal query.
			if resp, body, _ := send(t, base, apiCase{target: ctxQ}); resp.StatusCode != 200 || !strings.Contains(string(body), "## Polling") {
				t.Fatalf("a normal query afterwards: %d %s", resp.StatusCode, clip(string(body), 300))
			}
		})
	}
}

// clip cuts s to at most n bytes, for messages.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
