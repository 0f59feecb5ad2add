package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/request"
)

// TestNextPageAnnouncedPastMaxCandidatesExists: when more sections match
// than maxCandidates, every page announced exists, and the last page cut
// from the ranked ones says how many more were not paged.
func TestNextPageAnnouncedPastMaxCandidatesExists(t *testing.T) {
	w := gittest.New(t, "main")
	files := map[string]string{}
	for f := range 6 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Zebras %d\n\n", f)
		for s := range 110 {
			fmt.Fprintf(&b, "## Zebra %d %d\n\n", f, s)
			for k := range 40 {
				fmt.Fprintf(&b, "zebra q%dx%dy%d ", f, s, k)
			}
			b.WriteString("\n\n")
		}
		files[fmt.Sprintf("docs/zebras%d.md", f)] = b.String()
	}
	w.Write(files)
	w.Commit("zebras")
	e := openCatalog(t, "  - id: /acme/zoo\n    repo: "+w.Dir+"\n")
	req := DocsRequest{Library: "/acme/zoo", Query: "zebra", Tokens: request.MaxTokens}
	for page := 1; ; page++ {
		req.Page = page
		a, err := e.Docs(context.Background(), req)
		if err != nil {
			t.Fatalf("page %d, announced by page %d: %v", page, page-1, err)
		}
		t.Logf("page %d of %d (more %v): %d sections, matched %d, left out %d", a.Page, a.Pages, a.MorePages, len(a.Sections), a.Matched, a.LeftOut)
		if !strings.Contains(a.Markdown(), fmt.Sprintf(`"page": %d`, page+1)) {
			if a.MorePages || a.LeftOut == 0 || !strings.Contains(a.Markdown(), fmt.Sprintf("%d more matching sections not shown: only the best %d are paged", a.LeftOut, maxCandidates)) {
				t.Errorf("last page: more pages %v, left out %d; want no more pages, and the sections not paged counted in its foot:\n%s", a.MorePages, a.LeftOut, a.Markdown()[max(0, len(a.Markdown())-300):])
			}
			break
		}
		if page > 50 {
			t.Fatal("no last page")
		}
	}
}
