// Package topics derives a library version's topic tree from its documents:
// categories from the documentation's own folder structure, topics from
// sub-folders, document titles and headings that recur, merged by slug and
// capped so an agent can read the whole tree at once. Every section is
// tagged with its category and the topics that cover it.
//
// Generation is deterministic and needs no model: the same documents and
// overrides always give the same tree and tags.
package topics

// Tree is a library version's topics, as written to topics.json.
type Tree struct {
	Categories []Category `json:"categories"`
}

// Category is a top-level grouping, usually a top folder of the docs.
type Category struct {
	Slug     string  `json:"slug"`
	Name     string  `json:"name"`
	Sections int     `json:"sections"`
	Tokens   int     `json:"tokens"`
	Topics   []Topic `json:"topics"`
}

// Topic is something an agent can ask for by slug.
type Topic struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
	// Source says where the topic came from: folder, document, heading or config.
	Source   string `json:"source"`
	Sections int    `json:"sections"`
	Tokens   int    `json:"tokens"`
}

// Topic sources.
const (
	SourceFolder   = "folder"
	SourceDocument = "document"
	SourceHeading  = "heading"
	SourceConfig   = "config"
)

// Names returns every category and topic name in the tree, in tree order:
// what ranks a library by its topics (catalog.json carries them for each
// library's latest version, so that a server need not read the tree).
// A nil tree has none.
func (t *Tree) Names() []string {
	return t.collect(func(slug, name string) string { return name })
}

// Slugs returns every category and topic slug in the tree, in tree order.
func (t *Tree) Slugs() []string {
	return t.collect(func(slug, name string) string { return slug })
}

// collect returns pick of each category and topic, in tree order.
func (t *Tree) collect(pick func(slug, name string) string) []string {
	if t == nil {
		return nil
	}
	var out []string
	for _, c := range t.Categories {
		out = append(out, pick(c.Slug, c.Name))
		for _, tp := range c.Topics {
			out = append(out, pick(tp.Slug, tp.Name))
		}
	}
	return out
}
