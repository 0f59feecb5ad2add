package access

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestGuessesLimitUnknownTokens(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(3)
	now := time.Unix(1_700_000_000, 0)
	const client = "203.0.113.7:50000"

	// A known token spends nothing: any number pass.
	for range 10 {
		if gr, err := g.Authenticate(p, client, ciToken, now); err != nil || gr == nil || gr.Name != "ci" {
			t.Fatalf("known token: %v, %v", gr, err)
		}
	}
	// Three unknown tokens are answered as unknown, the fourth is refused.
	// Sending one of them again (a revoked token, retried) is no guess.
	for i := range 3 {
		if gr, err := g.Authenticate(p, client, fmt.Sprint("guess-", i), now); gr != nil || err != nil {
			t.Fatalf("guess %d: %v, %v; want unknown", i, gr, err)
		}
		if i == 2 {
			break // the budget is spent: a repeat is refused too (below)
		}
		for range 10 {
			if gr, err := g.Authenticate(p, client, "guess-0", now); gr != nil || err != nil {
				t.Fatalf("guess-0 again after guess %d: %v, %v; want unknown, no guess spent", i, gr, err)
			}
		}
	}
	_, err := g.Authenticate(p, client, "guess-3", now)
	var ge *GuessError
	if !errors.As(err, &ge) || !errors.Is(err, ErrGuessing) {
		t.Fatalf("fourth guess: %v; want a GuessError", err)
	}
	if ge.Wait <= 0 || ge.Wait > 20*time.Second {
		t.Errorf("wait %v; want the 20 s one guess takes at 3 a minute", ge.Wait)
	}
	// While out of guesses, a known token is refused too: otherwise the
	// refusals would tell a right guess from a wrong one. So is a repeated
	// one.
	if gr, err := g.Authenticate(p, client, ciToken, now); gr != nil || !errors.Is(err, ErrGuessing) {
		t.Errorf("known token while out of guesses: %v, %v; want refused", gr, err)
	}
	if _, err := g.Authenticate(p, client, "guess-0", now); !errors.Is(err, ErrGuessing) {
		t.Errorf("a repeated unknown token while out of guesses: %v; want refused", err)
	}
	// Another address has its own budget; the same host on another port
	// does not.
	if gr, err := g.Authenticate(p, "198.51.100.1:1", ciToken, now); err != nil || gr == nil {
		t.Errorf("other address: %v, %v", gr, err)
	}
	if _, err := g.Authenticate(p, "203.0.113.7:50001", "guess-4", now); !errors.Is(err, ErrGuessing) {
		t.Errorf("same host, other port: %v; want refused", err)
	}
	// One guess comes back in 20 s.
	later := now.Add(ge.Wait)
	if gr, err := g.Authenticate(p, client, ciToken, later); err != nil || gr == nil {
		t.Errorf("known token after the wait: %v, %v", gr, err)
	}
	if gr, err := g.Authenticate(p, client, "guess-5", later); gr != nil || err != nil {
		t.Errorf("guess after the wait: %v, %v; want unknown", gr, err)
	}
	if _, err := g.Authenticate(p, client, "guess-6", later); !errors.Is(err, ErrGuessing) {
		t.Errorf("second guess after the wait: %v; want refused", err)
	}
}

func TestGuessesOff(t *testing.T) {
	p := policy(t, twoTokens)
	var g *Guesses = NewGuesses(0)
	if g != nil {
		t.Fatal("NewGuesses(0) is a limit")
	}
	now := time.Now()
	for i := range 1000 {
		if gr, err := g.Authenticate(p, "203.0.113.7:1", fmt.Sprint(i), now); gr != nil || err != nil {
			t.Fatalf("guess %d without a limit: %v, %v", i, gr, err)
		}
	}
	if gr, err := g.Authenticate(p, "203.0.113.7:1", appToken, now); err != nil || gr == nil || gr.Name != "app" {
		t.Errorf("known token without a limit: %v, %v", gr, err)
	}
}

func TestClientKeys(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"203.0.113.7:443", "203.0.113.7/32 invalid Prefix invalid Prefix"},
		{"[::ffff:203.0.113.7]:443", "203.0.113.7/32 invalid Prefix invalid Prefix"},
		{"[2001:db8:1:2:aaaa::1]:443", "2001:db8:1:2::/64 2001:db8:1::/56 2001:db8:1::/48"},
		{"[2001:db8:1:2:bbbb::9]:80", "2001:db8:1:2::/64 2001:db8:1::/56 2001:db8:1::/48"},
		{"[2001:db8:1:ff02::9]:80", "2001:db8:1:ff02::/64 2001:db8:1:ff00::/56 2001:db8:1::/48"},
		{"[fe80::1%eth0]:80", "fe80::/64 fe80::/56 fe80::/48"},
		{"@", "invalid Prefix invalid Prefix invalid Prefix"},
		{"203.0.113.7", "203.0.113.7/32 invalid Prefix invalid Prefix"},
	} {
		keys, _ := clientKeys(tc.addr)
		if got := fmt.Sprint(keys[0], " ", keys[1], " ", keys[2]); got != tc.want {
			t.Errorf("clientKeys(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestGuessesIPv6Prefixes: a client with many IPv6 addresses guesses at
// most 4 times one address's budget from a /56 and 16 times from a /48,
// and its guesses do not spend another /48's.
func TestGuessesIPv6Prefixes(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(2)
	now := time.Unix(1_700_000_000, 0)
	answered := func(addrs func(i int) string, tries int) int {
		n := 0
		for i := range tries {
			if _, err := g.Authenticate(p, addrs(i), fmt.Sprint("guess-", i, "-", addrs(i)), now); err == nil {
				n++
			} else if !errors.Is(err, ErrGuessing) {
				t.Fatal(err)
			}
		}
		return n
	}
	// One /64: its own budget, 2.
	if n := answered(func(i int) string { return fmt.Sprintf("[2001:db8:1:1::%x]:1", i+1) }, 10); n != 2 {
		t.Errorf("one /64 answered %d guesses, want 2", n)
	}
	// Other /64s of the same /56: 8 in all from the /56, 6 more.
	if n := answered(func(i int) string { return fmt.Sprintf("[2001:db8:1:%x::1]:1", i+2) }, 100); n != 6 {
		t.Errorf("the rest of the /56 answered %d guesses, want 6", n)
	}
	// /64s of other /56s of the same /48: 32 from the /48, 24 more.
	if n := answered(func(i int) string { return fmt.Sprintf("[2001:db8:1:%x::1]:1", (i+1)<<8) }, 255); n != 24 {
		t.Errorf("the rest of the /48 answered %d guesses, want 24", n)
	}
	// Another /48 has a budget of its own, and so has a known token's
	// address in it.
	if n := answered(func(i int) string { return fmt.Sprintf("[2001:db8:2:%x::1]:1", i<<8) }, 256); n != 32 {
		t.Errorf("another /48 answered %d guesses, want 32", n)
	}
	if gr, err := g.Authenticate(p, "[2001:db8:3::1]:1", ciToken, now); err != nil || gr == nil {
		t.Errorf("a known token from a third /48: %v, %v", gr, err)
	}
	if gr, err := g.Authenticate(p, "[2001:db8:1:ffff::1]:1", ciToken, now); gr != nil || !errors.Is(err, ErrGuessing) {
		t.Errorf("a known token from the spent /48: %v, %v; want refused", gr, err)
	}
}

// TestGuessesRetriesBehindProxy: clients behind one address each retrying
// a revoked token spend one guess each, however often they retry, as long
// as they are at most recentUnknown.
func TestGuessesRetriesBehindProxy(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(recentUnknown + 1)
	now := time.Unix(1_700_000_000, 0)
	for round := range 20 {
		for c := range recentUnknown {
			if _, err := g.Authenticate(p, "203.0.113.7:1", fmt.Sprint("revoked-", c), now); err != nil {
				t.Fatalf("round %d, client %d: %v", round, c, err)
			}
		}
	}
	if _, err := g.Authenticate(p, "203.0.113.7:1", "one more", now); err != nil {
		t.Errorf("a new unknown token after %d spent of %d: %v; want unknown", recentUnknown, recentUnknown+1, err)
	}
	if _, err := g.Authenticate(p, "203.0.113.7:1", "two more", now); !errors.Is(err, ErrGuessing) {
		t.Errorf("another after the budget is spent: %v; want refused", err)
	}
}

// BenchmarkGuessesKnown is what a request with a known token pays for the
// limit: its address looked up.
func BenchmarkGuessesKnown(b *testing.B) {
	p, err := Parse(strings.NewReader(twoTokens), "tokens.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		g    *Guesses
	}{{"off", nil}, {"on", NewGuesses(DefaultGuessesPerMinute)}} {
		b.Run(c.name, func(b *testing.B) {
			now := time.Now()
			for b.Loop() {
				if gr, _ := c.g.Authenticate(p, "203.0.113.7:50000", ciToken, now); gr == nil {
					b.Fatal("refused")
				}
			}
		})
	}
}

func TestGuessErrorMessage(t *testing.T) {
	err := error(&GuessError{Wait: 1500 * time.Millisecond})
	if got, want := err.Error(), "too many unknown tokens from this address: retry in 2 s"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestGuessesBounded: the addresses remembered are bounded; the least
// recently seen are forgotten, and come back with a full budget.
func TestGuessesBounded(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(1)
	now := time.Now()
	for i := range maxGuessers + 10 {
		addr := fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255)
		if _, err := g.Authenticate(p, addr, "guess", now); err != nil {
			t.Fatalf("first guess from %s: %v", addr, err)
		}
	}
	if n := g.clients.Len(); n != maxGuessers {
		t.Errorf("%d addresses remembered, want %d", n, maxGuessers)
	}
	if _, err := g.Authenticate(p, "10.0.0.0:1", "another guess", now); err != nil {
		t.Errorf("the first address, forgotten: %v; want a full budget again", err)
	}
	if _, err := g.Authenticate(p, fmt.Sprintf("10.0.%d.%d:1", (maxGuessers+9)>>8&255, (maxGuessers+9)&255), "another guess", now); !errors.Is(err, ErrGuessing) {
		t.Errorf("the last address: %v; want out of guesses", err)
	}
}

// TestGuessesConcurrent: guesses sent at once from one address spend its
// budget exactly: as many are answered as it holds, however they race.
func TestGuessesConcurrent(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(20)
	now := time.Now()
	var answered atomic.Int32
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			if _, err := g.Authenticate(p, "[2001:db8::1]:1", fmt.Sprint("guess-", i), now); err == nil {
				answered.Add(1)
			} else if !errors.Is(err, ErrGuessing) {
				t.Errorf("guess %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	if n := answered.Load(); n != 20 {
		t.Errorf("%d guesses answered, want the budget's 20", n)
	}
}

// TestGuessesClockNeverBack: a guess stamped earlier than one already
// counted (clocks read before the lock, a clock stepped back) is counted
// at the later time, so that it refunds nothing.
func TestGuessesClockNeverBack(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(2)
	t0 := time.Unix(1_700_000_000, 0)
	if _, err := g.Authenticate(p, "203.0.113.7:1", "a", t0.Add(100*time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Authenticate(p, "203.0.113.7:1", "b", t0.Add(40*time.Second)); err != nil {
		t.Fatal(err)
	}
	// Counted at t0+40 s, b would leave the bucket's clock there, and a
	// minute of refill would be counted again by t0+100 s.
	if _, err := g.Authenticate(p, "203.0.113.7:1", "c", t0.Add(100*time.Second+time.Millisecond)); !errors.Is(err, ErrGuessing) {
		t.Errorf("a third guess right after two: %v; want refused", err)
	}
}

// TestGuessesWaitIsTheLongest: an IPv6 client out of guesses in its /64
// and its /48 is told to wait for the later of the two.
func TestGuessesWaitIsTheLongest(t *testing.T) {
	p := policy(t, twoTokens)
	g := NewGuesses(1) // a /64: 1 a minute; its /48: 16 a minute
	now := time.Unix(1_700_000_000, 0)
	for i := range 16 { // one guess from each of 16 /64s, each in a /56 of its own, spends the /48
		if _, err := g.Authenticate(p, fmt.Sprintf("[2001:db8:1:%x::1]:1", i<<8), fmt.Sprint("guess-", i), now); err != nil {
			t.Fatalf("guess %d: %v", i, err)
		}
	}
	var ge *GuessError
	if _, err := g.Authenticate(p, "[2001:db8:1:ff00::1]:1", "fresh /64", now); !errors.As(err, &ge) || ge.Seconds() != 4 {
		t.Errorf("a fresh /64 of the spent /48: %v; want a wait of 60/16 s, 4 s", err)
	}
	if _, err := g.Authenticate(p, "[2001:db8:1::1]:1", "spent /64", now); !errors.As(err, &ge) || ge.Seconds() != 60 {
		t.Errorf("a spent /64 of the spent /48: %v; want the /64's 60 s", err)
	}
}
