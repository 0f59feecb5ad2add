// Package loadgen drives an MCP server with concurrent clients and measures
// it: per-call latency, throughput, errors by kind and, for a local server
// process, its memory over time. It exists for the serving benchmarks and
// soak tests; each client is a real SDK client session on its own
// connection, so what it measures is what an agent would see.
//
// A run replays a Plan: a fixed, deterministic list of tool calls mixing
// ranked queries, code-mode queries, topic-only lookups, document reads and
// library resolution over every library served. Calls are taken from the
// plan in order by whichever client is free, so a run of n calls always
// makes the same n calls, whatever the concurrency.
//
// MakeSynthetic makes what the build benchmarks build: a catalog of many
// small libraries, each its own git repository, cached between runs.
package loadgen

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Kinds of call in a plan. Latency is also reported per kind.
const (
	// KindQuery is get-library-docs with customQuery.
	KindQuery = "query"
	// KindCode is get-library-docs with customQuery and mode "code".
	KindCode = "code"
	// KindTopics is get-library-docs with topics only.
	KindTopics = "topics"
	// KindPath is get-library-docs with path: one document's first page.
	KindPath = "path"
	// KindResolve is resolve-library-id with a library's project name.
	KindResolve = "resolve"
)

// Tool names of the Codex7 MCP server.
const (
	ToolDocs    = "get-library-docs"
	ToolResolve = "resolve-library-id"
)

// pattern is the mix of kinds each library cycles through: half ranked
// queries, as agents mostly ask questions, then code-mode queries, topic
// lookups, document reads and library resolution.
var pattern = [...]string{KindQuery, KindCode, KindQuery, KindTopics, KindQuery, KindPath, KindQuery, KindCode, KindQuery, KindResolve}

// queryKindsPerCycle counts the kinds of pattern that take a query.
const queryKindsPerCycle = 7

// Call is one tool call of a plan.
type Call struct {
	// Kind is one of the Kind constants.
	Kind    string
	Library string // library id, for get-library-docs
	Name    string // library name, for resolve-library-id
	Query   string
	Topics  []string
	Mode    string
	Path    string
}

// Tool returns the name of the MCP tool the call is for.
func (c Call) Tool() string {
	if c.Kind == KindResolve {
		return ToolResolve
	}
	return ToolDocs
}

// Args returns the call's MCP arguments. The map is new on every call.
func (c Call) Args() map[string]any {
	if c.Kind == KindResolve {
		return map[string]any{"libraryName": c.Name}
	}
	a := map[string]any{"libraryId": c.Library}
	if c.Query != "" {
		a["customQuery"] = c.Query
	}
	if len(c.Topics) > 0 {
		a["topics"] = c.Topics
	}
	if c.Mode != "" {
		a["mode"] = c.Mode
	}
	if c.Path != "" {
		a["path"] = c.Path
	}
	return a
}

// Library is what a plan needs to know of one library served.
type Library struct {
	// ID is the library id ("/tiangolo/fastapi").
	ID string
	// Topics are topic slugs of its latest version, for topic-only calls.
	Topics []string
	// Paths are document paths of its latest version, for document reads.
	Paths []string
}

// Name is the project part of the id, as an agent would ask
// resolve-library-id for it ("fastapi" for /tiangolo/fastapi).
func (l Library) Name() string {
	id := strings.Trim(l.ID, "/")
	return id[strings.LastIndexByte(id, '/')+1:]
}

// Plan returns the calls of a mixed workload over libs, deterministic for
// the same arguments. Libraries take turns, one call each, so concurrent
// clients touch different libraries; each library cycles through the mix
// of kinds, and its queries walk through queries in order, so that every
// query is asked of every library once per plan. A library without topics
// or paths gets a query instead of those kinds. The plan is empty if libs
// or queries is.
func Plan(libs []Library, queries []string) []Call {
	if len(libs) == 0 || len(queries) == 0 {
		return nil
	}
	cycles := (len(queries) + queryKindsPerCycle - 1) / queryKindsPerCycle
	rounds := cycles * len(pattern)
	type cursor struct{ query, topic, path int }
	cur := make([]cursor, len(libs))
	calls := make([]Call, 0, rounds*len(libs))
	for r := range rounds {
		for i, l := range libs {
			c := &cur[i]
			// Stagger the libraries' cycles so that consecutive calls,
			// which run at once, are of different kinds.
			kind := pattern[(r+i)%len(pattern)]
			if (kind == KindTopics && len(l.Topics) == 0) || (kind == KindPath && len(l.Paths) == 0) {
				kind = KindQuery
			}
			call := Call{Kind: kind, Library: l.ID}
			switch kind {
			case KindQuery, KindCode:
				call.Query = queries[c.query%len(queries)]
				c.query++
				if kind == KindCode {
					call.Mode = "code"
				}
			case KindTopics:
				call.Topics = []string{l.Topics[c.topic%len(l.Topics)]}
				c.topic++
			case KindPath:
				call.Path = l.Paths[c.path%len(l.Paths)]
				c.path++
			case KindResolve:
				call.Library, call.Name = "", l.Name()
			}
			calls = append(calls, call)
		}
	}
	return calls
}

// ReadQueries reads the query texts of an evaluation file in the
// ../shared/eval format (JSON lines with a "query" field), in file order
// without repeats. Blank lines are skipped; a line that is not JSON is an
// error naming it.
func ReadQueries(r io.Reader) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("read queries: line %d: %w", n, err)
		}
		if q.Query = strings.TrimSpace(q.Query); q.Query != "" && !seen[q.Query] {
			seen[q.Query] = true
			out = append(out, q.Query)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read queries: %w", err)
	}
	return out, nil
}

// maxPerLibrary caps the topics and paths Discover keeps per library.
const maxPerLibrary = 20

// Discover asks the server, over cs, for the topics and documents of each
// library id (resolve-library-id with detail "full"), keeping up to 20 of
// each, so a plan can be made against any server without its artifacts.
// It fails on the first id the server does not answer for.
func Discover(ctx context.Context, cs *mcp.ClientSession, ids []string) ([]Library, error) {
	libs := make([]Library, 0, len(ids))
	for _, id := range ids {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolResolve, Arguments: map[string]any{"libraryName": id, "maxResults": 1, "detail": "full"}})
		if err != nil {
			return nil, fmt.Errorf("discover %s: %w", id, err)
		}
		if res.IsError {
			return nil, fmt.Errorf("discover %s: %w: %s", id, errToolError, text(res))
		}
		var out struct {
			Matches []struct {
				ID     string `json:"id"`
				Topics []struct {
					Slug   string `json:"slug"`
					Topics []struct {
						Slug string `json:"slug"`
					} `json:"topics"`
				} `json:"topics"`
				Documents []struct {
					Path string `json:"path"`
				} `json:"documents"`
			} `json:"matches"`
		}
		data, err := json.Marshal(res.StructuredContent)
		if err == nil {
			err = json.Unmarshal(data, &out)
		}
		if err != nil {
			return nil, fmt.Errorf("discover %s: structured content: %w", id, err)
		}
		if len(out.Matches) == 0 || out.Matches[0].ID != id {
			return nil, fmt.Errorf("discover %s: %w", id, errNotServed)
		}
		m := out.Matches[0]
		l := Library{ID: id}
		for _, c := range m.Topics {
			slugs := []string{c.Slug} // a category without topics is asked for whole
			if len(c.Topics) > 0 {
				slugs = slugs[:0]
				for _, t := range c.Topics {
					slugs = append(slugs, t.Slug)
				}
			}
			for _, s := range slugs {
				if len(l.Topics) < maxPerLibrary {
					l.Topics = append(l.Topics, s)
				}
			}
		}
		for _, d := range m.Documents {
			if len(l.Paths) < maxPerLibrary {
				l.Paths = append(l.Paths, d.Path)
			}
		}
		libs = append(libs, l)
	}
	return libs, nil
}

var (
	errToolError = errors.New("tool error")
	errNotServed = errors.New("not served: resolve-library-id did not return it first")
)

// text joins a result's text content.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Mix returns base with a call of extra inserted after every every calls
// of it, taking extra's calls in order and cycling through them: a plan
// over one set of libraries with a share of calls over another (1 in
// every+1). It returns base unchanged if extra is empty or every < 1.
func Mix(base, extra []Call, every int) []Call {
	if len(extra) == 0 || every < 1 {
		return base
	}
	out := make([]Call, 0, len(base)+len(base)/every)
	k := 0
	for i, c := range base {
		out = append(out, c)
		if (i+1)%every == 0 {
			out = append(out, extra[k%len(extra)])
			k++
		}
	}
	return out
}
