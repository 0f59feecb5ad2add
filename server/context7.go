package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codex7/codex7/audit"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/context7"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
)

const context7Description = `Fetches up-to-date documentation of a REMOTE library from Context7 (context7.com), for libraries that are not indexed on this server: snippets about one topic, in one mode, page by page, within a token budget.

Only call this when resolve-library-id returned tool "get-context7-docs" (source "remote") for the library. For a library indexed here (tool "get-library-docs") call get-library-docs, which has topic trees and whole documents; given such a library, this tool answers with the get-library-docs call to make instead.

Parameters:
- libraryId (required): the id from resolve-library-id, "/org/project", or "/org/project/version" for one of the versions it listed. Alias: context7CompatibleLibraryID.
- topic: what you need, as one descriptive string: combine your search terms ("nested dynamic routes with middleware"). Omit it for general documentation. Alias: query.
- mode: "info" (the default) for guides and explanations, "code" for API references and code examples. When a mode has nothing, the answer says to try the other.
- page: 1 to 10, for more snippets on the same topic and mode; the answer says when there are more. Pages start at 1 (0 or none is the first); one below is refused, as by get-library-docs.
- limit: snippets per page, 1 to 10 (default 10).
- tokens: the most to return, default 5000 (200 to 50000). Snippets are kept whole; the answer says what did not fit.
Numbers are whole numbers, written as JSON numbers (3000, 3000.0, 3e3) or as strings holding one ("3000"); limit, tokens and a page past 10 are clamped to their ranges, with a note.

Examples:
{"libraryId": "/vercel/next.js", "topic": "nested dynamic routes"}
{"libraryId": "/vercel/next.js/v15.1.8", "topic": "middleware redirects", "mode": "code", "tokens": 3000}
{"libraryId": "/facebook/react", "topic": "useEffect cleanup", "page": 2, "limit": 5}`

// remoteResolveTimeout bounds the Context7 search of resolve-library-id,
// so that a slow Context7 delays the local answer by at most this.
const remoteResolveTimeout = 10 * time.Second

// Context7Input is get-context7-docs' input. Context7's parameter names
// are accepted as aliases.
type Context7Input struct {
	LibraryID                   string `json:"libraryId,omitempty" jsonschema:"the library id from resolve-library-id, e.g. /vercel/next.js, or /vercel/next.js/v15.1.8 for a version it listed"`
	Context7CompatibleLibraryID string `json:"context7CompatibleLibraryID,omitempty" jsonschema:"alias of libraryId"`
	LibraryIDAlt                string `json:"libraryID,omitempty" jsonschema:"alias of libraryId"`
	Topic                       string `json:"topic,omitempty" jsonschema:"what you need, as one descriptive string, e.g. nested dynamic routes; omit for general documentation"`
	Query                       string `json:"query,omitempty" jsonschema:"alias of topic"`
	Mode                        string `json:"mode,omitempty" jsonschema:"info (default) for guides and explanations, code for API references and code examples"`
	Page                        int    `json:"page,omitempty" jsonschema:"the page: a whole number (2 or \"2\") from 1 to 10, default 1, past 10 clamped to it, below 1 refused; the answer says when there are more"`
	Limit                       int    `json:"limit,omitempty" jsonschema:"snippets per page: a whole number from 1 to 10, default 10, others clamped to them"`
	Tokens                      int    `json:"tokens,omitempty" jsonschema:"the most tokens to return: a whole number (3000, 3e3 or \"3000\"), default 5000; values outside 200 to 50000, negative or huge ones too, are clamped to them with a note"`
}

// Context7Output is get-context7-docs' structured output: what was asked
// of Context7 and what came back. The snippets' text is in the text
// content only, as for get-library-docs.
type Context7Output = context7.Doc

// clipText shortens s to at most n bytes, on a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

func (h *handlers) context7Docs(ctx context.Context, _ *mcp.CallToolRequest, in Context7Input) (*mcp.CallToolResult, Context7Output, error) {
	id := firstNonEmpty(in.LibraryID, in.Context7CompatibleLibraryID, in.LibraryIDAlt)
	if id == "" {
		return nil, Context7Output{}, errors.New(`libraryId is required: call resolve-library-id first, then pass its id, e.g. {"libraryId": "/vercel/next.js", "topic": "routing"}`)
	}
	topic := firstNonEmpty(in.Topic, in.Query)
	// Checked before the local library is looked up, whose answer repeats
	// the topic and mode in the call to make instead.
	if len(topic) > request.MaxQueryBytes {
		return nil, Context7Output{}, fmt.Errorf("topic is %d bytes long, at most %d: say what you need in a few words, e.g. \"middleware redirects\"", len(topic), request.MaxQueryBytes)
	}
	if m := strings.ToLower(strings.TrimSpace(in.Mode)); m != "" && m != context7.ModeInfo && m != context7.ModeCode {
		return nil, Context7Output{}, fmt.Errorf(`invalid mode %q: use "info" (guides and explanations, the default) or "code" (API references and code examples)`, clipText(in.Mode, 40))
	}
	rec := audit.From(ctx)
	rec.SetLibrary(id, "")
	rec.SetQuery(topic)
	if h.engine != nil {
		r, err := h.engine.Resolve(ctx, id)
		switch {
		case err == nil:
			return nil, Context7Output{}, localCall(r, id, topic, in.Mode, in.Tokens)
		case errors.Is(err, catalog.ErrVersionNotFound) || errors.Is(err, catalog.ErrVersionUnavailable):
			// The library is indexed here at other versions: its id (maybe
			// of a private library) is not sent to Context7, and the agent
			// gets the versions built here, not Context7's "tag not found".
			return nil, Context7Output{}, fmt.Errorf("%w. The library is indexed on this server: call get-library-docs instead, with one of those versions or none for the latest", err)
		}
	}
	if g := grantOf(ctx); g != nil {
		// A token reads the remote libraries its patterns allow; any other
		// is answered as one Context7 does not have.
		key, err := request.ParseKey(id)
		if err == nil && key.ID == "" {
			return nil, Context7Output{}, fmt.Errorf("%w: give the library's id (/org/project) from resolve-library-id, not a name", request.ErrInvalidKey)
		}
		if err == nil && !g.Allows(key.ID) {
			return nil, Context7Output{}, fmt.Errorf("Context7 library %s: %w: call resolve-library-id first to find the library's id", key.ID, context7.ErrNotFound)
		}
	}
	if in.Page < 0 {
		// As get-library-docs and the REST API: 0 is the first page, and
		// pages below it do not exist.
		return nil, Context7Output{}, fmt.Errorf("%w: page %d: pages start at 1", request.ErrInvalidRequest, in.Page)
	}
	doc, err := h.c7.Doc(ctx, context7.DocRequest{LibraryKey: id, Topic: topic, Mode: in.Mode, Page: in.Page, Limit: in.Limit, Tokens: in.Tokens})
	if err != nil {
		return nil, Context7Output{}, err
	}
	rec.SetLibrary(doc.LibraryID, doc.Version)
	rec.SetResults(len(doc.Snippets))
	return textResult(doc.Text), *doc, nil
}

// localCall is get-context7-docs' answer for a library indexed here: the
// get-library-docs call to make instead.
func localCall(r *catalog.Resolved, id, topic, mode string, tokens int) error {
	libID := r.Library.ID
	if k, err := request.ParseKey(id); err == nil && k.Version != "" {
		libID += "@" + r.Version.Version
	}
	call, _ := json.Marshal(struct {
		LibraryID   string `json:"libraryId"`
		CustomQuery string `json:"customQuery,omitempty"`
		Mode        string `json:"mode,omitempty"`
		Tokens      int    `json:"tokens,omitempty"`
	}{libID, topic, strings.ToLower(strings.TrimSpace(mode)), tokens})
	return fmt.Errorf("%s is indexed on this server, with its topic tree and documents: call get-library-docs instead, with %s", r.Library.ID, call)
}

// remoteCall is get-library-docs' answer for a library not indexed here
// when Context7 is configured: the get-context7-docs call to make.
func remoteCall(notFound error, req search.DocsRequest) error {
	id := req.Library
	if k, err := request.ParseKey(id); err == nil && k.ID != "" {
		id = k.ID
		if k.Version != "" {
			id += "/" + k.Version
		}
	}
	topic := req.Query
	if topic == "" {
		// Up to 100 topics of 256 bytes pass the engine's limits; the call
		// suggested stays within a query's.
		topic = clipText(strings.Join(req.Topics, " "), request.MaxQueryBytes-len("…"))
	}
	call, _ := json.Marshal(struct {
		LibraryID string `json:"libraryId"`
		Topic     string `json:"topic,omitempty"`
		Mode      string `json:"mode,omitempty"`
		Tokens    int    `json:"tokens,omitempty"`
	}{id, topic, strings.ToLower(strings.TrimSpace(req.Mode)), req.Tokens})
	return fmt.Errorf("%v. It is not indexed on this server; if Context7 has it, call get-context7-docs with %s (or resolve-library-id to find the right id)", notFound, call)
}

// remoteResult is the outcome of resolve-library-id's Context7 search.
type remoteResult struct {
	libs []context7.Library
	err  error
}

// searchRemote searches Context7 for resolve-library-id, within
// remoteResolveTimeout.
func (h *handlers) searchRemote(ctx context.Context, name, query string) remoteResult {
	ctx, cancel := context.WithTimeout(ctx, remoteResolveTimeout)
	defer cancel()
	res, err := h.c7.Search(ctx, name, query)
	if err != nil {
		return remoteResult{err: err}
	}
	// A token sees the remote libraries its patterns allow, as it does
	// the local ones.
	libs := res.Libraries
	if g := grantOf(ctx); g != nil {
		libs = nil
		for _, l := range res.Libraries {
			if g.Allows(l.ID) {
				libs = append(libs, l)
			}
		}
	}
	return remoteResult{libs: libs}
}

// mergeRemote appends Context7's matches to out after the local ones,
// skipping libraries indexed here, and rewrites the note for an answer
// that is no longer local only. A failed search leaves the local matches
// as they are, with a one-line note.
func mergeRemote(out *ResolveOutput, name string, maxResults int, r remoteResult) {
	local := len(out.Matches)
	if r.err != nil {
		why := remoteFailure(r.err)
		if local == 0 {
			out.Note = fmt.Sprintf("No library here matches %q, and Context7 could not be searched (%s): check the spelling, or try again later.", name, why)
		} else {
			out.Note = strings.TrimSpace(out.Note + fmt.Sprintf(" Context7 could not be searched (%s): only libraries indexed here are listed.", why))
		}
		return
	}
	seen := map[string]bool{}
	base := 1.0
	for _, m := range out.Matches {
		seen[strings.ToLower(m.ID)] = true
		base = math.Min(base, m.Relevance)
	}
	// maxResults bounds the whole answer: remote matches fill what the
	// local ones leave.
	room := libraries.ClampMaxLibraries(maxResults) - local
	added := 0
	for _, l := range r.libs {
		if added == room {
			break
		}
		if seen[strings.ToLower(l.ID)] {
			continue
		}
		seen[strings.ToLower(l.ID)] = true
		rel := math.Pow(0.9, float64(added))
		if local > 0 {
			rel = base * math.Pow(0.9, float64(added+1))
		}
		versions := l.Versions
		if versions == nil {
			versions = []string{}
		}
		out.Matches = append(out.Matches, Match{
			ID: l.ID, Title: l.Title, Description: l.Description,
			Source: "remote", Tool: "get-context7-docs",
			Versions:  versions,
			Relevance: math.Round(rel*1000) / 1000,
			Match:     "remote",
		})
		added++
	}
	switch {
	case local == 0 && added == 0:
		out.Note = fmt.Sprintf("No library here or on Context7 matches %q: check the spelling, or try a shorter name.", name)
	case local == 0:
		out.Note = fmt.Sprintf("No library indexed here matches %q; these matches come from Context7 (source \"remote\"): call get-context7-docs with their id.", name)
	case out.Matches[0].Match == libraries.MatchText && added > 0:
		out.Note = fmt.Sprintf("No library named %q is indexed here; the local matches only mention it in their description or topics. Context7's matches (source \"remote\") follow them.", name)
	case out.Matches[0].Match == libraries.MatchText:
		out.Note = fmt.Sprintf("No library named %q is indexed here or on Context7; these only mention it in their description or topics.", name)
	}
}

// remoteFailure says in a few words why a Context7 search failed.
func remoteFailure(err error) string {
	var rl *context7.RateLimitError
	var se *context7.StatusError
	switch {
	case errors.Is(err, context7.ErrTimeout):
		return "no answer in time"
	case errors.As(err, &rl):
		return rl.Error()
	case errors.Is(err, context7.ErrUnauthorized):
		return "the API key was refused"
	case errors.As(err, &se):
		return se.Error()
	}
	return clipText(err.Error(), 160)
}
