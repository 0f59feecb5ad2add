package libraries

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/request"
)

// closestByScan is what Closest answers, worked out by looking at every
// library: each of a library's words found in want counts its length. It
// splits names as Closest does (closestWordsOf): what is tested is the
// look-up, not the splitting.
func closestByScan(libs []artifacts.CatalogLib, sc request.Scope, want string, n int) []string {
	type scored struct {
		id    string
		score int
	}
	var all []scored
	for _, l := range libs {
		if !request.Visible(sc, l.ID) {
			continue
		}
		s := 0
		for _, w := range closestWordsOf(l.ID, l.Title, l.Aliases) {
			if strings.Contains(want, w) {
				s += len(w)
			}
		}
		all = append(all, scored{l.ID, s})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var out []string
	for _, s := range all {
		if len(out) == n || s.score == 0 {
			break
		}
		out = append(out, s.id)
	}
	return out
}

// TestClosestAsScanningEveryLibrary: the suggestions found through the
// word map are those of a scan of every library, for names that share
// words, parts of words or nothing with the catalog, with and without a
// scope.
func TestClosestAsScanningEveryLibrary(t *testing.T) {
	words := []string{"vite", "react", "next", "js", "router", "db", "sql", "alchemy", "fast", "api", "flask", "plugin", "go", "x"}
	rnd := rand.New(rand.NewPCG(7, 9))
	name := func() string {
		parts := make([]string, 1+rnd.IntN(3))
		for i := range parts {
			parts[i] = words[rnd.IntN(len(words))]
		}
		return strings.Join(parts, []string{"-", ".", ""}[rnd.IntN(3)])
	}
	cat := &artifacts.Catalog{}
	seen := map[string]bool{}
	for len(cat.Libraries) < 300 {
		id := "/" + name() + "/" + name()
		if seen[strings.ToLower(id)] {
			continue
		}
		seen[strings.ToLower(id)] = true
		l := lib(id, strings.ReplaceAll(name(), "-", " "), "")
		if rnd.IntN(4) == 0 {
			l.Aliases = []string{name()}
		}
		cat.Libraries = append(cat.Libraries, l)
	}
	slices.SortFunc(cat.Libraries, func(a, b artifacts.CatalogLib) int { return strings.Compare(a.ID, b.ID) })
	x := NewIndex(cat, nil)
	for _, sc := range []request.Scope{nil, prefixScope("/vite"), prefixScope("/none")} {
		for range 300 {
			want := strings.ToLower("/" + name() + "/" + name() + " " + name())
			switch rnd.IntN(10) {
			case 0:
				want = "/zzz/qqq"
			case 1: // a long name, as agents send
				want = strings.Repeat(want, 20)
			}
			got, scan := x.Closest(sc, want, 3), closestByScan(cat.Libraries, sc, want, 3)
			if want == "/zzz/qqq" && len(got) > 0 {
				t.Fatalf("scope %v, %q shares no word with the catalog and was suggested %v", sc, want, got)
			}
			if fmt.Sprint(got) != fmt.Sprint(scan) {
				t.Fatalf("scope %v, %q: suggested %v, a scan of every library %v", sc, want, got, scan)
			}
		}
	}
}

// TestSpelled: a name that matched nothing is answered with the libraries
// whose names are a typo away, nearest first; short names and names far
// from every library get none.
func TestSpelled(t *testing.T) {
	x := NewIndex(testCatalog())
	for name, want := range map[string][]string{
		"fastpi":       {"/tiangolo/fastapi"},
		"viet":         {"/vitejs/vite"},
		"tailwindcsss": {"/tailwindlabs/tailwindcss"},
		"vte":          nil,
		"kubernetes":   nil,
	} {
		if got := x.Spelled(nil, name, 3); !slices.Equal(got, want) {
			t.Errorf("Spelled(%q) = %v, want %v", name, got, want)
		}
	}
	if got := x.Spelled(prefixScope("/vercel"), "fastpi", 3); len(got) != 0 {
		t.Errorf("Spelled out of scope = %v, want none", got)
	}
}
