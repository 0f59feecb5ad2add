package context7

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codex7/codex7/context7/cache"
	"github.com/codex7/codex7/context7/context7test"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

var bg = context.Background()

func TestSearch(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	res, err := c.Search(bg, "next.js", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Libraries) != 1 {
		t.Fatalf("libraries %+v, want /vercel/next.js", res.Libraries)
	}
	l := res.Libraries[0]
	if l.ID != "/vercel/next.js" || l.Title != "Next.js" || l.TrustScore != 9 || l.BenchmarkScore != 88.5 || len(l.Versions) != 2 || l.State != "finalized" {
		t.Errorf("library %+v", l)
	}
	r := f.last(t)
	if r.URL.Path != "/api/v2/libs/search" || r.URL.Query().Get("libraryName") != "next.js" || r.URL.Query().Get("query") != "next.js" {
		t.Errorf("request %s, want /api/v2/libs/search with libraryName and query", r.URL)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Errorf("Authorization %q, want the key as a bearer token", got)
	}
	if !strings.Contains(res.Text(), "Context7-compatible library ID: /vercel/next.js") {
		t.Errorf("text %q", res.Text())
	}
	// A question is sent as query; a name Context7 does not know is no
	// error.
	if _, err := c.Search(bg, "react", "how do hooks work"); err != nil || f.last(t).URL.Query().Get("query") != "how do hooks work" {
		t.Errorf("query not sent: %v %s", err, f.last(t).URL)
	}
	res, err = c.Search(bg, "no-such-thing", "")
	if err != nil || len(res.Libraries) != 0 || !strings.Contains(res.Text(), "No Context7 library matches") {
		t.Errorf("unknown name: %v %+v", err, res)
	}
	if _, err := c.Search(bg, "  ", ""); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("blank name: %v, want ErrInvalidRequest", err)
	}
}

func TestSearchAnswerForms(t *testing.T) {
	for name, body := range map[string]string{
		"bare array with name": `[{"id": "/facebook/react", "name": "React", "description": "UI", "totalSnippets": 1250.0, "trustScore": 95, "versions": ["v18.2.0"]}]`,
		"results":              `{"results": [{"id": "facebook/react", "title": "React", "totalSnippets": -1}], "metadata": {"authentication": "none"}}`,
		"null results":         `{"results": null}`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t)
			f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(body))
				return true
			})
			res, err := f.client(Options{}).Search(bg, "react", "")
			if name == "null results" {
				if err != nil || len(res.Libraries) != 0 {
					t.Errorf("%v %+v, want no libraries", err, res)
				}
				return
			}
			if err != nil || len(res.Libraries) != 1 || res.Libraries[0].ID != "/facebook/react" || res.Libraries[0].Title != "React" {
				t.Errorf("%v %+v", err, res)
			}
		})
	}
}

func TestMissingKey(t *testing.T) {
	f := newFake(t)
	c := New(Options{BaseURL: f.srv.URL + "/api"})
	if c.Configured() {
		t.Error("a client without a key says it is configured")
	}
	_, err := c.Search(bg, "react", "")
	if err == nil || err.Error() != "[Context7 API key not configured]" || !errors.Is(err, ErrNoAPIKey) {
		t.Errorf("Search without a key: %v", err)
	}
	_, err = c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Mode: "poetry"})
	if err == nil || err.Error() != "[Context7 API key not configured]" {
		t.Errorf("Doc without a key: %v", err)
	}
	if n := f.count(); n != 0 {
		t.Errorf("%d requests sent without a key, want none", n)
	}
	if o := OptionsFromEnv(func(k string) string {
		return map[string]string{"CONTEXT7_API_KEY": " ctx7sk-x ", "CONTEXT7_API_URL": "http://c7.internal/api/"}[k]
	}); o.APIKey != "ctx7sk-x" || New(o).BaseURL() != "http://c7.internal/api" {
		t.Errorf("OptionsFromEnv = %+v", o)
	}
	if New(Options{}).BaseURL() != "https://context7.com/api" || New(Options{}).Timeout() != 30*time.Second {
		t.Error("defaults: want https://context7.com/api and a 30 s timeout")
	}
}

func TestDoc(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	d, err := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Topic: "routing"})
	if err != nil {
		t.Fatal(err)
	}
	q := f.last(t).URL.Query()
	if f.last(t).URL.Path != "/api/v2/context" || q.Get("libraryId") != "/vercel/next.js" || q.Get("query") != "routing" || q.Get("type") != "json" {
		t.Errorf("request %s", f.last(t).URL)
	}
	if d.Mode != ModeInfo || d.Topic != "routing" || d.ResolvedKey != "vercel/next.js" || len(d.Snippets) != 1 || d.Snippets[0].Title != "Routing > Overview" {
		t.Errorf("doc %+v", d)
	}
	for _, want := range []string{"# /vercel/next.js (Context7, topic \"routing\", mode info, page 1 of 1)", "### Routing > Overview", "Source: https://github.com/vercel/next.js/blob/canary/docs/routing.mdx", "file-system routing"} {
		if !strings.Contains(d.Text, want) {
			t.Errorf("text lacks %q:\n%s", want, d.Text)
		}
	}
	if d.Tokens != tokens.Count(d.Text) || d.Budget != DefaultTokens {
		t.Errorf("tokens %d (budget %d), text has %d", d.Tokens, d.Budget, tokens.Count(d.Text))
	}

	// Without a topic: general documentation.
	d, err = c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js"})
	if err != nil || d.Topic != "" || f.last(t).URL.Query().Get("query") != GeneralQuery || len(d.Snippets) != 3 {
		t.Errorf("general: %v %+v %s", err, d, f.last(t).URL)
	}
}

func TestDocModes(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	d, err := c.Doc(bg, DocRequest{LibraryKey: "facebook/react", Topic: "hooks", Mode: "info"})
	if err != nil || len(d.Snippets) != 1 || d.Snippets[0].Kind != KindInfo || strings.Contains(d.Text, "```") {
		t.Errorf("info: %v %+v", err, d)
	}
	d, err = c.Doc(bg, DocRequest{LibraryKey: "facebook/react", Topic: "hooks", Mode: " Code "})
	if err != nil || d.Mode != ModeCode || len(d.Snippets) != 1 || d.Snippets[0].Kind != KindCode || !strings.Contains(d.Text, "```jsx\n// useState hook") {
		t.Errorf("code: %v %+v\n%s", err, d, d.Text)
	}
	// Both modes came from one cached-or-not fetch each; the default is info.
	d, _ = c.Doc(bg, DocRequest{LibraryKey: "facebook/react", Topic: "hooks"})
	if d.Mode != ModeInfo {
		t.Errorf("default mode %q, want info", d.Mode)
	}

	// No content in a mode: the other is suggested.
	for _, tc := range []struct{ key, mode, want string }{
		{"acme/prose", "code", "Try mode='info'."},
		{"acme/examples", "info", "Try mode='code'."},
	} {
		d, err := c.Doc(bg, DocRequest{LibraryKey: tc.key, Mode: tc.mode})
		if err != nil || len(d.Snippets) != 0 || !strings.Contains(d.Text, tc.want) {
			t.Errorf("%s mode %s: %v %q, want %q", tc.key, tc.mode, err, d.Text, tc.want)
		}
	}
	// Nothing at all about a topic.
	d, err = c.Doc(bg, DocRequest{LibraryKey: "facebook/react", Topic: "zzyzx"})
	if err != nil || !strings.Contains(d.Text, "no documentation of /facebook/react about \"zzyzx\"") {
		t.Errorf("nothing: %v %q", err, d.Text)
	}

	n := f.count()
	_, err = c.Doc(bg, DocRequest{LibraryKey: "facebook/react", Mode: "poetry"})
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), `"info"`) || !strings.Contains(err.Error(), `"code"`) || f.count() != n {
		t.Errorf("invalid mode: %v (%d requests), want ErrInvalidRequest naming info and code, before any request", err, f.count()-n)
	}
}

func TestDocPagination(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	titles := func(d *Doc) string {
		var ts []string
		for _, s := range d.Snippets {
			ts = append(ts, strings.TrimPrefix(s.Title, "Part "))
		}
		return strings.Join(ts, ",")
	}
	for _, tc := range []struct {
		page, limit int
		want        string
		pages       int
		next        bool
		note        string
	}{
		{0, 0, "01,02,03,04,05,06,07,08,09,10", 3, true, ""},
		{2, 0, "11,12,13,14,15,16,17,18,19,20", 3, true, ""},
		{3, 10, "21,22,23,24,25", 3, false, ""},
		{2, 5, "06,07,08,09,10", 5, true, ""},
		{-4, 5, "01,02,03,04,05", 5, true, "page -4 raised to 1"},
		{99, 1, "10", 10, false, "page 99 lowered to 10 (page goes from 1 to 10)"},
		{1, 50, "01,02,03,04,05,06,07,08,09,10", 3, true, "limit 50 lowered to 10"},
		{1, -3, "01", 10, true, "limit -3 raised to 1"},
	} {
		d, err := c.Doc(bg, DocRequest{LibraryKey: "acme/many", Topic: "t", Page: tc.page, Limit: tc.limit})
		if err != nil {
			t.Errorf("page %d limit %d: %v", tc.page, tc.limit, err)
			continue
		}
		if got := titles(d); got != tc.want || d.Pages != tc.pages || d.HasNext != tc.next {
			t.Errorf("page %d limit %d: %s (pages %d, next %v), want %s (pages %d, next %v)", tc.page, tc.limit, got, d.Pages, d.HasNext, tc.want, tc.pages, tc.next)
		}
		if tc.note != "" && !strings.Contains(d.Text, tc.note) {
			t.Errorf("page %d limit %d: text lacks %q:\n%s", tc.page, tc.limit, tc.note, d.Text)
		}
		if tc.next && !strings.Contains(d.Text, "ask for page") {
			t.Errorf("page %d: no hint for the next page", tc.page)
		}
	}
	_, err := c.Doc(bg, DocRequest{LibraryKey: "acme/many", Topic: "t", Page: 4})
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "ask for page 1 to 3") {
		t.Errorf("past the last page: %v", err)
	}
}

func TestDocKeyNormalization(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	for _, tc := range []struct {
		key, wantID, wantVersion string
	}{
		{"vercel/next.js", "/vercel/next.js", ""},
		{"/vercel/next.js", "/vercel/next.js", ""},
		{"/vercel/next.js/v16.0.3", "/vercel/next.js/v16.0.3", "v16.0.3"},
		{"/vercel/next.js@v15.1.8", "/vercel/next.js/v15.1.8", "v15.1.8"},
		{"https://github.com/vercel/next.js", "/vercel/next.js", ""},
		{"https://context7.com/vercel/next.js/llms.txt", "/vercel/next.js", ""},
		{"next.js", "/vercel/next.js", ""},
		{`"vercel/next.js"`, "/vercel/next.js", ""},
		{"vercel//next.js", "/vercel/next.js", ""},
		{" /vercel/next.js/ ", "/vercel/next.js", ""},
	} {
		t.Run(tc.key, func(t *testing.T) {
			d, err := c.Doc(bg, DocRequest{LibraryKey: tc.key, Topic: "routing"})
			if err != nil {
				t.Fatal(err)
			}
			if d.ResolvedKey != "vercel/next.js" || d.LibraryID != tc.wantID || d.Version != tc.wantVersion {
				t.Errorf("resolved %q, id %q, version %q; want vercel/next.js, %q, %q", d.ResolvedKey, d.LibraryID, d.Version, tc.wantID, tc.wantVersion)
			}
			if got := f.last(t).URL.Query().Get("libraryId"); got != tc.wantID {
				t.Errorf("libraryId sent %q, want %q", got, tc.wantID)
			}
		})
	}
	// A bare name costs a search first, and says what it resolved to.
	n := f.count()
	d, _ := c.Doc(bg, DocRequest{LibraryKey: "next.js", Topic: "routing"})
	if f.count()-n != 2 || !strings.Contains(d.Text, `"next.js" resolved to /vercel/next.js`) {
		t.Errorf("bare name: %d requests, text %q", f.count()-n, d.Text)
	}
	if _, err := c.Doc(bg, DocRequest{LibraryKey: "nothing-like-it"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "resolve-library-id") {
		t.Errorf("unknown bare name: %v", err)
	}
	// An unknown version is Context7's 404, never replaced by another.
	if _, err := c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js/v9.9.9"}); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "Tag 'v9.9.9' not found") {
		t.Errorf("unknown version: %v", err)
	}
	n = f.count()
	for _, bad := range []string{"", "a/b/c/d", "https://gitlab.com/a/b", "vercel/next.js?x"} {
		_, err := c.Doc(bg, DocRequest{LibraryKey: bad})
		if !errors.Is(err, ErrInvalidRequest) || !errors.Is(err, request.ErrInvalidKey) {
			t.Errorf("key %q: %v, want ErrInvalidRequest and request.ErrInvalidKey", bad, err)
		}
	}
	// Control and invisible characters are refused, in ids, versions and
	// topics alike, as by the local engine.
	for _, req := range []DocRequest{{LibraryKey: "/vercel/next.js\x00"}, {LibraryKey: "/vercel/next.js@v15\u200b"}, {LibraryKey: "/vercel/next.js", Topic: "routing\u202e"}} {
		if _, err := c.Doc(bg, req); !errors.Is(err, ErrInvalidRequest) || !errors.Is(err, request.ErrInvalidCharacter) {
			t.Errorf("%+v: %v, want ErrInvalidRequest and request.ErrInvalidCharacter", req, err)
		}
	}
	if f.count() != n {
		t.Error("invalid keys reached the network")
	}
}

func TestDocTopicNormalization(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	for _, tc := range []struct{ topic, want, sent string }{
		{`"PPR"`, "PPR", "PPR"},
		{"<relevant topic>", "", GeneralQuery},
		{"app/partial-pre-rendering/index", "partial pre-rendering", "partial pre-rendering"},
		{"partial-pre-rendering", "partial pre rendering", "partial pre rendering"},
		{"  routing  ", "routing", "routing"},
	} {
		d, err := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Topic: tc.topic})
		if err != nil {
			t.Errorf("%q: %v", tc.topic, err)
			continue
		}
		if d.Topic != tc.want || f.last(t).URL.Query().Get("query") != tc.sent {
			t.Errorf("topic %q: %q, sent %q; want %q, sent %q", tc.topic, d.Topic, f.last(t).URL.Query().Get("query"), tc.want, tc.sent)
		}
	}
}

func TestHTTPErrors(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		status int
		header map[string]string
		body   string
		is     error
		want   []string
	}{
		{"401", 401, nil, `{"error": "invalid_api_key", "message": "Invalid or expired API key", "status": 401}`, ErrUnauthorized, []string{"HTTP 401", "Invalid or expired API key", "CONTEXT7_API_KEY"}},
		{"403", 403, nil, `{"error": "library_blocked", "message": "Library /vercel/next.js has been blocked by system."}`, ErrUnauthorized, []string{"HTTP 403", "blocked"}},
		{"404", 404, nil, `{"error": "library_not_found", "message": "Library \"/vercel/next.js\" not found."}`, ErrNotFound, []string{"HTTP 404", "not found", "call resolve-library-id first"}},
		{"429 seconds", 429, map[string]string{"Retry-After": "30", "RateLimit-Limit": "1000", "RateLimit-Remaining": "0", "RateLimit-Reset": "1775000000", "Context7-Quota-Tier": "free"}, `{"error": "Too many requests", "status": 429}`, ErrRateLimited, []string{"HTTP 429", "retry after 30s", "remaining 0 of 1000", "resets at 1775000000", "tier free"}},
		{"429 date", 429, map[string]string{"Retry-After": now.Add(2 * time.Minute).Format(http.TimeFormat), "X-RateLimit-Remaining": "0"}, ``, ErrRateLimited, []string{"retry after 2m0s", "remaining 0"}},
		{"429 bare", 429, nil, `rate limited`, ErrRateLimited, []string{"retry later"}},
		{"500", 500, nil, `{"error": "internal_server_error", "message": "An internal error occurred while processing your request.", "status": 500}`, ErrUnavailable, []string{"HTTP 500", "internal error", "try again later"}},
		{"502 html", 502, nil, `<!DOCTYPE html><html><body>Bad gateway</body></html>`, ErrUnavailable, []string{"HTTP 502", "bad gateway"}},
		{"202", 202, nil, `{"error": "library_not_finalized", "message": "Library /vercel/next.js not finalized yet."}`, ErrUnavailable, []string{"HTTP 202", "still processing"}},
		{"301", 301, nil, `{"error": "library_redirected", "message": "Library /vercel/next.js has been redirected to this library: /vercel/nextjs.", "redirectUrl": "/vercel/nextjs"}`, ErrMoved, []string{"HTTP 301", "now /vercel/nextjs"}},
		{"400", 400, nil, `{"error": "invalid_input", "message": "bad"}`, ErrInvalidRequest, []string{"HTTP 400", "bad"}},
		{"418", 418, nil, ``, ErrUnavailable, []string{"HTTP 418", "teapot"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
				return true
			})
			c := f.client(Options{Now: func() time.Time { return now }})
			for _, call := range []func() error{
				func() error {
					_, err := c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js", Topic: "routing"})
					return err
				},
				func() error { _, err := c.Search(bg, "next.js", ""); return err },
			} {
				err := call()
				if !errors.Is(err, tc.is) {
					t.Fatalf("error %v, want %v", err, tc.is)
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%q lacks %q", err, w)
					}
				}
				if strings.Contains(err.Error(), testKey) {
					t.Errorf("the key is in %q", err)
				}
			}
			if tc.status == 429 {
				_, err := c.Search(bg, "next.js", "")
				var rl *RateLimitError
				if !errors.As(err, &rl) {
					t.Fatalf("%v is not a *RateLimitError", err)
				}
				if tc.name == "429 seconds" && (rl.RetryAfter != 30*time.Second || rl.Remaining != "0" || rl.Limit != "1000" || rl.Tier != "free") {
					t.Errorf("rate limit %+v", rl)
				}
			}
			if tc.status == 301 {
				_, err := c.Search(bg, "next.js", "")
				var se *StatusError
				if !errors.As(err, &se) || se.Redirect != "/vercel/nextjs" || se.Code != "library_redirected" {
					t.Errorf("moved: %+v", se)
				}
			}
		})
	}
}

// TestRetryAfter checks that both forms of Retry-After, seconds and an
// HTTP date, are read within the same bounds: a negative or past wait is
// none, and one longer than a week is a week.
func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	const week = 7 * 24 * time.Hour
	for _, tc := range []struct {
		header string
		want   time.Duration
	}{
		{"", 0},
		{"30", 30 * time.Second},
		{" 30 ", 30 * time.Second},
		{"-5", 0},
		{"999999999", week},
		{now.Add(2 * time.Minute).Format(http.TimeFormat), 2 * time.Minute},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{now.Add(30 * 24 * time.Hour).Format(http.TimeFormat), week},
		{"Fri, 31 Dec 9999 23:59:59 GMT", week},
		{"soon", 0},
	} {
		if got := retryAfter(tc.header, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestWrongKeyNeverShown(t *testing.T) {
	f := newFake(t)
	var logs bytes.Buffer
	// A broken proxy that echoes the Authorization header in its error.
	f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
		apiError(w, 401, "invalid_api_key", "bad key: "+r.Header.Get("Authorization"))
		return true
	})
	const key = "ctx7sk-wrong-but-secret"
	c := f.client(Options{APIKey: key, Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	_, err := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js"})
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("%v, want ErrUnauthorized", err)
	}
	if strings.Contains(err.Error(), key) || strings.Contains(logs.String(), key) {
		t.Errorf("the key leaked:\n%v\n%s", err, logs.String())
	}
	if !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("%v: want the echoed key redacted", err)
	}
}

// TestEchoedKeyNeverShownInPart checks that a key echoed where the client
// shortens or keeps what Context7 sent (a long message cut to its first
// 300 bytes, the error code, the new id of a 301, the quota headers of a
// 429) is redacted whole: cut first, the key's head escaped redaction.
func TestEchoedKeyNeverShownInPart(t *testing.T) {
	const key = "ctx7sk-wrong-but-secret"
	const secret = "wrong" // the key's first characters after its public "ctx7sk-"
	for _, tc := range []struct {
		name   string
		status int
		header string
		body   func(echo string) string
	}{
		{"message cut inside the key", 401, "", func(echo string) string {
			return `{"error": "invalid_api_key", "message": "` + strings.Repeat("h", 280) + " " + echo + `"}`
		}},
		{"error code", 403, "", func(echo string) string { return `{"error": "` + echo + `", "message": "denied"}` }},
		{"redirectUrl", 301, "", func(echo string) string { return `{"message": "moved", "redirectUrl": "/x/y?k=` + echo + `"}` }},
		{"quota header", 429, "Context7-Quota-Tier", func(string) string { return `{"message": "slow down"}` }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
				echo := r.Header.Get("Authorization")
				if tc.header != "" {
					w.Header().Set(tc.header, echo)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body(echo)))
				return true
			})
			_, err := f.client(Options{APIKey: key}).Search(bg, "react", "")
			if err == nil {
				t.Fatal("no error")
			}
			shown := err.Error()
			var se *StatusError
			if errors.As(err, &se) {
				shown += "\n" + se.Code + "\n" + se.Redirect + "\n" + se.Message + "\n" + se.Hint
			}
			if strings.Contains(shown, secret) {
				t.Errorf("part of the key is shown:\n%s", shown)
			}
		})
	}
}
func TestMalformedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
		legacy            bool
		want              string
	}{
		{"truncated json", "application/json", `{"codeSnippets": [{"codeTitle": "x"`, false, "not the JSON expected"},
		{"html page", "text/html", `<!DOCTYPE html><html>captive portal</html>`, false, "not the JSON expected"},
		{"json without snippets", "application/json", `{"hello": "world"}`, false, "without codeSnippets or infoSnippets"},
		{"wrong types", "application/json", `{"codeSnippets": "many"}`, false, "not the JSON expected"},
		{"binary txt", "text/plain", "\x00\x01\x02garbage\xff", true, "binary data"},
		{"html txt", "text/plain", "<html><body>Sign in</body></html>", true, "an HTML page"},
		{"json txt", "text/plain", `{"error": "oops"}`, true, "JSON where documentation text was expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
				if strings.Contains(r.URL.Path, "search") {
					return false
				}
				w.Header().Set("Content-Type", tc.ctype)
				w.Write([]byte(tc.body))
				return true
			})
			mem := cache.NewMemory(cache.Options{})
			c := f.client(Options{Legacy: tc.legacy, Cache: mem})
			_, err := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Topic: "routing"})
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v, want ErrMalformed saying %q", err, tc.want)
			}
			if mem.Len() != 0 {
				t.Error("a malformed answer was cached")
			}
		})
	}
	t.Run("search", func(t *testing.T) {
		f := newFake(t)
		f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"results": {"id": 1}}`))
			return true
		})
		if _, err := f.client(Options{}).Search(bg, "react", ""); !errors.Is(err, ErrMalformed) {
			t.Errorf("%v, want ErrMalformed", err)
		}
		f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
			w.Write([]byte(`{"metadata": {}}`))
			return true
		})
		if _, err := f.client(Options{}).Search(bg, "react", ""); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), `without "results"`) {
			t.Errorf("%v, want ErrMalformed", err)
		}
	})
}

func TestTimeout(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
		select {
		case <-release:
		case <-r.Context().Done():
		}
		return true
	})
	mem := cache.NewMemory(cache.Options{})
	c := f.client(Options{Timeout: 50 * time.Millisecond, Cache: mem})
	start := time.Now()
	_, err := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Topic: "routing"})
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no answer from Context7 within 50ms") {
		t.Errorf("%v, want ErrTimeout after 50ms", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
	_, err = c.Search(bg, "next.js", "")
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("search: %v, want ErrTimeout", err)
	}
	// The caller's shorter deadline counts too, and WithTimeout gives a
	// short budget.
	ctx, cancel := context.WithTimeout(bg, 20*time.Millisecond)
	defer cancel()
	if _, err := f.client(Options{}).Search(ctx, "next.js", ""); !errors.Is(err, ErrTimeout) {
		t.Errorf("caller deadline: %v, want ErrTimeout", err)
	}
	short := f.client(Options{}).WithTimeout(30 * time.Millisecond)
	if _, err := short.Search(bg, "next.js", ""); !errors.Is(err, ErrTimeout) || short.Timeout() != 30*time.Millisecond {
		t.Errorf("WithTimeout: %v", err)
	}
	if f.client(Options{}).WithTimeout(ShortTimeout).Timeout() != 2500*time.Millisecond {
		t.Error("ShortTimeout is not 2.5 s")
	}
	if mem.Len() != 0 {
		t.Error("a timeout was cached")
	}
	// A cancelled call is not a timeout.
	ctx, cancel = context.WithCancel(bg)
	cancel()
	if _, err := f.client(Options{}).Search(ctx, "next.js", ""); !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestNetworkError(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	f.srv.Close()
	_, err := c.Search(bg, "react", "")
	if !errors.Is(err, ErrUnavailable) || strings.Contains(err.Error(), testKey) {
		t.Errorf("%v, want ErrUnavailable", err)
	}
}

func TestTokenBudget(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{})
	whole, err := c.Doc(bg, DocRequest{LibraryKey: "acme/big", Topic: "budgets", Tokens: MaxTokens})
	if err != nil || len(whole.Snippets) != 5 {
		t.Fatalf("%v %+v", err, whole)
	}
	size := whole.Snippets[0].Tokens
	for _, budget := range []int{2*size + 300, size + 200, 3*size + 100} {
		d, err := c.Doc(bg, DocRequest{LibraryKey: "acme/big", Topic: "budgets", Tokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if d.Tokens > budget || tokens.Count(d.Text) != d.Tokens {
			t.Errorf("budget %d: the text is %d tokens", budget, tokens.Count(d.Text))
		}
		if len(d.Snippets) == 0 || d.Trimmed || d.LeftOut != 5-len(d.Snippets) {
			t.Errorf("budget %d: %d snippets, %d left out, trimmed %v", budget, len(d.Snippets), d.LeftOut, d.Trimmed)
		}
		for i, s := range d.Snippets {
			if s.Text != whole.Snippets[i].Text || !strings.Contains(d.Text, s.Text) {
				t.Errorf("budget %d: snippet %d is not whole", budget, i)
			}
		}
		if !strings.Contains(d.Text, "did not fit the budget") {
			t.Errorf("budget %d: the text does not say what was left out", budget)
		}
	}
	// A first snippet larger than the budget is cut at a paragraph, never
	// leaving a code fence open, rather than dropped.
	for _, budget := range []int{200, size / 2, size - 20} {
		d, err := c.Doc(bg, DocRequest{LibraryKey: "acme/big", Topic: "budgets", Tokens: budget})
		if err != nil {
			t.Fatal(err)
		}
		if d.Tokens > budget || !d.Trimmed || len(d.Snippets) != 1 || !strings.Contains(d.Text, "cut to fit the token budget") {
			t.Errorf("budget %d: %d tokens, trimmed %v, %d snippets\n%s", budget, d.Tokens, d.Trimmed, len(d.Snippets), d.Text)
		}
		if n := strings.Count(d.Text, "```"); n%2 != 0 {
			t.Errorf("budget %d: a code fence is left open:\n%s", budget, d.Text)
		}
		if !strings.Contains(d.Text, "Paragraph 0 of part 1") {
			t.Errorf("budget %d: the first paragraph is missing", budget)
		}
	}
	d, _ := c.Doc(bg, DocRequest{LibraryKey: "acme/big", Topic: "budgets", Tokens: 10})
	if d.Budget != MinTokens || !strings.Contains(d.Text, "tokens 10 raised to 200") {
		t.Errorf("tiny budget: %d, %q", d.Budget, d.Text)
	}
}

func TestLegacy(t *testing.T) {
	f := newFake(t)
	c := f.client(Options{Legacy: true})
	res, err := c.Search(bg, "react", "ignored by v1")
	if err != nil || len(res.Libraries) != 1 || f.last(t).URL.Path != "/api/v1/search" || f.last(t).URL.Query().Get("query") != "react" {
		t.Errorf("search: %v %+v %s", err, res, f.last(t).URL)
	}
	d, err := c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js/v15.1.8", Topic: "routing", Mode: "code", Tokens: 3000})
	if err != nil {
		t.Fatal(err)
	}
	u := f.last(t).URL
	if u.Path != "/api/v1/vercel/next.js/v15.1.8" || u.Query().Get("type") != "txt" || u.Query().Get("topic") != "routing" || u.Query().Get("tokens") != "3000" {
		t.Errorf("request %s", u)
	}
	if len(d.Snippets) != 1 || d.Snippets[0].Title != "Dynamic routes" || d.Snippets[0].Kind != KindCode {
		t.Errorf("code snippets %+v", d.Snippets)
	}
	d, err = c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js", Topic: "routing"})
	if err != nil || len(d.Snippets) != 1 || d.Snippets[0].Title != "Routing > Overview" {
		t.Errorf("info snippets: %v %+v", err, d.Snippets)
	}
	if _, ok := f.last(t).URL.Query()["topic"]; !ok {
		t.Error("topic not sent")
	}
	d, err = c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js"})
	if err != nil || len(d.Snippets) != 3 || f.last(t).URL.Query().Has("topic") {
		t.Errorf("general: %v %d %s", err, len(d.Snippets), f.last(t).URL)
	}
}

func TestSplitText(t *testing.T) {
	v2 := "### Relocate compare_chararrays\n\nSource: https://github.com/numpy/numpy/blob/main/notes.rst\n\nMoved to np.char.\n\n```python\nimport numpy as np\n\n--------------------------------\n\nnp.char.compare_chararrays(a, b, '==')\n```\n\n" +
		"--------------------------------\n\n### Use numpy.strings\n\nSource: https://github.com/numpy/numpy/blob/main/guide.rst\n\nNew namespace.\n\n```python\nnp.strings.upper(x)\n```\n\n" +
		"### Character arrays\n\nSource: https://github.com/numpy/numpy/blob/main/classes.rst\n\nCompatibility\n-------------\n\nFor Numarray.\n\n### Not a new snippet\n\nno source line follows.\n\n" +
		"--------------------------------\n\n### String functionality > Comparison\n\nSource: https://github.com/numpy/numpy/blob/main/strings.rst\n\nComparison ufuncs."
	got := splitText(v2)
	want := []struct{ title, source, kind string }{
		{"Relocate compare_chararrays", "https://github.com/numpy/numpy/blob/main/notes.rst", KindCode},
		{"Use numpy.strings", "https://github.com/numpy/numpy/blob/main/guide.rst", KindCode},
		{"Character arrays", "https://github.com/numpy/numpy/blob/main/classes.rst", KindInfo},
		{"String functionality > Comparison", "https://github.com/numpy/numpy/blob/main/strings.rst", KindInfo},
	}
	if len(got) != len(want) {
		for _, s := range got {
			t.Logf("%q", s.Text)
		}
		t.Fatalf("%d snippets, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Title != w.title || got[i].Source != w.source || got[i].Kind != w.kind {
			t.Errorf("snippet %d: %q %q %s, want %q %q %s", i, got[i].Title, got[i].Source, got[i].Kind, w.title, w.source, w.kind)
		}
	}
	if !strings.Contains(got[0].Text, "compare_chararrays(a, b, '==')\n```") || !strings.Contains(got[2].Text, "### Not a new snippet") {
		t.Errorf("a snippet was cut inside: %q / %q", got[0].Text, got[2].Text)
	}

	v1 := "TITLE: Install\nDESCRIPTION: With npm.\nSOURCE: https://x/install.md\n\nLANGUAGE: bash\nCODE:\n```\nnpm i x\n```\n\n----------------------------------------\n\nTITLE: About\nSOURCE: https://x/about.md\n\nProse only.\n\n----------------------------------------\n"
	got = splitText(v1)
	if len(got) != 2 || got[0].Title != "Install" || got[0].Kind != KindCode || got[0].Source != "https://x/install.md" || got[1].Title != "About" || got[1].Kind != KindInfo {
		t.Errorf("v1: %+v", got)
	}
	for _, s := range []string{"", "No content available", "No context data available"} {
		if _, err := checkText([]byte(s)); !errors.Is(err, errEmpty) {
			t.Errorf("%q: %v, want empty", s, err)
		}
	}
}

func TestCache(t *testing.T) {
	f := newFake(t)
	clk := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clk }
	dir := t.TempDir()
	store, err := cache.OpenDir(dir, cache.Options{TTL: time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	c := f.client(Options{Cache: store})
	req := DocRequest{LibraryKey: "vercel/next.js", Topic: "routing"}
	first, err := c.Doc(bg, req)
	if err != nil || first.Cached {
		t.Fatal(err, first.Cached)
	}
	n := f.count()
	again, err := c.Doc(bg, req)
	if err != nil || !again.Cached || f.count() != n || again.Text != first.Text {
		t.Errorf("second call: %v, cached %v, %d more requests", err, again.Cached, f.count()-n)
	}
	// Modes, pages and budgets are made from the same cached answer.
	if d, _ := c.Doc(bg, DocRequest{LibraryKey: "vercel/next.js", Topic: "routing", Mode: "code", Tokens: 300}); !d.Cached || f.count() != n {
		t.Error("another mode fetched again")
	}
	// Another process sharing the directory gets it too, and its key is
	// not in the files.
	other := f.client(Options{Cache: mustOpen(t, dir, now)})
	if d, _ := other.Doc(bg, req); !d.Cached || f.count() != n {
		t.Error("a second cache on the directory missed")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, name := range files {
		data, _ := os.ReadFile(name)
		if bytes.Contains(data, []byte(testKey)) {
			t.Errorf("%s holds the API key", name)
		}
	}
	// After the TTL it is fetched again.
	mu.Lock()
	clk = clk.Add(time.Hour)
	mu.Unlock()
	if d, _ := c.Doc(bg, req); d.Cached || f.count() != n+1 {
		t.Error("an expired answer was served")
	}
	// A damaged entry is dropped and fetched again.
	for _, name := range files {
		os.WriteFile(name, []byte("garbage"), 0o600)
	}
	n = f.count()
	if d, err := c.Doc(bg, req); err != nil || d.Cached || f.count() != n+1 || d.Text != first.Text {
		t.Errorf("damaged entry: %v, cached %v", err, d.Cached)
	}
	// Another key has entries of its own.
	if d, _ := f.client(Options{Cache: store, APIKey: testKey + "x"}).Search(bg, "react", ""); d != nil && d.Cached {
		t.Error("an answer cached for one key was served for another")
	}
}

func mustOpen(t *testing.T, dir string, now func() time.Time) *cache.Dir {
	t.Helper()
	d, err := cache.OpenDir(dir, cache.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFailuresNotCached checks that errors, timeouts and empty answers
// are never remembered: the next call asks again and gets the answer.
func TestFailuresNotCached(t *testing.T) {
	f := newFake(t)
	mem := cache.NewMemory(cache.Options{})
	c := f.client(Options{Cache: mem})
	fail := true
	var mu sync.Mutex
	f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			apiError(w, 500, "internal_server_error", "boom")
		}
		return fail
	})
	req := DocRequest{LibraryKey: "acme/later", Topic: "t"}
	if _, err := c.Doc(bg, req); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("%v, want ErrUnavailable", err)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	// A 404: the library does not exist yet.
	if _, err := c.Doc(bg, req); !errors.Is(err, ErrNotFound) {
		t.Fatalf("%v, want ErrNotFound", err)
	}
	// An empty answer: nothing about the topic yet.
	f.addLib(context7test.Library{ID: "/acme/later", Title: "Later"})
	if d, err := c.Doc(bg, req); err != nil || len(d.Snippets) != 0 {
		t.Fatalf("%v %+v, want an empty answer", err, d)
	}
	if res, _ := c.Search(bg, "nothing-like-it", ""); len(res.Libraries) != 0 {
		t.Fatal("unexpected search result")
	}
	if mem.Len() != 0 {
		t.Fatalf("%d entries cached from failures and empty answers", mem.Len())
	}
	f.addLib(context7test.Library{ID: "/acme/later", Title: "Later", Info: []context7test.InfoSnippet{info("Now", "t is here", "https://acme.dev/now")}})
	if d, err := c.Doc(bg, req); err != nil || len(d.Snippets) != 1 || d.Cached {
		t.Errorf("after the failures: %v %+v", err, d)
	}
	if mem.Len() != 1 {
		t.Errorf("%d entries, want the one good answer", mem.Len())
	}
}

func TestSpans(t *testing.T) {
	f := newFake(t)
	var logs bytes.Buffer
	c := f.client(Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	c.Search(bg, "next.js", "")
	d, _ := c.Doc(bg, DocRequest{LibraryKey: "next.js", Topic: `"PPR"`, Mode: "code"})
	c.Doc(bg, DocRequest{LibraryKey: "acme/nope"})
	var records []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		records = append(records, m)
	}
	if strings.Contains(logs.String(), testKey) {
		t.Error("the key is in the logs")
	}
	// The search, the search inside the bare name's doc, and two docs.
	if len(records) != 3 {
		t.Fatalf("%d records, want 3:\n%s", len(records), logs.String())
	}
	s := records[0]
	if s["msg"] != "context7.search" || s["span"] != "context7.search" || s["query"] != "next.js" || s["success"] != true || s["resultLen"].(float64) <= 0 || s["duration_ms"] == nil {
		t.Errorf("search record %v", s)
	}
	doc := records[1]
	if doc["span"] != "context7.doc" || doc["library_key"] != "next.js" || doc["topic"] != "PPR" || doc["mode"] != "code" ||
		doc["resolvedKey"] != "vercel/next.js" || doc["success"] != true || doc["resultLen"].(float64) != float64(len(d.Text)) || doc["duration_ms"] == nil {
		t.Errorf("doc record %v", doc)
	}
	fail := records[2]
	if fail["span"] != "context7.doc" || fail["success"] != false || fail["level"] != "WARN" || !strings.Contains(fail["error"].(string), "HTTP 404") || fail["resolvedKey"] != "acme/nope" {
		t.Errorf("failure record %v", fail)
	}
}

func TestTrimToTokens(t *testing.T) {
	long := strings.Repeat("word ", 400)
	code := "```go\n" + strings.Repeat("x := f(y)\n", 200) + "```"
	for _, tc := range []struct {
		name, text string
		budget     int
		want       string
	}{
		{"paragraphs", "First short.\n\n" + long, 60, "First short."},
		{"one long paragraph", long, 60, "word word"},
		{"one big code block", code, 60, "```go\nx := f(y)"},
		{"one long line", strings.Repeat("x", 5000), 60, "xxxx"},
		// The cut line stays inside its fence: cut loose, code read as prose.
		{"code with a long first line", "```\n" + strings.Repeat("y", 5000) + "\n```", 60, "```\nyyyy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := trimToTokens(tc.text, tc.budget)
			if n := tokens.Count(got); n > tc.budget || n == 0 {
				t.Errorf("%d tokens, want 1 to %d", n, tc.budget)
			}
			if !strings.HasPrefix(got, tc.want) || !strings.HasSuffix(got, "[… cut to fit the token budget]") {
				t.Errorf("got %.80q…, want it to start with %q and end with the mark", got, tc.want)
			}
			if strings.Count(got, "```")%2 != 0 {
				t.Errorf("a fence is left open: %q", got)
			}
		})
	}
	if got := trimToTokens("anything", 3); got != "" {
		t.Errorf("no room: %q", got)
	}
}

// TestTextAndJSONAgree reads each fixture library's snippets from the JSON
// answer and from both text answers, and expects the same snippets.
func TestTextAndJSONAgree(t *testing.T) {
	for _, lib := range context7test.Fixtures() {
		body, _ := json.Marshal(map[string]any{"codeSnippets": lib.Code, "infoSnippets": lib.Info})
		code, info, err := parseContextJSON(body)
		if err != nil {
			t.Fatal(err)
		}
		want := append(code, info...)
		for name, text := range map[string]string{"v2": context7test.V2Text(lib.Code, lib.Info), "v1": context7test.V1Text(lib.Code, lib.Info)} {
			got, err := checkText([]byte(text))
			if err != nil {
				t.Fatalf("%s %s: %v", lib.ID, name, err)
			}
			if len(got) != len(want) {
				t.Errorf("%s %s: %d snippets, want %d", lib.ID, name, len(got), len(want))
				continue
			}
			for i := range want {
				// Text answers have no kinds: a snippet with code is taken
				// for a code snippet.
				kind := want[i].Kind
				if strings.Contains(want[i].Text, "```") {
					kind = KindCode
				}
				if got[i].Title != want[i].Title || got[i].Kind != kind || got[i].Source != want[i].Source {
					t.Errorf("%s %s snippet %d: %q %q %s, want %q %q %s", lib.ID, name, i, got[i].Title, got[i].Source, got[i].Kind, want[i].Title, want[i].Source, want[i].Kind)
				}
				if name == "v2" && got[i].Text != want[i].Text {
					t.Errorf("%s v2 snippet %d:\n%q\nwant\n%q", lib.ID, i, got[i].Text, want[i].Text)
				}
			}
		}
	}
}
