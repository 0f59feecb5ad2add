package context7

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/codex7/codex7/context7/cache"
)

// faultTimeout is the client's budget in the slow fault's test, which
// answers later than that. The other faults answer at once, and their
// tests give the client a minute, so that a loaded machine never turns a
// fault's answer into a timeout.
const faultTimeout = 300 * time.Millisecond

// remoteFault is one way the Context7 API misbehaves. serve answers every
// request while the fault lasts; kind says what the request was for.
type remoteFault struct {
	name  string
	serve func(w http.ResponseWriter, r *http.Request, kind string)
	// want is the sentinel the caller's error wraps; nil means the call
	// succeeds with nothing in it (an empty answer).
	want error
	// says is in the error's message.
	says string
	// kinds limits the fault to these request kinds (all when empty).
	kinds []string
}

// Request kinds: the v2 search, the v2 context (JSON) and the legacy v1
// text documentation.
const (
	kindSearch = "search"
	kindDoc    = "doc"
	kindText   = "doc (legacy text)"
)

func kindOf(r *http.Request) string {
	switch {
	case strings.Contains(r.URL.Path, "search"):
		return kindSearch
	case strings.HasPrefix(r.URL.Path, "/api/v1/"):
		return kindText
	}
	return kindDoc
}

// remoteFaults returns the faults; release ends the slow one's requests.
func remoteFaults(release <-chan struct{}) []remoteFault {
	body := func(w http.ResponseWriter, status int, ctype, b string) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		w.Write([]byte(b))
	}
	return []remoteFault{
		{name: "slow beyond the timeout", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, want: ErrTimeout, says: "no answer from Context7 within 300ms"},
		{name: "500", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			apiError(w, 500, "internal_server_error", "An unexpected error occurred")
		}, want: ErrUnavailable, says: "HTTP 500: An unexpected error occurred. Context7 failed: try again later"},
		{name: "502 proxy page", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			body(w, 502, "text/html", "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>")
		}, want: ErrUnavailable, says: "HTTP 502: bad gateway"},
		{name: "connection reset", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			closeConn(w, "", true)
		}, want: ErrUnavailable, says: "connection reset by peer"},
		{name: "connection reset mid-answer", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			closeConn(w, partialAnswer(kind), true)
		}, want: ErrUnavailable, says: "connection reset by peer"},
		{name: "connection closed mid-answer", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			closeConn(w, partialAnswer(kind), false)
		}, want: ErrUnavailable, says: "unexpected EOF"},
		{name: "HTML instead of an answer", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			body(w, 200, "text/html", "<!DOCTYPE html><html><body>Sign in to continue</body></html>")
		}, want: ErrMalformed},
		{name: "truncated JSON", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			body(w, 200, "application/json", map[string]string{kindSearch: `{"results": [{"id": "/vercel/next.js", "title": "Next`, kindDoc: `{"codeSnippets": [{"codeTitle": "Dyn`}[kind])
		}, want: ErrMalformed, says: "not the JSON expected", kinds: []string{kindSearch, kindDoc}},
		{name: "wrong types", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			body(w, 200, "application/json", map[string]string{kindSearch: `{"results": {"id": 1}}`, kindDoc: `{"codeSnippets": "many", "infoSnippets": 3}`}[kind])
		}, want: ErrMalformed, says: "not the JSON expected", kinds: []string{kindSearch, kindDoc}},
		{name: "JSON error body on the text endpoint", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			body(w, 200, "text/plain", `{"error": "internal", "message": "upstream tim`)
		}, want: ErrMalformed, says: "JSON where documentation text was expected", kinds: []string{kindText}},
		{name: "429 with Retry-After", serve: func(w http.ResponseWriter, r *http.Request, _ string) {
			w.Header().Set("Retry-After", "7")
			w.Header().Set("RateLimit-Limit", "60")
			w.Header().Set("RateLimit-Remaining", "0")
			apiError(w, 429, "rate_limited", "Rate limit exceeded")
		}, want: ErrRateLimited, says: "HTTP 429: rate limited (Rate limit exceeded); retry after 7s; quota: remaining 0 of 60"},
		{name: "empty answer", serve: func(w http.ResponseWriter, r *http.Request, kind string) {
			body(w, 200, "application/json", map[string]string{kindSearch: `{"results": []}`, kindDoc: `{"codeSnippets": [], "infoSnippets": []}`, kindText: "No content available"}[kind])
		}},
	}
}

// partialAnswer is the start of a 200 answer promising 4000 bytes, cut
// after a few dozen.
func partialAnswer(kind string) string {
	part := map[string]string{
		kindSearch: `{"results": [{"id": "/vercel/next.js", "title": "Next`,
		kindDoc:    `{"codeSnippets": [{"codeTitle": "Dyn`,
		kindText:   "TITLE: Dynamic routes\nDESCRIPTION: Create a dyn",
	}[kind]
	return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n" + part
}

// closeConn takes over the connection, writes raw (if any) and closes
// it, with a reset when rst is set: the client reads a reset or an early
// end, mid-answer when raw began one.
func closeConn(w http.ResponseWriter, raw string, rst bool) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if raw != "" {
		buf.WriteString(raw)
		buf.Flush()
	}
	if tc, ok := conn.(*net.TCPConn); ok && rst {
		tc.SetLinger(0)
	}
	conn.Close()
}

// faultOp is one client call the faults are tried on, with the check of
// its right answer.
type faultOp struct {
	kind   string
	legacy bool
	// call returns the answer's text, whether it came from the cache, and
	// how many results it has.
	call func(c *Client) (text string, cached bool, n int, err error)
	// right says what is wrong with a good answer's text, or "".
	right func(text string) string
}

var faultOps = []faultOp{
	{kind: kindSearch, call: func(c *Client) (string, bool, int, error) {
		res, err := c.Search(bg, "next.js", "")
		if err != nil {
			return "", false, 0, err
		}
		return res.Text(), res.Cached, len(res.Libraries), nil
	}, right: func(text string) string {
		if !strings.Contains(text, "Context7-compatible library ID: /vercel/next.js") {
			return "no /vercel/next.js"
		}
		return ""
	}},
	{kind: kindDoc, call: docCall, right: rightDoc},
	{kind: kindText, legacy: true, call: docCall, right: rightDoc},
}

func docCall(c *Client) (string, bool, int, error) {
	d, err := c.Doc(bg, DocRequest{LibraryKey: "/vercel/next.js", Topic: "routing"})
	if err != nil {
		return "", false, 0, err
	}
	return d.Text, d.Cached, len(d.Snippets), nil
}

func rightDoc(text string) string {
	if !strings.Contains(text, "The App Router uses file-system routing.") {
		return "not the routing snippet"
	}
	return ""
}

// TestRemoteFaultsNeverPoisonTheCache tries every fault on a search, a
// documentation request and a legacy text documentation request of a
// client with an on-disk cache. While the fault lasts each call fails
// with the fault's error and message, after one request at most (an empty answer is no
// error) and nothing is written to the cache; once it clears, the right
// answer comes back and is cached; when the fault returns, that cached
// answer is served without asking Context7.
func TestRemoteFaultsNeverPoisonTheCache(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	for _, fl := range remoteFaults(release) {
		for _, op := range faultOps {
			if len(fl.kinds) > 0 && !slices.Contains(fl.kinds, op.kind) {
				continue
			}
			t.Run(fl.name+"/"+op.kind, func(t *testing.T) {
				f := newFake(t)
				dir := t.TempDir()
				store, err := cache.OpenDir(dir, cache.Options{})
				if err != nil {
					t.Fatal(err)
				}
				// The clock moves only when the test says, so that a
				// Retry-After is waited out exactly.
				var clock atomic.Int64
				clock.Store(time.Now().UnixNano())
				now := func() time.Time { return time.Unix(0, clock.Load()) }
				timeout := time.Minute
				if errors.Is(fl.want, ErrTimeout) {
					timeout = faultTimeout
				}
				c := f.client(Options{Cache: store, Timeout: timeout, Legacy: op.legacy, Now: now})
				var faulty atomic.Bool
				faulty.Store(true)
				f.setOverride(func(w http.ResponseWriter, r *http.Request) bool {
					if faulty.Load() {
						fl.serve(w, r, kindOf(r))
						return true
					}
					return false
				})
				for i := range 2 {
					start, asked := time.Now(), f.count()
					text, cached, n, err := op.call(c)
					took := time.Since(start)
					if sent := f.count() - asked; sent > 1 {
						t.Errorf("call %d sent %d requests, want at most 1: a fault is not retried", i, sent)
					}
					switch {
					case fl.want == nil && (err != nil || n != 0 || cached):
						t.Errorf("call %d: %v, %d results, cached %v; want an empty answer", i, err, n, cached)
					case fl.want != nil && (!errors.Is(err, fl.want) || !strings.Contains(fmt.Sprint(err), fl.says)):
						t.Errorf("call %d: %v (%q), want %v saying %q", i, err, text, fl.want, fl.says)
					}
					if i == 0 {
						t.Logf("during the fault, in %s: %v%s", took.Round(time.Millisecond), err, firstLine(text))
					}
				}
				if rl := (*RateLimitError)(nil); errors.Is(fl.want, ErrRateLimited) {
					// Until Retry-After has passed, calls fail at once
					// without asking Context7 again.
					asked := f.count()
					clock.Add(int64(3 * time.Second))
					_, _, _, err := op.call(c)
					if !errors.As(err, &rl) || rl.RetryAfter != 4*time.Second || !strings.Contains(err.Error(), fl.says[:strings.Index(fl.says, "; retry")]) {
						t.Errorf("rate limit 3 s later: %v, want the same 429 with RetryAfter 4s", err)
					}
					if f.count() != asked {
						t.Errorf("%d requests sent within Retry-After, want none", f.count()-asked)
					}
				}
				if n := store.Len(); n != 0 {
					t.Fatalf("%d entries cached during the fault", n)
				}
				if temps := dirEntries(t, dir); len(temps) != 0 {
					t.Fatalf("files left in the cache directory during the fault: %v", temps)
				}

				faulty.Store(false)
				clock.Add(int64(time.Minute)) // past any Retry-After
				text, cached, _, err := op.call(c)
				if err != nil || cached || op.right(text) != "" {
					t.Fatalf("after the fault: %v, cached %v, %s:\n%s", err, cached, op.right(text), text)
				}
				if n := store.Len(); n != 1 {
					t.Errorf("%d cache entries after the right answer, want 1", n)
				}
				faulty.Store(true)
				asked := f.count()
				again, cached, _, err := op.call(c)
				if err != nil || !cached || again != text || f.count() != asked {
					t.Errorf("fault again: %v, cached %v, %d requests sent; want the cached answer and none", err, cached, f.count()-asked)
				}
			})
		}
	}
}

func firstLine(s string) string {
	if s == "" {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	return ": " + line
}

// dirEntries lists a cache directory's files.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
