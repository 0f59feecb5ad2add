package libraries

import (
	"fmt"
	"slices"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/topics"
)

// TestCandidatesCoverEveryNameMatch checks the name lookup against the
// scan it replaces: for every name asked, every library whose names match
// it better than by text (libNames.tier) is among the candidates, so
// ranking over candidates only finds what ranking over every library did.
func TestCandidatesCoverEveryNameMatch(t *testing.T) {
	cat, trees := testCatalog()
	for i := range 300 { // generated libraries whose names share parts
		w := []string{"stone", "river", "stonewall", "js", "docs", "react", "vite", "flow", "riverbed"}
		id := fmt.Sprintf("/%s%d/%s-%s", w[i%len(w)], i%7, w[(i*5+1)%len(w)], w[(i*7+2)%len(w)])
		cat.Libraries = append(cat.Libraries, lib(id, w[(i*3)%len(w)]+" "+w[(i*11)%len(w)], "", w[(i*13)%len(w)]))
	}
	x := NewIndex(cat, trees)
	names := []string{"vite", "/vitejs/vite", "next js", "nextjs", "Next.js", "react hooks", "react router", "deno", "denoland",
		"hugo", "hugoDocs", "express", "webpack.js.org", "tiangolo", "go", "d3", "widgets", "acme widgets", "tailwind css",
		"stone", "river", "ston", "iver", "stone river", "stonewall js", "riverbed docs", "flow", "low", "js", "docs",
		"/stone0/river-js", "stone-river", "bed", "RiverBed", "x", "", "zzz", "vite plugin react"}
	for _, name := range names {
		p := parseName(name)
		cands := x.lookup.candidates(&p)
		for i := range x.names {
			if x.names[i].tier(&p) > tierText && !slices.Contains(cands, int32(i)) {
				t.Errorf("%q: %s matches by name (tier %d) but is not a candidate", name, x.libs[i].ID, x.names[i].tier(&p))
			}
		}
	}
}

// TestNewIndexFromReuses: an index built from the previous one for the
// same catalog ranks alike and shares its postings; for a catalog with one
// library changed, it ranks as a fresh index does.
func TestNewIndexFromReuses(t *testing.T) {
	cat, trees := testCatalog()
	builds := map[string]string{}
	for id := range trees {
		builds[id] = "build of " + id
	}
	prev := NewIndexFrom(nil, cat, builds, func(id string) ([]string, bool) { return trees[id].Names(), true }, func(id string) *topics.Tree { return trees[id] })
	same := NewIndexFrom(prev, cat, builds, func(id string) ([]string, bool) { t.Error("topics read for an unchanged catalog"); return nil, true }, func(id string) *topics.Tree { return trees[id] })
	if len(same.postings) == 0 || fmt.Sprintf("%p", same.postings) != fmt.Sprintf("%p", prev.postings) {
		t.Error("an unchanged catalog's postings were built again")
	}
	changed := &artifacts.Catalog{Libraries: slices.Clone(cat.Libraries)}
	changed.Libraries[0].Description = "Frontend tooling for widgets"
	fresh, reused := NewIndex(changed, trees), NewIndexFrom(prev, changed, builds, func(id string) ([]string, bool) { return trees[id].Names(), true }, func(id string) *topics.Tree { return trees[id] })
	for _, q := range [][2]string{{"vite", ""}, {"widgets", "frontend"}, {"react", "routing"}, {"tooling", ""}} {
		want, got := fresh.Search(nil, q[0], q[1], 10), reused.Search(nil, q[0], q[1], 10)
		if fmt.Sprint(matchSummary(want)) != fmt.Sprint(matchSummary(got)) {
			t.Errorf("%q: reusing index gives %v, fresh one %v", q, matchSummary(got), matchSummary(want))
		}
	}
}

func matchSummary(ms []Match) []string {
	var out []string
	for _, m := range ms {
		out = append(out, fmt.Sprintf("%s %s %.6f", m.Library.ID, m.Match, m.Relevance))
	}
	return out
}

// TestTopN: the heap keeps exactly the n best of many, in order, as a
// full sort does.
func TestTopN(t *testing.T) {
	x := &Index{}
	var all []*scored
	for i := range 1000 {
		x.libs = append(x.libs, &artifacts.CatalogLib{Library: artifacts.Library{ID: fmt.Sprintf("/o/p%04d", i)}})
		all = append(all, &scored{lib: i, tier: (i * 7) % 3, score: float64((i * 37) % 101)})
	}
	better := x.better
	for _, n := range []int{1, 5, 10, 250, 2000} {
		want := slices.Clone(all)
		slices.SortFunc(want, func(a, b *scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		want = want[:min(n, len(want))]
		got := topN(slices.Clone(all), n, better)
		if !slices.Equal(got, want) {
			t.Errorf("n=%d: topN differs from a full sort", n)
		}
	}
}

// TestNamedOnlyWhenOneLibrary: Named resolves a name to the one library
// whose project, title or alias it is, in any case, and to none when
// several visible libraries share it.
func TestNamedOnlyWhenOneLibrary(t *testing.T) {
	x := NewIndex(testCatalog())
	tests := []struct {
		name  string
		scope prefixScope
		want  string
	}{
		{"fastapi", "", "/tiangolo/fastapi"},
		{"NEXTJS", "", "/vercel/next.js"}, // an alias
		{"widgets", "", ""},               // /acme/widgets' project, /other/widgets' project and title
		{"docs", "", ""},                  // three projects
		{"widgets", "/other/", "/other/widgets"},
		{"docs", "/prometheus/", "/prometheus/docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" in "+string(tt.scope), func(t *testing.T) {
			var got string
			if l := x.Named(tt.scope, tt.name); l != nil {
				got = l.ID
			}
			if got != tt.want {
				t.Errorf("Named(%q) = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}
