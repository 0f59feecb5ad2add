package server

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/internal/syncbuf"
	"github.com/codex7/codex7/metrics"
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
		if l.Peer != "127.0.0.1" {
			t.Errorf("audit line of %s names peer %q, want the proxy 127.0.0.1", l.Remote, l.Peer)
		}
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
	if !strings.Contains(audit.String(), `"remote":"127.0.0.1"`) || strings.Contains(audit.String(), `"peer"`) {
		t.Errorf("audit log without trusted proxies does not name the peer as the client, or names a proxy:\n%s", audit.String())
	}
}

// TestClientAddrOf covers clientAddrs.of's cases: no trusted proxies, an
// untrusted peer, a trusted one with and without the header, IPv6 and
// IPv4-mapped peers, a long header, and the one header read.
func TestClientAddrOf(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8"), netip.MustParsePrefix("fe80::1/128")}
	long := strings.Repeat("198.51.100.7, ", 5000) + "203.0.113.8"
	for _, tc := range []struct {
		header         string // the proxies' header; "" is X-Forwarded-For
		peer, xff, fwd string
		want           string
		proxied        bool
	}{
		{peer: "192.0.2.1:1234", xff: "203.0.113.1", want: "192.0.2.1"},
		{peer: "10.1.2.3:1234", xff: "203.0.113.1", want: "203.0.113.1", proxied: true},
		{peer: "10.1.2.3:1234", xff: "203.0.113.1, 10.9.9.9", want: "203.0.113.1", proxied: true},
		{peer: "10.1.2.3:1234", xff: "198.51.100.66, 203.0.113.1", want: "203.0.113.1", proxied: true},
		{peer: "10.1.2.3:1234", want: "10.1.2.3"},
		{peer: "10.1.2.3:1234", xff: "10.4.4.4", want: "10.1.2.3"}, // only proxies: the proxy's own
		{peer: "10.1.2.3:1234", xff: "garbage", want: "10.1.2.3"},
		{peer: "10.1.2.3:1234", xff: "unknown", fwd: "for=203.0.113.77", want: "10.1.2.3"}, // Forwarded is not read
		{peer: "[fd00::5]:80", xff: "2001:db8::7", want: "2001:db8::7", proxied: true},
		{peer: "[::ffff:10.1.2.3]:80", xff: "203.0.113.1", want: "203.0.113.1", proxied: true},
		{peer: "[2001:db8::5]:80", xff: "203.0.113.1", want: "2001:db8::5"},
		{peer: "10.1.2.3:1234", xff: long, want: "203.0.113.8", proxied: true},
		{peer: "10.1.2.3:1234", xff: "203.0.113.9%0", want: "203.0.113.9", proxied: true},   // a zone names no one else
		{peer: "[fe80::1%eth0]:80", xff: "203.0.113.1", want: "203.0.113.1", proxied: true}, // a trusted link-local proxy
		{header: HeaderForwarded, peer: "10.1.2.3:1234", fwd: `for=203.0.113.4;proto=https`, want: "203.0.113.4", proxied: true},
		{header: HeaderForwarded, peer: "10.1.2.3:1234", fwd: `for="[2001:db8::4]:4711", for=10.2.2.2`, want: "2001:db8::4", proxied: true},
		{header: HeaderForwarded, peer: "10.1.2.3:1234", xff: "198.51.100.66", fwd: "for=203.0.113.50", want: "203.0.113.50", proxied: true},
		{header: HeaderForwarded, peer: "10.1.2.3:1234", xff: "198.51.100.66", want: "10.1.2.3"}, // X-Forwarded-For is not read
		{header: HeaderForwarded, peer: "192.0.2.1:1234", fwd: "for=203.0.113.4", want: "192.0.2.1"},
	} {
		c := newClientAddrs(trusted, tc.header)
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		if tc.xff != "" {
			r.Header.Set("X-Forwarded-For", tc.xff)
		}
		if tc.fwd != "" {
			r.Header.Set("Forwarded", tc.fwd)
		}
		if got, proxied := c.of(r); got != tc.want || proxied != tc.proxied {
			t.Errorf("%s header, peer %s, X-Forwarded-For %.40q, Forwarded %q: %q (proxied %v), want %q (%v)", cmp.Or(tc.header, "default"), tc.peer, tc.xff, tc.fwd, got, proxied, tc.want, tc.proxied)
		}
	}
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.1.2.3:1234"
	r.Header.Set("X-Forwarded-For", "203.0.113.1")
	if got, _ := (clientAddrs{}).of(r); got != "10.1.2.3" {
		t.Errorf("no trusted proxies: %q, want the peer", got)
	}
}

// FuzzClientAddr: whatever a client writes into X-Forwarded-For, behind a
// trusted proxy that appends the client's real address it is counted
// under that address; connecting directly, under its own.
func FuzzClientAddr(f *testing.F) {
	for _, s := range []string{"", "203.0.113.1", "203.0.113.1, 10.0.0.1", "[2001:db8::1]", "unknown", ",,", "10.0.0.1, 10.0.0.2", "::ffff:192.0.2.1", "fe80::1%eth0", "0.0.0.1%0", `"`} {
		f.Add(s, byte(7), true)
		f.Add(s, byte(7), false)
	}
	c := newClientAddrs([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8")}, "")
	f.Fuzz(func(t *testing.T, written string, last byte, viaProxy bool) {
		real := netip.AddrFrom4([4]byte{203, 0, 113, last}).String()
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = real + ":4000"
		header := written
		if viaProxy {
			r.RemoteAddr = "10.0.0.9:4000"
			if header != "" {
				header += ", "
			}
			header += real // what the proxy appends
		}
		r.Header["X-Forwarded-For"] = []string{header}
		if got, _ := c.of(r); got != real {
			t.Fatalf("X-Forwarded-For %q (proxied %v): counted as %q, want %q", header, viaProxy, got, real)
		}
	})
}

// TestProxyHint: under --auth without trusted proxies, the first request
// that names a client in a proxy header logs, once, that its clients
// share one budget and how to tell the server about the proxy.
func TestProxyHint(t *testing.T) {
	pol := guardPolicy(t)
	var log syncbuf.Buffer
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.NewTextHandler(&log, nil)), HTTPOptions{
		Auth:    func() *access.Policy { return pol },
		Guesses: access.NewGuesses(60),
	}))
	defer ts.Close()
	api := ts.URL + "/api/v2/libs/search?libraryName=widgets"
	send(t, "GET", api, "Bearer "+allToken, "", nil)
	if strings.Contains(log.String(), "trusted-proxy") {
		t.Fatalf("a request without proxy headers logged the hint:\n%s", log.String())
	}
	for range 3 {
		send(t, "GET", api, "Bearer "+allToken, "", map[string]string{"X-Forwarded-For": "203.0.113.1"})
	}
	if n := strings.Count(log.String(), "give --trusted-proxy"); n != 1 {
		t.Errorf("the hint was logged %d times, want once:\n%s", n, log.String())
	}
	// Without a limit of unknown tokens (or without --auth) there is no
	// budget to share: no hint.
	for name, opts := range map[string]HTTPOptions{
		"no limit": {Auth: func() *access.Policy { return pol }},
		"no auth":  {Guesses: access.NewGuesses(60)},
	} {
		var log syncbuf.Buffer
		ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.NewTextHandler(&log, nil)), opts))
		send(t, "GET", ts.URL+"/api/v2/libs/search?libraryName=widgets", "Bearer "+allToken, "", map[string]string{"X-Forwarded-For": "203.0.113.1"})
		ts.Close()
		if strings.Contains(log.String(), "trusted-proxy") {
			t.Errorf("%s: the hint was logged:\n%s", name, log.String())
		}
	}
}

// TestAuthenticateCounts: a token checked through Authenticate (the
// site's login form) spends the client's guesses and is counted as the
// guard's are.
func TestAuthenticateCounts(t *testing.T) {
	pol := guardPolicy(t)
	reg := metrics.NewRegistry()
	tokens := newTokenCounts(reg)
	r := httptest.NewRequest("POST", "/-/login", nil)
	r = r.WithContext(withClient(r.Context(), requestClient{addr: "203.0.113.1", guesses: access.NewGuesses(1), tokens: tokens, now: time.Now}))
	if g, err := Authenticate(r, pol, "wrong"); g != nil || err != nil {
		t.Fatalf("unknown token: %v, %v", g, err)
	}
	if _, err := Authenticate(r, pol, allToken); !errors.Is(err, access.ErrGuessing) {
		t.Fatalf("a known token after the budget: %v, want refused", err)
	}
	var text strings.Builder
	reg.WriteText(&text)
	for _, want := range []string{`codex7_auth_tokens_total{result="unknown"} 1`, `codex7_auth_tokens_total{result="refused"} 1`} {
		if !strings.Contains(text.String(), want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(text.String(), "codex7_auth_tokens_total"))
		}
	}
}

// TestLastHops: the strategy is given at most the last maxProxyHops
// entries of the header, however many lines and entries it has.
func TestLastHops(t *testing.T) {
	c := newClientAddrs([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "")
	h := http.Header{}
	for i := range 30 {
		h.Add("X-Forwarded-For", fmt.Sprintf("198.51.100.%d, 198.51.100.%d", 2*i, 2*i+1))
	}
	got := c.lastHops(h)["X-Forwarded-For"]
	entries := strings.Split(strings.Join(got, ","), ",")
	if len(entries) != maxProxyHops || strings.TrimSpace(entries[len(entries)-1]) != "198.51.100.59" || strings.TrimSpace(entries[0]) != "198.51.100.44" {
		t.Errorf("%d entries %q, want the last %d, 198.51.100.44 to .59", len(entries), got, maxProxyHops)
	}
	short := http.Header{"X-Forwarded-For": {"203.0.113.1, 10.0.0.1"}}
	if got := c.lastHops(short); fmt.Sprint(got) != fmt.Sprint(short) {
		t.Errorf("a short header changed: %v", got)
	}
}

// BenchmarkClientAddrLongHeader is what a trusted proxy's request with a
// 60 KiB X-Forwarded-For costs (only its last entries are parsed).
func BenchmarkClientAddrLongHeader(b *testing.B) {
	c := newClientAddrs([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "")
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.9:4000"
	r.Header.Set("X-Forwarded-For", strings.Repeat("198.51.100.7, ", 4400)+"203.0.113.8")
	for b.Loop() {
		if got, _ := c.of(r); got != "203.0.113.8" {
			b.Fatal(got)
		}
	}
}
