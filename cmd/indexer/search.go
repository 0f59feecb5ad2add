package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

// searchResult is one line of `search --json`; the field set is a contract
// for scripts.
type searchResult struct {
	Library     string   `json:"library"`
	Version     string   `json:"version"`
	Path        string   `json:"path"`
	Anchor      string   `json:"anchor"`
	Heading     string   `json:"heading"`
	HeadingPath []string `json:"heading_path"`
	Relevance   float64  `json:"relevance"`
	Tokens      int      `json:"tokens"`
	Text        string   `json:"text,omitempty"`
}

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("search --library ID --query TEXT [flags]", `Searches one library version's sections, best first, from the artifacts
built by 'indexer build'. Relevance is 1 for the best hit.`, stdout, stderr,
		`indexer search --library /acme/cli --query "log in from a browser"`,
		`indexer search --library /acme/widgets --query "environment variables" --limit 3 --json`)
	dir := fs.String("artifacts", "dist", "artifact directory")
	libFlag := fs.String("library", "", "library id, e.g. /tiangolo/fastapi or /tiangolo/fastapi@main (required)")
	version := fs.String("version", "", "version (default: the library's latest)")
	query := fs.String("query", "", "what to look for (required, unless --topics is given)")
	topicList := fs.String("topics", "", "comma-separated topic slugs; keep sections tagged with any (--query, --topics or both are required)")
	limit := fs.Int("limit", 10, "number of results (1-100)")
	asJSON := fs.Bool("json", false, `print {"results":[...]} as JSON`)
	withText := fs.Bool("text", false, "print each section's markdown under its result line")
	if code, done := parse(fs, args, stdout); done {
		return code
	}
	var topicSlugs []string
	for _, t := range strings.Split(*topicList, ",") {
		if t = strings.TrimSpace(t); t != "" {
			topicSlugs = append(topicSlugs, t)
		}
	}
	switch {
	case *libFlag == "":
		fmt.Fprintln(stderr, "indexer search: --library is required (e.g. --library /tiangolo/fastapi)")
		return exitUsage
	case strings.TrimSpace(*query) == "" && len(topicSlugs) == 0:
		fmt.Fprintln(stderr, "indexer search: give --query TEXT or --topics a,b")
		return exitUsage
	case *limit < 1 || *limit > 100:
		fmt.Fprintln(stderr, "indexer search: --limit must be between 1 and 100")
		return exitUsage
	}
	engine, err := search.Open(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "indexer search: %v (run 'indexer build' first?)\n", err)
		return exitUsage
	}
	defer engine.Close()
	lib := *libFlag
	if *version != "" {
		lib = strings.TrimSpace(lib) + "@" + *version
	}
	res, err := engine.Search(ctx, search.Request{Library: lib, Query: *query, Topics: topicSlugs, Limit: *limit, WithText: *withText})
	switch {
	case errors.Is(err, catalog.ErrLibraryNotFound), errors.Is(err, catalog.ErrVersionNotFound),
		errors.Is(err, search.ErrTopicNotFound), errors.Is(err, request.ErrInvalidKey), errors.Is(err, search.ErrEmptyQuery),
		errors.Is(err, request.ErrInvalidRequest), errors.Is(err, request.ErrInvalidCharacter):
		// The request is the user's own flags: a query too long, a
		// control character in an id. The error names the limit.
		fmt.Fprintf(stderr, "indexer search: %v\n", err)
		return exitUsage
	case errors.Is(err, catalog.ErrVersionUnavailable):
		// Artifacts that cannot be read, as a damaged catalog is.
		fmt.Fprintf(stderr, "indexer search: %v\n(indexer verify %s names the damaged files; indexer build builds the version again)\n", err, *dir)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "indexer search: %v\n", err)
		return exitFailed
	}
	hits := res.Hits
	results := make([]searchResult, 0, len(hits))
	for _, h := range hits {
		results = append(results, searchResult{
			Library: res.Library, Version: res.Version, Path: h.Path, Anchor: h.Anchor, Heading: h.Heading,
			HeadingPath: h.HeadingPath, Relevance: h.Relevance, Tokens: h.Tokens, Text: h.Text,
		})
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.Encode(map[string]any{"results": results})
	} else {
		for i, r := range results {
			fmt.Fprintf(stdout, "%2d. %.2f  %s#%s  (%d tokens)\n    %s\n", i+1, r.Relevance, r.Path, r.Anchor, r.Tokens, strings.Join(r.HeadingPath, " › "))
			if r.Text != "" {
				fmt.Fprintf(stdout, "\n%s\n\n", r.Text)
			}
		}
	}
	if len(results) == 0 {
		if !*asJSON {
			fmt.Fprintf(stderr, "no sections of %s@%s match\n", res.Library, res.Version)
		}
		return exitNoMatch
	}
	return exitOK
}
