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

// Seconds is Wait in whole seconds, as RetrySeconds says it.
func (e *GuessError) Seconds() int { return RetrySeconds(e.Wait) }

// RetrySeconds is a wait in whole seconds, rounded up and at least 1: what
// a Retry-After header says.
func RetrySeconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

func (e *GuessError) Unwrap() error { return ErrGuessing }

// DefaultGuessesPerMinute is how many unknown tokens a client address may
// present a minute, all at once after a quiet spell: enough for people
// who mistype and for a client whose token was just revoked, and too few
// to try many tokens. `indexer token`'s 256 random bits cannot be guessed
// at any rate; the limit is for tokens made by hand.
const DefaultGuessesPerMinute = 60

// maxGuessers bounds the client addresses (and IPv6 prefixes) Guesses
// remembers; beyond it the least recently seen are forgotten, and come
// back with a full budget.
const maxGuessers = 10_000

// Guesses limits how many unknown tokens each client address may present,
// so that a token made by hand cannot be found by trying many: a token
// bucket of perMinute guesses per address (golang.org/x/time/rate), spent
// by each unknown token that is not among the address's last
// recentUnknown different ones. Sending an unknown token again (a client
// whose token was revoked, retrying) is not guessing and spends nothing.
// While an address has no guess left, every token it presents is refused,
// known ones too, after the same work whatever the token: were known
// tokens let through, or refused faster, the refusals would tell a wrong
// guess from a right one.
//
// The address is the connection's: IPv4 addresses one by one. An IPv6
// host chooses its interface identifier, and a network its subnets, so
// IPv6 guesses are counted by /64 (perMinute), and also by /56 (4 ×
// perMinute, what a home connection gets) and /48 (16 × perMinute, a
// site's): a client with a /48 of its own guesses at 16 times the rate of
// one address, not 65,536 times. Behind a proxy every client has the
// proxy's address and they share one budget; raise the limit there, or
// turn it off (NewGuesses(0)).
//
// A nil *Guesses limits nothing. It is safe for concurrent use.
type Guesses struct {
	perMinute int
	mu        sync.Mutex // guards last, clients and every guesser's ring
	last      time.Time  // the latest now seen: the buckets' clock never runs back
	clients   *lru.Cache[netip.Prefix, *guesser]
}

// recentUnknown is how many of an address's latest different unknown
// tokens it may send again without spending a guess: as many clients
// behind one proxy may each retry a revoked token.
const recentUnknown = 32

// guesser is one client address's (or IPv6 prefix's) budget, and for an
// address its latest unknown tokens.
type guesser struct {
	lim    *rate.Limiter           // golang.org/x/time/rate's token bucket
	recent [recentUnknown][16]byte // a ring of token hashes' first halves
	next   int                     // where the ring's next hash goes
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
// remoteAddr (an address, with or without a port) at now, within
// the address's budget. It returns the token's grant, nil for an unknown
// token, or a *GuessError (wrapping ErrGuessing) when the address has no
// guess left, known token or not.
func (g *Guesses) Authenticate(p *Policy, remoteAddr, token string, now time.Time) (*Grant, error) {
	sum := sha256.Sum256([]byte(token))
	grant := p.authenticate(sum)
	if g == nil {
		return grant, nil
	}
	keys, budgets := clientKeys(remoteAddr)
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Before(g.last) {
		now = g.last
	}
	g.last = now
	// The same work for every token until the last step, so that while
	// the address is out of guesses a right token takes as long to be
	// refused as a wrong one.
	var gs [len(budgets)]*guesser
	var wait time.Duration
	out := false
	for i, k := range keys {
		if !k.IsValid() && i > 0 {
			break
		}
		gs[i] = g.guesser(k, budgets[i]*g.perMinute)
		if gs[i].lim.TokensAt(now) < 1 {
			out, wait = true, max(wait, untilOne(gs[i].lim, now))
		}
	}
	half := [16]byte(sum[:16])
	again := false
	for _, h := range gs[0].recent {
		again = again || h == half
	}
	switch {
	case out:
		return nil, &GuessError{Wait: wait}
	case grant != nil || again:
		return grant, nil
	}
	for _, x := range gs {
		if x != nil {
			x.lim.AllowN(now, 1) // each holds a token: checked above, under g.mu
		}
	}
	gs[0].recent[gs[0].next] = half
	gs[0].next = (gs[0].next + 1) % recentUnknown
	return nil, nil
}

// guesser is key's guesser, made with a full budget of perMinute when it
// has none. g.mu is held.
func (g *Guesses) guesser(key netip.Prefix, perMinute int) *guesser {
	if gs, ok := g.clients.Get(key); ok {
		return gs
	}
	gs := &guesser{lim: rate.NewLimiter(rate.Limit(float64(perMinute)/60), perMinute)}
	g.clients.Put(key, gs, 1)
	return gs
}

// untilOne is how long until lim has a whole token again.
func untilOne(lim *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - lim.TokensAt(now)
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / float64(lim.Limit()) * float64(time.Second))
}

// clientKeys are the prefixes a client's guesses are counted under, and
// each one's budget in multiples of perMinute: an IPv4 host's address
// alone; an IPv6 host's /64, /56 and /48. Every address that does not
// parse (a Unix socket's peer) is counted as one, under the zero Prefix.
// Unused keys are zero Prefixes.
func clientKeys(remoteAddr string) (keys [3]netip.Prefix, budgets [3]int) {
	budgets = [3]int{1, 4, 16}
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return keys, budgets
	}
	a = a.Unmap()
	if a.Is4() {
		keys[0] = netip.PrefixFrom(a, 32)
		return keys, budgets
	}
	for i, bits := range []int{64, 56, 48} { // PrefixFrom drops a zone
		keys[i] = netip.PrefixFrom(a, bits).Masked()
	}
	return keys, budgets
}
