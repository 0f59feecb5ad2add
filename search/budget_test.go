package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/tokens"
)

// TestTrimmedSectionWithLongHeadFitsBudget: a section larger than a page
// whose full head (heading path, path and anchor, trim hint) would leave
// less than minTrim of the room is shown under its short head, and the
// answer stays within its budget with the section's start in it.
func TestTrimmedSectionWithLongHeadFitsBudget(t *testing.T) {
	tests := []struct {
		name, headings, path string
	}{
		{"four ordinary headings", "# Configuration\n\n## Advanced options\n\n### Network\n\n#### Retry, timeout and backoff settings for outgoing HTTP requests\n\n",
			"docs/guides/configuration/advanced-options.md"},
		{"long headings", "# Configuring the zebra enclosure management subsystem for production deployments\n\n" +
			"## Advanced configuration of stripe pattern recognition and herd tracking options\n\n" +
			"### Troubleshooting intermittent failures of the stripe pattern recognition pipeline\n\n",
			"docs/reference/configuration/enclosures/subsystems/recognition/stripe-pattern-recognition-troubleshooting.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := gittest.New(t, "main")
			var big strings.Builder
			big.WriteString(tt.headings)
			for i := range 60 {
				fmt.Fprintf(&big, "Zebra stripes paragraph %d: every zebra has its own pattern of stripes.\n\n", i)
			}
			w.Write(map[string]string{tt.path: big.String()})
			w.Commit("zebras")
			e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
			for _, asked := range []int{request.MinTokens, 1, 400} {
				a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/zoo", Query: "zebra stripes", Tokens: asked})
				if err != nil {
					t.Fatal(err)
				}
				if n := tokens.Count(a.Markdown()); n > a.Budget || a.Tokens > a.Budget {
					t.Errorf("tokens %d: answer renders to %d tokens (says %d), budget %d:\n%s", asked, n, a.Tokens, a.Budget, a.Markdown())
				}
				// Where to read it whole always; its start once the budget
				// leaves room for a paragraph beside the head.
				if len(a.Sections) == 0 || !a.Sections[0].Trimmed || !strings.Contains(a.Markdown(), "Source: "+tt.path) ||
					asked == 400 && !strings.Contains(a.Markdown(), "Zebra stripes paragraph 0") {
					t.Errorf("tokens %d: want the section trimmed, its path (and at 400 tokens its start):\n%s", asked, a.Markdown())
				} else if got := a.Sections[0].HeadingPath; len(got) < 3 {
					t.Errorf("tokens %d: the structured heading path %q was cut with the markdown's head", asked, got)
				}
			}
		})
	}
}

// TestDocumentPageWithLongTitleFitsBudget: a document whose title is a
// paragraph is read in pages within the budget: the title shown is cut.
func TestDocumentPageWithLongTitleFitsBudget(t *testing.T) {
	w := gittest.New(t, "main")
	title := strings.Repeat("Configuring the zebra enclosure management subsystem ", 12)
	path := "docs/zebras.md"
	w.Write(map[string]string{path: "# " + title + "\n\nZebras have stripes.\n\n## Herds\n\nA herd is a few zebras.\n"})
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/zoo", Path: path, Tokens: request.MinTokens})
	if err != nil {
		t.Fatal(err)
	}
	if n := tokens.Count(a.Markdown()); n > a.Budget {
		t.Errorf("document page renders to %d tokens, budget %d:\n%s", n, a.Budget, a.Markdown())
	}
}

// TestListingWithLongTitlesFitsBudget: a folder listing of a document
// whose title is a paragraph, and an outline of a heading that is one,
// stay within the budget: a page holds at least one entry, and an entry
// larger than a page has its title (and an outline's anchor, a slug as
// long as its heading) cut.
func TestListingWithLongTitlesFitsBudget(t *testing.T) {
	w := gittest.New(t, "main")
	title := strings.Repeat("Configuring, the zebra; enclosure: management subsystem ", 12)
	w.Write(map[string]string{
		"docs/zebras.md": "# " + title + "\n\nZebras have stripes.\n\n## " + title + " {#herds}\n\nA herd is a few zebras.\n",
		"docs/herds.md":  "# Herds\n\nA herd is a few zebras.\n",
	})
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	for _, req := range []DocsRequest{
		{Library: "/acme/zoo", Path: "docs", Tokens: request.MinTokens},
		{Library: "/acme/zoo", Path: "docs/zebras.md", Outline: true, Tokens: request.MinTokens},
	} {
		for page := 1; ; page++ {
			req.Page = page
			a, err := e.Docs(context.Background(), req)
			if err != nil {
				t.Fatalf("%s page %d: %v", req.Path, page, err)
			}
			if n := tokens.Count(a.Markdown()); n > a.Budget || a.Tokens != n {
				t.Errorf("%s page %d: renders to %d tokens (says %d), budget %d:\n%s", a.Kind, page, n, a.Tokens, a.Budget, a.Markdown())
			}
			if page >= a.Pages {
				break
			}
		}
	}
}

// TestDocumentPagesBesideALongTitleFitBudget: a document whose long title
// leaves a page little room is read in pages within the budget: a page
// whose room left is under minTrim ends, rather than take a piece cut to
// minTrim.
func TestDocumentPagesBesideALongTitleFitBudget(t *testing.T) {
	w := gittest.New(t, "main")
	var b strings.Builder
	b.WriteString("# " + strings.Repeat("Configuring the zebra enclosure management subsystem ", 12) + "\n\n")
	for i := range 30 {
		fmt.Fprintf(&b, "## Part %d\n\n", i)
		for j := range i % 7 {
			fmt.Fprintf(&b, "Zebra w%d x%d y%d z%d stripes, herds; graze.\n\n", i, j, i*j, j+3)
		}
	}
	path := "docs/zebras.md"
	w.Write(map[string]string{path: b.String()})
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	for _, budget := range []int{request.MinTokens, 230, 260} {
		for page := 1; ; page++ {
			a, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/zoo", Path: path, Tokens: budget, Page: page})
			if err != nil {
				t.Fatalf("budget %d page %d: %v", budget, page, err)
			}
			if n := tokens.Count(a.Markdown()); n > a.Budget || n != a.Tokens {
				t.Errorf("budget %d page %d: renders to %d tokens (says %d), budget %d:\n%s", budget, page, n, a.Tokens, a.Budget, a.Markdown())
			}
			if page >= a.Pages {
				break
			}
		}
	}
}
