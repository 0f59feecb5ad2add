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

func TestClientKey(t *testing.T) {
	for _, tc := range []struct{ addr, want string }{
		{"203.0.113.7:443", "203.0.113.7/32"},
		{"[::ffff:203.0.113.7]:443", "203.0.113.7/32"},
		{"[2001:db8:1:2:aaaa::1]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:bbbb::9]:80", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:80", "fe80::/64"},
		{"@", "invalid Prefix"},
		{"203.0.113.7", "203.0.113.7/32"},
	} {
		if got := clientKey(tc.addr).String(); got != tc.want {
			t.Errorf("clientKey(%q) = %q, want %q", tc.addr, got, tc.want)
		}
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
