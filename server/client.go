package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/realclientip/realclientip-go"

	"github.com/codex7/codex7/access"
)

// clientAddrs finds the address of the client behind a request: the
// connection's peer, or, when the peer is one of the trusted proxies
// (HTTPOptions.TrustedProxies: an ingress, a load balancer, `indexer
// route`'s HAProxy), the address the proxies name in X-Forwarded-For (or
// Forwarded's for=, when X-Forwarded-For names none): the
// rightmost one that is not itself a trusted proxy, which no client can
// forge (it was added by the first trusted proxy on the way in; whatever a
// client wrote is to its left). realclientip-go's rightmost trusted range
// strategy reads the header; the header is read only when the peer is
// trusted, so that a client connecting directly cannot name an address.
type clientAddrs struct {
	trusted []netip.Prefix
	header  realclientip.Strategy // nil without trusted proxies
}

// newClientAddrs returns the client addresses for the trusted proxies.
func newClientAddrs(trusted []netip.Prefix) clientAddrs {
	if len(trusted) == 0 {
		return clientAddrs{}
	}
	nets := make([]net.IPNet, 0, len(trusted))
	for _, p := range trusted {
		p = p.Masked()
		nets = append(nets, net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())})
	}
	// X-Forwarded-For, as ingresses, load balancers and HAProxy send it;
	// else RFC 7239's Forwarded, which some proxies send instead. The
	// header names are the two the strategy accepts: it cannot fail.
	s := realclientip.NewChainStrategy(
		realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("X-Forwarded-For", nets)),
		realclientip.Must(realclientip.NewRightmostTrustedRangeStrategy("Forwarded", nets)))
	return clientAddrs{trusted: trusted, header: s}
}

// of is the address of r's client, without a port; r.RemoteAddr as it is
// when it is no host and port (a Unix socket's peer).
func (c clientAddrs) of(r *http.Request) string {
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		peer = r.RemoteAddr
	}
	if c.header == nil {
		return peer
	}
	a, err := netip.ParseAddr(peer)
	if err != nil || !c.trusts(a.Unmap()) {
		return peer
	}
	// The strategy keeps a zone ("fe80::1%eth0", even "10.0.0.1%0"),
	// which names no other client: without it, or the peer when it is no
	// address at all.
	ip, _ := realclientip.SplitHostZone(c.header.ClientIP(r.Header, r.RemoteAddr))
	if a, err := netip.ParseAddr(ip); err == nil {
		return a.Unmap().String()
	}
	return peer // a proxy that names no one: the request is its own
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
// kept in its context for the handlers behind it.
type requestClient struct {
	addr    string
	guesses *access.Guesses
}

type requestClientKey struct{}

// withClient records the client's address, and the guesses its tokens
// spend, in ctx.
func withClient(ctx context.Context, addr string, guesses *access.Guesses) context.Context {
	return context.WithValue(ctx, requestClientKey{}, requestClient{addr, guesses})
}

// ClientAddr is the address of the client that sent r, as the server's
// guard found it (see HTTPOptions.TrustedProxies): behind a trusted proxy,
// the client's, not the proxy's. Outside the guard, r's peer.
func ClientAddr(r *http.Request) string {
	if c, ok := r.Context().Value(requestClientKey{}).(requestClient); ok {
		return c.addr
	}
	return clientAddrs{}.of(r)
}

// Authenticate checks a token that r's client presented other than as
// the guard reads them (the site's login form) against pol, spending the
// client's guesses as the guard does (HTTPOptions.Guesses): the token's
// grant, nil for an unknown token, or an *access.GuessError when the
// client may not present a token now.
func Authenticate(r *http.Request, pol *access.Policy, token string) (*access.Grant, error) {
	c, ok := r.Context().Value(requestClientKey{}).(requestClient)
	if !ok {
		c.addr = clientAddrs{}.of(r)
	}
	return c.guesses.Authenticate(pol, c.addr, token, time.Now())
}
