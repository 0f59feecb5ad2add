// Package access decides who may read what from a Codex7 server over HTTP.
// A policy is a YAML file of bearer tokens, each kept as the SHA-256 hash of
// the token (never the token itself), with a name for the logs, the library
// id patterns it may read and the rate of requests it may make:
//
//	tokens:
//	  - name: ci-docs-bot
//	    sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
//	    libraries: ["/acme/*", "/vercel/next.js"]
//	    rate: 20    # requests per second; optional, default 20
//	    burst: 40   # requests at once after a quiet spell; optional, default twice rate
//
// A pattern is a library id in which * stands for any run of characters
// within one segment: "/acme/*" is every project of acme, "/*/*" every
// library. Ids and patterns compare case-insensitively.
//
// `indexer token` makes a token and prints its entry.
package access

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	"golang.org/x/time/rate"

	"github.com/codex7/codex7/request"
)

// Defaults of a token's request rate.
const (
	DefaultRate = 20 // requests per second
	// MaxFileBytes bounds a policy file: a few thousand tokens fit.
	MaxFileBytes = 1 << 20
)

// ErrInvalidPolicy is wrapped by every error about a policy file's
// content; the message names the file, line and fix.
var ErrInvalidPolicy = errors.New("invalid access policy")

// Policy is a set of tokens. It is immutable once loaded and safe for
// concurrent use; each grant's rate limiter has its own lock.
type Policy struct {
	grants []*Grant
}

// Grant is what one token may do: read the libraries its patterns match,
// at its rate.
type Grant struct {
	// Name identifies the token in logs and audit lines; it is not secret.
	Name     string
	hash     [sha256.Size]byte
	patterns []string      // lower-case
	limiter  *rate.Limiter // golang.org/x/time/rate's token bucket
}

// Allows reports whether the grant may read the library id
// ("/org/project"). It satisfies request.Scope.
func (g *Grant) Allows(libraryID string) bool {
	id := strings.ToLower(libraryID)
	for _, p := range g.patterns {
		if ok, _ := path.Match(p, id); ok {
			return true
		}
	}
	return false
}

// AllowsEvery reports whether the grant may read every library: one of
// its patterns is "/*/*". Such a token may read what names any library
// (a registry feed's error, say).
func (g *Grant) AllowsEvery() bool {
	return slices.Contains(g.patterns, "/*/*")
}

// Take spends one request of the grant's rate at now. When the grant has
// none left it returns false and how long until it has one.
func (g *Grant) Take(now time.Time) (ok bool, wait time.Duration) {
	r := g.limiter.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Second
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// CarryOver gives p's grants the rate state of the same tokens in prev
// (the policy p replaces when the tokens file is read again), so that a
// reload does not hand every token a full burst: a token keeps what it has
// spent, at its new rate and burst if those changed. Call it before p
// serves any request; prev keeps working meanwhile.
func (p *Policy) CarryOver(prev *Policy) {
	if prev == nil {
		return
	}
	now := time.Now()
	for _, g := range p.grants {
		for _, old := range prev.grants {
			if subtle.ConstantTimeCompare(g.hash[:], old.hash[:]) != 1 {
				continue
			}
			lim := old.limiter
			lim.SetLimitAt(now, g.limiter.Limit())
			lim.SetBurstAt(now, g.limiter.Burst())
			g.limiter = lim
		}
	}
}

// Authenticate returns the grant of token, or nil when no grant has it.
// The token's hash is compared with every grant's in constant time, so
// the time taken says nothing about how close a guess came.
func (p *Policy) Authenticate(token string) *Grant {
	return p.authenticate(sha256.Sum256([]byte(token)))
}

// authenticate is Authenticate for a token's SHA-256.
func (p *Policy) authenticate(sum [sha256.Size]byte) *Grant {
	var found *Grant
	for _, g := range p.grants {
		if subtle.ConstantTimeCompare(sum[:], g.hash[:]) == 1 {
			found = g
		}
	}
	return found
}

// Len is the number of tokens.
func (p *Policy) Len() int { return len(p.grants) }

// HashToken is the hex SHA-256 of token, as a policy file stores it.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// NewToken returns a random token: "c7_" and 32 random bytes, base64url.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make a token: %w", err)
	}
	return "c7_" + base64.RawURLEncoding.EncodeToString(b), nil
}

// LoadFile reads the policy file at name.
func LoadFile(name string) (*Policy, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read access policy: %w", err)
	}
	defer f.Close()
	return Parse(f, name)
}

// file is the YAML shape of a policy file.
type file struct {
	Tokens []token `yaml:"tokens"`
}

type token struct {
	Name      string   `yaml:"name"`
	SHA256    string   `yaml:"sha256"`
	Libraries []string `yaml:"libraries"`
	Rate      *float64 `yaml:"rate"`
	Burst     *int     `yaml:"burst"`
	line      int
}

// Parse reads a policy from r; name is the file name errors give. Unknown
// keys, duplicate names or hashes, malformed hashes and patterns, and a
// policy without tokens are errors wrapping ErrInvalidPolicy.
func Parse(r io.Reader, name string) (*Policy, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read access policy %s: %w", name, err)
	}
	bad := func(line int, format string, args ...any) error {
		at := name
		if line > 0 {
			at = fmt.Sprintf("%s:%d", name, line)
		}
		return fmt.Errorf("%w: %s: %s", ErrInvalidPolicy, at, fmt.Sprintf(format, args...))
	}
	if len(data) > MaxFileBytes {
		return nil, bad(0, "larger than %d bytes; is this the right file?", MaxFileBytes)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, bad(0, "%v", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, bad(0, "empty: list tokens under \"tokens:\" (see indexer token --help)")
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if strings.Contains(msg, "field token ") || strings.Contains(msg, "field secret ") {
			msg += `: store the token's hash, never the token: sha256: <the output of printf %s "$TOKEN" | sha256sum>`
		}
		return nil, bad(0, "%s", msg)
	}
	tokenLines(&root, f.Tokens)
	if len(f.Tokens) == 0 {
		return nil, bad(0, "no tokens: list them under \"tokens:\" (see indexer token --help)")
	}
	p := &Policy{}
	names := map[string]int{}
	hashes := map[string]int{}
	for _, t := range f.Tokens {
		switch {
		case strings.TrimSpace(t.Name) == "":
			return nil, bad(t.line, "a token without a name: give each a name for the logs")
		case names[t.Name] != 0:
			return nil, bad(t.line, "token name %q also at line %d: names must be unique", t.Name, names[t.Name])
		}
		names[t.Name] = t.line
		h := strings.ToLower(strings.TrimSpace(t.SHA256))
		sum, err := hex.DecodeString(h)
		if err != nil || len(sum) != sha256.Size {
			return nil, bad(t.line, "token %q: sha256 must be 64 hex digits, the output of printf %%s \"$TOKEN\" | sha256sum", t.Name)
		}
		if at := hashes[h]; at != 0 {
			return nil, bad(t.line, "token %q has the hash of the token at line %d: give each its own token", t.Name, at)
		}
		hashes[h] = t.line
		if len(t.Libraries) == 0 {
			return nil, bad(t.line, "token %q may read no library: list patterns under libraries, e.g. [\"/acme/*\"]", t.Name)
		}
		g := &Grant{Name: t.Name}
		copy(g.hash[:], sum)
		for _, pat := range t.Libraries {
			lp, err := CheckPattern(pat)
			if err != nil {
				return nil, bad(t.line, "token %q: library pattern %q: %v", t.Name, pat, err)
			}
			g.patterns = append(g.patterns, lp)
		}
		perSecond := float64(DefaultRate)
		if t.Rate != nil {
			perSecond = *t.Rate
		}
		if !(perSecond > 0) || math.IsInf(perSecond, 0) {
			return nil, bad(t.line, "token %q: rate %v: give requests per second above 0", t.Name, perSecond)
		}
		burst := int(math.Ceil(2 * perSecond))
		if t.Burst != nil {
			burst = *t.Burst
		}
		if burst < 1 {
			return nil, bad(t.line, "token %q: burst %d: give at least 1", t.Name, burst)
		}
		g.limiter = newLimiter(perSecond, burst)
		p.grants = append(p.grants, g)
	}
	return p, nil
}

// patternForm says what a library pattern looks like.
const patternForm = "write /org/project, with * for any run of characters within a segment, e.g. /acme/* or /vercel/next.js; /*/* is every library"

// CheckPattern validates a library pattern and returns it lower-cased
// (errors say what is wrong, not which pattern: callers name it): it
// must be /org/project in shape, a valid path.Match pattern, and able to
// match some library id (request.IsIDSegment), since a pattern no id can
// match ("/a b/c", "/.*/x") is a typo that would leave a token reading
// nothing. `indexer token` checks its --library flags with it, so a
// pattern it prints always loads.
func CheckPattern(p string) (string, error) {
	lp := strings.ToLower(strings.TrimSpace(p))
	segs := strings.Split(lp, "/")
	if len(segs) != 3 || segs[0] != "" || segs[1] == "" || segs[2] == "" {
		return "", errors.New(patternForm)
	}
	if _, err := path.Match(lp, ""); err != nil {
		return "", err
	}
	for _, seg := range segs[1:] {
		if w, ok := witness(seg); !ok || !request.IsIDSegment(w) {
			return "", fmt.Errorf("no library id can match %q: the org and project of an id are letters, digits, '.', '_' and '-', not starting with '.'; %s", seg, patternForm)
		}
	}
	return lp, nil
}

// witness returns the segment a valid path.Match pattern segment seg
// matches that is most likely to be an id's: each * and ? an "x", each
// character class its first member among an id's characters (a letter
// before a digit before '_', '-' and '.'), escapes unescaped. An id's
// only rule besides its characters is not to start with '.', which a
// letter never breaks, so seg matches some id exactly when its witness is
// one. ok is false when a class admits none of an id's characters, or the
// segment ends in an escape (of the '/' after it).
func witness(seg string) (w string, ok bool) {
	const idChars = "abcdefghijklmnopqrstuvwxyz0123456789_-."
	var b strings.Builder
	for i := 0; i < len(seg); i++ {
		switch c := seg[i]; c {
		case '*', '?':
			b.WriteByte('x')
		case '\\':
			if i++; i == len(seg) { // it escaped the '/' after it: no id has one
				return "", false
			}
			b.WriteByte(seg[i])
		case '[':
			end := classEnd(seg, i)
			class := seg[i : end+1]
			found := false
			for _, r := range idChars {
				if m, _ := path.Match(class, string(r)); m {
					b.WriteRune(r)
					found = true
					break
				}
			}
			if !found {
				return "", false
			}
			i = end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// classEnd returns the index of the ']' closing the character class that
// opens at seg[i], in a pattern path.Match accepted.
func classEnd(seg string, i int) int {
	j := i + 1
	if j < len(seg) && seg[j] == '^' {
		j++
	}
	for first := true; j < len(seg); j++ {
		switch {
		case seg[j] == '\\':
			j++
		case seg[j] == ']' && !first:
			return j
		}
		first = false
	}
	return len(seg) - 1
}

// tokenLines sets each token's line from the parsed document.
func tokenLines(root *yaml.Node, tokens []token) {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "tokens" || m.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for j, n := range m.Content[i+1].Content {
			if j < len(tokens) {
				tokens[j].line = n.Line
			}
		}
	}
}

// newLimiter makes a grant's limiter: rate requests a second, at most
// burst at once, starting full.
func newLimiter(r float64, burst int) *rate.Limiter {
	return rate.NewLimiter(rate.Limit(r), burst)
}
