package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/audit"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
)

const resolveDescription = `Finds the Codex7 library id for a library, package or product name, and says which tool to call next. Call it before get-library-docs, unless the user gave an id of the form /org/project.

Parameters:
- libraryName (required): the name as the user wrote it: "fastapi", "next.js", "Next JS", "react-router". An org ("tiangolo") lists its libraries; an id or a GitHub URL finds that library.
- query: the user's question, optional. It breaks ties between similar libraries and, with detail "full", lists the documents it names first.
- maxResults: how many matches to return, a whole number from 1 to 50 (default 10; more is lowered to 50). Numbers may also be written 3.0, 3e0 or "3".
- detail: "summary" (default): id, title, description, versions. "topics": also each library's topic tree, whose slugs get-library-docs takes as topics. "full": also its documents, whose paths get-library-docs takes as path. Trees and document lists are capped, best match first, with counts of what was left out.

Each match has: id (pass it to get-library-docs as libraryId; append @version for a version other than the latest), title, description, source ("local": indexed on this server; "remote": from Context7, when this server is configured for it), tool (the tool to call next: "get-library-docs" for local libraries, "get-context7-docs" for remote ones), versions, latest, relevance (1 for the best match) and match (how it matched: "id", "name", "org", "partial", or "text" when only its description or topics mention the name, so it is probably not the library asked for; "remote" for Context7's matches). Exact matches of an id, name or alias come first; remote matches follow the local ones and have no topics or documents (pass a remote id to get-context7-docs as libraryId, with /version appended for one of its versions). No match means the library is not indexed here (nor on Context7, when configured).

Examples: {"libraryName": "fastapi"}; {"libraryName": "next.js", "query": "how do I add middleware", "maxResults": 3}; {"libraryName": "/withastro/docs", "maxResults": 1, "detail": "full"}.`

// maxNameRunes caps libraryName: a name is a few words, and a question
// belongs in query.
const maxNameRunes = 200

// ResolveInput is resolve-library-id's input.
type ResolveInput struct {
	LibraryName string `json:"libraryName" jsonschema:"the library, package or product name as the user wrote it, e.g. fastapi, next.js or Next JS; an org such as tiangolo, an id such as /vitejs/vite or a GitHub URL also work"`
	Query       string `json:"query,omitempty" jsonschema:"optional: the user's question, to break ties between similar libraries and, with detail full, to list the documents it names first"`
	MaxResults  int    `json:"maxResults,omitempty" jsonschema:"how many matches to return: a whole number (3 or \"3\") from 1 to 50, default 10 (also for 0 or less); more is lowered to 50"`
	Detail      string `json:"detail,omitempty" jsonschema:"summary (default): names, descriptions and versions; topics: also each library's topic tree with slugs; full: also its documents (path and title)"`
}

// ResolveOutput is resolve-library-id's output.
type ResolveOutput struct {
	// Detail is the detail level of the answer.
	Detail  string  `json:"detail"`
	Matches []Match `json:"matches"`
	// Note says what the agent should know beyond the matches: nothing
	// found, a clamped maxResults.
	Note string `json:"note,omitempty"`
}

// Match is one library found. Topics and documents are present from the
// detail levels "topics" and "full"; the *_left_out counts say what caps
// left out.
type Match struct {
	ID          string `json:"id" jsonschema:"the library id, to pass to get-library-docs as libraryId"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
	Source      string `json:"source" jsonschema:"local: indexed on this server; remote: from Context7"`
	Tool        string `json:"tool" jsonschema:"the tool to call next with this id: get-library-docs (local) or get-context7-docs (remote)"`
	// Versions are the built versions (at most 20; VersionsLeftOut counts
	// the others); Latest is the one an id without @version gets.
	Versions        []string `json:"versions"`
	VersionsLeftOut int      `json:"versions_left_out,omitempty"`
	Latest          string   `json:"latest"`
	Relevance       float64  `json:"relevance" jsonschema:"1 for the best match, between 0 and 1 for the others"`
	Match           string   `json:"match" jsonschema:"how the library matched libraryName: id, name (project, title or alias), org, partial (part of its names), or text (only its description or topics mention it: probably not the library asked for); remote for Context7's matches"`
	// DocumentCount and SectionCount are the latest version's.
	DocumentCount    int               `json:"document_count"`
	SectionCount     int               `json:"section_count"`
	Topics           []TopicCategory   `json:"topics,omitempty" jsonschema:"the latest version's topic tree; pass category or topic slugs to get-library-docs as topics"`
	TopicsLeftOut    int               `json:"topics_left_out,omitempty"`
	Documents        []ResolveDocument `json:"documents,omitempty" jsonschema:"the latest version's documents; pass a path to get-library-docs as path"`
	DocumentsLeftOut int               `json:"documents_left_out,omitempty"`
	Folders          []ResolveFolder   `json:"folders,omitempty" jsonschema:"when documents were left out: the biggest folders; pass one to get-library-docs as path to list it"`
	FoldersLeftOut   int               `json:"folders_left_out,omitempty"`
	Problem          string            `json:"problem,omitempty"`
}

// MarshalJSON writes remote matches' topics and documents as null, as
// seed 000 specifies: Context7 has neither. An answer without remote
// matches is written as it always was; the method is on the answer rather
// than on Match so that it costs one pass over the answer, not one
// encoding per match.
func (o ResolveOutput) MarshalJSON() ([]byte, error) {
	type plain ResolveOutput
	if !slices.ContainsFunc(o.Matches, func(m Match) bool { return m.Source == "remote" }) {
		return json.Marshal(plain(o))
	}
	type remoteMatch struct {
		Match
		Topics    []TopicCategory   `json:"topics"`
		Documents []ResolveDocument `json:"documents"`
	}
	matches := make([]any, len(o.Matches))
	for i, m := range o.Matches {
		if m.Source == "remote" {
			matches[i] = remoteMatch{Match: m}
		} else {
			matches[i] = m
		}
	}
	return json.Marshal(struct {
		plain
		Matches []any `json:"matches"`
	}{plain(o), matches})
}

// TopicCategory is a category of a topic tree and its topics.
type TopicCategory struct {
	Slug   string         `json:"slug"`
	Name   string         `json:"name"`
	Topics []ResolveTopic `json:"topics"`
}

// ResolveTopic is a topic of a category.
type ResolveTopic struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

// ResolveDocument is a document of a library version.
type ResolveDocument struct {
	Path  string `json:"path"`
	Title string `json:"title"`
}

// ResolveFolder is a folder and the number of documents under it.
type ResolveFolder struct {
	Path      string `json:"path"`
	Documents int    `json:"documents"`
}

func (h *handlers) resolve(ctx context.Context, _ *mcp.CallToolRequest, in ResolveInput) (*mcp.CallToolResult, ResolveOutput, error) {
	name, err := checkResolve(in)
	if err != nil {
		return nil, ResolveOutput{}, err
	}
	// Context7 is searched while the local search runs.
	var remote chan remoteResult
	if h.c7.Configured() {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		remote = make(chan remoteResult, 1)
		go func() { remote <- h.searchRemote(rctx, name, in.Query) }()
	}
	rec := audit.From(ctx)
	rec.SetQuery(strings.TrimSpace(name + " " + in.Query))
	out, err := resolveLocal(ctx, h.engine, name, in)
	if err != nil {
		return nil, ResolveOutput{}, err
	}
	if remote != nil {
		mergeRemote(&out, name, in.MaxResults, <-remote)
	}
	rec.SetResults(len(out.Matches))
	noteMaxResults(&out, in)
	return textResult(renderResolve(name, &out)), out, nil
}

// Resolve answers resolve-library-id from engine alone, as the tool does
// on a server without Context7: the text the agent reads and the
// structured output. The web page shows it; an error is the tool's.
func Resolve(ctx context.Context, engine Engine, in ResolveInput) (string, ResolveOutput, error) {
	name, err := checkResolve(in)
	if err != nil {
		return "", ResolveOutput{}, err
	}
	out, err := resolveLocal(ctx, engine, name, in)
	if err != nil {
		return "", ResolveOutput{}, err
	}
	noteMaxResults(&out, in)
	return renderResolve(name, &out), out, nil
}

// checkResolve returns the trimmed libraryName of a valid input, or the
// error the tool answers. Its errors wrap request.ErrInvalidRequest (or
// are libraries.ErrInvalidDetail), so that a caller of Resolve, the web
// page, tells the input's mistakes (400) from the engine's failures.
func checkResolve(in ResolveInput) (string, error) {
	name := strings.TrimSpace(in.LibraryName)
	if strings.Trim(name, "\"'`") == "" {
		return "", fmt.Errorf(`%w: libraryName is required, e.g. {"libraryName": "fastapi"}`, request.ErrInvalidRequest)
	}
	if n := utf8.RuneCountInString(name); n > maxNameRunes {
		return "", fmt.Errorf("%w: libraryName is %d characters long, at most %d: give just the library's name, and put the user's question in query", request.ErrInvalidRequest, n, maxNameRunes)
	}
	// The question only breaks ties and orders documents: the engine need
	// not split a megabyte into words, nor Context7 be sent one.
	if len(in.Query) > request.MaxQueryBytes {
		return "", fmt.Errorf("%w: query is %d bytes long, at most %d: keep the key words of the user's question, or leave it out", request.ErrInvalidRequest, len(in.Query), request.MaxQueryBytes)
	}
	// A detail level is checked before Context7 is asked anything.
	if _, err := libraries.ParseDetail(in.Detail); err != nil {
		return "", err
	}
	return name, nil
}

// resolveLocal is the local part of resolve-library-id's answer: the
// engine's matches and the note when none is named name.
func resolveLocal(ctx context.Context, engine Engine, name string, in ResolveInput) (ResolveOutput, error) {
	res, err := engine.FindLibraries(ctx, libraries.Request{Name: name, Query: in.Query, Max: in.MaxResults, Detail: in.Detail})
	if errors.Is(err, libraries.ErrInvalidDetail) {
		return ResolveOutput{}, err
	}
	if err != nil {
		return ResolveOutput{}, agentError(err)
	}
	out := ResolveOutput{Detail: string(res.Detail), Matches: make([]Match, 0, len(res.Matches))}
	for _, li := range res.Matches {
		out.Matches = append(out.Matches, toMatch(li))
	}
	switch {
	case len(out.Matches) == 0 && len(res.Spelled) > 0:
		out.Note = fmt.Sprintf("No library here matches %q. Names spelled nearly so: %s; call get-library-docs with one of these ids if it is the library meant.", name, strings.Join(res.Spelled, ", "))
	case len(out.Matches) == 0:
		out.Note = fmt.Sprintf("No library here matches %q. Only locally indexed libraries exist on this server: check the spelling, try a shorter name or the org, or tell the user this library is not indexed here.", name)
	case out.Matches[0].Match == libraries.MatchText:
		out.Note = fmt.Sprintf("No library named %q is indexed here; these only mention it in their description or topics. Only locally indexed libraries exist on this server.", name)
	}
	return out, nil
}

// noteMaxResults says when maxResults was lowered.
func noteMaxResults(out *ResolveOutput, in ResolveInput) {
	if in.MaxResults > libraries.MaxLibraries {
		out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" maxResults lowered to the maximum of %d.", libraries.MaxLibraries))
	}
}

func toMatch(li libraries.Info) Match {
	m := Match{
		ID: li.Library.ID, Title: li.Title, Description: li.Description,
		Source: "local", Tool: "get-library-docs",
		Versions: li.Versions, VersionsLeftOut: li.VersionsLeftOut, Latest: li.Latest,
		Relevance:     math.Round(li.Relevance*1000) / 1000,
		Match:         li.Match,
		DocumentCount: li.Documents, SectionCount: li.Sections,
		TopicsLeftOut: li.TopicsLeftOut, DocumentsLeftOut: li.DocsLeftOut, FoldersLeftOut: li.FoldersLeftOut,
		Problem: li.Problem,
	}
	if m.Versions == nil {
		m.Versions = []string{}
	}
	for _, c := range li.Topics {
		tc := TopicCategory{Slug: c.Slug, Name: c.Name, Topics: make([]ResolveTopic, 0, len(c.Topics))}
		for _, t := range c.Topics {
			tc.Topics = append(tc.Topics, ResolveTopic(t))
		}
		m.Topics = append(m.Topics, tc)
	}
	for _, d := range li.Docs {
		m.Documents = append(m.Documents, ResolveDocument(d))
	}
	for _, f := range li.Folders {
		m.Folders = append(m.Folders, ResolveFolder(f))
	}
	return m
}

// renderResolve writes out as text for agents: one block per match, the
// next call to make, and what was left out.
func renderResolve(name string, out *ResolveOutput) string {
	var b strings.Builder
	if len(out.Matches) == 0 {
		b.WriteString(out.Note + "\n")
		return b.String()
	}
	fmt.Fprintf(&b, "Libraries matching %q, best first (detail: %s).\n", name, out.Detail)
	if out.Note != "" {
		b.WriteString(out.Note + "\n")
	}
	leftOut := false
	for i := range out.Matches {
		m := &out.Matches[i]
		fmt.Fprintf(&b, "\n%d. %s", i+1, m.ID)
		if m.Title != "" {
			fmt.Fprintf(&b, " (%s)", m.Title)
		}
		fmt.Fprintf(&b, ", relevance %.2f (%s match)\n", m.Relevance, m.Match)
		if m.Source == "remote" {
			renderRemote(&b, m)
			continue
		}
		fmt.Fprintf(&b, "   source: %s; call %s with libraryId %q\n", m.Source, m.Tool, m.ID)
		fmt.Fprintf(&b, "   versions: %s", strings.Join(m.Versions, ", "))
		if m.VersionsLeftOut > 0 {
			fmt.Fprintf(&b, " and %d more", m.VersionsLeftOut)
		}
		fmt.Fprintf(&b, " (latest: %s; %d documents, %d sections)\n", m.Latest, m.DocumentCount, m.SectionCount)
		if m.Description != "" {
			fmt.Fprintf(&b, "   description: %s\n", m.Description)
		}
		if len(m.Topics) > 0 {
			b.WriteString("   topics (category: topic slugs):\n")
			for _, c := range m.Topics {
				slugs := make([]string, len(c.Topics))
				for j, t := range c.Topics {
					slugs[j] = t.Slug
				}
				if len(slugs) == 0 {
					slugs = []string{"(its topics left out)"}
				}
				fmt.Fprintf(&b, "     %s: %s\n", c.Slug, strings.Join(slugs, ", "))
			}
		}
		if m.TopicsLeftOut > 0 {
			fmt.Fprintf(&b, "   %d topic slugs left out\n", m.TopicsLeftOut)
			leftOut = true
		}
		if len(m.Documents) > 0 {
			b.WriteString("   documents (path: title):\n")
			for _, d := range m.Documents {
				fmt.Fprintf(&b, "     %s: %s\n", d.Path, d.Title)
			}
		}
		if m.DocumentsLeftOut > 0 {
			fmt.Fprintf(&b, "   %d documents left out", m.DocumentsLeftOut)
			if len(m.Folders) > 0 {
				b.WriteString("; folders (documents in each):")
				for j, f := range m.Folders {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, " %s (%d)", f.Path, f.Documents)
				}
				if m.FoldersLeftOut > 0 {
					fmt.Fprintf(&b, " and %d more", m.FoldersLeftOut)
				}
			}
			b.WriteByte('\n')
			leftOut = true
		}
		if m.Problem != "" {
			fmt.Fprintf(&b, "   problem: %s\n", m.Problem)
		}
	}
	switch {
	case leftOut:
		b.WriteString("\nFor what was left out: call resolve-library-id with the library's id as libraryName and maxResults 1, or get-library-docs with a folder as path to list its documents.\n")
	case out.Detail == string(libraries.DetailSummary):
		b.WriteString("\nFor a library's topic tree, call again with detail \"topics\"; for its documents too, \"full\".\n")
	}
	return b.String()
}

// renderRemote writes a remote match's lines.
func renderRemote(b *strings.Builder, m *Match) {
	fmt.Fprintf(b, "   source: remote (Context7); call %s with libraryId %q\n", m.Tool, m.ID)
	if len(m.Versions) > 0 {
		fmt.Fprintf(b, "   versions: %s (for one, append it to the id: %s/%s)\n", strings.Join(m.Versions, ", "), m.ID, m.Versions[0])
	}
	if m.Description != "" {
		fmt.Fprintf(b, "   description: %s\n", m.Description)
	}
}
