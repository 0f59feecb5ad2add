package libraries

import (
	"math"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/lru"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/topics"
)

// Match is one library found by Libraries, best first.
type Match struct {
	Library *artifacts.CatalogLib
	// Match says how the library matched the name: MatchID, MatchName,
	// MatchOrg, MatchPartial or MatchText.
	Match string
	// Relevance is the match's score divided by the best score: the top
	// match has 1, every other one less or as much, none less than 0.
	Relevance float64
}

// How a library matched the name asked for, best first. A better match
// always ranks first; BM25 orders libraries that match alike.
const (
	// MatchID: the name is the library's id or its URL ("/vitejs/vite").
	MatchID = "id"
	// MatchName: the name is the library's project, title or alias, however
	// spelled ("vite", "Next JS", "react" for react.dev).
	MatchName = "name"
	// MatchOrg: the name is the library's org ("tiangolo").
	MatchOrg = "org"
	// MatchPartial: every word of the name is in the library's names
	// ("deno" in /denoland/docs), or one of its names is a word of the
	// name ("react hooks").
	MatchPartial = "partial"
	// MatchText: only the library's description or topics have the words;
	// it is probably not the library asked for.
	MatchText = "text"
)

// Match tiers, in the order of the Match kinds.
const (
	tierText = iota
	tierPartial
	tierOrg
	tierName
	tierID
)

var tierMatch = [...]string{tierText: MatchText, tierPartial: MatchPartial, tierOrg: MatchOrg, tierName: MatchName, tierID: MatchID}

// bm25K1 is BM25's term frequency saturation.
const bm25K1 = 1.2

// Fields of a library that BM25F scores.
const (
	fieldName        = iota // project, title and aliases
	fieldOrg                // the id's org
	fieldDescription        // the description
	fieldTopics             // category and topic names of the latest version
	numFields
)

// BM25F per-field weights and length normalization. Names weigh most, the
// org less (every project of the org shares it), a description more than
// topic names (it says what the library is; topics say what its
// documentation covers). Names are short: their length matters little.
var (
	fieldWeight = [numFields]float64{fieldName: 4, fieldOrg: 2, fieldDescription: 1.5, fieldTopics: 1}
	fieldB      = [numFields]float64{fieldName: 0.3, fieldOrg: 0.3, fieldDescription: 0.75, fieldTopics: 0.75}
)

// questionWeight scales the words of the user's question (Libraries'
// query): they order libraries the name matches equally well, and never
// lift a library above a better name match.
const questionWeight = 0.3

// Limits on what Libraries reads of its input: a library name is a few
// words, and a question only breaks ties.
const (
	maxNameWords     = 16
	maxQuestionWords = 64
)

// Index ranks the catalog's libraries for a name and a question.
// It is built once per catalog by newLibraryIndex and never modified
// afterwards, so any number of goroutines may search it at once.
type Index struct {
	libs []*artifacts.CatalogLib
	// closest holds the words Closest looks names up in, made on first
	// use (a pointer: an Index is copied by value nowhere, but the
	// sync.Once inside must not be).
	closest *closestWords
	// tree returns the topic tree of a library's latest version by
	// library id, or nil (see NewIndexFrom).
	tree  func(id string) *topics.Tree
	names []libNames // by position in libs
	// postings maps a term to the libraries that have it, with the term's
	// BM25F score in each (idf × saturated weighted frequency) over the
	// whole catalog, and its count in each field, from which scoped
	// rescores it over the libraries a scope lets a request see.
	postings map[string][]posting
	// fieldLens are each library's field lengths, in terms.
	fieldLens [][numFields]int
	// docs are what the index knows of each library, by position in
	// libs, reused by the next catalog's index for libraries unchanged.
	docs []*libDoc
	// lookup finds the libraries a name can match without looking at
	// every library (see lookup.go).
	lookup *nameLookup
	// listings caches the listing of recently listed versions' documents,
	// by the address of the first document of the engine's shared slice.
	// It is bounded: a version closed and opened again reads its
	// documents anew, so a listing of the old slice is never asked for
	// again, and an unbounded map would keep every slice ever listed.
	listings *lru.Cache[*artifacts.DocumentInfo, *listing]
	// scopes remembers what the last scopes asking see (visibilityOf).
	scopes *lru.Cache[request.Scope, *visibility]
}

// maxListings bounds the listings an Index keeps, in entries; the one
// of a version of 1,000 pages is about 50 KB.
const maxListings = 256

// posting is one library that has a term, with the term's score in it.
// It holds no more: a catalog of 50,000 libraries has about 60 postings
// a library, and the term's counts in each field, which a scoped search
// rescores from, are the library's libDoc's (countsOf). The score is a
// float32 (8 bytes a posting, not 16): ranks are sums of a few of them.
type posting struct {
	lib   int32
	score float32
}

// libNames is what exact and partial name matching compare, precomputed.
type libNames struct {
	id       string   // lower-case id, "/org/project"
	keys     []string // nameKeys of project, title and aliases (and of the org when the project is generic, as in /denoland/docs)
	orgKeys  []string // nameKeys of the org
	words    []string // nameWords of org, project, title and aliases, with glued "js" split off
	compacts []string // compact forms of org, project, title and aliases, for substring matches
}

// libStats are what BM25F weighs a term by: the libraries counted and
// their average field lengths.
type libStats struct {
	n   float64
	avg [numFields]float64
}

// statsOf returns the statistics of the libraries for which vis is set.
func (x *Index) statsOf(vis []bool) libStats {
	var st libStats
	var total [numFields]float64
	for i, ok := range vis {
		if !ok {
			continue
		}
		st.n++
		for f, l := range x.fieldLens[i] {
			total[f] += float64(l)
		}
	}
	for f := range st.avg {
		st.avg[f] = max(total[f]/max(st.n, 1), 1)
	}
	return st
}

// idf is the weight of a term df of the libraries have.
func (st *libStats) idf(df int) float64 {
	return math.Log(1 + (st.n-float64(df)+0.5)/(float64(df)+0.5))
}

// saturated is the term's weighted, length-normalized frequency in the
// posting's library, saturated as BM25 does.
func (st *libStats) saturated(counts *[numFields]uint8, lens [numFields]int) float64 {
	var w float64
	for f, c := range counts {
		if c > 0 {
			norm := 1 - fieldB[f] + fieldB[f]*float64(lens[f])/st.avg[f]
			w += float64(c) * fieldWeight[f] / norm
		}
	}
	return w * (bm25K1 + 1) / (bm25K1 + w)
}

// visibility is which libraries of an Index a scope sees, and the
// ranking statistics over those.
type visibility struct {
	vis    []bool // by position in libs
	hidden bool   // some library is not visible
	stats  libStats
}

// maxScopes bounds the scopes an Index remembers the visibility of.
const maxScopes = 64

// visibilityOf returns what sc sees of x, remembered for the last
// maxScopes scopes: a token's grant asks again and again, and asking it
// about each of 50,000 libraries costs milliseconds a request. A scope
// whose type cannot be a map key is asked every time.
func (x *Index) visibilityOf(sc request.Scope) *visibility {
	keep := reflect.TypeOf(sc).Comparable()
	if keep {
		if v, ok := x.scopes.Get(sc); ok {
			return v
		}
	}
	v := &visibility{vis: make([]bool, len(x.libs))}
	for i, l := range x.libs {
		v.vis[i] = sc.Allows(l.ID)
		v.hidden = v.hidden || !v.vis[i]
	}
	v.stats = x.statsOf(v.vis)
	if keep {
		x.scopes.Put(sc, v, int64(len(v.vis)))
	}
	return v
}

// scoped returns, for a request's scope, the scores of terms' postings
// over the libraries the scope lets it see, as if the others were never
// built: with them, idf and average field lengths would tell a token
// which words libraries it may not see use. nil, for a scope that sees
// every library: the postings' own scores are those.
func (x *Index) scoped(sc request.Scope, terms []string) map[string][]posting {
	if sc == nil {
		return nil
	}
	v := x.visibilityOf(sc)
	if !v.hidden {
		return nil
	}
	vis, st := v.vis, v.stats
	out := map[string][]posting{}
	for _, t := range terms {
		if _, done := out[t]; done {
			continue
		}
		var ps []posting
		for _, p := range x.postings[t] {
			if vis[p.lib] {
				ps = append(ps, p)
			}
		}
		idf := st.idf(len(ps))
		for j := range ps {
			d := x.docs[ps[j].lib]
			ps[j].score = float32(idf * st.saturated(d.countsOf(t), d.lens))
		}
		out[t] = ps
	}
	return out
}

// listingOf returns the listing of docs, a version's documents as the
// engine shares them, working it out on first use.
func (x *Index) listingOf(docs []artifacts.DocumentInfo) *listing {
	if len(docs) == 0 {
		return newListing(docs)
	}
	if l, ok := x.listings.Get(&docs[0]); ok && len(l.docs) == len(docs) {
		return l
	}
	l := newListing(docs)
	x.listings.Put(&docs[0], l, 1)
	return l
}

// splitID returns the org and project of "/org/project".
func splitID(id string) (org, project string) {
	org, project, _ = strings.Cut(strings.TrimPrefix(id, "/"), "/")
	return org, project
}

func namesOf(l *artifacts.CatalogLib, org, project string) libNames {
	ln := libNames{id: strings.ToLower(l.ID), orgKeys: nameKeys(org)}
	names := append([]string{project, l.Title}, l.Aliases...)
	for _, n := range names {
		ln.keys = appendNew(ln.keys, nameKeys(n)...)
	}
	if len(nameKeys(project)) == 0 {
		// /denoland/docs, /prometheus/docs: the org is the name.
		ln.keys = appendNew(ln.keys, ln.orgKeys...)
	}
	for _, n := range append(names, org) {
		for _, w := range nameWords(n) {
			ln.words = appendNew(ln.words, w)
			if base, ok := strings.CutSuffix(w, "js"); ok && len(base) >= 3 {
				ln.words = appendNew(ln.words, base)
			}
		}
		if c := compact(n); c != "" {
			ln.compacts = appendNew(ln.compacts, c)
		}
	}
	return ln
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, x := range list {
			if x == it {
				found = true
				break
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}

// parsedName is a library name as asked, in the forms matching compares.
type parsedName struct {
	id    string   // "/org/project" in lower case when the name is an id or URL
	keys  []string // nameKeys of the whole name
	words []string // nameWords
	terms []string // BM25 terms
}

func parseName(name string) parsedName {
	var p parsedName
	if k, err := request.ParseKey(name); err == nil {
		if k.ID != "" {
			p.id = strings.ToLower(k.ID)
			name = strings.ReplaceAll(strings.TrimPrefix(k.ID, "/"), "/", " ")
		} else {
			name = k.Name // drops an @version and stray slashes: "/vercel", "react@18"
		}
	}
	p.words = nameWords(name)
	if len(p.words) > maxNameWords {
		p.words = p.words[:maxNameWords]
	}
	joined := strings.Join(p.words, " ")
	p.keys = nameKeys(joined)
	p.terms = nameTerms(joined)
	// Generic words ("js", "docs", "dev") say nothing on their own: with
	// other words beside them, they do not count ("next.js", "hugoDocs").
	specific := p.terms[:0:0]
	for _, t := range p.terms {
		if !genericWords[t] {
			specific = append(specific, t)
		}
	}
	if len(specific) > 0 {
		p.terms = specific
	}
	return p
}

// tier says how well the library's names match the name asked for.
func (ln *libNames) tier(p *parsedName) int {
	if p.id != "" && p.id == ln.id {
		return tierID
	}
	for _, k := range p.keys {
		if contains(ln.keys, k) {
			return tierName
		}
	}
	for _, k := range p.keys {
		if contains(ln.orgKeys, k) {
			return tierOrg
		}
	}
	if len(p.words) == 0 {
		return tierText
	}
	// Every word asked for is one of the library's words or, from three
	// letters on, part of one of its names ("deno" in "denoland").
	all := true
	for _, w := range p.words {
		if contains(ln.words, w) {
			continue
		}
		found := false
		if len([]rune(w)) >= 3 {
			for _, c := range ln.compacts {
				if strings.Contains(c, w) {
					found = true
					break
				}
			}
		}
		if !found {
			all = false
			break
		}
	}
	if all {
		return tierPartial
	}
	// One of the library's names is a word (or two joined) of the name
	// asked for: "react hooks", "next js app router".
	for i, w := range p.words {
		if contains(ln.keys, w) {
			return tierPartial
		}
		if i > 0 && contains(ln.keys, p.words[i-1]+w) {
			return tierPartial
		}
	}
	return tierText
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// scored is a library being ranked.
type scored struct {
	lib   int
	tier  int
	score float64 // BM25F of the name, plus the question's words scaled by questionWeight
}

// search returns up to limit libraries matching name (and query), best
// first; limit is clamped to 1–MaxLibraries. A library is a match when
// the name matches its names or its words appear in its description or
// topics; the question only reorders matches.
func (x *Index) Search(sc request.Scope, name, query string, limit int) []Match {
	limit = ClampMaxLibraries(limit)
	p := parseName(name)
	q := textTerms(query)
	if len(q) > maxQuestionWords {
		q = q[:maxQuestionWords]
	}
	postings := func(t string) []posting { return x.postings[t] }
	if sp := x.scoped(sc, append(slices.Clone(p.terms), q...)); sp != nil {
		postings = func(t string) []posting { return sp[t] }
	}
	byLib := map[int]*scored{}
	get := func(i int) *scored {
		s := byLib[i]
		if s == nil {
			s = &scored{lib: i}
			byLib[i] = s
		}
		return s
	}
	for _, t := range dedupeTerms(p.terms) {
		for _, ps := range postings(t) {
			get(int(ps.lib)).score += float64(ps.score)
		}
	}
	for _, i := range x.lookup.candidates(&p) {
		if tr := x.names[i].tier(&p); tr > tierText {
			get(int(i)).tier = tr
		}
	}
	if len(byLib) == 0 {
		return nil
	}
	asked := map[string]bool{}
	for _, t := range p.terms {
		asked[t] = true
	}
	for _, t := range dedupeTerms(q) {
		if asked[t] {
			continue // the name's own words were counted once
		}
		for _, ps := range postings(t) {
			if s := byLib[int(ps.lib)]; s != nil {
				s.score += questionWeight * float64(ps.score)
			}
		}
	}
	all := make([]*scored, 0, len(byLib))
	span := 0.0
	for _, s := range byLib {
		if !request.Visible(sc, x.libs[s.lib].ID) {
			continue
		}
		all = append(all, s)
		span = max(span, s.score)
	}
	if len(all) == 0 {
		return nil
	}
	all = topN(all, limit, x.better)
	// A tier is worth more than any score, so the combined value follows
	// the order; normalized by the top one it runs from 1 down to above 0.
	span = max(span, 1)
	combined := func(s *scored) float64 { return float64(s.tier)*span + s.score }
	top := combined(all[0])
	out := make([]Match, len(all))
	for i, s := range all {
		rel := 1.0
		if top > 0 {
			rel = combined(s) / top
		}
		out[i] = Match{Library: x.libs[s.lib], Match: tierMatch[s.tier], Relevance: rel}
	}
	return out
}

// better is the order of matches: tier first, then score, then id, so
// that equal matches come out the same way every time.
func (x *Index) better(a, b *scored) bool {
	if a.tier != b.tier {
		return a.tier > b.tier
	}
	if a.score != b.score {
		return a.score > b.score
	}
	return x.libs[a.lib].ID < x.libs[b.lib].ID
}

// topN returns the n best of all, best first, by better, a total order.
// A name many libraries share matches thousands of a large catalog: it
// keeps the n best in a heap instead of sorting them all. all is reused.
func topN(all []*scored, n int, better func(a, b *scored) bool) []*scored {
	if len(all) > 4*n {
		// h is a heap of the n best so far, the worst of them at h[0].
		h := all[:0:0]
		worse := func(i, j int) bool { return better(h[j], h[i]) }
		down := func(i int) {
			for {
				c := 2*i + 1
				if c >= len(h) {
					return
				}
				if c+1 < len(h) && worse(c+1, c) {
					c++
				}
				if !worse(c, i) {
					return
				}
				h[i], h[c] = h[c], h[i]
				i = c
			}
		}
		for _, s := range all {
			switch {
			case len(h) < n:
				h = append(h, s)
				for i := len(h) - 1; i > 0 && worse(i, (i-1)/2); i = (i - 1) / 2 {
					h[i], h[(i-1)/2] = h[(i-1)/2], h[i]
				}
			case better(s, h[0]):
				h[0] = s
				down(0)
			}
		}
		all = h
	}
	sort.Slice(all, func(i, j int) bool { return better(all[i], all[j]) })
	if len(all) > n {
		all = all[:n]
	}
	return all
}

func dedupeTerms(terms []string) []string {
	seen := make(map[string]bool, len(terms))
	out := terms[:0:0]
	for _, t := range terms {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// byName returns the one library a bare name names in any spelling
// ("Next JS", "nextjs"), or nil when none or several do.
func (x *Index) ByName(sc request.Scope, name string) *artifacts.CatalogLib {
	m := x.Search(sc, name, "", 2)
	if len(m) == 0 || m[0].Match != MatchName || (len(m) > 1 && m[1].Match == MatchName) {
		return nil
	}
	return m[0].Library
}
