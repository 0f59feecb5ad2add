package libraries

import (
	"path"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/codex7/codex7/artifacts"
)

// Documents at DetailFull. A library's documents do not all fit in an
// answer when it has hundreds, so the listing shows the main
// documentation first, breadth first, and the biggest folders for
// get-library-docs' path to list the rest. Translations come last: a
// folder whose files are mostly also in a bigger sibling (pages.fr/ beside
// pages/, docs/ar/ beside docs/en/) is a translation, whatever its name.

// listing is how a version's documents are listed, worked out once per
// version (see Index.listingOf) and then only read.
type listing struct {
	docs []artifacts.DocumentInfo
	// order is the documents' listing order without a question (see
	// documentOrder); rank is each document's position in it.
	order, rank []int
	// folders are the biggest folders, for when documents are left out.
	folders []*folder
	// cost is the estimated size of every document listed, in tokens.
	cost int
}

func newListing(docs []artifacts.DocumentInfo) *listing {
	root := folderTree(docs)
	l := &listing{docs: docs, order: documentOrder(docs, root), rank: make([]int, len(docs)), folders: biggestFolders(root, MaxFoldersPerLibrary)}
	for k, i := range l.order {
		l.rank[i] = k
	}
	for _, d := range docs {
		l.cost += documentCost(d.Path, truncateRunes(d.Title, MaxTitleRunes))
	}
	return l
}

// orderFor returns the listing order for a question: the documents it
// names best first (see docQuestion.score), then the others in l.order.
func (l *listing) orderFor(q *docQuestion) []int {
	if q == nil || len(q.terms) == 0 {
		return l.order
	}
	type hit struct{ doc, score int }
	var hits []hit
	for i, d := range l.docs {
		if s := q.score(d); s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	if len(hits) == 0 {
		return l.order
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].score != hits[b].score {
			return hits[a].score > hits[b].score
		}
		return l.rank[hits[a].doc] < l.rank[hits[b].doc]
	})
	out := make([]int, 0, len(l.order))
	named := make([]bool, len(l.docs))
	for _, h := range hits {
		out = append(out, h.doc)
		named[h.doc] = true
	}
	for _, i := range l.order {
		if !named[i] {
			out = append(out, i)
		}
	}
	return out
}

// addDocuments lists l's documents while they fit budget and
// MaxDocumentsPerLibrary. When they do not all fit, the biggest folders
// are listed first, then as many documents as fit the rest. It returns
// the budget left.
func addDocuments(info *Info, l *listing, q *docQuestion, budget int) int {
	info.Docs = []DocumentRef{}
	if len(l.docs) > MaxDocumentsPerLibrary || l.cost > budget {
		for _, f := range l.folders {
			if cost := folderCost(f.path); len(info.Folders) < MaxFoldersPerLibrary && cost <= budget {
				budget -= cost
				info.Folders = append(info.Folders, FolderInfo{Path: f.path, Documents: f.count})
			} else {
				info.FoldersLeftOut++
			}
		}
	}
	for _, i := range l.orderFor(q) {
		if len(info.Docs) == MaxDocumentsPerLibrary || budget < documentCost("", "") {
			break
		}
		d := l.docs[i]
		title := truncateRunes(d.Title, MaxTitleRunes)
		if cost := documentCost(d.Path, title); cost <= budget {
			budget -= cost
			info.Docs = append(info.Docs, DocumentRef{Path: d.Path, Title: title})
		}
	}
	info.DocsLeftOut = len(l.docs) - len(info.Docs)
	return budget
}

// folder is a node of the folder tree of a version's documents.
type folder struct {
	path  string // slash-separated, "" for the root
	depth int    // 0 for the root
	count int    // documents under it, at any depth
	files []int  // indexes of the documents directly in it, in path order
	subs  []*folder
	// translation marks a folder whose files mostly are also in a bigger
	// sibling, and everything under such a folder.
	translation bool
}

// folderTree builds the folder tree of docs and marks translations. It
// walks the documents in path order, where everything under a folder is
// contiguous, keeping the chain of open folders: no lookups, and one
// allocation per folder.
func folderTree(docs []artifacts.DocumentInfo) *folder {
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	if !slices.IsSortedFunc(docs, func(a, b artifacts.DocumentInfo) int { return strings.Compare(a.Path, b.Path) }) {
		sort.Slice(order, func(i, j int) bool { return docs[order[i]].Path < docs[order[j]].Path })
	}
	root := &folder{}
	open := []*folder{root} // open[k] is at depth k
	for _, i := range order {
		p := docs[i].Path
		dir := ""
		if slash := strings.LastIndexByte(p, '/'); slash >= 0 {
			dir = p[:slash]
		}
		// Close the open folders that are not dir or above it.
		for len(open) > 1 {
			top := open[len(open)-1].path
			if dir == top || strings.HasPrefix(dir, top+"/") {
				break
			}
			open = open[:len(open)-1]
		}
		// Open the folders from there down to dir.
		for f := open[len(open)-1]; len(f.path) < len(dir); f = open[len(open)-1] {
			rest := dir
			if f.path != "" {
				rest = dir[len(f.path)+1:]
			}
			end := len(dir)
			if k := strings.IndexByte(rest, '/'); k >= 0 {
				end = len(dir) - len(rest) + k
			}
			sub := &folder{path: dir[:end], depth: f.depth + 1}
			f.subs = append(f.subs, sub)
			open = append(open, sub)
		}
		for _, f := range open {
			f.count++
		}
		last := open[len(open)-1]
		last.files = append(last.files, i)
	}
	markTranslations(root, docs)
	return root
}

// markTranslations marks, under f, the folders whose documents are at
// least half found, by path relative to the folder, in their biggest
// sibling (docs/fr/ beside docs/en/) or in the rest of their parent
// (docs/fr/ beside docs/guide/).
func markTranslations(f *folder, docs []artifacts.DocumentInfo) {
	if len(f.subs) >= 2 || len(f.subs) == 1 && len(f.files) > 0 {
		bySize(f.subs)
		main := f.subs[0]
		have := map[string]bool{}
		for _, i := range f.all(nil) {
			have[relativeTo(docs[i].Path, f.path)] = true
		}
		for _, i := range main.all(nil) {
			have[relativeTo(docs[i].Path, main.path)] = true
		}
		for _, s := range f.subs[1:] {
			shared := 0
			for _, i := range s.all(nil) {
				if have[relativeTo(docs[i].Path, s.path)] {
					shared++
				}
			}
			if s.count >= 2 && shared*2 >= s.count {
				s.markAll()
			}
		}
	}
	for _, s := range f.subs {
		if !s.translation {
			markTranslations(s, docs)
		}
	}
}

// relativeTo returns p relative to the folder dir ("" for the root).
func relativeTo(p, dir string) string {
	if dir == "" {
		return p
	}
	return p[len(dir)+1:]
}

// all appends the indexes of every document under f to out.
func (f *folder) all(out []int) []int {
	out = append(out, f.files...)
	for _, s := range f.subs {
		out = s.all(out)
	}
	return out
}

func (f *folder) markAll() {
	f.translation = true
	for _, s := range f.subs {
		s.markAll()
	}
}

// bySize sorts folders biggest first, then by path.
func bySize(fs []*folder) {
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].count != fs[j].count {
			return fs[i].count > fs[j].count
		}
		return fs[i].path < fs[j].path
	})
}

// documentOrder returns the indexes of docs in the order they are listed
// without a question: translations last; then breadth first (shallow
// documents before deep ones), documents of bigger folders before those of
// smaller ones at the same depth, names before symbols ("tar.md" before
// "!.md"), and by path.
func documentOrder(docs []artifacts.DocumentInfo, root *folder) []int {
	type entry struct {
		doc, depth, folderSize int
		translation, symbol    bool
	}
	entries := make([]entry, 0, len(docs))
	var walk func(f *folder)
	walk = func(f *folder) {
		for _, i := range f.files {
			r, _ := utf8.DecodeRuneInString(path.Base(docs[i].Path))
			entries = append(entries, entry{doc: i, depth: f.depth, folderSize: f.count, translation: f.translation,
				symbol: !unicode.IsLetter(r) && !unicode.IsDigit(r)})
		}
		for _, s := range f.subs {
			walk(s)
		}
	}
	walk(root)
	sort.Slice(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		switch {
		case a.translation != b.translation:
			return !a.translation
		case a.depth != b.depth:
			return a.depth < b.depth
		case a.folderSize != b.folderSize:
			return a.folderSize > b.folderSize
		case a.symbol != b.symbol:
			return !a.symbol
		}
		return docs[a.doc].Path < docs[b.doc].Path
	})
	order := make([]int, len(entries))
	for k, e := range entries {
		order[k] = e.doc
	}
	return order
}

// biggestFolders picks folders that show how root's documents are spread,
// for at most limit to be listed: starting from root's subfolders, it
// expands the biggest folder that has subfolders, adding them, as long as
// the main (not translated) folders stay within limit; when only some of
// its subfolders fit, the biggest are added and expanding stops; an expanded folder
// stays listed if it holds documents of its own. Main folders come first,
// biggest first, then translations, biggest first.
func biggestFolders(root *folder, limit int) []*folder {
	var main, translated []*folder
	expanded := map[*folder]bool{}
	add := func(fs []*folder) {
		for _, s := range fs {
			if s.translation {
				translated = append(translated, s)
			} else {
				main = append(main, s)
			}
		}
	}
	add(root.subs)
	for {
		bySize(main)
		i := -1
		for k, f := range main {
			if len(f.subs) > 0 && !expanded[f] {
				i = k
				break
			}
		}
		if i < 0 {
			break
		}
		f := main[i]
		subs := append([]*folder(nil), f.subs...)
		bySize(subs)
		expanded[f] = true
		own := 0 // f stays listed when it holds documents of its own
		if len(f.files) > 0 {
			own = 1
		}
		if len(main)-1+own+len(subs) <= limit {
			if own == 0 {
				main = append(main[:i:i], main[i+1:]...)
			}
			add(subs)
			continue
		}
		// Only some subfolders fit: the biggest, beside f, and no more
		// expanding.
		if room := limit - len(main); room > 0 {
			add(subs[:min(room, len(subs))])
		}
		break
	}
	bySize(main)
	bySize(translated)
	return append(main, translated...)
}

// docQuestion is the user's question as documents are matched against it.
type docQuestion struct {
	terms   []string // stemmed words, without stop words
	phrases []string // compact forms of its whitespace-separated words ("useeffect" for "useEffect")
	probes  []string // substrings of the terms, to skip documents cheaply
}

func newDocQuestion(query string) *docQuestion {
	q := &docQuestion{terms: dedupeTerms(textTerms(query))}
	if len(q.terms) > maxQuestionWords {
		q.terms = q.terms[:maxQuestionWords]
	}
	for _, t := range q.terms {
		p := t
		if len(p) > 3 {
			p = p[:len(p)-1] // "library" in "libraries"
		}
		q.probes = append(q.probes, p)
	}
	for _, f := range strings.Fields(query) {
		if c := compact(f); len(c) >= 3 && !stopWords[c] {
			q.phrases = appendNew(q.phrases, c)
		}
	}
	return q
}

// score says how well d answers the question: two points per question
// word in its title or file name, one per word only in its folders, and
// three more when its title or file name is a word of the question as
// written ("useEffect"). Documents without any question word as a
// substring score 0 without being split into words: on a big library,
// most have none.
func (q *docQuestion) score(d artifacts.DocumentInfo) int {
	dir, file := path.Split(d.Path)
	file = strings.TrimSuffix(file, path.Ext(file))
	title, p := strings.ToLower(d.Title), strings.ToLower(d.Path) // no copies when already lower case
	if !slices.ContainsFunc(q.probes, func(s string) bool { return strings.Contains(p, s) || strings.Contains(title, s) }) {
		return 0
	}
	named := textTerms(d.Title + " " + file)
	folders := textTerms(dir)
	score := 0
	for _, t := range q.terms {
		switch {
		case contains(named, t):
			score += 2
		case contains(folders, t):
			score++
		}
	}
	if contains(q.phrases, compact(d.Title)) || contains(q.phrases, compact(file)) {
		score += 3
	}
	return score
}
