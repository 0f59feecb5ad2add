package libraries

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/codex7/codex7/artifacts"
)

// prefixScope allows the libraries whose id starts with its prefix.
type prefixScope string

func (p prefixScope) Allows(id string) bool { return strings.HasPrefix(id, string(p)) }

// TestScopedSearchIsVisibleCatalog checks that a search in a scope ranks
// and scores as the index of the visible libraries alone would: the
// postings hold no counts, and the scoped rescoring takes them from each
// library's terms.
func TestScopedSearchIsVisibleCatalog(t *testing.T) {
	all, trees := testCatalog()
	all.Libraries = append(all.Libraries,
		lib("/team/cache-store", "Cache store", "A cache for routing tables and routing data"),
		lib("/team/router", "Router", "Routing routing routing for services"),
		lib("/team/proxy", "Proxy", "A reverse proxy with routing"),
	)
	sc := prefixScope("/team/")
	visible := &artifacts.Catalog{}
	for _, l := range all.Libraries {
		if sc.Allows(l.ID) {
			visible.Libraries = append(visible.Libraries, l)
		}
	}
	scoped, alone := NewIndex(all, trees), NewIndex(visible, trees)
	for _, q := range []struct{ name, query string }{{"routing", ""}, {"cache", "routing tables"}, {"proxy", "routing"}} {
		got, want := scoped.Search(sc, q.name, q.query, 10), alone.Search(nil, q.name, q.query, 10)
		if len(got) == 0 || len(got) != len(want) {
			t.Fatalf("%q: scoped %v, visible catalog alone %v", q.name, ids(got), ids(want))
		}
		for i := range got {
			if got[i].Library.ID != want[i].Library.ID || math.Abs(got[i].Relevance-want[i].Relevance) > 1e-9 {
				t.Errorf("%q #%d: scoped %s %.6f, visible catalog alone %s %.6f", q.name, i, got[i].Library.ID, got[i].Relevance, want[i].Library.ID, want[i].Relevance)
			}
		}
	}
}

// countingScope is a scope that counts the libraries it is asked about.
type countingScope struct {
	prefix string
	asked  *atomic.Int64
}

func (c *countingScope) Allows(id string) bool {
	c.asked.Add(1)
	return strings.HasPrefix(id, c.prefix)
}

// funcScope is a scope whose type cannot be a map key.
type funcScope func(string) bool

func (f funcScope) Allows(id string) bool { return f(id) }

// TestScopeVisibilityRemembered: a scope that searches again is not asked
// about every library again (50,000 libraries a request cost
// milliseconds), and ranks as the first time; a scope whose type cannot
// be remembered is asked every time and ranks alike.
func TestScopeVisibilityRemembered(t *testing.T) {
	cat, trees := testCatalog()
	x := NewIndex(cat, trees)
	var asked atomic.Int64
	sc := &countingScope{prefix: "/vitejs/", asked: &asked}
	first := x.Search(sc, "vite", "plugin", 10)
	once := asked.Load()
	if once < int64(len(cat.Libraries)) {
		t.Fatalf("the scope was asked about %d libraries, want every one of %d", once, len(cat.Libraries))
	}
	again := x.Search(sc, "vite", "plugin", 10)
	if n := asked.Load() - once; n >= int64(len(cat.Libraries)) {
		t.Errorf("searching again asked the scope about %d libraries: what it sees was not remembered", n)
	}
	if fmt.Sprint(matchSummary(first)) != fmt.Sprint(matchSummary(again)) || len(first) == 0 {
		t.Errorf("ranked %v, then %v", matchSummary(first), matchSummary(again))
	}
	byFunc := x.Search(funcScope(func(id string) bool { return strings.HasPrefix(id, "/vitejs/") }), "vite", "plugin", 10)
	if fmt.Sprint(matchSummary(byFunc)) != fmt.Sprint(matchSummary(first)) {
		t.Errorf("a scope of a func type ranked %v, want %v", matchSummary(byFunc), matchSummary(first))
	}
}
