package server

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/internal/syncbuf"
)

// TestTrustedProxies: behind a trusted proxy each client has its own
// budget of unknown tokens and its own address in the audit log, and what
// a client writes into X-Forwarded-For itself changes nothing; without
// trusted proxies the header is ignored.
func TestTrustedProxies(t *testing.T) {
	engine := fixtureEngine(t)
	pol := guardPolicy(t)
	serve := func(trusted []netip.Prefix) (*httptest.Server, *syncbuf.Buffer) {
		t.Helper()
		audit := &syncbuf.Buffer{}
		ts := httptest.NewServer(Handler(engine, "test", slog.New(slog.DiscardHandler), HTTPOptions{
			Auth:           func() *access.Policy { return pol },
			Guesses:        access.NewGuesses(2),
			TrustedProxies: trusted,
			Audit:          slog.New(slog.NewJSONHandler(audit, nil)),
		}))
		t.Cleanup(ts.Close)
		return ts, audit
	}
	api := "/api/v2/libs/search?libraryName=widgets"
	from := func(ts *httptest.Server, xff, token string) int {
		t.Helper()
		code, _, _ := send(t, "GET", ts.URL+api, "Bearer "+token, "", map[string]string{"X-Forwarded-For": xff})
		return code
	}

	// The test's connections come from loopback: the proxy.
	ts, audit := serve([]netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")})
	for i, tok := range []string{"guess-1", "guess-2"} {
		if code := from(ts, "203.0.113.1", tok); code != http.StatusUnauthorized {
			t.Fatalf("guess %d from 203.0.113.1: %d, want 401", i, code)
		}
	}
	if code := from(ts, "203.0.113.1", allToken); code != http.StatusTooManyRequests {
		t.Errorf("203.0.113.1 out of guesses: %d, want 429", code)
	}
	if code := from(ts, "203.0.113.2", allToken); code != http.StatusOK {
		t.Errorf("another client behind the proxy: %d, want 200", code)
	}
	// A client that writes an address of its own: the proxy adds the
	// client's real one to the right, and that one counts.
	if code := from(ts, "198.51.100.9, 203.0.113.1", allToken); code != http.StatusTooManyRequests {
		t.Errorf("203.0.113.1 naming another address: %d, want 429", code)
	}
	remotes := map[string]bool{}
	for _, l := range auditLines(t, audit.String()) {
		remotes[l.Remote] = true
	}
	if !remotes["203.0.113.1"] || !remotes["203.0.113.2"] || remotes["127.0.0.1"] || remotes["198.51.100.9"] {
		t.Errorf("audited remotes %v, want the clients behind the proxy only", remotes)
	}

	// Without trusted proxies the header is the client's word: ignored.
	ts, audit = serve(nil)
	for i, tok := range []string{"guess-1", "guess-2"} {
		if code := from(ts, "203.0.113.1", tok); code != http.StatusUnauthorized {
			t.Fatalf("untrusted guess %d: %d, want 401", i, code)
		}
	}
	if code := from(ts, "203.0.113.2", allToken); code != http.StatusTooManyRequests {
		t.Errorf("a header naming another address, from the same peer: %d, want 429", code)
	}
	if !strings.Contains(audit.String(), `"remote":"127.0.0.1"`) {
		t.Errorf("audit log without trusted proxies does not name the peer:\n%s", audit.String())
	}
}

// TestClientAddrOf covers clientAddrs.of's cases: no trusted proxies, an
// untrusted peer, a trusted one with and without the header, IPv6 and
// IPv4-mapped peers.
func TestClientAddrOf(t *testing.T) {
	c := newClientAddrs([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")})
	for _, tc := range []struct {
		peer, xff, want string
		forwarded       string
	}{
		{peer: "10.1.2.3:1234", forwarded: `for=203.0.113.4;proto=https`, want: "203.0.113.4"},
		{peer: "10.1.2.3:1234", forwarded: `for="[2001:db8::4]:4711", for=10.2.2.2`, want: "2001:db8::4"},
		{peer: "10.1.2.3:1234", xff: "203.0.113.1", forwarded: "for=203.0.113.4", want: "203.0.113.1"},
		{peer: "192.0.2.1:1234", forwarded: "for=203.0.113.4", want: "192.0.2.1"},
		{peer: "192.0.2.1:1234", xff: "203.0.113.1", want: "192.0.2.1"},
		{peer: "10.1.2.3:1234", xff: "203.0.113.1", want: "203.0.113.1"},
		{peer: "10.1.2.3:1234", xff: "203.0.113.1, 10.9.9.9", want: "203.0.113.1"},
		{peer: "10.1.2.3:1234", xff: "", want: "10.1.2.3"},
		{peer: "10.1.2.3:1234", xff: "10.4.4.4", want: "10.1.2.3"}, // only proxies: the peer
		{peer: "10.1.2.3:1234", xff: "garbage", want: "10.1.2.3"},
		{peer: "[fd00::5]:80", xff: "2001:db8::7", want: "2001:db8::7"},
		{peer: "[::ffff:10.1.2.3]:80", xff: "203.0.113.1", want: "203.0.113.1"},
		{peer: "[2001:db8::5]:80", xff: "203.0.113.1", want: "2001:db8::5"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if tc.forwarded != "" {
			r.Header.Set("Forwarded", tc.forwarded)
		}
		if got := c.of(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %q, want %q", tc.peer, tc.xff, got, tc.want)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:1234"
	r.Header.Set("X-Forwarded-For", "203.0.113.1")
	if got := (clientAddrs{}).of(r); got != "10.1.2.3" {
		t.Errorf("no trusted proxies: %q, want the peer", got)
	}
}

// FuzzClientAddr: whatever X-Forwarded-For and Forwarded hold, a
// request's client is its peer or an address that is not a trusted proxy,
// and only a trusted peer's headers are read.
func FuzzClientAddr(f *testing.F) {
	for _, s := range []string{"203.0.113.1", "203.0.113.1, 10.0.0.1", "[2001:db8::1]", "unknown", ",,", "10.0.0.1, 10.0.0.2", "::ffff:192.0.2.1", "fe80::1%eth0"} {
		f.Add(s, "", true)
		f.Add(s, "", false)
	}
	for _, s := range []string{"for=203.0.113.4", `for="[2001:db8::4]:4711";proto=https, for=10.0.0.2`, "for=_hidden", `for="unknown"`, "by=10.0.0.1;for=192.0.2.60"} {
		f.Add("", s, true)
	}
	c := newClientAddrs([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")})
	f.Fuzz(func(t *testing.T, xff, forwarded string, viaProxy bool) {
		r := httptest.NewRequest("GET", "/", nil)
		peer := "192.0.2.9"
		if viaProxy {
			peer = "10.0.0.9"
		}
		r.RemoteAddr = peer + ":4000"
		r.Header.Set("X-Forwarded-For", xff)
		r.Header.Set("Forwarded", forwarded)
		got := c.of(r)
		if got == peer {
			return
		}
		if !viaProxy {
			t.Fatalf("an untrusted peer's headers named %q", got)
		}
		a, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("client %q is not an address", got)
		}
		if c.trusts(a.Unmap()) {
			t.Fatalf("client %q is a trusted proxy", got)
		}
	})
}
