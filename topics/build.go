package topics

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/markdown"
)

// Options caps and overrides the generated tree.
type Options struct {
	// MaxCategories caps the categories; the smallest merge into "other".
	MaxCategories int
	// MaxTopics caps the generated topics (overrides come on top).
	MaxTopics int
	// Overrides come from the library's config.
	Overrides []config.TopicOverride
	// Folders are categories a site's own navigation declares (an
	// Antora component's modules), in its order; see Folder.
	Folders []Folder
}

// Folder names the category of the documents under a folder, as a
// documentation site's navigation does: for them it replaces the rule
// that the first folder under the common root is the category, their
// sub-folder topics are taken from below Path, and the categories keep
// the order of Folders, ahead of the others.
type Folder struct {
	// Path is a slash-separated folder of document paths.
	Path string
	// Name is the category's display name, its slug derived from it; ""
	// puts the documents in the overview category.
	Name string
}

// folderOf returns the index in folders of the longest one holding p, or -1.
func folderOf(folders []Folder, p string) int {
	best := -1
	for i, f := range folders {
		if strings.HasPrefix(p, f.Path+"/") && (best < 0 || len(f.Path) > len(folders[best].Path)) {
			best = i
		}
	}
	return best
}

// DefaultOptions keeps a tree small enough for an agent to read whole.
func DefaultOptions() Options { return Options{MaxCategories: 10, MaxTopics: 60} }

// Tags holds, for each document and section (by index), the sorted slugs
// the section is tagged with: its category first-class among them.
type Tags [][][]string

// otherCategory collects the categories past MaxCategories.
const otherCategory = "other"

// rootCategory holds the documents at the top of the docs tree.
const rootCategory = "overview"

// overrideCategory lists the config's topics that name no category.
const overrideCategory = "guides"

// genericHeadings are headings too common to name a topic.
var genericHeadings = map[string]bool{
	"overview": true, "introduction": true, "intro": true, "example": true, "examples": true,
	"usage": true, "summary": true, "notes": true, "note": true, "see-also": true, "related": true,
	"references": true, "reference": true, "next-steps": true, "whats-next": true, "what-s-next": true,
	"conclusion": true, "recap": true, "learn-more": true, "more": true, "details": true,
	"description": true, "parameters": true, "returns": true, "caveats": true, "troubleshooting": false,
	"table-of-contents": true, "contents": true, "todo": true, "faq": false, "info": true, "tip": true,
	// API reference scaffolding: every entry has them, none is a subject.
	"type": true, "types": true, "default": true, "options": true, "props": true, "properties": true,
	"arguments": true, "argument": true, "return-value": true, "return-type": true, "syntax": true,
	"signature": true, "example-usage": true, "usage-example": true, "methods": true, "events": true,
	"slots": true, "resolution": true, "warning": true, "important": true, "caution": true,
}

// versionLike matches slugs such as 3x, v2, 4-x, 1-2-0: version folders, not topics.
var versionLike = regexp.MustCompile(`^v?\d+(-\d+)*(-?x)?$`)

type candidate struct {
	slug, name, source, category string
	order                        int
	tokens                       int
	// A candidate covers every section of the documents in docs, and every
	// section under a level 2-3 heading whose slug is heading.
	docs    map[int]bool
	heading string
	// custom, for config overrides, replaces the two rules above.
	custom func(doc, sec int) bool
	// weak candidates only fill categories left without topics.
	weak bool
}

func (c *candidate) covers(doc, sec int, headingSlugs [][][]string) bool {
	if c.custom != nil {
		return c.custom(doc, sec)
	}
	return c.docs[doc] || (c.heading != "" && slices.Contains(headingSlugs[doc][sec], c.heading))
}

// Build derives the topic tree of docs (in path order) and tags every
// section. It fails only on a config override it cannot honour: a path
// glob that cannot be parsed, or a topic whose slug is a category's.
func Build(docs []*markdown.Document, opts Options) (*Tree, Tags, error) {
	if opts.MaxCategories <= 0 {
		opts.MaxCategories = DefaultOptions().MaxCategories
	}
	if opts.MaxTopics <= 0 {
		opts.MaxTopics = DefaultOptions().MaxTopics
	}
	rel, locale := relativePaths(docs)
	primary := primaryLocale(locale)

	// Categories: the first folder under the common root, ordering prefixes
	// stripped; documents at the root form "overview".
	catOf := make([]string, len(docs))
	catName := map[string]string{}
	catKey := map[string]string{} // sort key: the folder as written
	catTokens := map[string]int{}
	for i, d := range docs {
		dirs := strings.Split(path.Dir(rel[i]), "/")
		slug, name, key := rootCategory, "Overview", ""
		if dirs[0] != "." {
			slug, name, key = Slug(stripOrder(dirs[0])), humanize(stripOrder(dirs[0])), dirs[0]
		}
		if f := folderOf(opts.Folders, d.Path); f >= 0 {
			// Declared categories sort first, in their order; "\x00"
			// sorts before any folder name.
			slug, name, key = Slug(opts.Folders[f].Name), opts.Folders[f].Name, fmt.Sprintf("\x00%06d", f)
			if slug == "" {
				slug, name = rootCategory, "Overview"
			}
			rel[i] = slug + "/" + strings.TrimPrefix(d.Path, opts.Folders[f].Path+"/")
		}
		if slug == "" {
			slug, name = rootCategory, "Overview"
		}
		catOf[i] = slug
		if _, ok := catName[slug]; !ok {
			catName[slug], catKey[slug] = name, key
		} else if declared := strings.HasPrefix(key, "\x00"); declared && (key < catKey[slug] || !strings.HasPrefix(catKey[slug], "\x00")) {
			// A declared category takes its declared place and name.
			catName[slug], catKey[slug] = name, key
		}
		catTokens[slug] += d.Tokens
	}
	// Categories holding under 1% of the sections (a folder with one index
	// page) say little: they join "other" when there are enough categories.
	catSections := map[string]int{}
	total := 0
	for i, d := range docs {
		catSections[catOf[i]] += len(d.Sections)
		total += len(d.Sections)
	}
	if len(catName) > 4 {
		for i, c := range catOf {
			if c != rootCategory && catSections[c]*100 < total {
				catOf[i] = otherCategory
				catName[otherCategory], catKey[otherCategory] = "Other", "\uffff"
			}
		}
		for c := range catName {
			if c != otherCategory && c != rootCategory && catSections[c]*100 < total {
				delete(catName, c)
			}
		}
	}
	cats := slices.Sorted(maps.Keys(catName))
	if len(cats) > opts.MaxCategories {
		sort.SliceStable(cats, func(i, j int) bool { return catTokens[cats[i]] > catTokens[cats[j]] })
		keep := map[string]bool{}
		for _, c := range cats[:opts.MaxCategories-1] {
			keep[c] = true
		}
		for i, c := range catOf {
			if !keep[c] {
				catOf[i] = otherCategory
			}
		}
		catName[otherCategory], catKey[otherCategory] = "Other", "\uffff"
		kept := []string{otherCategory}
		for _, c := range cats {
			if keep[c] && c != otherCategory {
				kept = append(kept, c)
			}
		}
		cats = kept
	}
	isCat := map[string]bool{}
	for _, c := range cats {
		isCat[c] = true
	}

	// Overrides come first: a category one names is a category like the
	// folders', so no generated topic may take its slug either, and a slug
	// names one entry of the tree (a filter by it cannot mean two).
	folderCat := maps.Clone(isCat)
	var overrides []*candidate
	for _, o := range opts.Overrides {
		c, err := overrideCandidate(o, docs)
		if err != nil {
			return nil, nil, err
		}
		overrides = append(overrides, c)
		if !isCat[c.category] {
			isCat[c.category] = true
			cats = append(cats, c.category)
			catName[c.category], catKey[c.category] = humanize(c.category), c.category
		}
	}
	for _, o := range overrides {
		if isCat[o.slug] {
			return nil, nil, fmt.Errorf("topic %q has the slug %q of the category %q, and a slug names one entry of the topic tree (agents filter by it): %s",
				o.name, o.slug, catName[o.slug], categoryClashFix(overrides, o.slug, folderCat[o.slug]))
		}
	}

	headingSlugs := sectionHeadingSlugs(docs)
	cands := candidates(docs, rel, locale, primary, catOf, headingSlugs, isCat)
	picked := pick(cands, cats, opts.MaxTopics)

	if len(overrides) > 0 {
		replaced := map[string]bool{}
		for _, o := range overrides {
			replaced[o.slug] = true
		}
		kept := picked[:0]
		for _, c := range picked {
			if !replaced[c.slug] {
				kept = append(kept, c)
			}
		}
		picked = append(kept, overrides...)
	}

	// Tag every section: its category, then every picked topic covering it
	// and, for a config topic, the category it is listed under, so that a
	// category holds (and a filter by its slug finds) the sections of every
	// topic it lists, also when no folder makes it (a config topic's
	// category may name none).
	tags := make(Tags, len(docs))
	type count struct{ sections, tokens int }
	catCount := map[string]*count{}
	topicCount := map[*candidate]*count{}
	topicCatTokens := map[*candidate]map[string]int{}
	for _, c := range picked {
		topicCount[c] = &count{}
		topicCatTokens[c] = map[string]int{}
	}
	for _, c := range cats {
		catCount[c] = &count{}
	}
	for i, d := range docs {
		tags[i] = make([][]string, len(d.Sections))
		for j := range d.Sections {
			s := &d.Sections[j]
			set := []string{catOf[i]}
			for _, c := range picked {
				if c.covers(i, j, headingSlugs) {
					set = append(set, c.slug)
					if c.source == SourceConfig {
						set = append(set, c.category)
					}
					topicCount[c].sections++
					topicCount[c].tokens += s.Tokens
					topicCatTokens[c][catOf[i]] += s.Tokens + 1
				}
			}
			sort.Strings(set)
			set = slices.Compact(set)
			for _, tag := range set {
				if n := catCount[tag]; n != nil {
					n.sections++
					n.tokens += s.Tokens
				}
			}
			tags[i][j] = set
		}
	}

	// A generated topic is listed under the category holding most of what it
	// covers (merging by slug can move it from where it was first seen).
	for _, c := range picked {
		if c.source == SourceConfig {
			continue
		}
		best, bestTokens := c.category, -1
		for _, cat := range slices.Sorted(maps.Keys(topicCatTokens[c])) {
			if topicCatTokens[c][cat] > bestTokens {
				best, bestTokens = cat, topicCatTokens[c][cat]
			}
		}
		c.category = best
	}
	sort.SliceStable(cats, func(i, j int) bool {
		if catKey[cats[i]] != catKey[cats[j]] {
			return catKey[cats[i]] < catKey[cats[j]]
		}
		return cats[i] < cats[j]
	})
	tree := &Tree{Categories: []Category{}}
	for _, cat := range cats {
		c := Category{Slug: cat, Name: catName[cat], Sections: catCount[cat].sections, Tokens: catCount[cat].tokens, Topics: []Topic{}}
		for _, p := range picked {
			if p.category == cat && (topicCount[p].sections > 0 || p.source == SourceConfig) {
				c.Topics = append(c.Topics, Topic{Slug: p.slug, Name: p.name, Source: p.source, Sections: topicCount[p].sections, Tokens: topicCount[p].tokens})
			}
		}
		sort.SliceStable(c.Topics, func(i, j int) bool {
			if c.Topics[i].Tokens != c.Topics[j].Tokens {
				return c.Topics[i].Tokens > c.Topics[j].Tokens
			}
			return c.Topics[i].Slug < c.Topics[j].Slug
		})
		if c.Sections > 0 || len(c.Topics) > 0 {
			tree.Categories = append(tree.Categories, c)
		}
	}
	return tree, tags, nil
}

// candidates proposes topics from sub-folders, document titles and headings
// that recur in two or more documents, each with the tokens it would cover.
// Translations (documents whose locale differs but whose path without it is
// the same) share one document topic named from the primary locale, and
// only the primary locale's headings propose heading topics.
func candidates(docs []*markdown.Document, rel, locale []string, primary string, catOf []string, headingSlugs [][][]string, isCat map[string]bool) []*candidate {
	bySlug := map[string]*candidate{}
	var order int
	add := func(slug, name, source, category string, tokens int, docSet map[int]bool, heading string) {
		if len(slug) < 2 || isCat[slug] || len(slug) > 48 || isNumeric(slug) || versionLike.MatchString(slug) || isLocale(slug) {
			return
		}
		c, ok := bySlug[slug]
		if !ok {
			order++
			c = &candidate{slug: slug, name: name, source: source, category: category, order: order, docs: map[int]bool{}}
			bySlug[slug] = c
		}
		c.tokens += tokens
		for d := range docSet {
			c.docs[d] = true
		}
		if heading != "" {
			c.heading = heading
		}
	}

	// Sub-folders: the second folder level under the common root.
	folderDocs := map[string][]int{}
	var folders []string
	for i := range docs {
		dirs := strings.Split(path.Dir(rel[i]), "/")
		if len(dirs) < 2 {
			continue
		}
		key := dirs[0] + "/" + dirs[1]
		if _, ok := folderDocs[key]; !ok {
			folders = append(folders, key)
		}
		folderDocs[key] = append(folderDocs[key], i)
	}
	for _, f := range folders {
		members := map[int]bool{}
		tokens := 0
		for _, i := range folderDocs[f] {
			members[i] = true
			tokens += docs[i].Tokens
		}
		seg := stripOrder(path.Base(f))
		add(Slug(seg), humanize(seg), SourceFolder, catOf[folderDocs[f][0]], tokens, members, "")
	}

	// Document titles (merged by slug across documents), translations
	// grouped by their path and named after the primary locale's title.
	byPath := map[string][]int{}
	var pathOrder []string
	for i := range docs {
		if _, ok := byPath[rel[i]]; !ok {
			pathOrder = append(pathOrder, rel[i])
		}
		byPath[rel[i]] = append(byPath[rel[i]], i)
	}
	for _, p := range pathOrder {
		group := byPath[p]
		named, tokens, members := group[0], 0, map[int]bool{}
		for _, i := range group {
			if locale[i] == primary {
				named = i
			}
			tokens += docs[i].Tokens
			members[i] = true
		}
		add(Slug(docs[named].Title), docs[named].Title, SourceDocument, catOf[named], tokens, members, "")
	}

	// Headings (H2/H3) found in at least two documents.
	type hstat struct {
		name   string
		docs   map[int]bool
		tokens int
		cat    map[string]int
	}
	hs := map[string]*hstat{}
	var hOrder []string
	for i, d := range docs {
		if locale[i] != primary {
			continue
		}
		for j := range d.Sections {
			s := &d.Sections[j]
			if s.Level < 2 || s.Level > 3 || s.Part > 0 {
				continue
			}
			slug := Slug(s.Title)
			if slug == "" || genericHeadings[slug] {
				continue
			}
			h := hs[slug]
			if h == nil {
				h = &hstat{name: s.Title, docs: map[int]bool{}, cat: map[string]int{}}
				hs[slug] = h
				hOrder = append(hOrder, slug)
			}
			h.docs[i] = true
			h.cat[catOf[i]] += s.Tokens
		}
	}
	var weak []*candidate
	for _, slug := range hOrder {
		h := hs[slug]
		if len(h.docs) < 2 {
			// One document's heading: only good enough to give a category
			// that has no other topic something an agent can pick.
			if s := Slug(h.name); len(s) >= 3 && !isCat[s] && bySlug[s] == nil && !versionLike.MatchString(s) {
				best := ""
				for c := range h.cat {
					best = c
				}
				tokens := h.cat[best]
				weak = append(weak, &candidate{slug: s, name: h.name, source: SourceHeading, category: best, tokens: tokens, heading: s, docs: map[int]bool{}, weak: true})
			}
			continue
		}
		best, bestTokens := "", -1
		for _, c := range slices.Sorted(maps.Keys(h.cat)) {
			h.tokens += h.cat[c]
			if h.cat[c] > bestTokens {
				best, bestTokens = c, h.cat[c]
			}
		}
		add(slug, h.name, SourceHeading, best, h.tokens, nil, slug)
	}

	out := make([]*candidate, 0, len(bySlug)+len(weak))
	for _, c := range bySlug {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].order < out[j].order })
	return append(out, weak...)
}

// pick chooses at most max candidates: first the three largest of every
// category so small categories are not starved, then the largest overall.
func pick(cands []*candidate, cats []string, max int) []*candidate {
	bySize := append([]*candidate(nil), cands...)
	sort.SliceStable(bySize, func(i, j int) bool {
		if bySize[i].tokens != bySize[j].tokens {
			return bySize[i].tokens > bySize[j].tokens
		}
		return bySize[i].slug < bySize[j].slug
	})
	chosen := map[*candidate]bool{}
	var out []*candidate
	perCat := map[string]int{}
	for _, c := range bySize {
		if len(out) < max && perCat[c.category] < 3 && !c.weak {
			chosen[c] = true
			out = append(out, c)
			perCat[c.category]++
		}
	}
	for _, c := range bySize {
		if len(out) >= max {
			break
		}
		if !chosen[c] && !c.weak {
			chosen[c] = true
			out = append(out, c)
		}
	}
	for _, c := range bySize {
		if c.weak && perCat[c.category] < 2 {
			chosen[c] = true
			out = append(out, c)
			perCat[c.category]++
		}
	}
	return out
}

// categoryClashFix says how to fix a config whose topic has the slug of
// the category cat: rename the topic, or, when only topics name cat (it
// is no folder's category), set another category for them. A folder's
// category already selects its sections by that slug.
func categoryClashFix(overrides []*candidate, cat string, folderCat bool) string {
	if folderCat {
		return "rename the topic in the config's topics: (the category already selects its own sections by that slug)"
	}
	var naming []string
	for _, o := range overrides {
		if o.category == cat {
			naming = append(naming, fmt.Sprintf("%q", o.name))
		}
	}
	return fmt.Sprintf("rename the topic in the config's topics:, or set another category: for %s", strings.Join(naming, ", "))
}

func overrideCandidate(o config.TopicOverride, docs []*markdown.Document) (*candidate, error) {
	for _, g := range o.Paths {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("topic %q: bad path glob %q", o.Name, g)
		}
	}
	cat := Slug(o.Category)
	if cat == "" {
		cat = overrideCategory
	}
	var words []string
	for _, h := range o.Headings {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			words = append(words, h)
		}
	}
	pathMatch := make([]bool, len(docs))
	for i, d := range docs {
		for _, g := range o.Paths {
			if ok, _ := doublestar.Match(g, d.Path); ok {
				pathMatch[i] = true
				break
			}
		}
	}
	custom := func(d, s int) bool {
		if pathMatch[d] {
			return true
		}
		if len(words) == 0 {
			return false
		}
		hp := strings.ToLower(strings.Join(docs[d].Sections[s].HeadingPath, " / "))
		for _, w := range words {
			if strings.Contains(hp, w) {
				return true
			}
		}
		return false
	}
	return &candidate{slug: Slug(o.Name), name: o.Name, source: SourceConfig, category: cat, custom: custom}, nil
}

// sectionHeadingSlugs gives, for each section, the slugs of the headings
// (levels 2-3) on its heading path: itself and the sections enclosing it.
func sectionHeadingSlugs(docs []*markdown.Document) [][][]string {
	out := make([][][]string, len(docs))
	for i, d := range docs {
		out[i] = make([][]string, len(d.Sections))
		for j := range d.Sections {
			s := &d.Sections[j]
			var own []string
			if s.Level >= 2 && s.Level <= 3 {
				own = []string{Slug(s.Title)}
			}
			if s.Parent >= 0 && s.Parent < j {
				out[i][j] = append(append([]string(nil), out[i][s.Parent]...), own...)
			} else {
				out[i][j] = own
			}
		}
	}
	return out
}

// relativePaths strips the longest folder prefix all documents share, then
// looks through a top folder that holds every document not at the root and
// through a level of language folders.
func relativePaths(docs []*markdown.Document) (rel, locale []string) {
	out := make([]string, len(docs))
	locale = make([]string, len(docs))
	if len(docs) == 0 {
		return out, locale
	}
	prefix := strings.Split(path.Dir(docs[0].Path), "/")
	if prefix[0] == "." {
		prefix = nil
	}
	for _, d := range docs[1:] {
		dirs := strings.Split(path.Dir(d.Path), "/")
		n := 0
		for n < len(prefix) && n < len(dirs) && prefix[n] == dirs[n] {
			n++
		}
		prefix = prefix[:n]
	}
	cut := len(strings.Join(prefix, "/"))
	for i, d := range docs {
		p := d.Path
		if cut > 0 {
			p = p[cut+1:]
		}
		out[i] = p
	}
	// A lone top folder beside a few root files (README.md + docs/**) says
	// nothing, and neither does a level of language folders (en/, fr/,
	// pages.ko/): look through them, repeatedly, so categories come from the
	// structure inside and translations of a page share its category.
	for {
		top := map[string]bool{}
		for _, p := range out {
			if dir, _, ok := strings.Cut(p, "/"); ok {
				top[dir] = true
			}
		}
		languages := len(top) > 1 && localeLevel(top)
		if len(top) == 0 || (len(top) > 1 && !languages) {
			break
		}
		for i, p := range out {
			if dir, rest, ok := strings.Cut(p, "/"); ok && top[dir] {
				out[i] = rest
				if languages {
					locale[i] = dir
				}
			}
		}
	}
	// Translations named by file (Hugo and gitea: install.zh-cn.md).
	for i, p := range out {
		ext := path.Ext(p)
		stem := strings.TrimSuffix(p, ext)
		if dot := strings.LastIndexByte(stem, '.'); dot > strings.LastIndexByte(stem, '/') && isLocale(stem[dot+1:]) {
			out[i], locale[i] = stem[:dot]+ext, stem[dot+1:]
		}
	}
	return out, locale
}

// primaryLocale picks the locale whose titles name shared topics: English
// when present (fastapi's docs/en/, though a root README has no locale
// and its emoji docs/em/ names no language), else the locale of the most
// documents, pages without one counting as one (Hugo's install.md beside
// install.zh-cn.md; tldr's unsuffixed "pages" beside "pages.fr"); "" when
// there are no translations.
func primaryLocale(locale []string) string {
	count := map[string]int{}
	for _, l := range locale {
		count[l]++
	}
	primary := ""
	for _, l := range slices.Sorted(maps.Keys(count)) {
		if isEnglish(l) {
			return l
		}
		if count[l] > count[primary] {
			primary = l
		}
	}
	return primary
}

// Slug normalizes a name to a topic slug, a topic's or category's id:
// lower case, runs of anything but letters and digits become one '-',
// trimmed. It is config.Slug, by which the config identifies override
// topics, and not markdown.Slug, which makes heading anchors by GitHub's
// rule; see config.Slug for why they differ.
func Slug(s string) string { return config.Slug(s) }

// stripOrder removes ordering prefixes such as "1.", "01-" and "2_" from a
// path segment, and a markdown extension.
func stripOrder(seg string) string {
	for _, ext := range []string{".mdx", ".md", ".markdown"} {
		seg = strings.TrimSuffix(seg, ext)
	}
	i := 0
	for i < len(seg) && seg[i] >= '0' && seg[i] <= '9' {
		i++
	}
	if i > 0 && i < len(seg)-1 && (seg[i] == '.' || seg[i] == '-' || seg[i] == '_') {
		return seg[i+1:]
	}
	return seg
}

// Humanize turns a folder name into a display name: "getting-started" →
// "Getting started", as categories and folder topics are named.
func Humanize(seg string) string { return humanize(stripOrder(seg)) }

// humanize turns a folder name into a display name: "getting-started" →
// "Getting started".
func humanize(seg string) string {
	s := strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(seg))
	if s == "" {
		return seg
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func isNumeric(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != '-' {
			return false
		}
	}
	return true
}
