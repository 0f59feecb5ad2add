package context7

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// maxNameLen bounds a library name sent to search, in bytes: the API
// takes at most 500 characters per parameter.
const maxNameLen = 500

// Library is a library Context7 knows, as its search returns it.
type Library struct {
	// ID is "/org/project"; append "/version" for a version in Versions.
	ID          string `json:"id"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Branch      string `json:"branch,omitempty"`
	// LastUpdate is when Context7 last parsed the library, as sent (ISO
	// 8601).
	LastUpdate string `json:"lastUpdateDate,omitempty"`
	// State is initial, finalized, processing, error or delete.
	State       string `json:"state,omitempty"`
	TotalTokens int    `json:"totalTokens,omitempty"`
	// TotalSnippets is -1 when Context7 does not know.
	TotalSnippets int `json:"totalSnippets,omitempty"`
	Stars         int `json:"stars,omitempty"`
	// TrustScore is Context7's source reputation, 0-10.
	TrustScore float64 `json:"trustScore,omitempty"`
	// BenchmarkScore is Context7's quality score, 0-100.
	BenchmarkScore float64  `json:"benchmarkScore,omitempty"`
	Versions       []string `json:"versions,omitempty"`
}

// SearchResult is what Search found, best first.
type SearchResult struct {
	Query     string
	Libraries []Library
	// Cached says the answer came from the cache.
	Cached bool
}

// Text renders the result for agents, as Context7's own MCP server does.
func (r *SearchResult) Text() string {
	if len(r.Libraries) == 0 {
		return fmt.Sprintf("No Context7 library matches %q.", r.Query)
	}
	var b strings.Builder
	for i, l := range r.Libraries {
		if i > 0 {
			b.WriteString("----------\n")
		}
		fmt.Fprintf(&b, "- Title: %s\n- Context7-compatible library ID: %s\n", l.Title, l.ID)
		if l.Description != "" {
			fmt.Fprintf(&b, "- Description: %s\n", l.Description)
		}
		if l.TotalSnippets > 0 {
			fmt.Fprintf(&b, "- Code Snippets: %d\n", l.TotalSnippets)
		}
		if l.BenchmarkScore > 0 {
			fmt.Fprintf(&b, "- Benchmark Score: %g\n", l.BenchmarkScore)
		}
		if len(l.Versions) > 0 {
			fmt.Fprintf(&b, "- Versions: %s\n", strings.Join(l.Versions, ", "))
		}
	}
	return b.String()
}

// Search finds the Context7 libraries named name, ranked by Context7 for
// query (the user's question; the name is sent when it is empty). A name
// Context7 does not know gives no libraries and no error. The result is
// cached only when it has libraries.
func (c *Client) Search(ctx context.Context, name, query string) (res *SearchResult, err error) {
	start := time.Now()
	name, query = strings.TrimSpace(name), strings.TrimSpace(query)
	defer func() {
		n, cached := 0, false
		if res != nil {
			n, cached = len(res.Text()), res.Cached
		}
		c.span(ctx, "context7.search", start, err, n, cached, slog.String("query", firstNonEmpty(query, name)), slog.String("libraryName", name))
	}()
	if !c.Configured() {
		return nil, ErrNoAPIKey
	}
	ctx, cancel, budget := c.withBudget(ctx)
	defer cancel()
	res, err = c.search(ctx, name, query)
	if err != nil {
		return nil, c.wrap(fmt.Sprintf("search %q", clip(name, 80)), err, budget)
	}
	return res, nil
}

// search is Search within a budget already set.
func (c *Client) search(ctx context.Context, name, query string) (*SearchResult, error) {
	if name == "" {
		return nil, fmt.Errorf("%w: give a library name to search for, such as \"next.js\"", ErrInvalidRequest)
	}
	if len(name) > maxNameLen || !utf8.ValidString(name) {
		return nil, fmt.Errorf("%w: a library name is at most %d bytes of text", ErrInvalidRequest, maxNameLen)
	}
	if query == "" {
		query = name
	}
	query = truncate(query, maxNameLen)
	var path string
	q := url.Values{}
	if c.legacy {
		path = "/v1/search"
		q.Set("query", name)
	} else {
		path = "/v2/libs/search"
		q.Set("libraryName", name)
		q.Set("query", query)
	}
	var libs []Library
	resp, err := c.get(ctx, path, q, "application/json", func(body []byte) error {
		var err error
		libs, err = parseSearch(body)
		if err == nil && len(libs) == 0 {
			return errEmpty
		}
		return err
	})
	if err == errEmpty {
		return &SearchResult{Query: name}, nil
	}
	if err != nil {
		return nil, err
	}
	return &SearchResult{Query: name, Libraries: libs, Cached: resp.cached}, nil
}

// errEmpty is what a valid func returns for an answer that parses but has
// nothing in it: not cached, not an error for the caller.
var errEmpty = fmt.Errorf("%w: empty", ErrNotFound)

// apiLibrary is a search result as sent; numbers are read as float64
// because some are sent as 1250.0.
type apiLibrary struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	Branch         string   `json:"branch"`
	LastUpdateDate string   `json:"lastUpdateDate"`
	State          string   `json:"state"`
	TotalTokens    float64  `json:"totalTokens"`
	TotalSnippets  *float64 `json:"totalSnippets"`
	Stars          float64  `json:"stars"`
	TrustScore     float64  `json:"trustScore"`
	BenchmarkScore float64  `json:"benchmarkScore"`
	Versions       []string `json:"versions"`
}

// parseSearch reads a search answer: {"results": [...]} or a bare array.
// Results without an id are skipped.
func parseSearch(body []byte) ([]Library, error) {
	var raw []apiLibrary
	trimmed := strings.TrimSpace(string(body))
	if strings.HasPrefix(trimmed, "[") {
		if err := checkJSON(body, &raw); err != nil {
			return nil, err
		}
	} else {
		var obj struct {
			Results json.RawMessage `json:"results"`
		}
		if err := checkJSON(body, &obj); err != nil {
			return nil, err
		}
		if obj.Results == nil {
			return nil, fmt.Errorf("%w: a search answer without \"results\"", ErrMalformed)
		}
		// null is taken for no results.
		if err := checkJSON(obj.Results, &raw); err != nil {
			return nil, err
		}
	}
	libs := make([]Library, 0, len(raw))
	for _, r := range raw {
		id := strings.TrimSpace(r.ID)
		if id == "" {
			continue
		}
		if !strings.HasPrefix(id, "/") {
			id = "/" + id
		}
		l := Library{
			ID: id, Title: firstNonEmpty(r.Title, r.Name, id), Description: strings.TrimSpace(r.Description),
			Branch: r.Branch, LastUpdate: r.LastUpdateDate, State: r.State,
			TotalTokens: toInt(r.TotalTokens), Stars: toInt(r.Stars),
			TrustScore: finite(r.TrustScore), BenchmarkScore: finite(r.BenchmarkScore),
			Versions: r.Versions,
		}
		if r.TotalSnippets != nil {
			l.TotalSnippets = toInt(*r.TotalSnippets)
		}
		libs = append(libs, l)
	}
	return libs, nil
}

func toInt(f float64) int {
	if math.IsNaN(f) || f > math.MaxInt32 || f < math.MinInt32 {
		return 0
	}
	return int(f)
}

func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}

// truncate shortens s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// wrap names the operation in err and, for a timeout, the budget.
func (c *Client) wrap(op string, err error, budget time.Duration) error {
	switch {
	case err == ErrNoAPIKey:
		return err
	case err == ErrTimeout:
		return fmt.Errorf("context7: %s: %w: no answer from Context7 within %s", op, ErrTimeout, budget.Round(time.Millisecond))
	}
	return fmt.Errorf("context7: %s: %w", op, err)
}
