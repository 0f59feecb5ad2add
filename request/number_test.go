package request

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	for _, tc := range []struct {
		json string
		want int
	}{
		{`200`, 200},
		{`-1`, -1},
		{`0`, 0},
		{`-0`, 0},
		{`200.0`, 200},
		{`200.000`, 200},
		{`2e2`, 200},
		{`2E+2`, 200},
		{`2.5e3`, 2500},
		{`25000e-2`, 250},
		{`0.0`, 0},
		{`0e999999999999999999`, 0},
		{`1e12`, math.MaxInt32},
		{`1000000000000`, math.MaxInt32},
		{`-1e12`, math.MinInt32},
		{`1e308`, math.MaxInt32},
		{`1e999999999999999999`, math.MaxInt32},
		{`2147483647`, math.MaxInt32},
		{`2147483648`, math.MaxInt32},
		{`-2147483648`, math.MinInt32},
		{`9999999999`, math.MaxInt32},
		{"1" + strings.Repeat("0", 100000), math.MaxInt32},
		{`"200"`, 200},
		{`" 200 "`, 200},
		{`"200.0"`, 200},
		{`"2e2"`, 200},
		{`"-1"`, -1},
		{`"007"`, 7},
		{`null`, 0},
		{`""`, 0},
		{`"  "`, 0},
	} {
		got, err := ParseWholeJSON("tokens", []byte(tc.json))
		if err != nil || got != tc.want {
			t.Errorf("ParseWholeJSON(%.40s) = %d, %v; want %d", tc.json, got, err, tc.want)
		}
	}
}

func TestParseJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`1.5`, "tokens must be a whole number, got 1.5"},
		{`200.0000000000000001`, "got 200.0000000000000001"},
		{`1e-3`, "got 1e-3"},
		{`5e-1`, "got 5e-1"},
		{`1e-999999999999999999`, "got 1e-999999999999999999"},
		{`"two"`, `got "two"`},
		{`"NaN"`, `got "NaN"`},
		{`"Infinity"`, `got "Infinity"`},
		{`"0x10"`, `got "0x10"`},
		{`"+5"`, `got "+5"`},
		{`"1_000"`, `got "1_000"`},
		{`"5."`, `got "5."`},
		{`".5"`, `got ".5"`},
		{`"1e"`, `got "1e"`},
		{`"--1"`, `got "--1"`},
		{`"` + strings.Repeat("x", 1000) + `"`, `got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"`},
		{`true`, "got true"},
		{`[1]`, "got an array"},
		{`{"n":1}`, "got an object"},
	} {
		_, err := ParseWholeJSON("tokens", []byte(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrNotWhole) {
			t.Errorf("ParseWholeJSON(%.40s): got %v, want an ErrNotWhole saying %q", tc.json, err, tc.want)
		}
	}
}

// TestParseMatchesParseJSON checks that a query parameter's text is read
// as the same text in a JSON string is.
func TestParseMatchesParseJSON(t *testing.T) {
	for _, s := range []string{"200", "200.0", "2e2", "-1", "1e12", "", " 7 ", "1.5", "NaN", "0x10", "two"} {
		n, err := ParseWhole("page", s)
		m, jerr := ParseWholeJSON("page", []byte(`"`+s+`"`))
		if n != m || (err == nil) != (jerr == nil) || err != nil && err.Error() != jerr.Error() {
			t.Errorf("%q: Parse %d, %v; ParseJSON of the string %d, %v", s, n, err, m, jerr)
		}
	}
}
