package access

import (
	"errors"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/request"
)

const (
	ciToken  = "c7_ci-secret"
	appToken = "c7_app-secret"
)

func policy(t *testing.T, src string) *Policy {
	t.Helper()
	p, err := Parse(strings.NewReader(src), "tokens.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var twoTokens = `tokens:
  - name: ci
    sha256: ` + HashToken(ciToken) + `
    libraries: ["/acme/*", "/Vercel/Next.js"]
  - name: app
    sha256: ` + strings.ToUpper(HashToken(appToken)) + `
    libraries: ["/*/*"]
    rate: 1
    burst: 2
`

func TestAuthenticate(t *testing.T) {
	p := policy(t, twoTokens)
	tests := []struct {
		token, want string
	}{
		{ciToken, "ci"},
		{appToken, "app"}, // the hash was written in upper case
		{"", ""},
		{ciToken + " ", ""},
		{HashToken(ciToken), ""}, // the hash is not the token
		{"c7_ci-secreT", ""},
	}
	for _, tt := range tests {
		g := p.Authenticate(tt.token)
		got := ""
		if g != nil {
			got = g.Name
		}
		if got != tt.want {
			t.Errorf("Authenticate(%q) = %q, want %q", tt.token, got, tt.want)
		}
	}
}

func TestAllows(t *testing.T) {
	p := policy(t, twoTokens)
	ci, app := p.Authenticate(ciToken), p.Authenticate(appToken)
	tests := []struct {
		g    *Grant
		id   string
		want bool
	}{
		{ci, "/acme/widgets", true},
		{ci, "/ACME/Widgets", true},
		{ci, "/acme", false},
		{ci, "/acme/widgets/extra", false},
		{ci, "/acmex/widgets", false},
		{ci, "/vercel/next.js", true},
		{ci, "/vercel/nextjs", false},
		{ci, "/vercel/swr", false},
		{app, "/anything/at-all", true},
		{app, "/one-segment", false},
	}
	for _, tt := range tests {
		if got := tt.g.Allows(tt.id); got != tt.want {
			t.Errorf("%s.Allows(%q) = %v, want %v", tt.g.Name, tt.id, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	h := HashToken("x")
	tests := []struct {
		name, src, want string
	}{
		{"empty", "", "empty"},
		{"no tokens", "tokens: []\n", "no tokens"},
		{"unknown key", "tokens:\n  - name: a\n    sha256: " + h + "\n    libraries: [/a/*]\n    scope: all\n", "line 5: field scope not found"},
		{"plain token", "tokens:\n  - name: a\n    token: hunter2\n", "store the token's hash, never the token"},
		{"no name", "tokens:\n  - sha256: " + h + "\n    libraries: [/a/*]\n", "tokens.yaml:2: a token without a name"},
		{"duplicate name", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/a/*]}\n  - {name: a, sha256: " + HashToken("y") + ", libraries: [/a/*]}\n", `tokens.yaml:3: token name "a" also at line 2`},
		{"duplicate hash", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/a/*]}\n  - {name: b, sha256: " + h + ", libraries: [/a/*]}\n", "has the hash of the token at line 2"},
		{"short hash", "tokens:\n  - {name: a, sha256: abc, libraries: [/a/*]}\n", "64 hex digits"},
		{"no libraries", "tokens:\n  - {name: a, sha256: " + h + "}\n", "may read no library"},
		{"one segment", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/acme]}\n", `library pattern "/acme": write /org/project`},
		{"no slash", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [acme/x]}\n", "write /org/project"},
		{"bad glob", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [\"/acme/[x\"]}\n", "syntax error in pattern"},
		{"no id can match", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/acme/*]}\n  - {name: b, sha256: " + HashToken("y") + ", libraries: [/acme/*, \"/a b/c\"]}\n", `tokens.yaml:3: token "b": library pattern "/a b/c": no library id can match "a b"`},
		{"zero rate", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/a/*], rate: 0}\n", "rate 0: give requests per second above 0"},
		{"negative burst", "tokens:\n  - {name: a, sha256: " + h + ", libraries: [/a/*], burst: -1}\n", "burst -1"},
		{"not yaml", "tokens: [\n", "tokens.yaml"},
		{"too big", "tokens:\n" + strings.Repeat("#", MaxFileBytes), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.src), "tokens.yaml")
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("error %v, want ErrInvalidPolicy", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to say %q", err, tt.want)
			}
		})
	}
}

func TestTake(t *testing.T) {
	p := policy(t, twoTokens)
	app := p.Authenticate(appToken) // rate 1, burst 2
	t0 := time.Unix(1000, 0)
	steps := []struct {
		at   time.Duration
		ok   bool
		wait time.Duration
	}{
		{0, true, 0},
		{0, true, 0},
		{0, false, time.Second},
		{500 * time.Millisecond, false, 500 * time.Millisecond},
		{time.Second, true, 0},
		{time.Second, false, time.Second},
		{10 * time.Second, true, 0}, // refilled to the burst, not beyond
		{10 * time.Second, true, 0},
		{10 * time.Second, false, time.Second},
		{9 * time.Second, false, time.Second}, // a clock going back earns nothing
	}
	for i, s := range steps {
		ok, wait := app.Take(t0.Add(s.at))
		if ok != s.ok || wait != s.wait {
			t.Errorf("step %d at %v: Take = %v, %v; want %v, %v", i, s.at, ok, wait, s.ok, s.wait)
		}
	}
	// Grants have buckets of their own.
	if ok, _ := p.Authenticate(ciToken).Take(t0); !ok {
		t.Error("ci's first request refused after app spent its rate")
	}
}

func TestNewToken(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if a == b || !strings.HasPrefix(a, "c7_") || len(a) != 3+43 {
		t.Errorf("tokens %q and %q: want two different c7_ tokens of 32 random bytes", a, b)
	}
	p := policy(t, "tokens:\n  - {name: new, sha256: "+HashToken(a)+", libraries: [/*/*]}\n")
	if g := p.Authenticate(a); g == nil || g.Name != "new" {
		t.Errorf("a new token does not authenticate against its own hash")
	}
}

func FuzzParse(f *testing.F) {
	f.Add(twoTokens)
	f.Add("tokens:\n  - {name: a, sha256: " + HashToken("x") + ", libraries: [/a/*], rate: 0.5}\n")
	f.Add("a: &a [*a, *a]\nb: &b [*a, *a]\ntokens: *b\n")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(strings.NewReader(src), "f.yaml")
		if err != nil {
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Fatalf("error %v does not wrap ErrInvalidPolicy", err)
			}
			return
		}
		if p.Len() == 0 {
			t.Fatal("a policy without tokens was accepted")
		}
		for _, g := range p.grants {
			if g.Name == "" || len(g.patterns) == 0 || g.limiter == nil {
				t.Fatalf("grant %+v accepted incomplete", g)
			}
		}
	})
}

// TestCarryOver checks that rereading the tokens file (SIGHUP) keeps what
// each token has spent instead of giving it a full burst again, applies a
// changed rate, and starts a new token full.
func TestCarryOver(t *testing.T) {
	old := policy(t, twoTokens)
	now := time.Now()
	app := old.Authenticate(appToken) // rate 1, burst 2
	for range 2 {
		if ok, _ := app.Take(now); !ok {
			t.Fatal("app's burst refused")
		}
	}
	reread := policy(t, twoTokens)
	reread.CarryOver(old)
	if ok, _ := reread.Authenticate(appToken).Take(now); ok {
		t.Error("app got a request after a reload with its burst spent")
	}
	if ok, _ := reread.Authenticate(ciToken).Take(now); !ok {
		t.Error("ci, which spent nothing, was refused after a reload")
	}
	// A new rate applies to what is left.
	faster := policy(t, strings.Replace(twoTokens, "rate: 1\n", "rate: 100\n", 1))
	faster.CarryOver(reread)
	if ok, _ := faster.Authenticate(appToken).Take(now.Add(20 * time.Millisecond)); !ok {
		t.Error("app at its new rate of 100/s refused after 20 ms")
	}
	// Without a previous policy, every token starts full.
	fresh := policy(t, twoTokens)
	fresh.CarryOver(nil)
	if ok, _ := fresh.Authenticate(appToken).Take(now); !ok {
		t.Error("a fresh policy refused app's first request")
	}
}

// TestCheckPattern: a pattern is refused exactly when no library id could
// match it, so a typo cannot leave a token reading nothing, and the
// patterns path.Match offers beyond * (?, classes, escapes) still load.
func TestCheckPattern(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // "" when the pattern loads
	}{
		{"/acme/*", ""},
		{"/*/*", ""},
		{" /Vercel/next*.js ", ""},
		{"/a?me/x", ""},
		{"/[ab]cme/x", ""},
		{"/[^a-z]/x", ""}, // a digit, '_' or '-'
		{"/*.x/y", ""},    // "x.x"
		{"/acme/\\x", ""}, // an escaped x
		{"/[.a]x/y", ""},  // "ax"
		{"/a b/c", `no library id can match "a b"`},
		{"/acme/.*", `no library id can match ".*"`},
		{"/\\.x/y", `no library id can match "\\.x"`},
		{"/[.]x/y", `no library id can match "[.]x"`},
		{"/[^a-z0-9_.\\-]/y", `no library id can match`},
		{"/acme/x@1", `no library id can match "x@1"`},
		{"/acme", "write /org/project"},
		{"/acme/x/y", "write /org/project"},
		{"/acme/[x", "syntax error"},
	}
	for _, tt := range tests {
		got, err := CheckPattern(tt.pattern)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckPattern(%q): %v, want it to load", tt.pattern, err)
		case tt.want == "" && got != strings.ToLower(strings.TrimSpace(tt.pattern)):
			t.Errorf("CheckPattern(%q) = %q, want it lower-cased and trimmed", tt.pattern, got)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckPattern(%q) = %q, %v; want an error with %q", tt.pattern, got, err, tt.want)
		}
	}
}

// FuzzCheckPattern: every pattern CheckPattern accepts matches a library
// id (its witness, which request.IsIDSegment accepts).
func FuzzCheckPattern(f *testing.F) {
	for _, s := range []string{"/acme/*", "/[a-c]?/x*", "/\\-x/[^a]", "/*.*/.", "/[]a]/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		lp, err := CheckPattern(p)
		if err != nil {
			return
		}
		segs := strings.Split(lp, "/")
		var id strings.Builder
		for _, seg := range segs[1:] {
			w, ok := witness(seg)
			if !ok || !request.IsIDSegment(w) {
				t.Fatalf("CheckPattern(%q) accepted a segment %q without an id's witness (%q)", p, seg, w)
			}
			id.WriteString("/" + w)
		}
		if m, _ := path.Match(lp, id.String()); !m {
			t.Fatalf("CheckPattern(%q) accepted; its witness %q does not match it", p, id.String())
		}
		if g := (&Grant{patterns: []string{lp}}); !g.Allows(strings.ToUpper(id.String())) {
			t.Fatalf("a grant of %q does not allow %q", lp, id.String())
		}
	})
}

// TestAllowsEvery: only a grant holding "/*/*" may read every library;
// one pattern per org, however many, may not.
func TestAllowsEvery(t *testing.T) {
	for src, want := range map[string]bool{"[/*/*]": true, "[/acme/*, /*/*]": true, "[/acme/*]": false, "[/*/x]": false, "[/a*/*]": false} {
		p, err := Parse(strings.NewReader("tokens:\n  - {name: a, sha256: "+HashToken("x")+", libraries: "+src+"}\n"), "tokens.yaml")
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Authenticate("x").AllowsEvery(); got != want {
			t.Errorf("libraries %s: AllowsEvery %v, want %v", src, got, want)
		}
	}
}
