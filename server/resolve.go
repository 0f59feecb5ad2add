package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const resolveDescription = `Finds the Codex7 library id for a library or package name. Call this first, unless the user gave an id of the form /org/project.

Returns matches, best first, each with: id (pass it to get-library-docs as libraryId), title, description, versions and latest, source ("local": indexed here) and tool (the tool to call next: "get-library-docs").

Examples: {"libraryName": "fastapi"}, {"libraryName": "next.js", "maxResults": 3}.`

// ResolveInput is resolve-library-id's input.
type ResolveInput struct {
	LibraryName string `json:"libraryName" jsonschema:"the library or package name to look for, e.g. fastapi or next.js"`
	Query       string `json:"query,omitempty" jsonschema:"optional: the user's question, to break ties between libraries"`
	MaxResults  int    `json:"maxResults,omitempty" jsonschema:"how many matches to return, 1-50 (default 10)"`
}

// Match is one library found.
type Match struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Source      string   `json:"source"`
	Tool        string   `json:"tool"`
	Versions    []string `json:"versions"`
	Latest      string   `json:"latest"`
	Relevance   float64  `json:"relevance"`
}

// ResolveOutput is resolve-library-id's output.
type ResolveOutput struct {
	Matches []Match `json:"matches"`
}

func (h *handlers) resolve(ctx context.Context, _ *mcp.CallToolRequest, in ResolveInput) (*mcp.CallToolResult, ResolveOutput, error) {
	name := strings.ToLower(strings.Trim(strings.TrimSpace(in.LibraryName), `"'`))
	if name == "" {
		return nil, ResolveOutput{}, errors.New(`libraryName is required, e.g. {"libraryName": "fastapi"}`)
	}
	max := in.MaxResults
	if max <= 0 {
		max = 10
	}
	if max > 50 {
		max = 50
	}
	var out ResolveOutput
	for _, lm := range h.engine.Libraries(ctx, name, in.Query, max) {
		l := lm.Library
		var versions []string
		for _, v := range l.Versions {
			versions = append(versions, v.Version)
		}
		out.Matches = append(out.Matches, Match{ID: l.ID, Title: l.Title, Description: l.Description, Source: "local",
			Tool: "get-library-docs", Versions: versions, Latest: l.Latest, Relevance: lm.Relevance})
	}
	var b strings.Builder
	if len(out.Matches) == 0 {
		fmt.Fprintf(&b, "No library here matches %q. Only locally indexed libraries exist on this server.\n", in.LibraryName)
	}
	for i := range out.Matches {
		m := &out.Matches[i]
		fmt.Fprintf(&b, "- id: %s\n  title: %s\n  source: %s, call %s\n  versions: %s (latest %s)\n", m.ID, m.Title, m.Source, m.Tool, strings.Join(m.Versions, ", "), m.Latest)
		if m.Description != "" {
			fmt.Fprintf(&b, "  description: %s\n", m.Description)
		}
	}
	if out.Matches == nil {
		out.Matches = []Match{}
	}
	return textResult(b.String()), out, nil
}
