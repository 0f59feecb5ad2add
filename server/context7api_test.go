package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestContext7API checks that Handler serves the Context7-compatible API
// under /api, as clients whose base URL is http://host:port/api call it,
// and counts its requests under the route /api.
func TestContext7API(t *testing.T) {
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{}))
	defer ts.Close()
	before := settle(t, ts.URL)
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
	}

	code, _, body := get("/api/v2/libs/search?libraryName=widgets&query=polling")
	var found struct {
		Results []struct{ ID string } `json:"results"`
	}
	if err := json.Unmarshal([]byte(body), &found); code != 200 || err != nil || len(found.Results) == 0 || found.Results[0].ID != "/acme/widgets" {
		t.Fatalf("libs/search: %d %s (%v), want /acme/widgets first", code, body, err)
	}
	if code, ct, body := get("/api/v2/context?libraryId=/acme/widgets&query=polling"); code != 200 || !strings.HasPrefix(ct, "text/plain") || !strings.Contains(body, "# /acme/widgets@") {
		t.Errorf("context: %d %s\n%s\nwant the answer as text", code, ct, body)
	}
	if code, _, body := get("/api/v2/context?libraryId=/acme/nope&query=polling"); code != 404 || !strings.Contains(body, `"error":"library_not_found"`) {
		t.Errorf("unknown library: %d %s, want 404 library_not_found", code, body)
	}
	if code, _, _ := get("/api/nothing"); code != 404 {
		t.Errorf("unknown API path: %d, want 404", code)
	}
	// Every answer, success or error, carries the web page's safety
	// headers: nosniff, and no-store (an answer one token may read is
	// never kept for another by a cache in between).
	for _, path := range []string{"/api/v2/libs/search?libraryName=widgets", "/api/v2/context?libraryId=/acme/widgets&query=polling", "/api/v2/context?libraryId=/acme/nope&query=polling"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: headers %v, want nosniff and no-store", path, resp.Header)
		}
	}

	got := moved(before, settle(t, ts.URL), "codex7_http_requests_total")
	want := map[string]float64{
		`codex7_http_requests_total{code="200",route="/api"}`: 4,
		`codex7_http_requests_total{code="404",route="/api"}`: 3,
	}
	if d := diffMaps(want, got); d != "" {
		t.Errorf("requests counted other than by route /api:\n%s", d)
	}
}
