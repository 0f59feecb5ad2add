package server

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRebindingRefused: on loopback, without --auth (the default), every
// route that tells about the catalog refuses a Host header naming another
// host, as /mcp does (TestHTTP), so that a DNS-rebinding page cannot read
// library names and documents through a person's browser: /api in its JSON
// error shape, /readyz, /metrics and the site as text. /healthz stays
// open. Loopback Host headers pass, and so do /readyz and /metrics without
// any Host (HTTP/1.0), which is how HAProxy's health check asks.
func TestRebindingRefused(t *testing.T) {
	site := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "the site") })
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{Site: site}))
	defer ts.Close()
	_, port, _ := net.SplitHostPort(ts.Listener.Addr().String())
	get := func(path, host string) (int, string, string) {
		t.Helper()
		req, err := http.NewRequest("GET", ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
	}
	api := []string{
		"/api/v2/libs/search?libraryName=widgets",
		"/api/v2/context?libraryId=/acme/widgets&query=polling",
		"/api/v1/acme/widgets?topic=polling",
		"/api/v1/search?query=widgets",
	}
	for _, host := range []string{"evil.example:" + port, "evil.example", "10.0.0.1:" + port} {
		for _, path := range api {
			code, ct, body := get(path, host)
			var e struct{ Error, Message string }
			if code != http.StatusForbidden || !strings.HasPrefix(ct, "application/json") || json.Unmarshal([]byte(body), &e) != nil ||
				e.Error != "forbidden" || !strings.Contains(e.Message, "localhost") || strings.Contains(body, "/acme/widgets") {
				t.Errorf("GET %s with Host %s: %d %s %.300s\nwant 403 with the API's JSON error naming the fix", path, host, code, ct, body)
			}
		}
		for _, path := range []string{"/readyz", "/metrics", "/", "/acme/widgets"} {
			if code, _, body := get(path, host); code != http.StatusForbidden || strings.Contains(body, "ready:") || strings.Contains(body, "codex7_") {
				t.Errorf("GET %s with Host %s: %d %.200s, want 403", path, host, code, body)
			}
		}
		if code, _, body := get("/healthz", host); code != 200 || body != "ok\n" {
			t.Errorf("GET /healthz with Host %s: %d %q, want 200 ok: liveness probes are never refused", host, code, body)
		}
	}

	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "localhost", "[::1]:" + port} {
		for path, want := range map[string]string{
			api[0]: `"id":"/acme/widgets"`, api[1]: "# /acme/widgets@", api[2]: "# /acme/widgets@",
			"/readyz": "ready: 1 libraries", "/metrics": "codex7_http_requests_total", "/": "the site",
		} {
			if code, _, body := get(path, host); code != 200 || !strings.Contains(body, want) {
				t.Errorf("GET %s with Host %s: %d %.200s, want 200 with %q", path, host, code, body, want)
			}
		}
	}

	// HTTP/1.0 without a Host header, as HAProxy's "option httpchk" asks:
	// no browser sends that, so the probes answer; /api refuses it as /mcp
	// (the SDK) does.
	for path, want := range map[string]int{"/readyz": 200, "/metrics": 200, "/healthz": 200, api[0]: http.StatusForbidden} {
		conn, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, "GET "+path+" HTTP/1.0\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("GET %s over HTTP/1.0: %v", path, err)
		}
		resp.Body.Close()
		conn.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s over HTTP/1.0 without Host: %d, want %d", path, resp.StatusCode, want)
		}
	}
}

// TestAllowedHosts: with HTTPOptions.AllowedHosts (serve --allow-host),
// a Host header naming any other host is refused on every route but
// /healthz, /mcp included, whatever address the server listens on (the
// check does not look at it); listed names, their subdomains for a
// "*." entry, IP addresses and localhost pass.
func TestAllowedHosts(t *testing.T) {
	site := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "the site") })
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{Site: site, AllowedHosts: []string{"docs.example.com", "*.corp.example", "svc.internal."}}))
	defer ts.Close()
	do := func(method, path, host string) (int, string) {
		t.Helper()
		body := ""
		if method == "POST" {
			body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		}
		code, _, b := send(t, method, ts.URL+path, "", body, map[string]string{"Host": host})
		return code, b
	}
	routes := [][2]string{{"GET", "/api/v2/libs/search?libraryName=widgets"}, {"GET", "/readyz"}, {"GET", "/metrics"}, {"GET", "/"}, {"POST", "/mcp"}}
	for _, host := range []string{"docs.example.com", "DOCS.example.com:8080", "docs.example.com.", "a.corp.example", "svc.internal", "svc.internal.:80", "10.0.0.1:8080", "[2001:db8::1]:80", "localhost"} {
		for _, r := range routes {
			if code, body := do(r[0], r[1], host); code != 200 {
				t.Errorf("%s %s with Host %s: %d %.200s, want 200", r[0], r[1], host, code, body)
			}
		}
	}
	for _, host := range []string{"evil.example", "docs.example.com.evil.example", "corp.example", "xcorp.example", "docs.example.co"} {
		for _, r := range routes {
			if code, body := do(r[0], r[1], host); code != http.StatusForbidden || !strings.Contains(body, "--allow-host") {
				t.Errorf("%s %s with Host %s: %d %.200s, want 403 naming --allow-host", r[0], r[1], host, code, body)
			}
			if r[1] == routes[0][1] { // /api's refusal carries its headers too
				req, _ := http.NewRequest("GET", ts.URL+r[1], nil)
				req.Host = host
				if resp, err := http.DefaultClient.Do(req); err != nil {
					t.Fatal(err)
				} else if resp.Body.Close(); resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("Cache-Control") != "no-store" {
					t.Errorf("refused /api answer headers %v, want nosniff and no-store", resp.Header)
				}
			}
		}
		if code, _ := do("GET", "/healthz", host); code != 200 {
			t.Errorf("GET /healthz with Host %s: %d, want 200", host, code)
		}
	}
}
