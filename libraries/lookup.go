package libraries

import (
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/request"
)

// nameLookup finds, for a name asked for, the libraries whose names can
// match it better than by text (see libNames.tier), without looking at
// every library: ranking 50,000 libraries then costs what the name's
// candidates cost. It is built once per Index and only read afterwards.
type nameLookup struct {
	ids   map[string]int32   // lower-case id → library
	keys  map[string][]int32 // each nameKey of a library's names → libraries
	orgs  map[string][]int32 // each nameKey of a library's org → libraries
	words map[string][]int32 // each of a library's name words → libraries
	// compacts holds every library's compact names, each after a NUL, in
	// library order; starts[k] is where the k-th begins and owners[k] its
	// library. A word found in it is part of a library's name ("deno" in
	// "denoland").
	compacts string
	starts   []int32
	owners   []int32
	// exact maps a lower-case project name, title or alias to the
	// libraries that have it, each once, in catalog order (see
	// Index.Named).
	exact map[string][]int32
}

func newNameLookup(libs []*artifacts.CatalogLib, names []libNames) *nameLookup {
	k := &nameLookup{ids: make(map[string]int32, len(libs)), keys: map[string][]int32{}, orgs: map[string][]int32{},
		words: map[string][]int32{}, exact: make(map[string][]int32, len(libs))}
	add := func(m map[string][]int32, key string, i int32) {
		if list := m[key]; len(list) == 0 || list[len(list)-1] != i {
			m[key] = append(list, i)
		}
	}
	var b strings.Builder
	for n, l := range libs {
		i := int32(n)
		ln := &names[n]
		k.ids[ln.id] = i
		for _, key := range ln.keys {
			add(k.keys, key, i)
		}
		for _, key := range ln.orgKeys {
			add(k.orgs, key, i)
		}
		for _, w := range ln.words {
			add(k.words, w, i)
		}
		for _, c := range ln.compacts {
			b.WriteByte(0)
			k.starts = append(k.starts, int32(b.Len()))
			k.owners = append(k.owners, i)
			b.WriteString(c)
		}
		add(k.exact, strings.ToLower(l.ID[strings.LastIndex(l.ID, "/")+1:]), i)
		add(k.exact, strings.ToLower(l.Title), i)
		for _, a := range l.Aliases {
			add(k.exact, strings.ToLower(a), i)
		}
	}
	k.compacts = b.String()
	return k
}

// candidates returns, without duplicates, a superset of the libraries
// whose names match p better than by text: the library p's id names, those
// with one of p's keys among their names or their org's, those one of whose
// names is a word of p (or two joined), and those having p's first word as
// a word or, from three letters on, within a compact name (every word of p
// must match for a partial match, so the first must).
func (k *nameLookup) candidates(p *parsedName) []int32 {
	seen := map[int32]bool{}
	var out []int32
	take := func(list []int32) {
		for _, i := range list {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	if i, ok := k.ids[p.id]; ok && p.id != "" {
		take([]int32{i})
	}
	for _, key := range p.keys {
		take(k.keys[key])
		take(k.orgs[key])
	}
	for i, w := range p.words {
		take(k.keys[w])
		if i > 0 {
			take(k.keys[p.words[i-1]+w])
		}
	}
	if len(p.words) > 0 {
		w := p.words[0]
		take(k.words[w])
		if utf8.RuneCountInString(w) >= 3 {
			for at := 0; ; {
				j := strings.Index(k.compacts[at:], w)
				if j < 0 {
					break
				}
				at += j
				// The compact that holds offset at is the last one
				// starting at or before it.
				c := sort.Search(len(k.starts), func(c int) bool { return int(k.starts[c]) > at }) - 1
				take(k.owners[c : c+1])
				at++
			}
		}
	}
	return out
}

// ByID returns the library whose id is id in any case, or nil. It does
// not look at scopes.
func (x *Index) ByID(id string) *artifacts.CatalogLib {
	if x.lookup == nil {
		return nil
	}
	if i, ok := x.lookup.ids[strings.ToLower(id)]; ok {
		return x.libs[i]
	}
	return nil
}

// Named returns the library, among those sc lets a request see, whose
// project name, title or alias is name in any case, or nil when none is
// or several are: a name two libraries share ("widgets" for /acme/widgets
// and /other/widgets) is never resolved to one of them silently.
func (x *Index) Named(sc request.Scope, name string) *artifacts.CatalogLib {
	if x.lookup == nil {
		return nil
	}
	var found *artifacts.CatalogLib
	for _, i := range x.lookup.exact[strings.ToLower(name)] {
		if l := x.libs[i]; request.Visible(sc, l.ID) {
			if found != nil {
				return nil
			}
			found = l
		}
	}
	return found
}
