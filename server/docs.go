package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/search"
)

const docsDescription = `Fetches up-to-date documentation of a library indexed by Codex7: the sections that best answer a question, packed within a token budget, or a whole document page by page.

Only call this when resolve-library-id returned tool "get-library-docs" for the library (or the user gave an id of the form /org/project). Every section comes with its library, version, commit, file path and anchor.

Parameters:
- libraryId (required): "/org/project", or "/org/project@version" for an exact version. An unbuilt version is an error listing the built ones, never replaced by another; without a version you get the latest.
- customQuery: what you need, in words or as a pasted error message ("allow CORS from my React dev server"). Aliases: query, topic.
- topics: topic slugs from the library's topic tree (resolve-library-id with detail "topics"), to search only those parts; a section in any of them counts. With topics, customQuery is optional.
- mode: "info" for explanations and guides, "code" for code examples with the text that explains them; omit for both.
- tokens: the most to return, default 5000 (100 to 50000; other values are clamped, with a note).
- page: 1, 2, … for more of the same answer; the answer says when more pages exist.
- path: a document path ("docs/guide.md") to read it whole, page by page, or a folder ("docs/api", "." for all) to list its documents with titles.
- outline: with path naming a document, its heading tree with each part's size in tokens, to pick what to read.

Examples:
{"libraryId": "/tiangolo/fastapi", "customQuery": "allow CORS from my React dev server", "tokens": 3000}
{"libraryId": "/vitejs/vite@v5.0.0", "topics": ["config"], "customQuery": "proxy websocket", "mode": "code"}
{"libraryId": "/tiangolo/fastapi", "path": "docs/en/docs/tutorial/cors.md"}`

// DocsInput is get-library-docs' input. Context7's parameter names are
// accepted as aliases.
type DocsInput struct {
	LibraryID                   string   `json:"libraryId,omitempty" jsonschema:"the library id from resolve-library-id, e.g. /tiangolo/fastapi or /tiangolo/fastapi@0.115.0 for an exact version"`
	Context7CompatibleLibraryID string   `json:"context7CompatibleLibraryID,omitempty" jsonschema:"alias of libraryId"`
	LibraryIDAlt                string   `json:"libraryID,omitempty" jsonschema:"alias of libraryId"`
	CustomQuery                 string   `json:"customQuery,omitempty" jsonschema:"what you need, in words or as a pasted error message"`
	Query                       string   `json:"query,omitempty" jsonschema:"alias of customQuery"`
	Topic                       string   `json:"topic,omitempty" jsonschema:"alias of customQuery"`
	Topics                      []string `json:"topics,omitempty" jsonschema:"topic slugs from the library's topic tree; keeps sections in any of them"`
	Mode                        string   `json:"mode,omitempty" jsonschema:"info for explanations (prose), code for code examples with the text that explains them; default both"`
	Tokens                      int      `json:"tokens,omitempty" jsonschema:"the most tokens to return (default 5000; 100 to 50000)"`
	Page                        int      `json:"page,omitempty" jsonschema:"the page of the answer, from 1; the answer says when there are more"`
	Path                        string   `json:"path,omitempty" jsonschema:"a document path (e.g. docs/guide.md) to read it whole, or a folder (e.g. docs/api, or . for all) to list its documents"`
	Outline                     bool     `json:"outline,omitempty" jsonschema:"with path naming a document: its heading tree with token sizes instead of its text"`
}

// DocsOutput is get-library-docs' structured output: the packed answer,
// each section with its text and provenance.
type DocsOutput = search.Answer

func (h *handlers) docs(ctx context.Context, _ *mcp.CallToolRequest, in DocsInput) (*mcp.CallToolResult, DocsOutput, error) {
	id := firstNonEmpty(in.LibraryID, in.Context7CompatibleLibraryID, in.LibraryIDAlt)
	if id == "" {
		return nil, DocsOutput{}, errors.New(`libraryId is required: call resolve-library-id first, then pass its id, e.g. {"libraryId": "/tiangolo/fastapi", "customQuery": "cors"}`)
	}
	req := search.DocsRequest{Library: id, Query: firstNonEmpty(in.CustomQuery, in.Query, in.Topic), Topics: in.Topics,
		Mode: in.Mode, Path: in.Path, Outline: in.Outline, Tokens: in.Tokens, Page: in.Page}
	ans, err := h.engine.Docs(ctx, req)
	if err != nil {
		return nil, DocsOutput{}, agentError(err)
	}
	return textResult(renderAnswer(ans, req)), *ans, nil
}

// renderAnswer writes an answer as markdown for an agent to read: a header
// line, any notes, the sections with their provenance, and what was left
// out with the call that gets it.
func renderAnswer(a *search.Answer, req search.DocsRequest) string {
	var b strings.Builder
	at := a.Library + "@" + a.Version
	for _, n := range a.Notes {
		fmt.Fprintf(&b, "Note: %s.\n", n)
	}
	if len(a.Notes) > 0 {
		b.WriteString("\n")
	}
	switch a.Kind {
	case search.KindFolder:
		fmt.Fprintf(&b, "# Documents under %s in %s (page %d of %d)\n\n", a.Path, at, a.Page, a.Pages)
		for _, d := range a.Documents {
			fmt.Fprintf(&b, "- %s — %s (%d tokens)\n", d.Path, d.Title, d.Tokens)
		}
		b.WriteString("\nRead one with {\"path\": \"<its path>\"}, or its outline with {\"path\": \"<its path>\", \"outline\": true}.\n")
	case search.KindOutline:
		fmt.Fprintf(&b, "# Outline of %s (%s) in %s, commit %.12s (page %d of %d)\n\n", a.Path, a.Title, at, a.Commit, a.Page, a.Pages)
		for _, o := range a.Outline {
			fmt.Fprintf(&b, "%s- %s #%s (%d tokens)\n", strings.Repeat("  ", max(o.Level-1, 0)), o.Title, o.Anchor, o.Tokens)
		}
	case search.KindDocument:
		fmt.Fprintf(&b, "# %s\nSource: %s %s (commit %.12s), page %d of %d\n\n", a.Title, at, a.Path, a.Commit, a.Page, a.Pages)
		for _, s := range a.Sections {
			b.WriteString(s.Text)
			b.WriteString("\n\n")
		}
	default:
		if len(a.Sections) == 0 {
			fmt.Fprintf(&b, "No section of %s matches. Try other words, or fewer topics.\n", at)
			switch a.Mode {
			case search.ModeCode:
				b.WriteString("Nothing matched in mode 'code' (code examples). Try mode='info'.\n")
			case search.ModeInfo:
				b.WriteString("Nothing matched in mode 'info' (prose). Try mode='code'.\n")
			}
			return b.String()
		}
		fmt.Fprintf(&b, "# %s: %d sections, %d of %d tokens (page %d of %d)\n\n", at, len(a.Sections), a.Tokens, a.Budget, a.Page, a.Pages)
		for _, s := range a.Sections {
			fmt.Fprintf(&b, "## %s\nSource: %s %s (commit %.12s), relevance %.2f", strings.Join(s.HeadingPath, " › "), at, location(s.Path, s.Anchor), s.Commit, s.Relevance)
			if len(s.Langs) > 0 {
				fmt.Fprintf(&b, ", code: %s", strings.Join(s.Langs, ", "))
			}
			b.WriteString("\n\n")
			b.WriteString(s.Text)
			b.WriteString("\n\n")
			if s.Trimmed {
				fmt.Fprintf(&b, "(This section was cut to fit the budget: read it whole with {\"libraryId\": %q, \"path\": %q}.)\n\n", at, s.Path)
			}
		}
	}
	if a.Page < a.Pages {
		more := ""
		if a.Kind == search.KindSearch && a.LeftOut > 0 {
			more = fmt.Sprintf("%d more matching sections did not fit. ", a.LeftOut)
		}
		fmt.Fprintf(&b, "---\n%sPage %d of %d: for the next, call get-library-docs again with the same arguments and \"page\": %d", more, a.Page, a.Pages, a.Page+1)
		if a.Kind == search.KindSearch {
			b.WriteString(", or a larger tokens value, or a narrower customQuery or topics")
		}
		b.WriteString(".\n")
	} else if a.Kind == search.KindSearch && a.Duplicates > 0 {
		fmt.Fprintf(&b, "---\n%d near-duplicate sections (the same text elsewhere) were left out.\n", a.Duplicates)
	}
	return b.String()
}

// location is path#anchor, or the path alone for a document's lead section.
func location(path, anchor string) string {
	if anchor == "" {
		return path
	}
	return path + "#" + anchor
}
