package search

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/internal/gittest"
	"github.com/codex7/codex7/request"
)

func TestAnswerCacheEvictsLeastRecentlyUsed(t *testing.T) {
	ans := func(n int) *Answer { return &Answer{Sections: []Section{{Text: strings.Repeat("x", n)}}} }
	one := answerSize(ans(1000)) + 1
	c := newAnswerCache(5 * one)
	for i := 0; i < 4; i++ {
		c.put(fmt.Sprint(i), ans(1000))
	}
	c.get("0")               // 0 is now the most recent
	c.put("4", ans(1000))    // full: nothing evicted yet
	c.put("5", ans(1000))    // evicts 1, the least recently used
	c.put("big", ans(5*one)) // larger than a quarter of the cache: not kept
	for key, want := range map[string]bool{"0": true, "1": false, "2": true, "3": true, "4": true, "5": true, "big": false} {
		if _, ok := c.get(key); ok != want {
			t.Errorf("get(%q) present = %v, want %v", key, ok, want)
		}
	}
	if c.answers.Size() > int64(c.limit) {
		t.Errorf("size %d over the limit %d", c.answers.Size(), c.limit)
	}
	var none *answerCache = newAnswerCache(-1)
	none.put("a", ans(1))
	if _, ok := none.get("a"); ok || none != nil {
		t.Error("a disabled cache kept an answer")
	}
}

func TestAnswerKeyDistinguishesRequests(t *testing.T) {
	base := DocsRequest{Library: "/a/b", Query: "q", Topics: []string{"x"}, Mode: "code"}
	at := func(path, build string) *catalog.Resolved {
		return &catalog.Resolved{Version: &artifacts.CatalogVersion{Path: path}, Build: build}
	}
	main := at("a/b/main", "b1")
	keys := map[string]string{}
	for name, k := range map[string]string{
		"base":         answerKey(main, &base, 5000, 1),
		"other path":   answerKey(at("a/b/v1", "b1"), &base, 5000, 1),
		"other build":  answerKey(at("a/b/main", "b2"), &base, 5000, 1),
		"other budget": answerKey(main, &base, 4000, 1),
		"other page":   answerKey(main, &base, 5000, 2),
		"other query":  answerKey(main, &DocsRequest{Query: "q2", Topics: []string{"x"}, Mode: "code"}, 5000, 1),
		"topics split": answerKey(main, &DocsRequest{Query: "q", Topics: []string{"x", ""}, Mode: "code"}, 5000, 1),
		"no mode":      answerKey(main, &DocsRequest{Query: "q", Topics: []string{"x"}}, 5000, 1),
		"outline":      answerKey(main, &DocsRequest{Query: "q", Topics: []string{"x"}, Mode: "code", Outline: true}, 5000, 1),
	} {
		if other, ok := keys[k]; ok {
			t.Errorf("%s and %s share a key", name, other)
		}
		keys[k] = name
	}
}

func TestDocsAnswersFromTheCache(t *testing.T) {
	e := buildFixtures(t)
	ctx := context.Background()
	req := DocsRequest{Library: "/acme/widgets", Query: "polling data source"}
	first, err := e.Docs(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	before := e.Status()
	// The same request, with the library named another way.
	req.Library = "widgets"
	again, err := e.Docs(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	after := e.Status()
	if after.AnswerHits != before.AnswerHits+1 || after.AnswerMisses != before.AnswerMisses {
		t.Errorf("hits %d→%d, misses %d→%d: want one more hit", before.AnswerHits, after.AnswerHits, before.AnswerMisses, after.AnswerMisses)
	}
	if !reflect.DeepEqual(first, again) {
		t.Error("the cached answer differs from the first")
	}
	// A clamped budget's note is the request's own, not cached.
	req.Tokens = 1
	noted, _ := e.Docs(ctx, req)
	plain, _ := e.Docs(ctx, DocsRequest{Library: "/acme/widgets", Query: "polling data source", Tokens: request.MinTokens})
	if len(noted.Notes) != 1 || len(plain.Notes) != 0 {
		t.Errorf("notes %q and %q: want the clamping note on the clamped request only", noted.Notes, plain.Notes)
	}
}

// TestCachedAnswerFitsTheNotes asks for a budget that is raised, with a
// note, to one whose answer is cached without a note: the answer must be
// cut with room for the note, not served from the cache over its budget.
func TestCachedAnswerFitsTheNotes(t *testing.T) {
	repo := gittest.New(t, "main")
	var doc strings.Builder
	doc.WriteString("# Long\n\n")
	for i := range 80 {
		fmt.Fprintf(&doc, "Paragraph %d says widgets poll.\n\n", i)
	}
	repo.Write(map[string]string{"docs/long.md": doc.String()})
	repo.Commit("long")
	e := openCatalog(t, "  - id: /acme/long\n    repo: "+repo.Dir+"\n")
	var pages [][]Section
	for _, tokens := range []int{request.MinTokens, 1, -5} {
		ans, err := e.Docs(context.Background(), DocsRequest{Library: "/acme/long", Path: "docs/long.md", Tokens: tokens})
		if err != nil {
			t.Fatal(err)
		}
		if ans.Tokens > ans.Budget {
			t.Errorf("tokens %d: the answer is %d tokens, over its budget of %d (notes %q)", tokens, ans.Tokens, ans.Budget, ans.Notes)
		}
		pages = append(pages, ans.Sections)
	}
	// One budget, one way of cutting pages, whatever the notes.
	for i := 1; i < len(pages); i++ {
		if !reflect.DeepEqual(pages[i], pages[0]) {
			t.Errorf("page 1 of budget %d differs between requests with and without a note", request.MinTokens)
		}
	}
}

// TestIndentedAnswerBoundedInBytes is the defect that made whitespace
// count: an answer from a deeply indented list was labelled 4,088 of
// 5,000 tokens and held 137 KB. A budget now bounds the bytes as well.
func TestIndentedAnswerBoundedInBytes(t *testing.T) {
	repo := gittest.New(t, "main")
	var doc strings.Builder
	doc.WriteString("# Nested\n\n")
	for i := range 3000 {
		fmt.Fprintf(&doc, "%s- item %d\n", strings.Repeat("    ", i%40), i)
	}
	repo.Write(map[string]string{"docs/nested.md": doc.String()})
	repo.Commit("nested")
	e := openCatalog(t, "  - id: /acme/nested\n    repo: "+repo.Dir+"\n")
	for _, req := range []DocsRequest{
		{Library: "/acme/nested", Path: "docs/nested.md"},
		{Library: "/acme/nested", Query: "item"},
	} {
		ans, err := e.Docs(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(ans.Markdown()); ans.Tokens > ans.Budget || n > 5*ans.Budget+1 {
			t.Errorf("%+v: %d tokens of %d, %d bytes: over the budget in bytes", req, ans.Tokens, ans.Budget, n)
		}
	}
}
