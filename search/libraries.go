package search

import (
	"context"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/topics"
)

// LibraryMatch is one library found by Libraries, best first.
type LibraryMatch struct {
	Library *artifacts.CatalogLib
	// Relevance is the match's score divided by the best score: the top
	// match has 1.
	Relevance float64
}

// libraryIndex ranks the catalog's libraries for a name and a question.
// It is built once per catalog and read concurrently.
type libraryIndex struct {
	libs  []*artifacts.CatalogLib
	trees map[string]*topics.Tree // by library id: its latest version's tree
}

// newLibraryIndex indexes cat's libraries; trees holds the topic tree of
// each library's latest version by library id (missing ones are skipped).
func newLibraryIndex(cat *artifacts.Catalog, trees map[string]*topics.Tree) *libraryIndex {
	x := &libraryIndex{trees: trees}
	for i := range cat.Libraries {
		x.libs = append(x.libs, &cat.Libraries[i])
	}
	return x
}

// search returns up to limit libraries matching name (and query), best first.
func (x *libraryIndex) search(name, query string, limit int) []LibraryMatch {
	name = strings.ToLower(strings.Trim(strings.TrimSpace(name), `"'`))
	words := strings.FieldsFunc(name, func(r rune) bool { return r == ' ' || r == '/' || r == '-' || r == '_' || r == '.' || r == '@' })
	var out []LibraryMatch
	best := 0.0
	for _, l := range x.libs {
		hay := strings.ToLower(strings.Join(append([]string{l.ID, l.Title, l.Description}, l.Aliases...), " "))
		project := strings.ToLower(l.ID[strings.LastIndex(l.ID, "/")+1:])
		score := 0.0
		switch {
		case strings.EqualFold(l.ID, "/"+strings.Trim(name, "/")), project == name, strings.EqualFold(l.Title, name):
			score = 10
		case containsFold(l.Aliases, name):
			score = 9
		}
		for _, w := range words {
			if len(w) > 1 && strings.Contains(hay, w) {
				score++
			}
		}
		if score == 0 {
			continue
		}
		out = append(out, LibraryMatch{Library: l, Relevance: score})
		best = max(best, score)
	}
	sortMatches(out)
	if len(out) > limit {
		out = out[:limit]
	}
	for i := range out {
		out[i].Relevance /= best
	}
	return out
}

// Libraries ranks the catalog's libraries for a library name and,
// optionally, the user's question; it returns up to max matches, best
// first, and none when nothing matches.
func (e *Engine) Libraries(ctx context.Context, name, query string, max int) []LibraryMatch {
	return e.libraryIndex().search(name, query, max)
}

// libraryIndex returns the index of the catalog served now.
func (e *Engine) libraryIndex() *libraryIndex { return e.state.Load().libs }

func sortMatches(m []LibraryMatch) {
	for i := 1; i < len(m); i++ {
		for j := i; j > 0 && m[j].Relevance > m[j-1].Relevance; j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
