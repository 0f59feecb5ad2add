package server

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/realclientip/realclientip-go"

	"github.com/codex7/codex7/access"
	"github.com/codex7/codex7/metrics"
)

// Headers in which trusted proxies name the client (HTTPOptions.ProxyHeader).
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// maxProxyHops bounds the entries of the proxy header read, from the
// right: the client is among the last few (one a proxy on the way), and
// parsing every entry of a 60 KiB header would cost milliseconds.
const maxProxyHops = 16

// clientAddrs finds the address of the client behind a request: the
// connection's peer, or, when the peer is one of the trusted proxies
// (HTTPOptions.TrustedProxies: an ingress, a load balancer, `indexer
// route`'s HAProxy), the address the proxies name in one header
// (HTTPOptions.ProxyHeader): the rightmost entry that is not itself a
// trusted proxy (realclientip-go's rightmost trusted range strategy). A
// proxy appends the address it sees, so that entry is the client's,
// whatever the client wrote to its left. The header is read only when the
// peer is trusted, so that a client connecting directly names nothing;
// a client connecting from inside a trusted range, though, is taken for a
// proxy and may name any address.
type clientAddrs struct {
	trusted []netip.Prefix
	name    string                // the header read
	header  realclientip.Strategy // nil without trusted proxies
}

// newClientAddrs returns the client addresses for the trusted proxies,
// which name clients in header (HeaderXForwardedFor when "").
func newClientAddrs(trusted []netip.Prefix, header string) clientAddrs {
	if len(trusted) == 0 {
		return clientAddrs{}
	}
	if header == "" {
		header = HeaderXForwardedFor
	}
	if err := CheckProxyHeader(header); err != nil {
		panic("server: HTTPOptions.ProxyHeader: " + err.Error())
	}
	nets := make([]net.IPNet, 0, len(trusted))
	for _, p := range trusted {
		p = p.Masked()
		nets = append(nets, net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())})
	}
	s := realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy(header, nets))
	return clientAddrs{trusted: trusted, name: http.CanonicalHeaderKey(header), header: s}
}

// CheckProxyHeader says whether h names a header trusted proxies may name
// clients in: X-Forwarded-For or Forwarded, in any case.
func CheckProxyHeader(h string) error {
	if !strings.EqualFold(h, HeaderXForwardedFor) && !strings.EqualFold(h, HeaderForwarded) {
		return fmt.Errorf("%q: give %s or %s, the one your proxies write", h, HeaderXForwardedFor, HeaderForwarded)
	}
	return nil
}

// of is the address of r's client, without a port, and whether a proxy
// named it (not r's peer); r.RemoteAddr as it is when it is no host and
// port (a Unix socket's peer).
func (c clientAddrs) of(r *http.Request) (addr string, proxied bool) {
	peer := peerHost(r)
	if c.header == nil {
		return peer, false
	}
	a, err := netip.ParseAddr(peer)
	if err != nil || !c.trusts(a.Unmap().WithZone("")) { // a link-local peer has a zone; ranges have none
		return peer, false
	}
	// The strategy keeps a zone ("fe80::1%eth0", even "10.0.0.1%0"),
	// which names no other client: without it. A header that names no
	// untrusted address, or holds garbage where it would, names no one:
	// the request is the proxy's own.
	ip, _ := realclientip.SplitHostZone(c.header.ClientIP(c.lastHops(r.Header), r.RemoteAddr))
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.String(), true
	}
	return peer, false
}

// lastHops is h's proxy header cut to its last maxProxyHops entries, h
// itself when it has no more. It looks at the header from its end only.
func (c clientAddrs) lastHops(h http.Header) http.Header {
	values := h[c.name]
	if len(values) == 0 {
		return h
	}
	v := values[0]
	if len(values) > 1 {
		v = strings.Join(values, ",")
	}
	cut := len(v)
	for range maxProxyHops {
		i := strings.LastIndexByte(v[:cut], ',')
		if i < 0 {
			return h // at most maxProxyHops entries
		}
		cut = i
	}
	return http.Header{c.name: {v[cut+1:]}}
}

// peerHost is r's peer without its port.
func peerHost(r *http.Request) string {
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return peer
}

func (c clientAddrs) trusts(a netip.Addr) bool {
	for _, p := range c.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// requestClient is what the guard found out about a request's client,
// kept in its context (under a policy) for the site's login form.
type requestClient struct {
	addr    string
	guesses *access.Guesses
	tokens  *tokenCounts
	now     func() time.Time
}

// tokenCounts counts the tokens clients present, by what became of them
// (codex7_auth_tokens_total): an operator alerts on unknown and refused
// ones, which a guessing client sends.
type tokenCounts struct {
	known, unknown, refused *metrics.Counter
}

func newTokenCounts(reg *metrics.Registry) *tokenCounts {
	v := reg.Counter("codex7_auth_tokens_total", "Bearer tokens presented under --auth (header, site cookie or login form), by result: known, unknown, or refused unlooked-at because the client's address sent too many unknown ones (--auth-guesses).", "result")
	return &tokenCounts{known: v.With("known"), unknown: v.With("unknown"), refused: v.With("refused")}
}

// count counts what Guesses.Authenticate answered; nothing on a nil t.
func (t *tokenCounts) count(grant *access.Grant, err error) {
	switch {
	case t == nil:
	case err != nil:
		t.refused.Inc()
	case grant == nil:
		t.unknown.Inc()
	default:
		t.known.Inc()
	}
}

type requestClientKey struct{}

// withClient records what the guard found out about the client in ctx.
func withClient(ctx context.Context, c requestClient) context.Context {
	return context.WithValue(ctx, requestClientKey{}, c)
}

// Authenticate checks a token that r's client presented other than as
// the guard reads them (the site's login form) against pol, spending the
// client's guesses as the guard does (HTTPOptions.Guesses): the token's
// grant, nil for an unknown token, or an *access.GuessError when the
// client may not present a token now. Outside the guard r's peer is the
// client, and no guess is counted.
func Authenticate(r *http.Request, pol *access.Policy, token string) (*access.Grant, error) {
	c, ok := r.Context().Value(requestClientKey{}).(requestClient)
	if !ok {
		c = requestClient{addr: peerHost(r), now: time.Now}
	}
	grant, err := c.guesses.Authenticate(pol, c.addr, token, c.now())
	c.tokens.count(grant, err)
	return grant, err
}
