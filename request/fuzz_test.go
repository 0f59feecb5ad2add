package request

import (
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonNumber is JSON's number grammar, leading zeros allowed: what
// ParseWhole reads, and all it reads.
var jsonNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// FuzzParseWhole checks ParseWhole against exact rational arithmetic
// (math/big) on any input: it never panics; it reads a value exactly when
// the trimmed input is a JSON number whose value is whole, or empty, and
// then gives that value clamped to the int32 range; a refusal wraps
// ErrNotWhole and quotes at most maxQuoted bytes of the input; and a JSON string
// holding the input reads the same through ParseWholeJSON.
func FuzzParseWhole(f *testing.F) {
	for _, s := range []string{
		"200", "-1", "200.0", "2e2", "2.5E3", "1e12", "-1e12", "1.5", "1e-3", "0x10", "+5", " 7", "1e3",
		"NaN", "Infinity", "", " ", "-", "-0", "00012", "5.", ".5", "1e", "1e+", "25000e-2", "0e999999999999999999",
		"2147483647", "2147483648", "-2147483649", "1" + strings.Repeat("0", 300), "\u00a07\u2003", "７",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseWhole("tokens", s)
		if err != nil {
			if !errors.Is(err, ErrNotWhole) || n != 0 {
				t.Fatalf("ParseWhole(%q) = %d, %v: want 0 and an error wrapping ErrNotWhole", s, n, err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "tokens must be a whole number") || len(msg) > 4*maxQuoted+80 || !utf8.ValidString(msg) {
				t.Fatalf("ParseWhole(%q) error %q", s, msg)
			}
		}
		if js, jerr := json.Marshal(s); jerr == nil {
			jn, jsonErr := ParseWholeJSON("tokens", js)
			if jn != n || (jsonErr == nil) != (err == nil) {
				t.Fatalf("ParseWhole(%q) = %d, %v; ParseWholeJSON(%s) = %d, %v", s, n, err, js, jn, jsonErr)
			}
		}
		trimmed := strings.TrimSpace(s)
		if trimmed == "" {
			if err != nil || n != 0 {
				t.Fatalf("ParseWhole(%q) = %d, %v; want 0 (left out)", s, n, err)
			}
			return
		}
		if !jsonNumber.MatchString(trimmed) {
			if err == nil {
				t.Fatalf("ParseWhole(%q) = %d, want an error: not a JSON number", s, n)
			}
			return
		}
		if m := regexp.MustCompile(`[eE][+-]?0*([0-9]+)$`).FindStringSubmatch(trimmed); m != nil && len(m[1]) > 3 {
			return // an exponent of thousands: too big for the reference
		}
		r, ok := new(big.Rat).SetString(trimmed)
		if !ok {
			t.Fatalf("big.Rat cannot read %q", trimmed)
		}
		if !r.IsInt() {
			if err == nil {
				t.Fatalf("ParseWhole(%q) = %d, want an error: not whole", s, n)
			}
			return
		}
		want := r.Num()
		if want.Cmp(big.NewInt(math.MaxInt32)) > 0 {
			want = big.NewInt(math.MaxInt32)
		} else if want.Cmp(big.NewInt(math.MinInt32)) < 0 {
			want = big.NewInt(math.MinInt32)
		}
		if err != nil || int64(n) != want.Int64() {
			t.Fatalf("ParseWhole(%q) = %d, %v; want %d", s, n, err, want.Int64())
		}
	})
}

// FuzzCleanPath checks CleanPath on any input: it never panics; a refusal
// wraps ErrInvalidPath and quotes at most the input (MaxPathBytes); a path it
// gives is "." or valid for io/fs (no "..", no leading slash, no empty
// or dot segment), holds no backslash, colon or control character, and
// is a fixed point: CleanPath gives it back unchanged.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{
		"", ".", "./", "docs/guide.md", "./docs//guide.md", "/docs/a.md", `docs\a.md`, `..\x.md`, "../x", "a/../b",
		`\\server\x.md`, "//server/x.md", "C:/x.md", "a/./b/", "'docs/a.md'", " \"a.md\" ", "a\x00b", "\u200ba.md",
		"/", "//", "`/`", "a//..", strings.Repeat("a/", 600), "é/ü.md", "'/'\\", "\"'a'\"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := CleanPath(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidPath) || p != "" {
				t.Fatalf("CleanPath(%q) = %q, %v: want \"\" and an error wrapping ErrInvalidPath", s, p, err)
			}
			if msg := err.Error(); len(msg) > 4*MaxPathBytes+200 || !utf8.ValidString(msg) {
				t.Fatalf("CleanPath(%q) error is %d bytes: %q", s, len(msg), msg)
			}
			return
		}
		if p != "." && !fs.ValidPath(p) || strings.ContainsAny(p, `\:`) || CheckText("path", p) != nil {
			t.Fatalf("CleanPath(%q) = %q, not a clean relative path", s, p)
		}
		again, err := CleanPath(p)
		if err != nil || again != p {
			t.Fatalf("CleanPath(%q) = %q, but CleanPath(%q) = %q, %v", s, p, p, again, err)
		}
	})
}
