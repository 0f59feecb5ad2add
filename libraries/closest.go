package libraries

import (
	"sort"
	"strings"
	"sync"

	"github.com/codex7/codex7/internal/editdist"
	"github.com/codex7/codex7/request"
)

// closestWords maps each word of the catalog's library ids, titles and
// aliases (lower case, two bytes or more) to the libraries that have it,
// once per occurrence, in catalog order. It is built on the first
// suggestion asked for.
type closestWords struct {
	once    sync.Once
	words   map[string][]int32
	longest int // the longest word's length, in bytes
}

// closestWordsOf splits a library's id, title and aliases as Closest compares them.
func closestWordsOf(id, title string, aliases []string) []string {
	all := strings.ToLower(id + " " + title + " " + strings.Join(aliases, " "))
	var out []string
	for _, w := range strings.FieldsFunc(all, func(r rune) bool { return r == '/' || r == ' ' || r == '-' || r == '.' }) {
		if len(w) > 1 {
			out = append(out, w)
		}
	}
	return out
}

// Closest suggests up to n ids, among the libraries sc lets the request
// see, for want, a name that named none (lower case): those whose id,
// title and alias words appear in want over the most bytes, best first
// and in catalog order among equals; none when no library shares a word
// with want (a library picked for no reason would mislead). It looks up want's substrings no longer than the catalog's
// longest word in a map of the catalog's words instead of looking at every
// library: a catalog of 50,000 libraries answers an unknown name in
// microseconds, not tens of milliseconds (the work grows with len(want)
// times that longest word).
func (x *Index) Closest(sc request.Scope, want string, n int) []string {
	if n <= 0 || len(x.libs) == 0 {
		return nil
	}
	cw := x.closest
	cw.once.Do(func() {
		cw.words = map[string][]int32{}
		for i, l := range x.libs {
			for _, w := range closestWordsOf(l.ID, l.Title, l.Aliases) {
				cw.words[w] = append(cw.words[w], int32(i))
				cw.longest = max(cw.longest, len(w))
			}
		}
	})
	score := map[int32]int{}
	seen := map[string]bool{}
	for i := range len(want) {
		for j := i + 2; j <= min(len(want), i+cw.longest); j++ {
			w := want[i:j]
			if seen[w] {
				continue
			}
			seen[w] = true
			for _, lib := range cw.words[w] {
				score[lib] += len(w)
			}
		}
	}
	type scored struct {
		lib   int32
		score int
	}
	var all []scored
	for lib, s := range score {
		if request.Visible(sc, x.libs[lib].ID) {
			all = append(all, scored{lib, s})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		return all[i].lib < all[j].lib
	})
	var out []string
	for _, s := range all[:min(len(all), n)] {
		out = append(out, x.libs[s.lib].ID)
	}
	return out
}

// Spelled suggests up to n ids, among the libraries sc lets the request
// see, for name when it matched nothing: those with a name a typo away
// from it ("fastpi", "falsk"): one edit (editdist.Distance) for a name of
// four to seven letters, two from eight, nearest first and by id among
// equals. Shorter names have too many neighbours. It compares name with
// every library's names: it is for the rare name that matched nothing.
func (x *Index) Spelled(sc request.Scope, name string, n int) []string {
	p := parseName(name)
	type near struct {
		lib, d int
	}
	var found []near
	for i := range x.names {
		best := -1
		for _, k := range p.keys {
			if len(k) < 4 {
				continue
			}
			limit := 1
			if len(k) >= 8 {
				limit = 2
			}
			for _, lk := range x.names[i].keys {
				if abs(len(lk)-len(k)) > limit {
					continue
				}
				if d := editdist.Distance(k, lk); d <= limit && (best < 0 || d < best) {
					best = d
				}
			}
		}
		if best >= 0 && request.Visible(sc, x.libs[i].ID) {
			found = append(found, near{i, best})
		}
	}
	sort.Slice(found, func(a, b int) bool {
		if found[a].d != found[b].d {
			return found[a].d < found[b].d
		}
		return x.libs[found[a].lib].ID < x.libs[found[b].lib].ID
	})
	var out []string
	for _, f := range found[:min(len(found), n)] {
		out = append(out, x.libs[f.lib].ID)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
