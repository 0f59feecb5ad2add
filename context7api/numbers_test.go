package context7api

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestNumbersReadAsTheToolsReadThem checks that tokens and page are read
// by request.ParseWhole's rule, as the MCP tools read them: however a whole
// number is written it gets the same answer, a budget out of range
// (negative, or 1e12 however written) is clamped with a note rather than
// refused, and what is not a whole number is refused naming the parameter.
func TestNumbersReadAsTheToolsReadThem(t *testing.T) {
	ts := serve(t, fixtureEngine(t))
	get := func(tokens, page string) response {
		t.Helper()
		return do(t, http.MethodGet, ts.URL+"/api/v2/context?libraryId=/acme/widgets&query=widget&tokens="+url.QueryEscape(tokens)+"&page="+url.QueryEscape(page))
	}
	for _, tc := range []struct {
		spellings [][2]string // tokens and page; each must get the first's answer
		says      string
	}{
		{[][2]string{{"200", "2"}, {"200.0", "2.0"}, {"2e2", "2"}, {" 200 ", "2e0"}}, "of 200 tokens, page 2 of"},
		{[][2]string{{"-1", "1"}, {"-1.0", "1"}, {"-1e0", ""}}, "tokens -1 raised to the minimum of 200"},
		{[][2]string{{"1e12", "1"}, {"1000000000000", "1"}, {"1e308", "1"}, {strings.Repeat("9", 1000), "1"}}, "lowered to the maximum of 50000"},
		{[][2]string{{"", ""}, {"0", "0"}, {"0.0", "0e3"}}, "of 5000 tokens, page 1 of"},
	} {
		first := get(tc.spellings[0][0], tc.spellings[0][1])
		if first.status != http.StatusOK || !strings.Contains(string(first.body), tc.says) {
			t.Errorf("tokens=%s&page=%s: %d %.300s, want an answer saying %q", tc.spellings[0][0], tc.spellings[0][1], first.status, first.body, tc.says)
			continue
		}
		for _, s := range tc.spellings[1:] {
			if r := get(s[0], s[1]); r.status != http.StatusOK || string(r.body) != string(first.body) {
				t.Errorf("tokens=%.20s&page=%s: %d %.200s\nwant the answer to tokens=%s&page=%s", s[0], s[1], r.status, r.body, tc.spellings[0][0], tc.spellings[0][1])
			}
		}
	}
	for _, tc := range []struct{ tokens, page, says string }{
		{"lots", "1", `tokens must be a whole number, got "lots"`},
		{"1.5", "1", `tokens must be a whole number, got "1.5"`},
		{"0x10", "1", `tokens must be a whole number, got "0x10"`},
		{"200", "1.5", `page must be a whole number, got "1.5"`},
		{"200", "NaN", `page must be a whole number, got "NaN"`},
	} {
		r := get(tc.tokens, tc.page)
		if e := errorOf(t, r); r.status != http.StatusBadRequest || e.Error != "validation_error" || !strings.Contains(e.Message, tc.says) {
			t.Errorf("tokens=%s&page=%s: %d %s, want 400 validation_error saying %q", tc.tokens, tc.page, r.status, r.body, tc.says)
		}
	}
}
