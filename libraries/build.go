package libraries

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"unique"

	"golang.org/x/sync/errgroup"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/lru"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/topics"
)

// libDoc is what an Index knows of one library, worked out from its
// catalog entry and its latest version's topic tree alone: a new catalog's
// Index (NewIndexFrom) reuses it for every library whose entry and tree
// are unchanged, so that loading a catalog in which one library of 50,000
// changed does not split and count the terms of the other 49,999 again.
// It is immutable.
type libDoc struct {
	key   libKey
	lens  [numFields]int // field lengths, in terms
	names libNames
	// terms are the library's distinct terms in order of first use, each
	// ended by a zero byte, and counts their occurrences in each field,
	// numFields bytes a term (saturating at 255): one string and one
	// slice a library, 11 bytes a term, where a string and counts a term
	// took 24 (50,000 libraries keep about 60 terms each).
	terms  string
	counts []uint8
}

// each calls fn with each of d's terms and its counts in each field.
func (d *libDoc) each(fn func(t string, counts *[numFields]uint8)) {
	rest := d.terms
	for i := 0; rest != ""; i++ {
		t, r, _ := strings.Cut(rest, "\x00")
		fn(t, (*[numFields]uint8)(d.counts[i*numFields:]))
		rest = r
	}
}

// numTerms is how many distinct terms d has.
func (d *libDoc) numTerms() int { return len(d.counts) / numFields }

// libKey is what a libDoc is computed from: the library's entry, and
// which build of its latest version gave the topic tree.
type libKey struct {
	id, title, description, aliases string
	build                           string
}

func keyOf(l *artifacts.CatalogLib, build string) libKey {
	return libKey{id: l.ID, title: l.Title, description: l.Description, aliases: strings.Join(l.Aliases, "\x00"), build: build}
}

func newLibDoc(l *artifacts.CatalogLib, topicNames []string, key libKey) *libDoc {
	org, project := splitID(l.ID)
	var ft [numFields][]string
	for _, n := range append([]string{project, l.Title}, l.Aliases...) {
		ft[fieldName] = append(ft[fieldName], nameTerms(n)...)
	}
	ft[fieldOrg] = nameTerms(org)
	ft[fieldDescription] = textTerms(l.Description)
	for _, n := range topicNames {
		ft[fieldTopics] = append(ft[fieldTopics], textTerms(n)...)
	}
	d := &libDoc{key: key, names: namesOf(l, org, project)}
	for _, list := range [][]string{d.names.keys, d.names.orgKeys, d.names.words} {
		for i, w := range list {
			list[i] = unique.Make(w).Value()
		}
	}
	at := map[string]int{} // term → its position
	var terms strings.Builder
	for f, list := range ft {
		d.lens[f] = len(list)
		for _, t := range list {
			i, ok := at[t]
			if !ok {
				i = len(at)
				at[t] = i
				terms.WriteString(t)
				terms.WriteByte(0)
				d.counts = append(d.counts, make([]uint8, numFields)...)
			}
			if c := &d.counts[i*numFields+f]; *c < math.MaxUint8 {
				*c++
			}
		}
	}
	d.terms = terms.String()
	d.counts = slices.Clip(d.counts) // no spare capacity: 50,000 of them are kept
	return d
}

// countsOf returns the occurrences in each field of term t, which the
// library has, or none when it has not. It looks at every term of the
// library (about 60): only a scoped search asks.
func (d *libDoc) countsOf(t string) *[numFields]uint8 {
	out := &[numFields]uint8{}
	d.each(func(term string, counts *[numFields]uint8) {
		if term == t {
			out = counts
		}
	})
	return out
}

// parallel calls fn(0) to fn(n-1) on every core at once, a chunk of
// parallelChunk calls at a time, and returns when all have returned.
func parallel(n int, fn func(i int)) {
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for lo := 0; lo < n; lo += parallelChunk {
		g.Go(func() error {
			for i := lo; i < min(lo+parallelChunk, n); i++ {
				fn(i)
			}
			return nil
		})
	}
	g.Wait()
}

// parallelChunk is how many libraries one goroutine of parallel splits:
// enough that starting goroutines costs little beside the work.
const parallelChunk = 256

// NewIndex indexes cat's libraries; trees holds the topic tree of each
// library's latest version by library id (missing ones are skipped). It
// does no I/O and keeps cat and trees, which must not change afterwards.
func NewIndex(cat *artifacts.Catalog, trees map[string]*topics.Tree) *Index {
	builds := map[string]string{}
	for id, t := range trees {
		builds[id] = fmt.Sprintf("%p", t)
	}
	tree := func(id string) *topics.Tree { return trees[id] }
	return NewIndexFrom(nil, cat, builds, func(id string) ([]string, bool) { return tree(id).Names(), true }, tree)
}

// NewIndexFrom indexes cat's libraries, reusing what prev, the index of an
// earlier catalog (or nil), worked out of the libraries whose entry and
// latest build are the same in cat: when every library is, prev's
// postings and name lookup are shared too, and the new index costs a pass
// over the catalog. builds identifies, by library id, the build of each
// library's latest version (its manifest's checksum); names returns the
// names of that version's topics (topics.Tree.Names), and false when they
// cannot be had now but may be later (the library is indexed without
// them, and the next index asks again), and is called for the libraries
// not reused, several at once; tree returns the version's topic tree, or nil, for Find to
// describe matches with their topics. Both must be safe for concurrent
// use, and tree should not hold every tree in memory. prev is not
// modified and stays usable.
func NewIndexFrom(prev *Index, cat *artifacts.Catalog, builds map[string]string, names func(id string) ([]string, bool), tree func(id string) *topics.Tree) *Index {
	x := &Index{tree: tree, closest: &closestWords{},
		listings: lru.New[*artifacts.DocumentInfo](lru.Options[*listing]{MaxEntries: maxListings, MaxBytes: math.MaxInt64}),
		scopes:   lru.New[request.Scope](lru.Options[*visibility]{MaxEntries: maxScopes, MaxBytes: math.MaxInt64})}
	var old map[string]*libDoc
	if prev != nil {
		old = make(map[string]*libDoc, len(prev.docs))
		for _, d := range prev.docs {
			old[d.key.id] = d
		}
	}
	same := prev != nil && len(prev.docs) == len(cat.Libraries)
	x.libs = make([]*artifacts.CatalogLib, len(cat.Libraries))
	x.docs = make([]*libDoc, len(cat.Libraries))
	var todo []int // the libraries whose libDoc is new
	for i := range cat.Libraries {
		l := &cat.Libraries[i]
		x.libs[i] = l
		key := keyOf(l, builds[l.ID])
		if d := old[l.ID]; d != nil && d.key == key {
			x.docs[i] = d
		} else {
			todo = append(todo, i)
		}
		same = same && prev.docs[i] == x.docs[i]
	}
	// Splitting and counting terms is most of a first load's work (50,000
	// libraries: seconds): every core takes a share.
	parallel(len(todo), func(j int) {
		i := todo[j]
		l := x.libs[i]
		key := keyOf(l, builds[l.ID])
		var topicNames []string
		if key.build != "" {
			var ok bool
			if topicNames, ok = names(l.ID); !ok {
				key.build = "" // not the build's terms: made again next time
			}
		}
		x.docs[i] = newLibDoc(l, topicNames, key)
	})
	if same {
		x.postings, x.fieldLens, x.names, x.lookup = prev.postings, prev.fieldLens, prev.names, prev.lookup
		return x
	}
	x.fieldLens = make([][numFields]int, len(x.docs))
	x.names = make([]libNames, len(x.docs))
	var total [numFields]float64
	terms := 0
	for i, d := range x.docs {
		x.fieldLens[i], x.names[i] = d.lens, d.names
		for f, n := range d.lens {
			total[f] += float64(n)
		}
		terms += d.numTerms()
	}
	n := float64(len(x.libs))
	var avg [numFields]float64
	for f := range avg {
		avg[f] = max(total[f]/max(n, 1), 1)
	}
	// Each term's postings in a slice of its exact length, cut from one
	// array: appending would leave up to half of each slice spare.
	df := make(map[string]int32, terms/8)
	for _, d := range x.docs {
		d.each(func(t string, _ *[numFields]uint8) { df[t]++ })
	}
	all := make([]posting, terms)
	x.postings = make(map[string][]posting, len(df))
	for t, n := range df {
		x.postings[t], all = all[:0:n], all[n:]
	}
	stats := libStats{n: n, avg: avg}
	for i, d := range x.docs {
		d.each(func(t string, counts *[numFields]uint8) {
			score := stats.idf(int(df[t])) * stats.saturated(counts, d.lens)
			x.postings[t] = append(x.postings[t], posting{lib: int32(i), score: float32(score)})
		})
	}
	x.lookup = newNameLookup(x.libs, x.names)
	return x
}
