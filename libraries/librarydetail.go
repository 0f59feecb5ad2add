package libraries

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/topics"
)

// Errors of FindLibraries callers branch on (errors.Is).
var (
	// ErrInvalidDetail means a detail level other than "summary",
	// "topics" or "full".
	ErrInvalidDetail = errors.New(`invalid detail: use "summary" (names and versions), "topics" (and each library's topic tree) or "full" (and its documents)`)
)

// Detail is how much FindLibraries tells about each library it finds.
type Detail string

// Detail levels, each telling what the one before does and more.
const (
	// DetailSummary gives id, title, description, versions and counts.
	DetailSummary Detail = "summary"
	// DetailTopics adds the latest version's topic tree: categories and
	// their topics, with the slugs get-library-docs takes.
	DetailTopics Detail = "topics"
	// DetailFull adds the latest version's documents (path and title) and,
	// when they do not all fit, the biggest folders with their counts.
	DetailFull Detail = "full"
)

// ParseDetail reads a detail level, ignoring case and surrounding space;
// "" is DetailSummary. Anything else is an error wrapping ErrInvalidDetail.
func ParseDetail(s string) (Detail, error) {
	switch d := Detail(strings.ToLower(strings.TrimSpace(s))); d {
	case "":
		return DetailSummary, nil
	case DetailSummary, DetailTopics, DetailFull:
		return d, nil
	}
	return "", fmt.Errorf("%w (got %q)", ErrInvalidDetail, truncateRunes(s, 40))
}

// Caps on what FindLibraries returns, so that one answer stays within a
// few thousand tokens whatever the catalog holds: tldr has 38,000
// documents, Astro's docs 2,500. Whatever a cap leaves out is counted.
const (
	// DefaultMaxLibraries is the number of matches when none is asked for.
	DefaultMaxLibraries = 10
	// MaxLibraries is the most matches one answer has.
	MaxLibraries = 50
	// MaxDescriptionRunes caps a library's description.
	MaxDescriptionRunes = 300
	// MaxTitleRunes caps titles of libraries, documents and topics.
	MaxTitleRunes = 100
	// MaxVersionsListed caps a library's versions (the latest is always
	// among them).
	MaxVersionsListed = 20
	// MaxTopicsPerLibrary caps the slugs (categories and topics) listed
	// for one library.
	MaxTopicsPerLibrary = 100
	// MaxDocumentsPerLibrary caps the documents listed for one library.
	MaxDocumentsPerLibrary = 50
	// MaxFoldersPerLibrary caps the folders listed for one library.
	MaxFoldersPerLibrary = 15
	// TopicsBudget is the estimated size, in tokens, of all the topic trees
	// of one answer together, and DocumentsBudget that of all its
	// documents and folders. Both are spent best match first: the best
	// match gets its whole tree (real trees take 500-1,000 tokens) and its
	// first documents, the next ones what is left, and a match that gets
	// nothing has everything counted as left out. Matches that only
	// mention the name (MatchText) get nothing when a better one exists.
	// The JSON of a full answer thus stays near 3,500 tokens whatever the
	// catalog holds.
	TopicsBudget    = 1500
	DocumentsBudget = 1500
)

// ClampMaxLibraries returns n within 1–MaxLibraries, and
// DefaultMaxLibraries for n <= 0.
func ClampMaxLibraries(n int) int {
	switch {
	case n <= 0:
		return DefaultMaxLibraries
	case n > MaxLibraries:
		return MaxLibraries
	}
	return n
}

// Request is one FindLibraries call.
type Request struct {
	// Name is the library's name as the user or agent wrote it: "fastapi",
	// "Next JS", "/vitejs/vite", a GitHub URL, or an org ("tiangolo").
	Name string
	// Query is the user's question, optional; it breaks ties between
	// libraries and, at DetailFull, puts the documents it names first.
	Query string
	// Max is the number of matches, clamped by ClampMaxLibraries.
	Max int
	// Detail is a level as ParseDetail reads it ("" is summary).
	Detail string
}

// Result is FindLibraries' answer.
type Result struct {
	Detail  Detail
	Matches []Info
	// Spelled are the ids of libraries whose names are a typo away from
	// the name asked for, when nothing matched it (see Index.Spelled).
	Spelled []string
}

// Info is one library found, described to the detail asked for.
type Info struct {
	// Library is the catalog entry; it is shared and must not be modified.
	Library *artifacts.CatalogLib
	// Match says how the library matched the name (MatchID…MatchText).
	Match string
	// Relevance is 1 for the best match and between 0 and 1 for the others.
	Relevance float64
	// Title and Description are the library's, capped at MaxTitleRunes and
	// MaxDescriptionRunes.
	Title, Description string
	// Versions lists the built versions, at most MaxVersionsListed.
	Versions        []string
	VersionsLeftOut int
	// Latest is the version an id without a version gets; its counts
	// follow.
	Latest              string
	Documents, Sections int
	// Topics is the latest version's tree (DetailTopics and DetailFull);
	// TopicsLeftOut counts the category and topic slugs not listed.
	Topics        []CategoryInfo
	TopicsLeftOut int
	// Docs lists the latest version's documents (DetailFull), those the
	// query names first, then the main folders' before translations';
	// DocsLeftOut counts those not listed.
	Docs        []DocumentRef
	DocsLeftOut int
	// Folders lists the biggest folders when documents were left out, for
	// get-library-docs' path; FoldersLeftOut counts the others.
	Folders        []FolderInfo
	FoldersLeftOut int
	// Problem says why the topic tree or the documents could not be
	// listed, or is "".
	Problem string
}

// CategoryInfo is a category of a topic tree with the topics listed.
type CategoryInfo struct {
	Slug, Name string
	Topics     []TopicRef
}

// TopicRef is a topic agents can ask for by slug.
type TopicRef struct {
	Slug, Name string
}

// DocumentRef is a document of a library version.
type DocumentRef struct {
	Path, Title string
}

// FolderInfo is a folder of a library version and the number of
// documents under it, at any depth.
type FolderInfo struct {
	Path      string
	Documents int
}

// DocumentsFunc returns the documents of the latest version of the
// library id, sorted by path (the catalog's, opening the version on first
// use).
type DocumentsFunc func(id string) ([]artifacts.DocumentInfo, error)

// ErrAbort, wrapped in an error of a DocumentsFunc, ends Find with that
// error; any other error becomes the match's Problem. The engine wraps a
// version republished under the request with it, to retry on a fresh
// catalog.
var ErrAbort = errors.New("library search abandoned")

// Find ranks the catalog's libraries for req.Name (see Search) and
// describes each match to req.Detail, within the caps above, reading
// documents through docsOf. An invalid detail is an error wrapping
// ErrInvalidDetail; no match is not an error. A version whose documents
// cannot be read leaves its match without documents and says why in
// Problem. The request's Scope is ctx's (request.ScopeOf).
func (x *Index) Find(ctx context.Context, req Request, docsOf DocumentsFunc) (*Result, error) {
	detail, err := ParseDetail(req.Detail)
	if err != nil {
		return nil, err
	}
	res := &Result{Detail: detail, Matches: []Info{}}
	topicBudget, docBudget := TopicsBudget, DocumentsBudget
	question := newDocQuestion(req.Query)
	matches := x.Search(request.ScopeOf(ctx), req.Name, req.Query, req.Max)
	if len(matches) == 0 {
		res.Spelled = x.Spelled(request.ScopeOf(ctx), req.Name, 3)
	}
	for _, m := range matches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		info := summarize(m)
		var tree *topics.Tree
		if detail == DetailTopics || detail == DetailFull {
			tree = x.tree(m.Library.ID)
		}
		// Libraries that only mention the name get no details when a
		// better match exists: they are rarely the one asked for.
		skip := m.Match == MatchText && matches[0].Match != MatchText
		switch {
		case detail != DetailTopics && detail != DetailFull:
		case tree == nil:
			info.Problem = "topic tree unavailable"
		case skip:
			info.TopicsLeftOut = len(tree.Slugs())
		default:
			topicBudget = addTopics(&info, tree, topicBudget)
		}
		switch {
		case detail != DetailFull:
		case skip || docBudget < documentCost("", ""):
			info.DocsLeftOut = info.Documents // not worth opening the version
		default:
			docs, err := docsOf(m.Library.ID)
			if errors.Is(err, ErrAbort) {
				return nil, err
			}
			if err != nil {
				info.Problem = strings.TrimPrefix(info.Problem+"; ", "; ") + fmt.Sprintf("documents unavailable: %v", err)
				break
			}
			docBudget = addDocuments(&info, x.listingOf(docs), question, docBudget)
		}
		res.Matches = append(res.Matches, info)
	}
	return res, nil
}

func summarize(m Match) Info {
	l := m.Library
	info := Info{
		Library:     l,
		Match:       m.Match,
		Relevance:   m.Relevance,
		Title:       truncateRunes(l.Title, MaxTitleRunes),
		Description: truncateRunes(l.Description, MaxDescriptionRunes),
		Latest:      l.Latest,
	}
	if v := l.Version(l.Latest); v != nil {
		info.Documents, info.Sections = v.Counts.Documents, v.Counts.Sections
	}
	// The latest and the first others in catalog order, kept in that order.
	room := MaxVersionsListed - 1
	for _, v := range l.Versions {
		switch {
		case v.Version == l.Latest:
			info.Versions = append(info.Versions, v.Version)
		case room > 0:
			info.Versions = append(info.Versions, v.Version)
			room--
		default:
			info.VersionsLeftOut++
		}
	}
	return info
}

// Estimated sizes, in tokens, of listed entries: their text and the JSON
// around it, at four bytes a token, rounded up.
func topicCost(slug, name string) int {
	return tokensOf(len(slug) + len(name) + len(`{"slug":"","name":""},`))
}
func documentCost(p, title string) int {
	return tokensOf(len(p) + len(title) + len(`{"path":"","title":""},`))
}
func folderCost(p string) int { return tokensOf(len(p) + len(`{"path":"","documents":00000},`)) }
func tokensOf(bytes int) int  { return (bytes + 3) / 4 }

// addTopics lists tree's categories, then their topics in tree order, while
// they fit budget and MaxTopicsPerLibrary; it returns the budget left.
func addTopics(info *Info, tree *topics.Tree, budget int) int {
	listed := 0
	fitsCategory := make([]bool, len(tree.Categories))
	for i, c := range tree.Categories {
		name := truncateRunes(c.Name, MaxTitleRunes)
		if cost := topicCost(c.Slug, name) + 3; listed < MaxTopicsPerLibrary && cost <= budget { // + "topics":[]
			budget -= cost
			listed++
			fitsCategory[i] = true
			info.Topics = append(info.Topics, CategoryInfo{Slug: c.Slug, Name: name, Topics: []TopicRef{}})
		} else {
			info.TopicsLeftOut += 1 + len(c.Topics)
		}
	}
	k := 0
	for i, c := range tree.Categories {
		if !fitsCategory[i] {
			continue
		}
		cat := &info.Topics[k]
		k++
		for _, t := range c.Topics {
			name := truncateRunes(t.Name, MaxTitleRunes)
			if cost := topicCost(t.Slug, name); listed < MaxTopicsPerLibrary && cost <= budget {
				budget -= cost
				listed++
				cat.Topics = append(cat.Topics, TopicRef{Slug: t.Slug, Name: name})
			} else {
				info.TopicsLeftOut++
			}
		}
	}
	return budget
}
