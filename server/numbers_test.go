package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/context7"
)

// numbersServer serves the fixture library through Handler, with
// get-context7-docs answered by a fake Context7, and returns its URL and a
// client connected to /mcp over streamable HTTP.
func numbersServer(t *testing.T) (string, *mcp.ClientSession) {
	t.Helper()
	ts := httptest.NewServer(Handler(fixtureEngine(t), "test", slog.New(slog.DiscardHandler), HTTPOptions{Context7: c7client(remoteFixture(t), context7.Options{})}))
	t.Cleanup(ts.Close)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "numbers-test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ts.URL, cs
}

// rawCall calls tool with args, JSON text, and returns its text and
// whether it is a tool error.
func rawCall(t *testing.T, cs *mcp.ClientSession, tool, args string) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return text.String(), res.IsError
}

// TestNumbersMeanTheSameOnEveryTool checks that every tool reads a whole
// number however a client writes it (2, 2.0, 2e0, "2"), clamps what is out
// of range (1e12 as 1000000000000, negative budgets) and refuses what is
// not a whole number with the same message naming the parameter.
func TestNumbersMeanTheSameOnEveryTool(t *testing.T) {
	_, cs := numbersServer(t)
	const docs, c7, resolve = "get-library-docs", "get-context7-docs", "resolve-library-id"
	docsArgs := func(tokens, page string) string {
		return `{"libraryId":"/acme/widgets","customQuery":"widget","tokens":` + tokens + `,"page":` + page + `}`
	}
	c7Args := func(tokens, page, limit string) string {
		return `{"libraryId":"/facebook/react","topic":"hooks","tokens":` + tokens + `,"page":` + page + `,"limit":` + limit + `}`
	}
	resolveArgs := func(max string) string { return `{"libraryName":"widgets","maxResults":` + max + `}` }
	for _, tc := range []struct {
		name, tool string
		spellings  []string // each must get the first's answer
		says       string
	}{
		{"docs tokens 200", docs, []string{docsArgs("200", "1"), docsArgs("200.0", "1"), docsArgs("2e2", "1"), docsArgs(`"200"`, `"1"`), docsArgs(`" 2.0E2 "`, "1.0")}, "of 200 tokens"},
		{"docs page 2", docs, []string{docsArgs("200", "2"), docsArgs("200", `"2"`), docsArgs("200", "2.0"), docsArgs("200", "2e0")}, "page 2 of"},
		{"docs tokens huge", docs, []string{docsArgs("1e12", "1"), docsArgs("1000000000000", "1"), docsArgs(`"1e12"`, "1"), docsArgs("1e308", "1")}, "lowered to the maximum of 50000"},
		{"docs tokens negative", docs, []string{docsArgs("-1", "1"), docsArgs("-1.0", "1"), docsArgs(`"-1"`, "1")}, "raised to the minimum of 200"},
		{"docs tokens null (left out)", docs, []string{docsArgs("null", "null"), `{"libraryId":"/acme/widgets","customQuery":"widget"}`, docsArgs(`""`, "0")}, "of 5000 tokens"},
		{"context7 page and limit", c7, []string{c7Args("300", "1", "2"), c7Args("300.0", `"1"`, `"2"`), c7Args("3e2", "1.0", "2e0")}, "/facebook/react"},
		{"context7 tokens huge", c7, []string{c7Args("1e12", "1", "2"), c7Args("1000000000000", "1", "2"), c7Args(`"1e12"`, "1", "2")}, "lowered to 50000"},
		{"resolve maxResults", resolve, []string{resolveArgs("1"), resolveArgs("1.0"), resolveArgs(`"1"`), resolveArgs("1e0")}, "/acme/widgets"},
		{"resolve maxResults huge", resolve, []string{resolveArgs("1e12"), resolveArgs("1000000000000"), resolveArgs(`"1e12"`)}, "lowered to the maximum of 50"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, isErr := rawCall(t, cs, tc.tool, tc.spellings[0])
			if isErr || !strings.Contains(want, tc.says) {
				t.Fatalf("%s: error %v, %.300q; want an answer saying %q", tc.spellings[0], isErr, want, tc.says)
			}
			for _, args := range tc.spellings[1:] {
				if got, isErr := rawCall(t, cs, tc.tool, args); isErr || got != want {
					t.Errorf("%.80s: error %v, %.200q\nwant the answer to %s: %.200q", args, isErr, got, tc.spellings[0], want)
				}
			}
		})
	}
	for _, tc := range []struct{ tool, args, says string }{
		{docs, docsArgs(`"lots"`, "1"), `tokens must be a whole number, got "lots"`},
		{c7, c7Args(`"lots"`, "1", "1"), `tokens must be a whole number, got "lots"`},
		{docs, docsArgs("200", "1.5"), "page must be a whole number, got 1.5"},
		{c7, c7Args("200", "1.5", "1"), "page must be a whole number, got 1.5"},
		{docs, docsArgs("200", `"two"`), `page must be a whole number, got "two"`},
		{c7, c7Args("200", `"two"`, "1"), `page must be a whole number, got "two"`},
		{c7, c7Args("200", "1", "true"), "limit must be a whole number, got true"},
		{resolve, resolveArgs(`[3]`), "maxResults must be a whole number, got an array"},
		{docs, docsArgs("1e-3", "1"), "tokens must be a whole number, got 1e-3"},
	} {
		if got, isErr := rawCall(t, cs, tc.tool, tc.args); !isErr || !strings.Contains(got, "invalid arguments: "+tc.says) {
			t.Errorf("%s %s: error %v, %q; want a tool error saying %q", tc.tool, tc.args, isErr, got, tc.says)
		}
	}
}

// TestNumbersMeanTheSameOverREST checks that the REST API reads tokens and
// page as get-library-docs reads them, and answers the same text: a
// negative or huge budget is clamped, not refused, and 200.0 is 200.
func TestNumbersMeanTheSameOverREST(t *testing.T) {
	base, cs := numbersServer(t)
	get := func(tokens, page string) (int, string) {
		t.Helper()
		resp, err := http.Get(base + "/api/v2/context?libraryId=/acme/widgets&query=widget&tokens=" + url.QueryEscape(tokens) + "&page=" + url.QueryEscape(page))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, tc := range []struct{ rest, restPage, mcp, mcpPage string }{
		{"200", "1", "200", "1"},
		{"200.0", "2", "200", "2"},
		{"2e2", "2.0", "200.0", `"2"`},
		{"-1", "1", "-1", "1"},
		{"-1", "1", `"-1"`, "1"},
		{"1e12", "1", "1000000000000", "1"},
		{"1000000000000", "1", "1e12", "1"},
		{"", "0", "null", "0"},
	} {
		code, body := get(tc.rest, tc.restPage)
		want, isErr := rawCall(t, cs, "get-library-docs", `{"libraryId":"/acme/widgets","customQuery":"widget","tokens":`+tc.mcp+`,"page":`+tc.mcpPage+`}`)
		if code != http.StatusOK || isErr || body != want {
			t.Errorf("tokens=%s&page=%s: %d %.200q\nwant get-library-docs' answer to tokens %s, page %s: %.200q", tc.rest, tc.restPage, code, body, tc.mcp, tc.mcpPage, want)
		}
	}
	for _, tc := range []struct{ tokens, page, says string }{
		{"lots", "1", `tokens must be a whole number, got \"lots\"`},
		{"1.5", "1", `tokens must be a whole number, got \"1.5\"`},
		{"200", "two", `page must be a whole number, got \"two\"`},
	} {
		if code, body := get(tc.tokens, tc.page); code != http.StatusBadRequest || !strings.Contains(body, tc.says) {
			t.Errorf("tokens=%s&page=%s: %d %s, want 400 saying %s", tc.tokens, tc.page, code, body, tc.says)
		}
	}
}
