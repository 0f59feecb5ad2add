package server

import (
	"context"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/audit"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/search"
)

const docsDescription = `Fetches up-to-date documentation of a library indexed by Codex7: the sections that best answer a question, packed within a token budget, or a whole document page by page.

Only call this when resolve-library-id returned tool "get-library-docs" for the library (or the user gave an id of the form /org/project). Every section comes with its library, version, commit, file path and anchor.

Parameters:
- libraryId (required): "/org/project", or "/org/project@version" for an exact version. An unbuilt version is an error listing the built ones, never replaced by another; without a version you get the latest.
- customQuery: what you need, in words or as a pasted error message ("allow CORS from my React dev server"). Aliases: query, topic. Without it, topics or path, the answer is the library's overview (introduction, getting started, installation).
- topics: topic slugs from the library's topic tree (resolve-library-id with detail "topics"), to search only those parts; a section in any of them counts. With topics, customQuery is optional.
- mode: "info" for explanations and guides, "code" for code examples with the text that explains them; omit for both.
- tokens: the most to return, default 5000 (200 to 50000; other values are clamped, with a note). It covers the whole answer you read.
- page: 1, 2, … for more of the same answer; the answer says when more pages exist.
Numbers are whole numbers, written as JSON numbers (3000, 3000.0, 3e3) or as strings holding one ("3000").
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
	Tokens                      int      `json:"tokens,omitempty" jsonschema:"the most tokens to return: a whole number (3000, 3e3 or \"3000\"), default 5000; values outside 200 to 50000, negative or huge ones too, are clamped to them with a note"`
	Page                        int      `json:"page,omitempty" jsonschema:"the page of the answer: a whole number (2 or \"2\") from 1 to 10000; the answer says when there are more"`
	Path                        string   `json:"path,omitempty" jsonschema:"a document path (e.g. docs/guide.md) to read it whole, or a folder (e.g. docs/api, or . for all) to list its documents"`
	Outline                     bool     `json:"outline,omitempty" jsonschema:"with path naming a document: its heading tree with token sizes instead of its text"`
}

// DocsOutput is get-library-docs' structured output: the answer with its
// provenance, pages and sizes. The sections' text is in the text content
// only, where agents read it; sending it twice doubled every answer.
type DocsOutput = search.Answer

func (h *handlers) docs(ctx context.Context, _ *mcp.CallToolRequest, in DocsInput) (*mcp.CallToolResult, DocsOutput, error) {
	id := firstNonEmpty(in.LibraryID, in.Context7CompatibleLibraryID, in.LibraryIDAlt)
	if id == "" {
		return nil, DocsOutput{}, errors.New(`libraryId is required: call resolve-library-id first, then pass its id, e.g. {"libraryId": "/tiangolo/fastapi", "customQuery": "cors"}`)
	}
	req := search.DocsRequest{Library: id, Query: firstNonEmpty(in.CustomQuery, in.Query, in.Topic), Topics: in.Topics,
		Mode: in.Mode, Path: in.Path, Outline: in.Outline, Tokens: in.Tokens, Page: in.Page}
	rec := audit.From(ctx)
	rec.SetLibrary(id, "")
	rec.SetQuery(strings.TrimSpace(req.Query + " " + strings.Join(in.Topics, " ") + " " + in.Path))
	ans, err := h.engine.Docs(ctx, req)
	if errors.Is(err, search.ErrEmptyQuery) && len(in.Topics) == 0 && req.Path == "" {
		// No question at all, or a placeholder ("<relevant topic>"):
		// Context7's topic is optional, and its answer without one is
		// the library's general documentation. So is this one.
		req.Query = search.OverviewQuery
		ans, err = h.engine.Docs(ctx, req)
	}
	if err != nil {
		if errors.Is(err, catalog.ErrLibraryNotFound) && h.c7.Configured() {
			return nil, DocsOutput{}, remoteCall(err, req)
		}
		return nil, DocsOutput{}, agentError(err)
	}
	rec.SetLibrary(ans.Library, ans.Version)
	rec.SetResults(len(ans.Sections))
	text := ans.Markdown()
	out := *ans
	out.Sections = make([]search.Section, len(ans.Sections))
	for i, s := range ans.Sections {
		s.Text = ""
		out.Sections[i] = s
	}
	return textResult(text), out, nil
}
