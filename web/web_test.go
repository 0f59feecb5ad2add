package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/web"
)

func remarshal(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, to)
}

// get fetches path from the server without following redirects.
func get(t *testing.T, c *http.Client, base, path string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// noRedirects is a client that returns redirects instead of following them.
func noRedirects(jar http.CookieJar) *http.Client {
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestPages loads every kind of page without access control: each answers
// 200 with its heading, the strict policy and no caching; unknown
// libraries, versions and documents answer 404 with a page saying so.
func TestPages(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	c := noRedirects(nil)
	for _, tc := range []struct {
		path   string
		status int
		want   string
	}{
		{"/", 200, "<h1>Catalog</h1>"},
		{"/?q=cli", 200, "/acme/cli"},
		{"/acme/widgets", 200, "Acme Widgets"},
		{"/acme/cli/main", 200, "Acme CLI"},
		{"/acme/widgets/-/query?q=install", 200, "Sections, in the order the agent reads them"},
		{"/acme/widgets/-/query?topics=nope", 404, "This version has no topic nope"},
		// The version's topics are links to ask with them, the question kept.
		{"/acme/widgets/-/query?q=poll&topics=nope", 404, `<li><a href="/acme/widgets/-/query?q=poll&amp;topics=`},
		{"/acme/widgets/-/query?q=x&tokens=lots", 400, "tokens must be a whole number"},
		// Numbers are read as the tools read them: no sign, no hex.
		{"/acme/widgets/-/query?q=x&page=%2B2", 400, "page must be a whole number"},
		{"/acme/widgets/-/query?q=x&tokens=0x10", 400, "tokens must be a whole number"},
		{"/-/resolve?name=widgets", 200, "/acme/widgets"},
		{"/-/resolve?name=widgets&detail=everything", 400, "invalid detail"},
		{"/evil/docs/-/doc/docs/hostile.md", 200, "Hostile page"},
		// A link to another document of the version leads to its view here.
		{"/acme/widgets/-/doc/fixtures/docs/acme-widgets/README.md", 200, `href="/acme/widgets/-/doc/fixtures/docs/acme-widgets/docs/getting-started/installation.md"`},
		{"/acme/nope", 404, "library not found"},
		{"/acme/widgets/v9", 404, "version not found"},
		{"/acme/widgets/-/doc/nope.md", 404, "has no document"},
		{"/a/b/c/d", 404, "No page here"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, body := get(t, c, ts.URL, tc.path)
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d\n%s", resp.StatusCode, tc.status, body)
			}
			if !strings.Contains(body, tc.want) {
				t.Errorf("page lacks %q:\n%s", tc.want, body)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q, want no-store", cc)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			// No inline script, style element or style attribute: the policy
			// would block them.
			for _, re := range []*regexp.Regexp{regexp.MustCompile(`<script>`), regexp.MustCompile(`<style`), regexp.MustCompile(`\sstyle=`), regexp.MustCompile(`\son[a-z]+=`)} {
				if m := re.FindString(body); m != "" {
					t.Errorf("page has %q", m)
				}
			}
		})
	}
}

// TestRoutesWin checks that mounting the site at "/" leaves every other
// route to its handler.
func TestRoutesWin(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	c := noRedirects(nil)
	for path, want := range map[string]string{
		"/healthz":                     "ok",
		"/readyz":                      "ready:",
		"/metrics":                     "codex7_http_requests_total",
		"/mcp":                         "use POST",
		"/api/v1/search?query=widgets": `"results"`,
		"/api/v2/libs/search?libraryName=widgets": "/acme/widgets",
		"/api/v1/acme/widgets?topic=install":      "",
		"/api/v2/nope":                            "not_found",
	} {
		resp, body := get(t, c, ts.URL, path)
		if strings.Contains(body, "<!doctype html>") {
			t.Errorf("%s answered by the site: %d", path, resp.StatusCode)
		}
		if !strings.Contains(body, want) {
			t.Errorf("%s: %d %q, want %q in it", path, resp.StatusCode, body, want)
		}
	}
}

// TestAssets checks the static files: named by content hash, cached for a
// year, and referenced by the pages under those names only.
func TestAssets(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	c := noRedirects(nil)
	_, page := get(t, c, ts.URL, "/")
	refs := regexp.MustCompile(`(?:href|src)="(/-/static/[^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(refs) != 3 {
		t.Fatalf("page links %d static files, want the icon, the stylesheet and the script: %v", len(refs), refs)
	}
	for _, m := range refs {
		if !regexp.MustCompile(`^/-/static/(site|favicon)\.[0-9a-f]{12}\.(css|js|svg)$`).MatchString(m[1]) {
			t.Errorf("static file %s is not named by its hash", m[1])
		}
		resp, body := get(t, c, ts.URL, m[1])
		if resp.StatusCode != 200 || body == "" {
			t.Errorf("%s: %d", m[1], resp.StatusCode)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("%s: Cache-Control %q", m[1], cc)
		}
		want := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}[path.Ext(m[1])]
		if ct := resp.Header.Get("Content-Type"); ct != want {
			t.Errorf("%s: Content-Type %q, want %q", m[1], ct, want)
		}
	}
	if resp, _ := get(t, c, ts.URL, "/-/static/site.000000000000.css"); resp.StatusCode != 404 {
		t.Errorf("a stale hash: %d, want 404", resp.StatusCode)
	}
}

// TestHostileDocumentHTML renders the hostile document and checks that
// nothing of it is live in the HTML: no script or style element, no event
// handler attribute, no javascript: or data: link, no HTML comment of the
// document's.
func TestHostileDocumentHTML(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	c := noRedirects(nil)
	for _, path := range []string{"/evil/docs/-/doc/docs/hostile.md", "/evil/docs/-/query?q=hostile+page+raw+block&tokens=3000"} {
		resp, body := get(t, c, ts.URL, path)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d\n%s", path, resp.StatusCode, body)
		}
		// Only what the document shows as text may mention the attack,
		// escaped: cut the page's own script element out first.
		main := body[strings.Index(body, `<main`):]
		for _, bad := range []string{"<script", "<style", "<iframe", "<img", "onerror=", "onmouseover=", `href="javascript:`, `href="data:`, `src="javascript:`, "secret comment"} {
			if strings.Contains(strings.ToLower(main), bad) {
				i := strings.Index(strings.ToLower(main), bad)
				t.Errorf("%s: the page holds %q: …%s…", path, bad, main[max(0, i-80):min(len(main), i+80)])
			}
		}
		if !strings.Contains(main, "&lt;script&gt;this is code, shown as text&lt;/script&gt;") {
			t.Errorf("%s: the code block is not shown as text", path)
		}
	}
}

// TestDocumentIDsUnique checks that the document view's ids are unique:
// each part has its section's anchor as id, which the outline and other
// pages link to, and a heading "Main" or "Outline h" is anchored like the
// page's own <main> and outline heading were, which came first, so the
// link led to the top of the page. The part before any heading has no
// anchor, and no id.
func TestDocumentIDsUnique(t *testing.T) {
	ts, _ := serveRepo(t, "/acme/ids", map[string]string{"docs/cli.md": "Text before any heading.\n\n# CLI\n\nIntro.\n\n## Main\n\nThe main command.\n\n## Outline h\n\nText.\n\n## C7:main\n\nA colon.\n"})
	resp, body := get(t, noRedirects(nil), ts.URL, "/acme/ids/-/doc/docs/cli.md")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d\n%s", resp.StatusCode, body)
	}
	count := map[string]int{}
	for _, m := range regexp.MustCompile(`\sid="([^"]*)"`).FindAllStringSubmatch(body, -1) {
		count[m[1]]++
	}
	for id, n := range count {
		if n > 1 {
			t.Errorf("%d elements have id %q", n, id)
		}
	}
	if count[""] > 0 {
		t.Error(`the part with no anchor has id=""`)
	}
	for _, id := range []string{"cli", "main", "outline-h", "c7main"} {
		if !strings.Contains(body, `href="#`+id+`"`) || count[id] != 1 {
			t.Errorf("the outline's link to #%s leads to %d elements", id, count[id])
		}
	}
	for _, m := range regexp.MustCompile(`(?:href="#|aria-labelledby=")([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if count[m[1]] != 1 {
			t.Errorf("%s refers to %d elements", m[0], count[m[1]])
		}
	}
}

// TestSafeNext tries to make the login send the browser elsewhere: only a
// path on this site is followed.
func TestSafeNext(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), testPolicy(t)))
	for next, want := range map[string]string{
		"/acme/cli":                 "/acme/cli",
		"/acme/cli/-/query?q=a+b":   "/acme/cli/-/query?q=a+b",
		"//evil.example/x":          "/",
		"/\\evil.example":           "/",
		"https://evil.example/":     "/",
		"javascript:alert(1)":       "/",
		"evil.example":              "/",
		"/%2F%2Fevil.example":       "/%2F%2Fevil.example",
		"/\t/evil.example":          "/",
		"":                          "/",
		"http:/evil.example":        "/",
		"/@evil.example":            "/@evil.example",
		"/acme/cli\r\nSet-Cookie:x": "/",
	} {
		jar, _ := cookiejar.New(nil)
		c := noRedirects(jar)
		resp, err := c.PostForm(ts.URL+"/-/login", url.Values{"token": {tokenAll}, "next": {next}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
			t.Errorf("next %q: %d to %q, want 303 to %q", next, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}

// TestLogin walks through the login: a page asks for the token, a wrong
// token is refused, the right one is kept in an HttpOnly, SameSite=Strict
// cookie that brings the page asked for; the cookie opens the site only,
// never /mcp or /api; signing out forgets it; a login posted from another
// origin is refused.
func TestLogin(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), testPolicy(t)))
	jar, _ := cookiejar.New(nil)
	c := noRedirects(jar)

	resp, _ := get(t, c, ts.URL, "/acme/widgets?x=1")
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != "/-/login?next=%2Facme%2Fwidgets%3Fx%3D1" {
		t.Fatalf("without a token: %d to %q, want 303 to the login", resp.StatusCode, loc)
	}
	resp, body := get(t, c, ts.URL, "/-/login?next=%2Facme%2Fwidgets")
	if resp.StatusCode != 200 || !strings.Contains(body, `<label for="token">Token</label>`) || !strings.Contains(body, `value="/acme/widgets"`) {
		t.Fatalf("login form: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, ts.URL, resp.Request.URL.Path); resp.StatusCode != 200 {
		t.Errorf("login form again: %d", resp.StatusCode)
	}

	resp, err := c.PostForm(ts.URL+"/-/login", url.Values{"token": {"c7_wrong"}, "next": {"/acme/widgets"}})
	if err != nil {
		t.Fatal(err)
	}
	body = readAll(t, resp)
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "not known") || len(resp.Cookies()) != 0 {
		t.Errorf("wrong token: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}

	req, _ := http.NewRequest("POST", ts.URL+"/-/login", strings.NewReader(url.Values{"token": {tokenAll}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "https://evil.example")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if resp, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a login posted from another site: %d, want 403", resp.StatusCode)
	}

	resp, err = c.PostForm(ts.URL+"/-/login", url.Values{"token": {tokenAll}, "next": {"/acme/widgets"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/acme/widgets" {
		t.Fatalf("login: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := resp.Cookies()[0]
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Secure || cookie.Path != "/" || strings.Contains(cookie.Value, tokenAll) {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, not Secure over plain HTTP, the token encoded", cookie)
	}
	if resp, body := get(t, c, ts.URL, "/acme/widgets"); resp.StatusCode != 200 || !strings.Contains(body, "Sign out") {
		t.Errorf("signed in: %d", resp.StatusCode)
	}
	for _, path := range []string{"/api/v1/search?query=widgets", "/metrics"} {
		if resp, _ := get(t, c, ts.URL, path); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s with the site's cookie only: %d, want 401", path, resp.StatusCode)
		}
	}

	resp, err = c.PostForm(ts.URL+"/-/logout", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp, _ := get(t, c, ts.URL, "/acme/widgets"); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("signed out: %d, want 303 to the login", resp.StatusCode)
	}

	// A bearer header works as it does on /mcp, for scripts.
	req, _ = http.NewRequest("GET", ts.URL+"/acme/cli", nil)
	req.Header.Set("Authorization", "Bearer "+tokenCLI)
	if resp, err := noRedirects(nil).Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != 200 {
		t.Errorf("bearer header: %d", resp.StatusCode)
	}
}

// TestLoginGuessesLimited: tokens entered in the login form spend the
// same budget of unknown tokens as bearer headers; once it is spent the
// form refuses even the right token, with 429 and when to try again, and
// sets no cookie.
func TestLoginGuessesLimited(t *testing.T) {
	ts := serve(t, guardedHandler(openEngine(t, dist(t)), testPolicy(t), access.NewGuesses(3)))
	c := noRedirects(nil)
	post := func(tok string) (*http.Response, string) {
		t.Helper()
		resp, err := c.PostForm(ts.URL+"/-/login", url.Values{"token": {tok}, "next": {"/acme/widgets"}})
		if err != nil {
			t.Fatal(err)
		}
		return resp, readAll(t, resp)
	}
	for _, tok := range []string{"c7_wrong-1", "c7_wrong-2"} {
		if resp, body := post(tok); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token %s: %d\n%s", tok, resp.StatusCode, body)
		}
	}
	req, _ := http.NewRequest("GET", ts.URL+"/api/v2/libs/search?libraryName=widgets", nil)
	req.Header.Set("Authorization", "Bearer c7_wrong-3")
	if resp, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong bearer token: %d, want 401", resp.StatusCode)
	}
	resp, body := post(tokenAll)
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(body, "Too many unknown tokens") || len(resp.Cookies()) != 0 {
		t.Errorf("the right token after three wrong ones: %d, cookies %v\n%s", resp.StatusCode, resp.Cookies(), body)
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
		t.Errorf("Retry-After %q, want whole seconds", resp.Header.Get("Retry-After"))
	}
	if !strings.Contains(body, `<label for="token">Token</label>`) {
		t.Error("the refusal does not show the login form again")
	}
}

// TestLoginGuessesBehindProxy: behind a trusted proxy the login form
// counts each client's unknown tokens apart: one client out of guesses
// does not keep another from signing in.
func TestLoginGuessesBehindProxy(t *testing.T) {
	ts := serve(t, guardedHandler(openEngine(t, dist(t)), testPolicy(t), access.NewGuesses(1), netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")))
	login := func(client, tok string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", ts.URL+"/-/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", client)
		resp, err := noRedirects(nil).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := login("203.0.113.1", "c7_wrong"); code != http.StatusUnauthorized {
		t.Fatalf("a wrong token: %d, want 401", code)
	}
	if code := login("203.0.113.1", tokenAll); code != http.StatusTooManyRequests {
		t.Errorf("the same client, out of guesses: %d, want 429", code)
	}
	if code := login("203.0.113.2", tokenAll); code != http.StatusSeeOther {
		t.Errorf("another client behind the proxy: %d, want 303 (signed in)", code)
	}
}

// TestSecureCookie: over TLS the cookie is Secure.
func TestSecureCookie(t *testing.T) {
	ts := httptestTLS(t, handler(openEngine(t, dist(t)), testPolicy(t)))
	c := ts.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.PostForm(ts.URL+"/-/login", url.Values{"token": {tokenAll}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cs := resp.Cookies(); len(cs) != 1 || !cs[0].Secure || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode {
		t.Errorf("cookies over TLS %+v: want one Secure, HttpOnly, SameSite=Strict", cs)
	}
}

// TestSecureCookieBehindProxy: behind a proxy that terminates TLS (an
// ingress), the request arrives over plain HTTP with X-Forwarded-Proto
// or Forwarded saying https: the cookie is Secure then too, at login and
// at logout; a plain request's is not.
func TestSecureCookieBehindProxy(t *testing.T) {
	ts := httptest.NewServer(handler(openEngine(t, dist(t)), testPolicy(t)))
	defer ts.Close()
	for _, tt := range []struct {
		header, value string
		secure        bool
	}{
		{"X-Forwarded-Proto", "https", true},
		{"X-Forwarded-Proto", "HTTPS, http", true},
		{"Forwarded", `for=192.0.2.1;proto=https;host=docs.example.com`, true},
		{"Forwarded", `proto="https"`, true},
		{"X-Forwarded-Proto", "http", false},
		{"Forwarded", "proto=http, proto=https", false},
		{"", "", false},
	} {
		for _, path := range []string{"/-/login", "/-/logout"} {
			req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(url.Values{"token": {tokenAll}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.header != "" {
				req.Header.Set(tt.header, tt.value)
			}
			resp, err := noRedirects(nil).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if cs := resp.Cookies(); len(cs) != 1 || cs[0].Secure != tt.secure {
				t.Errorf("POST %s with %s: %s: cookies %+v, want one with Secure %v", path, tt.header, tt.value, cs, tt.secure)
			}
		}
	}
}

// TestScopedToken: a token for /acme/cli sees it alone, on every page, as
// over MCP: the others are not listed, not found, not resolved.
func TestScopedToken(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), testPolicy(t)))
	c := &http.Client{Transport: bearerTransport{tokenCLI}, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, body := get(t, c, ts.URL, "/")
	if !strings.Contains(body, "/acme/cli") || strings.Contains(body, "/acme/widgets") || strings.Contains(body, "/evil/docs") {
		t.Errorf("catalog of a /acme/cli token:\n%s", body)
	}
	for _, path := range []string{"/acme/widgets", "/acme/widgets/-/query?q=install", "/acme/widgets/-/doc/fixtures/docs/acme-widgets/README.md", "/evil/docs/-/doc/docs/hostile.md"} {
		if resp, body := get(t, c, ts.URL, path); resp.StatusCode != 404 || strings.Contains(body, "Acme Widgets") {
			t.Errorf("%s: %d, want 404 naming nothing of it\n%s", path, resp.StatusCode, body)
		}
	}
	if _, body := get(t, c, ts.URL, "/-/resolve?name=widgets"); strings.Contains(body, "/acme/widgets") {
		t.Errorf("resolve shows /acme/widgets to a /acme/cli token")
	}
	if resp, _ := get(t, c, ts.URL, "/acme/cli/-/query?q=deploy"); resp.StatusCode != 200 {
		t.Errorf("its own library: %d", resp.StatusCode)
	}
}

// sectionRe reads the sections a query page shows.
var sectionRe = regexp.MustCompile(`<li class="section" data-path="([^"]*)" data-anchor="([^"]*)" data-tokens="(\d+)">`)

// TestQueryIsTheToolsAnswer compares the query page with get-library-docs
// called over MCP on the same server with the same arguments: the same
// sections in the same order, the same sizes, and the raw text the tool
// sends, byte for byte.
func TestQueryIsTheToolsAnswer(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	cs := mcpSession(t, ts.URL, "")
	c := noRedirects(nil)
	for _, tc := range []struct {
		query string
		args  map[string]any
	}{
		{"q=install+widgets", map[string]any{"libraryId": "/acme/widgets", "customQuery": "install widgets"}},
		{"q=deploy&tokens=400&page=2", map[string]any{"libraryId": "/acme/cli", "customQuery": "deploy", "tokens": 400, "page": 2}},
		// Numbers are read as the tools read them (request.ParseWhole).
		{"q=deploy&tokens=4e2&page=2.0", map[string]any{"libraryId": "/acme/cli", "customQuery": "deploy", "tokens": "4e2", "page": 2.0}},
		{"q=chart+options&mode=code", map[string]any{"libraryId": "/acme/widgets", "customQuery": "chart options", "mode": "code"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			text, ans := toolAnswer(t, cs, tc.args)
			resp, body := get(t, c, ts.URL, tc.args["libraryId"].(string)+"/-/query?"+tc.query)
			if resp.StatusCode != 200 {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			var want, got []string
			for _, s := range ans.Sections {
				want = append(want, s.Path+"#"+s.Anchor+" "+itoa(s.Tokens))
			}
			for _, m := range sectionRe.FindAllStringSubmatch(body, -1) {
				got = append(got, htmlUnescape(m[1])+"#"+htmlUnescape(m[2])+" "+m[3])
			}
			if len(want) == 0 {
				t.Fatal("the tool found nothing: pick another question")
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("sections (-tool +page):\n%s", d)
			}
			raw := regexp.MustCompile(`(?s)<pre class="raw" id="raw-text" data-copy>\n(.*?)</pre>`).FindStringSubmatch(body)
			if raw == nil || htmlUnescape(raw[1]) != text {
				t.Errorf("the raw text differs from the tool's")
			}
			if !strings.Contains(body, `<span data-field="tokens">`+itoa(ans.Tokens)+`</span> of a budget of <span data-field="budget">`+itoa(ans.Budget)+`</span>`) {
				t.Errorf("the page does not say %d tokens of %d", ans.Tokens, ans.Budget)
			}
			if !strings.Contains(body, `href="https://github.com`+ans.Library+`/blob/`+ans.Commit+`/`) {
				t.Errorf("no link to the files on the git host at commit %s", ans.Commit)
			}
		})
	}
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

func htmlUnescape(s string) string { return html.UnescapeString(s) }

// httptestTLS starts h on a loopback TLS test server.
func httptestTLS(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	ts := httptest.NewTLSServer(h)
	tb.Cleanup(ts.Close)
	return ts
}

// TestRebinding: on loopback, a page asked for under another host name (a
// DNS-rebinding attack through a person's browser) is refused.
func TestRebinding(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	req, _ := http.NewRequest("GET", ts.URL+"/acme/widgets", nil)
	req.Host = "evil.example"
	resp, err := noRedirects(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != http.StatusForbidden || strings.Contains(body, "Acme") {
		t.Errorf("foreign Host on loopback: %d, want 403\n%s", resp.StatusCode, body)
	}
	req.Host = "localhost"
	if resp, err := noRedirects(nil).Do(req); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusOK {
		t.Errorf("Host localhost: %d, want 200", resp.StatusCode)
	}
}

// TestResolveIsTheToolsAnswer compares the resolve page with
// resolve-library-id called over MCP with the same arguments: the same
// matches in the same order and the raw text the tool sends.
func TestResolveIsTheToolsAnswer(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	cs := mcpSession(t, ts.URL, "")
	for _, tc := range []struct {
		query string
		args  map[string]any
	}{
		{"name=widgets", map[string]any{"libraryName": "widgets"}},
		{"name=acme&query=deploy&max=1&detail=topics", map[string]any{"libraryName": "acme", "query": "deploy", "maxResults": 1, "detail": "topics"}},
		{"name=acme&max=99&detail=full", map[string]any{"libraryName": "acme", "maxResults": 99, "detail": "full"}},
		{"name=acme&max=1e0", map[string]any{"libraryName": "acme", "maxResults": "1e0"}},
		{"name=nothing-like-it", map[string]any{"libraryName": "nothing-like-it"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "resolve-library-id", Arguments: tc.args})
			if err != nil || res.IsError {
				t.Fatalf("resolve-library-id: %v %+v", err, res)
			}
			text := res.Content[0].(*mcp.TextContent).Text
			var out struct {
				Matches []struct{ ID string } `json:"matches"`
			}
			if err := remarshal(res.StructuredContent, &out); err != nil {
				t.Fatal(err)
			}
			resp, body := get(t, noRedirects(nil), ts.URL, "/-/resolve?"+tc.query)
			if resp.StatusCode != 200 {
				t.Fatalf("%d\n%s", resp.StatusCode, body)
			}
			var want, got []string
			for _, m := range out.Matches {
				want = append(want, m.ID)
			}
			for _, m := range regexp.MustCompile(`<article class="card match" data-id="([^"]*)">`).FindAllStringSubmatch(body, -1) {
				got = append(got, m[1])
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("matches (-tool +page):\n%s", d)
			}
			raw := regexp.MustCompile(`(?s)<pre class="raw" id="raw-text" data-copy>\n(.*?)</pre>`).FindStringSubmatch(body)
			if raw == nil || htmlUnescape(raw[1]) != text {
				t.Errorf("the raw text differs from the tool's:\n%s", cmp.Diff(text, htmlUnescape(raw[1])))
			}
		})
	}
}

// TestResolveInputErrors: the resolve page answers a mistake in its form
// (a results count that is not a whole number) and the tool's own input
// errors with 400 and the error, as the query page does, never as a
// failure of the engine (500, "the engine could not answer").
func TestResolveInputErrors(t *testing.T) {
	ts := serve(t, handler(openEngine(t, dist(t)), nil))
	for _, tc := range []struct{ query, want string }{
		{"name=acme&max=abc", "results must be a whole number, not &#34;abc&#34;"},
		{"name=acme&max=1.5", "whole number"},
		{"name=acme&max=%2B1", "whole number"},
		{"name=%22%22", "libraryName is required"},
		{"name=" + strings.Repeat("a", 201), "libraryName is 201 characters long, at most 200"},
		{"name=acme&query=" + strings.Repeat("q", request.MaxQueryBytes+1), fmt.Sprintf("query is %d bytes long", request.MaxQueryBytes+1)},
		{"name=acme&detail=everything", "invalid detail"},
	} {
		resp, body := get(t, noRedirects(nil), ts.URL, "/-/resolve?"+tc.query)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, tc.want) || strings.Contains(body, "engine could not answer") {
			t.Errorf("/-/resolve?%.60s: %d, want 400 with %q; page:\n%s", tc.query, resp.StatusCode, tc.want, body)
		}
	}
}

// TestCatalogOrder: the catalog lists libraries by id, with every version's
// commit and build time.
func TestCatalogOrder(t *testing.T) {
	engine := openEngine(t, dist(t))
	ts := serve(t, handler(engine, nil))
	_, body := get(t, noRedirects(nil), ts.URL, "/")
	var ids []string
	for _, m := range regexp.MustCompile(`<p class="id"><code>([^<]*)</code></p>`).FindAllStringSubmatch(body, -1) {
		ids = append(ids, m[1])
	}
	if d := cmp.Diff([]string{"/acme/cli", "/acme/widgets", "/evil/docs"}, ids); d != "" {
		t.Errorf("catalog order (-want +got):\n%s", d)
	}
	for _, l := range engine.Catalog().Libraries {
		for _, v := range l.Versions {
			if !strings.Contains(body, `title="`+v.Commit+`"`) || !strings.Contains(body, `datetime="`+v.BuiltAt.UTC().Format(time.RFC3339)+`"`) {
				t.Errorf("%s %s: commit or build time not shown", l.ID, v.Version)
			}
		}
	}
}

// TestCatalogNotLoaded: a server whose artifacts hold no build yet says
// so on its catalog page, instead of an empty catalog.
func TestCatalogNotLoaded(t *testing.T) {
	empty, err := search.OpenWith(t.TempDir(), search.Options{AllowEmpty: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { empty.Close() })
	_, body := get(t, noRedirects(nil), serve(t, handler(empty, nil)).URL, "/")
	if !strings.Contains(body, "No catalog is loaded yet") || !strings.Contains(body, "indexer build") {
		t.Errorf("the catalog page of an empty artifacts directory does not say it holds no build:\n%s", body)
	}
	_, body = get(t, noRedirects(nil), serve(t, handler(openEngine(t, dist(t)), nil)).URL, "/?q=no-such-library-anywhere")
	if strings.Contains(body, "No catalog is loaded") || !strings.Contains(body, "none matches the filter") {
		t.Errorf("a filter matching nothing reads as a missing catalog:\n%s", body)
	}
}

// TestManifestRepos reads a version's repository from its manifest, and
// nothing for what the catalog does not hold.
func TestManifestRepos(t *testing.T) {
	dir := dist(t)
	engine := openEngine(t, dir)
	repo := web.ManifestRepos([]string{t.TempDir(), dir}, engine.Catalog)
	lib := engine.Catalog().Library("/evil/docs")
	m, err := artifacts.ReadManifest(filepath.Join(dir, filepath.FromSlash(lib.Versions[0].Path)))
	if err != nil {
		t.Fatal(err)
	}
	if got := repo("/evil/docs", lib.Versions[0].Version); got == "" || got != m.Repo {
		t.Errorf("repo of /evil/docs: %q, want the manifest's %q", got, m.Repo)
	}
	for _, c := range [][2]string{{"/evil/docs", "v9"}, {"/nope/nope", "main"}} {
		if got := repo(c[0], c[1]); got != "" {
			t.Errorf("repo of %s@%s: %q, want none", c[0], c[1], got)
		}
	}
}

// TestSourceLinkOfIncludedSection checks that the answer page links a
// section an include brought into its page to the file it is written in
// on the git host, and the page's own sections to the page.
func TestSourceLinkOfIncludedSection(t *testing.T) {
	ts, commit := serveRepo(t, "/acme/tool", map[string]string{
		"docs/antora.yml":                      "name: tool\nversion: ~\n",
		"docs/modules/ROOT/pages/man.adoc":     "= Manual\n\n== Zebra synopsis\n\nRun the zebra tool.\n\ninclude::partial$opts.adoc[]\n",
		"docs/modules/ROOT/partials/opts.adoc": "== Zebra options\n\nThe zebra flag stripes the output.\n",
	})
	resp, body := get(t, noRedirects(nil), ts.URL, "/acme/tool/-/query?q=zebra")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d\n%s", resp.StatusCode, body)
	}
	blob := "https://github.com/acme/tool/blob/" + commit + "/docs/modules/ROOT/"
	for _, want := range []string{blob + "partials/opts.adoc#_zebra_options", blob + "pages/man.adoc#_zebra_synopsis"} {
		if !strings.Contains(body, `href="`+want+`"`) {
			t.Errorf("no link to %s", want)
		}
	}
}
