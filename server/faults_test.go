package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/context7/cache"
	"github.com/codex7/codex7/context7/context7test"
)

// c7FaultTimeout is the Context7 client's budget in TestRemoteFaults; the
// slow fault answers after 10 s.
const c7FaultTimeout = 300 * time.Millisecond

// c7Fault is a way the Context7 API fails, as the server meets it.
type c7Fault struct {
	name  string
	serve func(w http.ResponseWriter, r *http.Request)
	// says is what get-context7-docs' error says, and why is the reason
	// resolve-library-id's note gives for leaving Context7 out ("" for an
	// empty answer, which is not a failure).
	says, why string
}

func c7Faults(release <-chan struct{}) []c7Fault {
	reply := func(w http.ResponseWriter, status int, ctype, body string) {
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}
	return []c7Fault{
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, "no answer from Context7 within 300ms", "no answer in time"},
		{"500", func(w http.ResponseWriter, r *http.Request) {
			context7test.APIError(w, 500, "internal_server_error", "boom")
		}, "HTTP 500: boom. Context7 failed: try again later", "HTTP 500: boom"},
		{"connection reset", func(w http.ResponseWriter, r *http.Request) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}, "unavailable: read tcp", "connection reset by peer"},
		{"HTML page", func(w http.ResponseWriter, r *http.Request) {
			reply(w, 200, "text/html", "<!DOCTYPE html><html><body>Sign in to the captive portal</body></html>")
		}, "malformed answer: not the JSON expected", "malformed answer"},
		{"truncated JSON", func(w http.ResponseWriter, r *http.Request) {
			reply(w, 200, "application/json", `{"results": [{"id": "/vercel/next.js", "codeSnippets": [{"codeTitle": "Dyn`)
		}, "malformed answer: not the JSON expected (unexpected end of JSON input)", "unexpected end of JSON input"},
		{"wrong types", func(w http.ResponseWriter, r *http.Request) {
			reply(w, 200, "application/json", `{"results": {"id": 1}, "codeSnippets": "many", "infoSnippets": 3}`)
		}, "malformed answer: not the JSON expected (cannot unmarshal", "cannot unmarshal"},
		{"429 with Retry-After", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "12")
			context7test.APIError(w, 429, "rate_limited", "Rate limit exceeded")
		}, "HTTP 429: rate limited (Rate limit exceeded); retry after 12s", "HTTP 429: rate limited (Rate limit exceeded); retry after 12s"},
		{"empty answers", func(w http.ResponseWriter, r *http.Request) {
			reply(w, 200, "application/json", `{"results": [], "codeSnippets": [], "infoSnippets": []}`)
		}, "Context7 has no documentation of /vercel/next.js", ""},
	}
}

// TestRemoteFaults serves the fixture library over HTTP with Context7
// behind it (a fake, through a client with an on-disk cache) and makes
// Context7 slow, failing, reset, garbled or rate limiting. During each
// fault: get-library-docs and the /api endpoints answer the local library
// as fast as ever, resolve-library-id returns its local match within the
// client's timeout with a note saying why Context7 is left out, and
// get-context7-docs fails with a message saying what happened; nothing
// is cached. Once the fault clears the right remote answers come back,
// and when it returns they are served from the cache.
func TestRemoteFaults(t *testing.T) {
	engine := fixtureEngine(t)
	fake := remoteFixture(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	var faulty atomic.Pointer[c7Fault]
	fake.Override(func(w http.ResponseWriter, r *http.Request) bool {
		if f := faulty.Load(); f != nil {
			f.serve(w, r)
			return true
		}
		return false
	})
	for _, fl := range c7Faults(release) {
		t.Run(fl.name, func(t *testing.T) {
			store, err := cache.OpenDir(t.TempDir(), cache.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// The client's clock moves only when the fault clears, past
			// any Retry-After the fault asked for.
			var clock atomic.Int64
			clock.Store(time.Now().UnixNano())
			client := c7client(fake, context7.Options{Timeout: c7FaultTimeout, Cache: store, Now: func() time.Time { return time.Unix(0, clock.Load()) }})
			ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{Context7: client}))
			defer ts.Close()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "faults-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			localDocs := func() (time.Duration, string) {
				t.Helper()
				start := time.Now()
				text, isErr := call(t, cs, "get-library-docs", map[string]any{"libraryId": "/acme/widgets", "customQuery": "environment variables theme"}, nil)
				if isErr || !strings.Contains(text, "Environment variables") {
					t.Errorf("get-library-docs, local: isError %v\n%s", isErr, text)
				}
				return time.Since(start), text
			}
			_, want := localDocs() // warm: the version opens and verifies once
			resolveWidgets := func() (time.Duration, ResolveOutput) {
				t.Helper()
				var out ResolveOutput
				start := time.Now()
				text, isErr := call(t, cs, "resolve-library-id", map[string]any{"libraryName": "widgets"}, &out)
				if isErr || len(out.Matches) == 0 || out.Matches[0].ID != "/acme/widgets" || out.Matches[0].Source != "local" {
					t.Errorf("resolve-library-id widgets: isError %v, %+v\n%s", isErr, out, text)
				}
				return time.Since(start), out
			}
			remoteArgs := map[string]any{"libraryId": "/vercel/next.js", "topic": "routing"}

			faulty.Store(&fl)
			asked := fake.Count()
			docsTook, got := localDocs()
			if got != want {
				t.Errorf("the local answer changed during the fault:\n%s\nwant:\n%s", got, want)
			}
			apiStart := time.Now()
			resp, err := http.Get(ts.URL + "/api/v2/context?" + url.Values{"libraryId": {"/acme/widgets"}, "query": {"environment variables"}}.Encode())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			apiTook := time.Since(apiStart)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/api/v2/context, local: %d during the fault", resp.StatusCode)
			}
			if fake.Count() != asked {
				t.Errorf("local answers sent %d requests to Context7", fake.Count()-asked)
			}
			resolveTook, out := resolveWidgets()
			if fl.why != "" && !strings.Contains(out.Note, "Context7 could not be searched ("+fl.why) && !strings.Contains(out.Note, fl.why) {
				t.Errorf("resolve note %q, want it to say Context7 was left out because %q", out.Note, fl.why)
			}
			for _, m := range out.Matches {
				if m.Source != "local" {
					t.Errorf("a remote match during the fault: %+v", m)
				}
			}
			remoteStart := time.Now()
			text, isErr := call(t, cs, "get-context7-docs", remoteArgs, nil)
			remoteTook := time.Since(remoteStart)
			if isErr != (fl.why != "") || !strings.Contains(text, fl.says) || strings.Contains(text, context7test.Key) {
				t.Errorf("get-context7-docs: isError %v %q, want %q", isErr, text, fl.says)
			}
			for what, took := range map[string]time.Duration{"get-library-docs": docsTook, "/api/v2/context": apiTook} {
				if took > time.Second {
					t.Errorf("%s took %s during the fault", what, took)
				}
			}
			for what, took := range map[string]time.Duration{"resolve-library-id": resolveTook, "get-context7-docs": remoteTook} {
				if took > c7FaultTimeout+time.Second {
					t.Errorf("%s took %s during the fault, more than the %s budget and a second", what, took, c7FaultTimeout)
				}
			}
			t.Logf("during the fault: get-library-docs %s, /api %s, resolve-library-id %s, get-context7-docs %s: %s",
				docsTook.Round(time.Millisecond), apiTook.Round(time.Millisecond), resolveTook.Round(time.Millisecond), remoteTook.Round(time.Millisecond), firstLineOf(text))
			if n := store.Len(); n != 0 {
				t.Fatalf("%d answers cached during the fault", n)
			}

			faulty.Store(nil)
			clock.Add(int64(time.Minute))
			right, isErr := call(t, cs, "get-context7-docs", remoteArgs, nil)
			if isErr || !strings.Contains(right, "The App Router uses file-system routing.") {
				t.Fatalf("after the fault: isError %v\n%s", isErr, right)
			}
			if _, out = resolveWidgets(); len(out.Matches) < 2 || out.Matches[len(out.Matches)-1].Source != "remote" {
				t.Errorf("resolve after the fault: %+v, want Context7's matches back", out.Matches)
			}
			if store.Len() == 0 {
				t.Error("nothing cached after the fault cleared")
			}

			faulty.Store(&fl)
			asked = fake.Count()
			if again, isErr := call(t, cs, "get-context7-docs", remoteArgs, nil); isErr || again != right {
				t.Errorf("when the fault returns: isError %v\n%s\nwant the cached answer", isErr, again)
			}
			if fake.Count() != asked {
				t.Errorf("a cached answer sent %d requests", fake.Count()-asked)
			}
		})
	}
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return fmt.Sprintf("%.160s", line)
}
