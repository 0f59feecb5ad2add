package libraries

import (
	"math"
	"strings"
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
	for _, l := range []artifacts.CatalogLib{
		lib("/team/cache-store", "Cache store", "A cache for routing tables and routing data"),
		lib("/team/router", "Router", "Routing routing routing for services"),
		lib("/team/proxy", "Proxy", "A reverse proxy with routing"),
	} {
		all.Libraries = append(all.Libraries, l)
	}
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
