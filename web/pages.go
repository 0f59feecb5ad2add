package web

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/codex7/codex7/artifacts"
	"github.com/codex7/codex7/catalog"
	"github.com/codex7/codex7/contextitems"
	"github.com/codex7/codex7/libraries"
	"github.com/codex7/codex7/request"
	"github.com/codex7/codex7/search"
	"github.com/codex7/codex7/server"
	"github.com/codex7/codex7/topics"
)

// catalogData is the catalog page's content.
type catalogData struct {
	Filter    string
	Libraries []catalogLib
	// NoCatalog says the engine has no catalog to show and is not ready
	// (nothing built where it reads, or its first load still running):
	// the page says so rather than show an empty catalog.
	NoCatalog bool
}

type catalogLib struct {
	ID, Title, Description, Latest, URL string
	// Search is what the filter matches, lower case.
	Search   string
	Versions []catalogVersion
}

type catalogVersion struct {
	Name, URL, Commit, Short, Built, BuiltISO string
	Latest                                    bool
	Documents, Sections, Tokens               int
}

// maxFilterWords bounds the words of a catalog filter: each is looked for
// in every library's text, so a filter of a header's worth of words would
// cost seconds of CPU on a large catalog. No library's id, title,
// description and versions call for more.
const maxFilterWords = 16

// filterWords returns the distinct lower-case words of a catalog filter,
// at most maxFilterWords, in the order given.
func filterWords(filter string) []string {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !slices.Contains(words, w) {
			if words = append(words, w); len(words) == maxFilterWords {
				break
			}
		}
	}
	return words
}

// catalogPage lists every library the request may see, by id, with each
// version's build. ?q= keeps those whose id, title, description or a
// version contains every word, as the script does as you type.
func (s *Site) catalogPage(w http.ResponseWriter, r *http.Request) {
	filter := strings.TrimSpace(r.URL.Query().Get("q"))
	words := filterWords(filter)
	scope := request.ScopeOf(r.Context())
	cat := s.engine.Catalog()
	// Status is asked only of an empty catalog: it copies and sorts the
	// refused versions, work the page does not need otherwise.
	data := catalogData{Filter: filter, NoCatalog: (cat == nil || len(cat.Libraries) == 0) && !s.engine.Status().Ready}
	if cat != nil {
		for i := range cat.Libraries {
			l := &cat.Libraries[i]
			if !request.Visible(scope, l.ID) {
				continue
			}
			cl := catalogLib{ID: l.ID, Title: cmp.Or(l.Title, l.ID), Description: l.Description, Latest: l.Latest, URL: l.ID}
			hay := []string{l.ID, l.Title, l.Description}
			hay = append(hay, l.Aliases...)
			for _, v := range l.Versions {
				cl.Versions = append(cl.Versions, catalogVersion{
					Name: v.Version, URL: l.ID + "/" + url.PathEscape(v.Version), Commit: v.Commit, Short: shortCommit(v.Commit),
					Built: v.BuiltAt.UTC().Format("2006-01-02 15:04 UTC"), BuiltISO: v.BuiltAt.UTC().Format(time.RFC3339),
					Latest: v.Version == l.Latest, Documents: v.Counts.Documents, Sections: v.Counts.Sections, Tokens: v.Counts.Tokens,
				})
				hay = append(hay, v.Version)
			}
			cl.Search = strings.ToLower(strings.Join(hay, " "))
			if !containsAll(cl.Search, words) {
				continue
			}
			data.Libraries = append(data.Libraries, cl)
		}
	}
	slices.SortFunc(data.Libraries, func(a, b catalogLib) int { return cmp.Compare(strings.ToLower(a.ID), strings.ToLower(b.ID)) })
	s.render(w, r, http.StatusOK, "catalog", "Catalog", data)
}

func containsAll(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// libraryData is the library page's content (and the query form's).
type libraryData struct {
	ID, Title, Description, Version, Commit, Short, Built, BuiltISO string
	Latest                                                          bool
	// Base is the page's path: /org/project or /org/project/version.
	Base      string
	Versions  []versionLink
	Tree      *topics.Tree
	Documents int
	Root      *folder
	Query     queryForm
}

type versionLink struct {
	Name, URL string
	Current   bool
}

// queryForm holds the query form's values.
type queryForm struct {
	Q, Mode, Topics string
	Tokens, Page    int
}

// folder is a folder of a version's documents, for the folder tree.
type folder struct {
	Name              string
	Folders           []*folder
	Docs              []docLink
	Documents, Tokens int
}

type docLink struct {
	Name, Title, URL string
	Tokens           int
}

// libraryPage shows a library version: its topic tree with sizes, its
// documents as a folder tree, and the query form.
func (s *Site) libraryPage(w http.ResponseWriter, r *http.Request) {
	id, _ := libraryID(r)
	var res *catalog.Resolved
	var tree *topics.Tree
	var docs []artifacts.DocumentInfo
	err := consistently(func() (err error) {
		var dres *catalog.Resolved
		if res, tree, err = s.engine.Topics(r.Context(), id); err != nil {
			return err
		}
		if dres, docs, err = s.engine.Documents(r.Context(), id); err == nil && dres.Build != res.Build {
			err = errMixedBuilds // a publish came between the two calls
		}
		return err
	})
	if err != nil {
		status, msg := errorStatus(err)
		s.fail(w, r, status, msg)
		return
	}
	d := s.libraryData(r, res.Library, res.Version)
	d.Tree = tree
	d.Documents = len(docs)
	d.Root = folderTree(docs, d.Base)
	s.render(w, r, http.StatusOK, "library", d.Title+" "+d.Version, d)
}

// libraryData describes the version v of lib, at the path the request
// named it by.
func (s *Site) libraryData(r *http.Request, lib *artifacts.CatalogLib, v *artifacts.CatalogVersion) libraryData {
	base := lib.ID
	if r.PathValue("version") != "" {
		base += "/" + url.PathEscape(v.Version)
	}
	d := libraryData{ID: lib.ID, Title: cmp.Or(lib.Title, lib.ID), Description: lib.Description, Version: v.Version,
		Commit: v.Commit, Short: shortCommit(v.Commit), Built: v.BuiltAt.UTC().Format("2006-01-02 15:04 UTC"),
		BuiltISO: v.BuiltAt.UTC().Format(time.RFC3339), Latest: v.Version == lib.Latest, Base: base,
		Query: queryForm{Tokens: request.DefaultTokens, Page: 1}}
	for _, lv := range lib.Versions {
		d.Versions = append(d.Versions, versionLink{Name: lv.Version, URL: lib.ID + "/" + url.PathEscape(lv.Version), Current: lv.Version == v.Version})
	}
	return d
}

// folderTree arranges documents by folder; documents come sorted by path.
func folderTree(docs []artifacts.DocumentInfo, base string) *folder {
	root := &folder{}
	for _, d := range docs {
		parts := strings.Split(d.Path, "/")
		f := root
		f.Documents++
		f.Tokens += d.Tokens
		for _, p := range parts[:len(parts)-1] {
			var next *folder
			for _, c := range f.Folders {
				if c.Name == p {
					next = c
				}
			}
			if next == nil {
				next = &folder{Name: p}
				f.Folders = append(f.Folders, next)
			}
			f = next
			f.Documents++
			f.Tokens += d.Tokens
		}
		f.Docs = append(f.Docs, docLink{Name: parts[len(parts)-1], Title: d.Title, URL: docURL(base, d.Path, ""), Tokens: d.Tokens})
	}
	return root
}

// docURL is the document view of path under base, at anchor.
func docURL(base, path, anchor string) string {
	u := base + "/-/doc/" + (&url.URL{Path: path}).EscapedPath()
	if anchor != "" {
		u += "#" + url.PathEscape(anchor)
	}
	return u
}

// queryData is the query page's content.
type queryData struct {
	libraryData
	Answer   *search.Answer
	Sections []sectionView
	Raw      string
	Error    string
	// Unknown are the topics asked for that the version lacks, and
	// Available the answers to ask with its topics instead (an error
	// listing dozens of slugs as text reads as a wall).
	Unknown    []string
	Available  []topicLink
	Prev, Next string
}

type topicLink struct{ Slug, URL string }

type sectionView struct {
	search.Section
	DocURL, SourceURL string
	HTML              template.HTML
}

// queryPage shows what get-library-docs answers for the form's arguments:
// the same search.DocsRequest the tool makes, from the same engine.
func (s *Site) queryPage(w http.ResponseWriter, r *http.Request) {
	id, _ := libraryID(r)
	q := r.URL.Query()
	form := queryForm{Q: q.Get("q"), Mode: q.Get("mode"), Topics: q.Get("topics")}
	var bad []string
	// Numbers are read as get-library-docs reads them (request.ParseWhole:
	// 3e3 is 3000, +5 and 0x10 are refused), so that the page answers
	// what an agent gets for the same arguments.
	number := func(name string) int {
		v := strings.TrimSpace(q.Get(name))
		n, err := request.ParseWhole(name, v)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s must be a whole number, not %q", name, request.Clip(v, 40)))
		}
		return n
	}
	form.Tokens, form.Page = number("tokens"), number("page")
	req := search.DocsRequest{Library: id, Query: form.Q, Topics: topicList(form.Topics), Mode: form.Mode, Tokens: form.Tokens, Page: form.Page}
	res, _, err := s.engine.Topics(r.Context(), id)
	if err != nil {
		status, msg := errorStatus(err)
		s.fail(w, r, status, msg)
		return
	}
	d := queryData{libraryData: s.libraryData(r, res.Library, res.Version)}
	d.Query = form
	if d.Query.Tokens == 0 {
		d.Query.Tokens = request.DefaultTokens
	}
	if d.Query.Page == 0 {
		d.Query.Page = 1
	}
	status := http.StatusOK
	if len(bad) > 0 {
		d.Error = strings.Join(bad, "; ")
		s.render(w, r, http.StatusBadRequest, "query", "Answer for "+d.Title, d)
		return
	}
	ans, err := s.engine.Docs(r.Context(), req)
	if err != nil {
		status, d.Error = errorStatus(err)
		if te := (*search.TopicError)(nil); errors.As(err, &te) {
			d.Error, d.Unknown = "", te.Topics
			for _, slug := range te.Available {
				v := url.Values{"topics": {slug}}
				if form.Q != "" {
					v.Set("q", form.Q)
				}
				d.Available = append(d.Available, topicLink{Slug: slug, URL: d.Base + "/-/query?" + v.Encode()})
			}
		}
		s.render(w, r, status, "query", "Answer for "+d.Title, d)
		return
	}
	d.Answer = ans
	d.Raw = ans.Markdown()
	md := s.sectionMD
	repo := s.repo(ans.Library, ans.Version)
	docs := listOnce(func() (*catalog.Resolved, []artifacts.DocumentInfo, error) {
		return s.engine.Documents(r.Context(), id)
	})
	for _, sec := range ans.Sections {
		d.Sections = append(d.Sections, sectionView{Section: sec, DocURL: docURL(d.Base, sec.Path, sec.Anchor),
			SourceURL: contextitems.SourceURL(repo, sec.Commit, cmp.Or(sec.Source, sec.Path), sec.Anchor), HTML: renderMarkdown(md, sec.Text, s.linkFixer(d.Base, sec.Path, docs))})
	}
	pageURL := func(p int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("page", strconv.Itoa(p))
		return d.Base + "/-/query?" + v.Encode()
	}
	if ans.Page > 1 {
		d.Prev = pageURL(ans.Page - 1)
	}
	if ans.Page < ans.Pages || ans.MorePages {
		d.Next = pageURL(ans.Page + 1)
	}
	s.render(w, r, status, "query", "Answer for "+d.Title, d)
}

// topicList splits the topics field at commas and spaces.
func topicList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
}

// repo is the repository URL of a library version, "" when unknown.
func (s *Site) repo(library, version string) string {
	if s.opts.Repo == nil {
		return ""
	}
	return s.opts.Repo(library, version)
}

// documentData is the document view's content.
type documentData struct {
	Base, LibTitle, Version, Path, Title, SourceURL string
	Outline                                         []artifacts.Outline
	Parts                                           []docPart
	Truncated                                       bool
}

type docPart struct {
	Anchor string
	HTML   template.HTML
}

// maxDocumentPages bounds the pages of the largest budget a document view
// reads: 20 × 50,000 tokens is about 4 MB of text.
const maxDocumentPages = 20

// documentPage renders a document with its outline beside it. Its text is
// what get-library-docs gives for path, page after page at the largest
// budget, each section in an element with the section's anchor. The
// outline and the text come from separate engine calls: when a publish
// comes between them (errMixedBuilds), the page is read again.
func (s *Site) documentPage(w http.ResponseWriter, r *http.Request) {
	id, _ := libraryID(r)
	path := r.PathValue("path")
	var d *documentData
	err := consistently(func() (err error) {
		d, err = s.readDocument(r, id, path)
		return err
	})
	if err != nil {
		status, msg := errorStatus(err)
		s.fail(w, r, status, msg)
		return
	}
	s.render(w, r, http.StatusOK, "document", d.Title, d)
}

// readDocument reads what documentPage shows: the document's outline and
// source from Documents, its text from Docs, all of one build (the same
// manifest: a rebuild of one commit is another build), or errMixedBuilds.
func (s *Site) readDocument(r *http.Request, id, path string) (*documentData, error) {
	res, docs, err := s.engine.Documents(r.Context(), id)
	if err != nil {
		return nil, err
	}
	i, found := slices.BinarySearchFunc(docs, path, func(d artifacts.DocumentInfo, p string) int { return cmp.Compare(d.Path, p) })
	if !found {
		return nil, fmt.Errorf("%w: %s %s has no document %q: its library page lists them", search.ErrDocumentNotFound, res.Library.ID, res.Version.Version, path)
	}
	info := docs[i]
	lib := s.libraryData(r, res.Library, res.Version)
	d := &documentData{Base: lib.Base, LibTitle: lib.Title, Version: lib.Version, Path: info.Path, Title: cmp.Or(info.Title, info.Path),
		Outline: info.Outline, SourceURL: contextitems.SourceURL(s.repo(res.Library.ID, res.Version.Version), res.Version.Commit, info.Path, "")}
	md := s.documentMD
	fix := s.linkFixer(lib.Base, info.Path, func() (*catalog.Resolved, []artifacts.DocumentInfo, error) { return res, docs, nil })
	var text strings.Builder
	anchor := ""
	flush := func() {
		if text.Len() > 0 {
			d.Parts = append(d.Parts, docPart{Anchor: anchor, HTML: renderMarkdown(md, text.String(), fix)})
			text.Reset()
		}
	}
	for p := 1; ; p++ {
		ans, err := s.engine.Docs(r.Context(), search.DocsRequest{Library: id, Path: path, Tokens: request.MaxTokens, Page: p})
		if err != nil {
			return nil, err
		}
		if ans.Build != res.Build {
			return nil, errMixedBuilds
		}
		for _, sec := range ans.Sections {
			if sec.Anchor != anchor {
				flush()
				anchor = sec.Anchor
			}
			text.WriteString(sec.Text)
			text.WriteString("\n\n")
		}
		if ans.Page >= ans.Pages {
			break
		}
		if p == maxDocumentPages {
			d.Truncated = true
			break
		}
	}
	flush()
	return d, nil
}

// resolveData is the resolve page's content.
type resolveData struct {
	Name, Query, Detail string
	Max                 int
	Asked               bool
	Error               string
	Note                string
	Matches             []server.Match
	// Raw is the text resolve-library-id sends the agent.
	Raw string
}

// resolvePage shows what resolve-library-id answers: the tool's own
// answer from the local engine (server.Resolve), text and matches.
func (s *Site) resolvePage(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	d := resolveData{Name: strings.TrimSpace(q.Get("name")), Query: q.Get("query"), Detail: cmp.Or(q.Get("detail"), "summary"), Max: libraries.DefaultMaxLibraries}
	// maxResults is read as resolve-library-id reads it (request.ParseWhole).
	if v := strings.TrimSpace(q.Get("max")); v != "" {
		n, err := request.ParseWhole("max", v)
		if err != nil {
			d.Error = fmt.Sprintf("results must be a whole number, not %q", request.Clip(v, 40))
		}
		d.Max = n
	}
	// A mistake in the form is 400, as on the query page; so are the
	// tool's own input errors (errorStatus: request.ErrInvalidRequest).
	status := http.StatusOK
	if d.Error != "" {
		status = http.StatusBadRequest
	}
	if d.Name != "" && d.Error == "" {
		text, out, err := server.Resolve(r.Context(), s.engine, server.ResolveInput{LibraryName: d.Name, Query: d.Query, MaxResults: d.Max, Detail: d.Detail})
		if err != nil {
			status, d.Error = errorStatus(err)
		} else {
			d.Asked, d.Raw, d.Note, d.Matches = true, text, out.Note, out.Matches
		}
	}
	s.render(w, r, status, "resolve", "Find a library", d)
}
