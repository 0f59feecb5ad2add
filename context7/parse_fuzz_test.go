package context7

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/codex7/codex7/context7/context7test"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// sentinels are the errors every error of the client wraps one of.
var sentinels = []error{ErrNoAPIKey, ErrInvalidRequest, ErrUnauthorized, ErrNotFound, ErrMoved,
	ErrRateLimited, ErrTimeout, ErrUnavailable, ErrMalformed}

// maxErrorText bounds an error's message: what comes from the network is
// clipped before it goes into one.
const maxErrorText = 2048

// checkError fails t unless err wraps one of want (all sentinels when
// want is empty), has a message of at most maxErrorText bytes of valid
// UTF-8, and does not show the API key.
func checkError(t *testing.T, err error, want ...error) {
	t.Helper()
	if len(want) == 0 {
		want = sentinels
	}
	found := false
	for _, s := range want {
		found = found || errors.Is(err, s)
	}
	if !found {
		t.Fatalf("error %q wraps none of %v", err, want)
	}
	msg := err.Error()
	if len(msg) > maxErrorText || !utf8.ValidString(msg) {
		t.Fatalf("error of %d bytes, want at most %d of valid UTF-8: %q", len(msg), maxErrorText, clip(msg, 300))
	}
	if strings.Contains(msg, testKey) {
		t.Fatalf("error shows the API key: %q", msg)
	}
}

// FuzzParseSearch checks parseSearch on any body: it never panics, and
// either fails with ErrMalformed or returns libraries with an id
// "/org..." and a title, finite scores, and a Text that renders.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{
		`{"results": [{"id": "/vercel/next.js", "title": "Next.js", "totalSnippets": 1250.0, "trustScore": 9, "versions": ["v15.1.8"]}]}`,
		`[{"id": "vercel/next.js", "name": "next"}, {"id": ""}, {"title": "no id"}]`,
		`{"results": null}`, `{"results": {}}`, `{}`, `[]`, `null`, `"x"`, `{"results": [null, 1, "x"]}`,
		`{"results": [{"id": "/a/b", "stars": 1e999, "totalTokens": -1e308, "benchmarkScore": "NaN"}]}`,
		"<html><body>Bad gateway</body></html>", "\x00\xff\xfe",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		libs, err := parseSearch(body)
		if err != nil {
			checkError(t, err, ErrMalformed)
			return
		}
		for _, l := range libs {
			if !strings.HasPrefix(l.ID, "/") || strings.TrimSpace(l.ID) != l.ID {
				t.Fatalf("library id %q, want /org/project", l.ID)
			}
			if l.Title == "" {
				t.Fatalf("library %q without a title", l.ID)
			}
			if math.IsNaN(l.TrustScore) || math.IsInf(l.TrustScore, 0) || math.IsNaN(l.BenchmarkScore) || math.IsInf(l.BenchmarkScore, 0) {
				t.Fatalf("library %q has scores %v, %v", l.ID, l.TrustScore, l.BenchmarkScore)
			}
		}
		res := &SearchResult{Query: "q", Libraries: libs}
		if text := res.Text(); text == "" {
			t.Fatal("empty Text")
		}
	})
}

// FuzzCheckText checks the reading of text answers (/v1, and /v2 with
// type=txt) on any body: it never panics; it fails with ErrMalformed, or
// ErrNotFound for an answer that says there is nothing; or it returns
// snippets with a kind, a title, a text that is not blank and its token
// count, and loses no text: the non-blank lines of the body are those of
// the snippets, in order, less the separator lines between snippets.
func FuzzCheckText(f *testing.F) {
	code := []context7test.CodeSnippet{context7test.Code("Run it", "How to run.", "go", "https://x.dev/run")}
	info := []context7test.InfoSnippet{context7test.Info("Guide > Start", "Start here.\n\n----------\n\nSetext\n----------", "https://x.dev/start")}
	for _, s := range []string{
		context7test.V2Text(code, info), context7test.V1Text(code, info),
		"### A\n\nSource: s\n\n```\n----------\n```\n\n--------------------------------\n\n### B\n\nSource: t\n\ntext",
		"No content available", "", "{\"a\": 1}", "<!DOCTYPE html><p>x", "a\x00b", "\xff",
		"TITLE: x\nDESCRIPTION: y\nSOURCE: z\n\nLANGUAGE: go\nCODE:\n```\nx\n```\n\n----------------------------------------\n\nTITLE: w",
		"~~~~\nopen fence\n----------\n### x\nSource: y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body string) {
		snips, err := checkText([]byte(body))
		if err != nil {
			checkError(t, err, ErrMalformed, ErrNotFound)
			return
		}
		var got []string
		for _, s := range snips {
			if s.Kind != KindCode && s.Kind != KindInfo || s.Title == "" || strings.TrimSpace(s.Text) == "" {
				t.Fatalf("snippet %+v: want a kind, a title and text", s)
			}
			if s.Tokens != tokens.Count(s.Text) {
				t.Fatalf("snippet Tokens %d, want %d", s.Tokens, tokens.Count(s.Text))
			}
			got = append(got, textLines(s.Text)...)
		}
		if want := textLines(body); !equalStrings(got, want) {
			t.Fatalf("snippets hold lines %q, want the body's %q", got, want)
		}
	})
}

// textLines returns the trimmed lines of s that are neither blank nor
// separator lines.
func textLines(s string) []string {
	var out []string
	for l := range strings.SplitSeq(strings.ReplaceAll(s, "\r\n", "\n"), "\n") {
		if t := strings.TrimSpace(l); t != "" && !isSeparatorLine(t) {
			out = append(out, t)
		}
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// fuzzAnswer is what the fake Context7 of FuzzDoc answers.
type fuzzAnswer struct {
	status     int
	retryAfter string
	body       []byte
}

// fuzzStatuses are the statuses FuzzDoc answers with, by its status byte.
var fuzzStatuses = []int{200, 200, 200, 200, 202, 301, 308, 400, 401, 403, 404, 422, 429, 500, 502, 503, 418}

// FuzzDoc checks Client.Doc against a server whose answer (status,
// Retry-After and body, JSON for /v2 or text for the legacy /v1) is
// fuzzed, as are the request's topic, mode, page, limit and tokens. Doc
// never panics; an error wraps the sentinel of the status (ErrMalformed
// for a 200 that does not parse, ErrInvalidRequest for a page past the
// last) and stays short; a Doc respects its limits: Tokens is the size of
// Text and at most Budget, Budget is within MinTokens and MaxTokens, at
// most Limit snippets, Page within 1 and Pages.
func FuzzDoc(f *testing.F) {
	var mu sync.Mutex
	var answer fuzzAnswer
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		a := answer
		mu.Unlock()
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
		w.Write(a.body)
	}))
	f.Cleanup(srv.Close)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// A client per input: a 429 makes a client hold back until its
	// Retry-After has passed, which would decide the inputs after it.
	client := func(legacy bool) *Client {
		return New(Options{BaseURL: srv.URL + "/api", APIKey: testKey, Legacy: legacy, Timeout: 10 * time.Second, Now: func() time.Time { return now }})
	}

	code := []context7test.CodeSnippet{
		context7test.Code("Run it", "How to run.", "go", "https://x.dev/run"),
		context7test.Code("Big", strings.Repeat("words fill the budget ", 400), "go", "https://x.dev/big"),
	}
	info := []context7test.InfoSnippet{context7test.Info("Guide > Start", "Start here.", "https://x.dev/start")}
	v2 := `{"codeSnippets": [{"codeTitle": "Run it", "codeDescription": "How to run.", "codeId": "https://x.dev/run#_snippet_0", "codeList": [{"language": "go", "code": "run()"}]}], "infoSnippets": [{"pageId": "https://x.dev/start", "breadcrumb": "Guide > Start", "content": "Start here."}]}`
	for _, s := range []struct {
		body   string
		status uint8
		legacy bool
	}{
		{v2, 0, false},
		{`{"codeSnippets": [], "infoSnippets": null}`, 0, false},
		{`{"codeSnippets": [{"codeList": [{"code": "` + strings.Repeat("x ", 30000) + `"}]}]}`, 0, false},
		{`{"infoSnippets": [{"content": "` + strings.Repeat("```\\n", 3) + `"}]}`, 0, false},
		{"not json", 0, false},
		{context7test.V1Text(code, info), 0, true},
		{context7test.V2Text(code, info), 0, true},
		{`{"error": "library_not_found", "message": "Library \"/a/b\" not found."}`, 10, false},
		{`{"error": "rate_limited", "message": "slow down"}`, 12, false},
		{`{"redirectUrl": "/new/id", "message": "moved"}`, 5, false},
		{"<html>" + strings.Repeat("x", 5000), 13, true},
	} {
		f.Add(s.body, s.status, "", s.legacy, false, 1, 0, 0, "routing")
		f.Add(s.body, s.status, "120", s.legacy, true, 2, 1, 200, strings.Repeat("long topic ", 60))
	}
	f.Fuzz(func(t *testing.T, body string, status uint8, retryAfter string, legacy, codeMode bool, page, limit, toks int, topic string) {
		a := fuzzAnswer{status: fuzzStatuses[int(status)%len(fuzzStatuses)], retryAfter: retryAfter, body: []byte(body)}
		if strings.ContainsAny(retryAfter, "\r\n\x00") || !utf8.ValidString(retryAfter) {
			a.retryAfter = ""
		}
		mu.Lock()
		answer = a
		mu.Unlock()
		mode := ModeInfo
		if codeMode {
			mode = ModeCode
		}
		req := DocRequest{LibraryKey: "/acme/lib", Topic: topic, Mode: mode, Page: page, Limit: limit, Tokens: toks}
		doc, err := client(legacy).Doc(context.Background(), req)
		if request.CheckText("topic", topic) != nil {
			// Refused before any request, whatever Context7 would say.
			checkError(t, err, request.ErrInvalidCharacter)
			checkError(t, err, ErrInvalidRequest)
			return
		}
		if err != nil {
			switch a.status {
			case 200:
				checkError(t, err, ErrMalformed, ErrInvalidRequest)
			case 429:
				checkError(t, err, ErrRateLimited)
				var rl *RateLimitError
				if !errors.As(err, &rl) || rl.RetryAfter < 0 || rl.RetryAfter > 7*24*time.Hour {
					t.Fatalf("429 gave %v, want a *RateLimitError with Retry-After within a week", err)
				}
			case 400:
				checkError(t, err, ErrInvalidRequest)
			case 401, 403:
				checkError(t, err, ErrUnauthorized)
			case 404:
				checkError(t, err, ErrNotFound)
			case 301, 308:
				checkError(t, err, ErrMoved)
			default:
				checkError(t, err, ErrUnavailable)
			}
			return
		}
		if a.status != 200 {
			t.Fatalf("status %d gave a Doc", a.status)
		}
		if doc.Budget < MinTokens || doc.Budget > MaxTokens {
			t.Fatalf("Budget %d, want %d to %d", doc.Budget, MinTokens, MaxTokens)
		}
		if doc.Tokens != tokens.Count(doc.Text) || doc.Tokens > doc.Budget {
			t.Fatalf("Tokens %d for a Text of %d tokens, budget %d:\n%s", doc.Tokens, tokens.Count(doc.Text), doc.Budget, doc.Text)
		}
		if len(doc.Snippets) > doc.Limit || doc.Limit < 1 || doc.Limit > MaxLimit {
			t.Fatalf("%d snippets, limit %d", len(doc.Snippets), doc.Limit)
		}
		if doc.Pages > 0 && (doc.Page < 1 || doc.Page > doc.Pages || doc.Pages > MaxPage) {
			t.Fatalf("page %d of %d", doc.Page, doc.Pages)
		}
		if !utf8.ValidString(doc.Text) {
			t.Fatal("Text is not valid UTF-8")
		}
		for _, s := range doc.Snippets {
			if s.Kind != doc.Mode {
				t.Fatalf("a %s snippet in a %s Doc", s.Kind, doc.Mode)
			}
		}
	})
}

// TestDocFitsBudget checks that a Doc's text stays within its budget when
// what surrounds the snippets is long: a 500-byte topic, quoted in the
// header and in the message for no content, and a library id of 3,000
// bytes that Context7's search returned.
func TestDocFitsBudget(t *testing.T) {
	longID := "/acme/" + strings.Repeat("x", 3000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/search") {
			w.Write([]byte(`{"results": [{"id": "` + longID + `", "title": "Long"}]}`))
			return
		}
		w.Write([]byte(`{"codeSnippets": [], "infoSnippets": [{"content": "Start here."}]}`))
	}))
	defer srv.Close()
	c := New(Options{BaseURL: srv.URL + "/api", APIKey: testKey})
	for _, req := range []DocRequest{
		{LibraryKey: "/acme/lib", Topic: strings.Repeat("long topic ", 60), Mode: ModeCode, Tokens: MinTokens},
		{LibraryKey: "/acme/lib", Topic: strings.Repeat("long topic ", 60), Tokens: MinTokens},
		{LibraryKey: "lib", Topic: "start", Tokens: MinTokens},
	} {
		doc, err := c.Doc(context.Background(), req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		if doc.Tokens > doc.Budget || doc.Tokens != tokens.Count(doc.Text) {
			t.Errorf("%+v: Tokens %d (text %d), budget %d", req, doc.Tokens, tokens.Count(doc.Text), doc.Budget)
		}
		if !strings.HasPrefix(doc.Text, "# /acme/") {
			t.Errorf("%+v: text starts %q, want the header", req, clip(doc.Text, 40))
		}
	}
}
