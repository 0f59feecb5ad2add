package server

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/libraries"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResolveDetailLevels(t *testing.T) {
	engine := fixtureEngine(t)
	cs := connect(t, engine)
	_, tree, err := engine.Topics(context.Background(), "/acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	_, docs, err := engine.Documents(context.Background(), "/acme/widgets")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		detail                 string
		wantTopics, wantDocs   bool
		wantDetail, wantInText string
	}{
		{"", false, false, "summary", `call again with detail "topics"`},
		{"summary", false, false, "summary", "call get-library-docs"},
		{"topics", true, false, "topics", "topics (category: topic slugs):"},
		{" Full ", true, true, "full", "documents (path: title):"},
	} {
		t.Run(tt.detail, func(t *testing.T) {
			var out ResolveOutput
			args := map[string]any{"libraryName": "widgets"}
			if tt.detail != "" {
				args["detail"] = tt.detail
			}
			text, isErr := call(t, cs, "resolve-library-id", args, &out)
			if isErr || len(out.Matches) != 1 || out.Detail != tt.wantDetail {
				t.Fatalf("got %v %q %+v", isErr, text, out)
			}
			m := out.Matches[0]
			if m.Match != libraries.MatchName || m.DocumentCount != len(docs) || m.SectionCount == 0 {
				t.Errorf("match %q, %d documents, %d sections; want a name match with %d documents", m.Match, m.DocumentCount, m.SectionCount, len(docs))
			}
			var slugs []string
			for _, c := range m.Topics {
				slugs = append(slugs, c.Slug)
				for _, tp := range c.Topics {
					slugs = append(slugs, tp.Slug)
					if tp.Name == "" {
						t.Errorf("topic %s has no name", tp.Slug)
					}
				}
			}
			if tt.wantTopics {
				if !slices.Equal(slugs, tree.Slugs()) || m.TopicsLeftOut != 0 {
					t.Errorf("slugs %v (%d left out), want the whole tree %v", slugs, m.TopicsLeftOut, tree.Slugs())
				}
				if !strings.Contains(text, tree.Categories[0].Slug+": ") {
					t.Errorf("text does not list category %s:\n%s", tree.Categories[0].Slug, text)
				}
			} else if len(slugs) != 0 {
				t.Errorf("topics at detail %q: %v", tt.detail, slugs)
			}
			if tt.wantDocs {
				if len(m.Documents) != len(docs) || m.DocumentsLeftOut != 0 || m.Folders != nil {
					t.Errorf("documents %+v (%d left out, folders %v), want all %d", m.Documents, m.DocumentsLeftOut, m.Folders, len(docs))
				}
				if !slices.Contains(m.Documents, ResolveDocument{Path: "docs/api/create-widget.md", Title: "createWidget"}) || !strings.Contains(text, "docs/api/create-widget.md: createWidget") {
					t.Errorf("docs/api/create-widget.md missing: %+v\n%s", m.Documents, text)
				}
			} else if m.Documents != nil {
				t.Errorf("documents at detail %q", tt.detail)
			}
			if !strings.Contains(text, tt.wantInText) {
				t.Errorf("text lacks %q:\n%s", tt.wantInText, text)
			}
		})
	}
}

func TestResolveErrorsAndNotes(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	for _, tt := range []struct {
		args     map[string]any
		want     []string
		wantErr  bool
		wantNone bool
	}{
		{map[string]any{"libraryName": "widgets", "detail": "verbose"}, []string{"invalid detail", `"summary"`, `"topics"`, `"full"`, `"verbose"`}, true, false},
		{map[string]any{"libraryName": strings.Repeat("widgets ", 40)}, []string{"at most 200", "query"}, true, false},
		{map[string]any{"libraryName": `""`}, []string{"libraryName is required"}, true, false},
		// Only the description says "dashboard": a text match, said so.
		{map[string]any{"libraryName": "dashboard"}, []string{`No library named "dashboard"`, "text match"}, false, false},
		{map[string]any{"libraryName": "next.js"}, []string{`No library here matches "next.js"`, "Only locally indexed libraries"}, false, true},
		// A typo: no match, and the library it is a typo of named.
		{map[string]any{"libraryName": "widgtes"}, []string{`No library here matches "widgtes"`, "spelled nearly so: /acme/widgets"}, false, true},
		{map[string]any{"libraryName": "widgets", "maxResults": 500}, []string{"maxResults lowered to the maximum of 50"}, false, false},
		{map[string]any{"libraryName": "acme", "maxResults": -1}, []string{"(org match)"}, false, false},
	} {
		var out ResolveOutput
		text, isErr := call(t, cs, "resolve-library-id", tt.args, &out)
		if isErr != tt.wantErr {
			t.Errorf("%v: isError %v, want %v: %s", tt.args, isErr, tt.wantErr, text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v: %q lacks %q", tt.args, text, w)
			}
		}
		if !tt.wantErr && (len(out.Matches) == 0) != tt.wantNone {
			t.Errorf("%v: %d matches", tt.args, len(out.Matches))
		}
	}
}

// TestResolveSchemas checks what agents see of the tool: proper JSON
// Schema objects for input and output, the parameters described, and the
// read-only annotations.
func TestResolveSchemas(t *testing.T) {
	cs := connect(t, fixtureEngine(t))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "resolve-library-id" })
	if i < 0 {
		t.Fatal("resolve-library-id not listed")
	}
	tool := tools.Tools[i]
	if a := tool.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint || a.DestructiveHint != nil && *a.DestructiveHint {
		t.Errorf("annotations %+v, want read-only and idempotent", a)
	}
	for _, w := range []string{"libraryName", "query", "maxResults", "detail", `"summary"`, `"topics"`, `"full"`, "get-library-docs", "Examples:"} {
		if !strings.Contains(tool.Description, w) {
			t.Errorf("description lacks %q", w)
		}
	}
	var in, out struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	for _, s := range []struct {
		schema any
		into   any
	}{{tool.InputSchema, &in}, {tool.OutputSchema, &out}} {
		data, _ := json.Marshal(s.schema)
		if err := json.Unmarshal(data, s.into); err != nil {
			t.Fatal(err)
		}
	}
	if in.Type != "object" || !slices.Equal(in.Required, []string{"libraryName"}) {
		t.Errorf("input schema: type %q, required %v; want an object requiring libraryName", in.Type, in.Required)
	}
	for _, p := range []string{"libraryName", "query", "maxResults", "detail"} {
		if !strings.Contains(string(in.Properties[p]), `"description"`) {
			t.Errorf("input %s: %s, want a description", p, in.Properties[p])
		}
	}
	if out.Type != "object" || out.Properties["matches"] == nil || out.Properties["detail"] == nil {
		t.Errorf("output schema: type %q, properties %v; want an object with matches and detail", out.Type, out.Properties)
	}
	for _, p := range []string{"source", "tool", "relevance", "match", "topics", "documents", "folders"} {
		if !strings.Contains(string(out.Properties["matches"]), `"`+p+`"`) {
			t.Errorf("output schema of a match lacks %s", p)
		}
	}
}
