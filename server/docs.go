package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/search"
)

// Token budget bounds for get-library-docs.
const (
	DefaultTokens = 5000
	MinTokens     = 500
	MaxTokens     = 50000
)
const docsDescription = `Fetches up-to-date documentation sections of a library indexed by Codex7, best first, within a token budget.

Only call this with an id from resolve-library-id (or one the user gave as /org/project). Each section comes with its library, version, commit, file path and anchor.

Parameters:
- libraryId: "/org/project", or "/org/project@version" for an exact version (an unbuilt version is an error listing the built ones; without a version you get the latest).
- customQuery: what you need, in words ("how to allow CORS origins"). Aliases: query, topic.
- topics: topic slugs from the library's topic tree, to keep only those parts (any of them).
- tokens: the most to return (default 5000, at least 500, at most 50000).
- mode: "info" for explanations, "code" for code examples with the text around them; omit for both.
- path: a document path ("docs/guide.md") to read it whole, page by page (page: 1, 2, …), or a folder ("docs/api") to list its documents.

Example: {"libraryId": "/tiangolo/fastapi", "customQuery": "allow CORS from my React dev server", "tokens": 3000}.`

// DocsInput is get-library-docs' input. Context7's parameter names are
// accepted as aliases.
type DocsInput struct {
	LibraryID                   string   `json:"libraryId,omitempty" jsonschema:"the library id from resolve-library-id, e.g. /tiangolo/fastapi or /tiangolo/fastapi@0.115.0"`
	Context7CompatibleLibraryID string   `json:"context7CompatibleLibraryID,omitempty" jsonschema:"alias of libraryId"`
	LibraryIDAlt                string   `json:"libraryID,omitempty" jsonschema:"alias of libraryId"`
	CustomQuery                 string   `json:"customQuery,omitempty" jsonschema:"what you need, in words"`
	Query                       string   `json:"query,omitempty" jsonschema:"alias of customQuery"`
	Topic                       string   `json:"topic,omitempty" jsonschema:"alias of customQuery"`
	Topics                      []string `json:"topics,omitempty" jsonschema:"topic slugs from the library's topic tree; keeps sections in any of them"`
	Tokens                      int      `json:"tokens,omitempty" jsonschema:"the most tokens to return (default 5000, 500-50000)"`
	Mode                        string   `json:"mode,omitempty" jsonschema:"info for explanations (prose), code for code examples with the text around them; default both"`
	Path                        string   `json:"path,omitempty" jsonschema:"a document path (e.g. docs/guide.md) for the whole document, or a folder (e.g. docs/api) to list its documents"`
	Page                        int      `json:"page,omitempty" jsonschema:"with path: the page of a long document to return, from 1 (pages are tokens long)"`
}

// Section is one returned section with its provenance.
type Section struct {
	Library     string   `json:"library"`
	Version     string   `json:"version"`
	Commit      string   `json:"commit"`
	Path        string   `json:"path"`
	Anchor      string   `json:"anchor"`
	HeadingPath []string `json:"heading_path"`
	Tokens      int      `json:"tokens"`
	Relevance   float64  `json:"relevance"`
	Trimmed     bool     `json:"trimmed,omitempty"`
}

// DocsOutput is get-library-docs' output.
type DocsOutput struct {
	Library  string    `json:"library"`
	Version  string    `json:"version"`
	Commit   string    `json:"commit"`
	Sections []Section `json:"sections"`
	// LeftOut counts matching sections that did not fit the budget.
	LeftOut int `json:"left_out"`
	// Page and Pages number the pages of a whole document (path).
	Page  int `json:"page,omitempty"`
	Pages int `json:"pages,omitempty"`
	// Documents lists a folder's documents (path naming a folder).
	Documents []DocumentEntry `json:"documents,omitempty"`
}

// DocumentEntry is one document of a folder listing.
type DocumentEntry struct {
	Path   string `json:"path"`
	Title  string `json:"title"`
	Tokens int    `json:"tokens"`
}

// maxListed caps a folder listing so one answer stays readable.
const maxListed = 200

func (h *handlers) docs(ctx context.Context, _ *mcp.CallToolRequest, in DocsInput) (*mcp.CallToolResult, DocsOutput, error) {
	id := firstNonEmpty(in.LibraryID, in.Context7CompatibleLibraryID, in.LibraryIDAlt)
	if id == "" {
		return nil, DocsOutput{}, errors.New(`libraryId is required: call resolve-library-id first, then pass its id, e.g. {"libraryId": "/tiangolo/fastapi", "customQuery": "cors"}`)
	}
	query := firstNonEmpty(in.CustomQuery, in.Query, in.Topic)
	budget, note := in.Tokens, ""
	switch {
	case budget <= 0:
		budget = DefaultTokens
	case budget < MinTokens:
		budget, note = MinTokens, fmt.Sprintf("tokens raised to the minimum of %d. ", MinTokens)
	case budget > MaxTokens:
		budget, note = MaxTokens, fmt.Sprintf("tokens lowered to the maximum of %d. ", MaxTokens)
	}
	if strings.TrimSpace(in.Path) != "" {
		return h.path(ctx, id, in.Path, in.Page, budget, note)
	}
	res, err := h.engine.Search(ctx, search.Request{Library: id, Query: query, Topics: in.Topics, Mode: in.Mode, Limit: 50, WithText: true})
	if err != nil {
		return nil, DocsOutput{}, agentError(err)
	}
	out := DocsOutput{Library: res.Library, Version: res.Version, Commit: res.Commit, Sections: []Section{}}
	var b strings.Builder
	if note != "" {
		b.WriteString("Note: " + note + "\n\n")
	}
	left := budget
	for i, hit := range res.Hits {
		text, trimmed := hit.Text, false
		if hit.Tokens > left {
			if len(out.Sections) > 0 {
				out.LeftOut = len(res.Hits) - i
				break
			}
			// Never an empty answer because the best section is large.
			text, trimmed = trimToTokens(hit.Text, left), true
		}
		fmt.Fprintf(&b, "## %s\nSource: %s@%s %s#%s (commit %.12s)\n\n%s\n\n", strings.Join(hit.HeadingPath, " › "), res.Library, res.Version, hit.Path, hit.Anchor, res.Commit, text)
		out.Sections = append(out.Sections, Section{Library: res.Library, Version: res.Version, Commit: res.Commit, Path: hit.Path, Anchor: hit.Anchor,
			HeadingPath: hit.HeadingPath, Tokens: hit.Tokens, Relevance: hit.Relevance, Trimmed: trimmed})
		left -= hit.Tokens
		if trimmed || left <= 0 {
			out.LeftOut = len(res.Hits) - i - 1
			break
		}
	}
	if len(out.Sections) == 0 {
		fmt.Fprintf(&b, "No section of %s@%s matches. Try other words, or fewer topics.\n", res.Library, res.Version)
		switch strings.ToLower(strings.TrimSpace(in.Mode)) {
		case search.ModeCode:
			b.WriteString("Try mode='info'.\n")
		case search.ModeInfo:
			b.WriteString("Try mode='code'.\n")
		}
	}
	if out.LeftOut > 0 {
		fmt.Fprintf(&b, "(%d more matching sections did not fit in %d tokens; ask again with a larger tokens value or a narrower customQuery.)\n", out.LeftOut, budget)
	}
	return textResult(b.String()), out, nil
}

// path answers get-library-docs with a path: one page of a document, or a
// folder's documents.
func (h *handlers) path(ctx context.Context, id, p string, page, budget int, note string) (*mcp.CallToolResult, DocsOutput, error) {
	l, err := h.engine.Path(ctx, id, p)
	if err != nil {
		return nil, DocsOutput{}, agentError(err)
	}
	out := DocsOutput{Library: l.Library, Version: l.Version, Commit: l.Commit, Sections: []Section{}}
	var b strings.Builder
	if note != "" {
		b.WriteString("Note: " + note + "\n\n")
	}
	if l.Sections == nil {
		fmt.Fprintf(&b, "%d documents under %s in %s@%s:\n", len(l.Documents), l.Path, l.Library, l.Version)
		for i, d := range l.Documents {
			if i == maxListed {
				fmt.Fprintf(&b, "(%d more; give a deeper folder as path)\n", len(l.Documents)-maxListed)
				break
			}
			out.Documents = append(out.Documents, DocumentEntry{Path: d.Path, Title: d.Title, Tokens: d.Tokens})
			fmt.Fprintf(&b, "- %s — %s (%d tokens)\n", d.Path, d.Title, d.Tokens)
		}
		return textResult(b.String()), out, nil
	}
	// Pages fill up to the budget in document order; a section larger than
	// a page is trimmed to it rather than split across pages.
	var pages [][]int
	used := budget
	for i, s := range l.Sections {
		if used+s.Tokens > budget || pages == nil {
			pages = append(pages, nil)
			used = 0
		}
		pages[len(pages)-1] = append(pages[len(pages)-1], i)
		used += s.Tokens
	}
	if page <= 0 {
		page = 1
	}
	if len(pages) == 0 {
		fmt.Fprintf(&b, "%s in %s@%s has no text.\n", l.Path, l.Library, l.Version)
		return textResult(b.String()), out, nil
	}
	if page > len(pages) {
		return nil, DocsOutput{}, fmt.Errorf("page %d does not exist: %s has %d pages of %d tokens", page, l.Path, len(pages), budget)
	}
	out.Page, out.Pages = page, len(pages)
	fmt.Fprintf(&b, "# %s\nSource: %s@%s %s (commit %.12s), page %d of %d\n\n", l.Title, l.Library, l.Version, l.Path, l.Commit, page, len(pages))
	for _, i := range pages[page-1] {
		hit := l.Sections[i]
		text, trimmed := hit.Text, false
		if hit.Tokens > budget {
			text, trimmed = trimToTokens(text, budget), true
		}
		b.WriteString(text + "\n\n")
		out.Sections = append(out.Sections, Section{Library: l.Library, Version: l.Version, Commit: l.Commit, Path: hit.Path, Anchor: hit.Anchor,
			HeadingPath: hit.HeadingPath, Tokens: hit.Tokens, Relevance: 1, Trimmed: trimmed})
	}
	if page < len(pages) {
		fmt.Fprintf(&b, "(Continued: ask again with page %d.)\n", page+1)
	}
	return textResult(b.String()), out, nil
}

// trimToTokens cuts text at the last paragraph boundary (a blank line
// outside code fences) within about budget tokens (4 bytes a token), so a
// code block is never cut in half; with no such boundary it cuts at the
// byte limit.
func trimToTokens(text string, budget int) string {
	maxBytes := budget * 4
	if len(text) <= maxBytes {
		return text
	}
	cut, off, inFence := 0, 0, false
	for _, line := range strings.SplitAfter(text, "\n") {
		if off+len(line) > maxBytes {
			break
		}
		off += len(line)
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		if t == "" && !inFence {
			cut = off
		}
	}
	if cut == 0 {
		cut = maxBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
	}
	return strings.TrimRight(text[:cut], "\n") + "\n\n…"
}
