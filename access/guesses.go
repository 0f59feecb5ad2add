package access

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/codex7/codex7/lru"
)

// ErrGuessing is wrapped by Guesses.Authenticate's error when a client has
// presented more unknown tokens than it may: the token was not looked at.
var ErrGuessing = errors.New("too many unknown tokens from this address")

// GuessError is Guesses.Authenticate's refusal: the client may present a
// token again after Wait.
type GuessError struct {
	Wait time.Duration
}

func (e *GuessError) Error() string {
	return fmt.Sprintf("%v: retry in %d s", ErrGuessing, e.Seconds())
}

// Seconds is Wait in whole seconds, rounded up and at least 1: what a
// Retry-After header says.
func (e *GuessError) Seconds() int {
	return max(1, int((e.Wait+time.Second-1)/time.Second))
}

func (e *GuessError) Unwrap() error { return ErrGuessing }

// DefaultGuessesPerMinute is how many unknown tokens a client address may
// present a minute, all at once after a quiet spell: enough for people
// who mistype and for a client whose token was just revoked, and too few
// to try many tokens. `indexer token`'s 256 random bits cannot be guessed
// at any rate; the limit is for tokens made by hand.
const DefaultGuessesPerMinute = 60

// maxGuessers bounds the client addresses Guesses remembers; beyond it the
// least recently seen are forgotten (a client spread over more addresses
// than this is not slowed by the limit, nor by any per-address one).
const maxGuessers = 10_000

// Guesses limits how many unknown tokens each client address may present,
// so that a token made by hand cannot be found by trying many: a token
// bucket of perMinute guesses per address (golang.org/x/time/rate), spent
// by each unknown token the address has not sent lately. Sending the same
// unknown token again (a client whose token was revoked, retrying) is not
// guessing and spends nothing. While an address has no guess left, every
// token it presents is refused unlooked-at, known ones too: were known
// tokens let through, the refusals would tell a wrong guess from a right
// one.
//
// The address is the connection's: IPv4 addresses one by one, IPv6 by
// their /64 (one host's interface identifiers are its to choose). Behind a
// proxy every client has the proxy's address and they share one budget;
// raise the limit there, or turn it off (NewGuesses(0)).
//
// A nil *Guesses limits nothing. It is safe for concurrent use.
type Guesses struct {
	perMinute int
	mu        sync.Mutex // orders the look-up and creation of an address's guesser
	clients   *lru.Cache[netip.Prefix, *guesser]
}

// recentUnknown is how many of an address's latest unknown tokens it may
// send again without spending a guess.
const recentUnknown = 8

// guesser is one client address's budget and its latest unknown tokens.
type guesser struct {
	lim *rate.Limiter // golang.org/x/time/rate's token bucket; its own lock

	mu     sync.Mutex
	recent [recentUnknown][sha256.Size]byte // a ring of token hashes
	next   int                              // where the ring's next hash goes
}

// NewGuesses returns a limit of perMinute unknown tokens a minute per
// client address, or nil (no limit) when perMinute is not above 0.
func NewGuesses(perMinute int) *Guesses {
	if perMinute <= 0 {
		return nil
	}
	return &Guesses{perMinute: perMinute, clients: lru.New[netip.Prefix](lru.Options[*guesser]{MaxBytes: maxGuessers, MaxEntries: maxGuessers})}
}

// Authenticate is p.Authenticate(token) for a token presented from
// remoteAddr (an http.Request's RemoteAddr, "host:port") at now, within
// the address's budget. It returns the token's grant, nil for an unknown
// token, or a *GuessError (wrapping ErrGuessing) when the address has no
// guess left, known token or not.
func (g *Guesses) Authenticate(p *Policy, remoteAddr, token string, now time.Time) (*Grant, error) {
	grant := p.Authenticate(token) // first, whatever follows: the time taken says nothing
	if g == nil {
		return grant, nil
	}
	key := clientKey(remoteAddr)
	if grant != nil {
		// A known token spends nothing, but waits like any other while the
		// address is out of guesses.
		if gs, ok := g.clients.Get(key); ok && gs.lim.TokensAt(now) < 1 {
			return nil, &GuessError{Wait: untilOne(gs.lim, now)}
		}
		return grant, nil
	}
	if gs := g.guesser(key); !gs.guess(sha256.Sum256([]byte(token)), now) {
		return nil, &GuessError{Wait: untilOne(gs.lim, now)}
	}
	return nil, nil
}

// guesser is the address key's guesser, made with a full budget when it
// has none.
func (g *Guesses) guesser(key netip.Prefix) *guesser {
	g.mu.Lock()
	defer g.mu.Unlock()
	if gs, ok := g.clients.Get(key); ok {
		return gs
	}
	gs := &guesser{lim: rate.NewLimiter(rate.Limit(float64(g.perMinute)/60), g.perMinute)}
	g.clients.Put(key, gs, 1)
	return gs
}

// guess records an unknown token (by its hash) and reports whether the
// address may be told so: it has a guess left, or sent that token lately
// (and is not out of guesses).
func (gs *guesser) guess(sum [sha256.Size]byte, now time.Time) bool {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	for _, h := range gs.recent {
		if h == sum {
			return gs.lim.TokensAt(now) >= 1
		}
	}
	if !gs.lim.AllowN(now, 1) {
		return false
	}
	gs.recent[gs.next] = sum
	gs.next = (gs.next + 1) % recentUnknown
	return true
}

// untilOne is how long until lim has a whole token again.
func untilOne(lim *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - lim.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(lim.Limit()) * float64(time.Second))
}

// clientKey is the address a client's guesses are counted under: the
// host of remoteAddr, an IPv6 host as its /64. Every address that does
// not parse (a Unix socket's peer) is counted as one, the zero Prefix.
func clientKey(remoteAddr string) netip.Prefix {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	a = a.Unmap()
	if a.Is4() {
		return netip.PrefixFrom(a, 32)
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked()
}
