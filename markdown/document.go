// Package markdown turns one markdown or MDX file into a Document: its
// metadata and a flat, ordered list of sections that together form the
// document's heading tree.
//
// Splitting is a pure function of a path and the file's bytes: no I/O, no
// global state, safe for concurrent use. Sections partition the document's
// cleaned body: every byte of text outside front matter and dropped markup
// (MDX import/export lines, JSX tags, comments, shortcodes) lands in exactly
// one section, in order.
package markdown

// Document is one parsed markdown file.
type Document struct {
	// Path is the file's repository-relative, slash-separated path.
	Path string `json:"path"`
	// Title comes from front matter, else the first H1, else the file name.
	Title string `json:"title"`
	// Description comes from front matter (description, summary), if any.
	Description string `json:"description,omitempty"`
	// Tags come from front matter (tags, keywords), if any.
	Tags []string `json:"tags,omitempty"`
	// Order comes from front matter (sidebar_position, weight, order, nav_order) or 0.
	Order int `json:"order,omitempty"`
	// Sections are in document order. Sections[i].Parent indexes this slice.
	Sections []Section `json:"sections"`
	// Tokens is the sum of the sections' tokens.
	Tokens int `json:"tokens"`
}

// Section is a heading and the text that follows it up to the next heading
// of any level (its subsections are separate Sections pointing at it through
// Parent). Text before the first heading forms a section of its own at level
// 0 with an empty anchor, headed by the document title.
type Section struct {
	// Anchor is unique within the document and follows GitHub's slugs:
	// an explicit id ({#id} or MDX {/*id*/}) wins, repeats get -1, -2, ...
	// Chunks of one oversized section share their anchor (see Part).
	Anchor string `json:"anchor"`
	// Heading is the heading's text as written in the markdown, without the
	// leading #s or setext underline; empty for the level-0 section.
	Heading string `json:"heading"`
	// Title is the heading as plain text: inline markup, explicit ids and
	// MDX comments removed. For the level-0 section it is the document title.
	Title string `json:"title"`
	// Level is 1-6 for headings, 0 for text before the first heading.
	Level int `json:"level"`
	// HeadingPath is the document title followed by the titles of the
	// enclosing headings and this one (an H1 equal to the title is not repeated).
	HeadingPath []string `json:"heading_path"`
	// Parent is the index in Document.Sections of the nearest enclosing
	// section of a lower level, or -1.
	Parent int `json:"parent"`
	// Line is the 1-based line of the heading (or of the section's first
	// line) in the original file, front matter included.
	Line int `json:"line"`
	// Part and Parts number the chunks of a section that was split because
	// it was larger than Options.MaxSectionTokens: Part is 0-based and
	// Parts is 1 for a section that was not split.
	Part  int `json:"part"`
	Parts int `json:"parts"`
	// Text is the section's cleaned markdown, heading line included, trimmed.
	// Chunks after the first repeat the heading line so each reads alone.
	Text string `json:"text"`
	// Prose is the plain text of everything but fenced code: what a reader
	// reads, for full-text indexing.
	Prose string `json:"prose"`
	// Code holds the section's fenced and indented code blocks in order.
	Code []CodeBlock `json:"code,omitempty"`
	// InlineCode holds the contents of inline code spans, for identifier search.
	InlineCode []string `json:"inline_code,omitempty"`
	// Links are the section's links in prose, in order: what other pages
	// call the sections they point at (see package links).
	Links []Link `json:"links,omitempty"`
	// InnerAnchors are the ids, other than Anchor, that the published
	// page gives places inside the section (an AsciiDoc inline anchor, a
	// block's id, a discrete heading's), in order: a link to one of them
	// points into this section. Split leaves it empty; readers of formats
	// that have such ids set it, on a section's first chunk only.
	InnerAnchors []string `json:"inner_anchors,omitempty"`
	// Source is the repository path of the file the section's heading is
	// written in when an include brought it into the document (an
	// AsciiDoc partial, an rst include, a markdown site generator's
	// include or MDX partial), "" when it is the document's own: the file
	// to read or edit for the section. Line stays a line of the document.
	// Split leaves it empty (markdown includes are expanded before it);
	// the AsciiDoc and rst readers and, for markdown includes, package
	// mdinclude's Result.FixLines set it, on every chunk.
	Source string `json:"source,omitempty"`
	// Within is set on a section a reader made from an entry inside a
	// section of its source rather than from a heading: a Sphinx object
	// description (a function, a class, a configuration value), which the
	// published page shows as a part of the section that holds it, not as
	// a section of its own. It is the Heading of that section (the nearest
	// enclosing one that is not an entry), so that a question naming that
	// section counts the entry as one of its chunks; "" for a section of
	// the source, and for an entry before the document's first heading.
	// Split leaves it empty; the rst reader sets it, on every chunk.
	Within string `json:"within,omitempty"`
	// Tokens is tokens.Count(Text).
	Tokens int `json:"tokens"`
}

// Link is a link in a section's prose.
type Link struct {
	// Text is the link's text as plain text.
	Text string `json:"text"`
	// Target is the destination as written, with its backslash escapes
	// and character references resolved: a URL, a path relative to the
	// document or the site's root, "#anchor", or a mix.
	Target string `json:"target"`
}

// CodeBlock is one code block of a section.
type CodeBlock struct {
	// Lang is the fence's info-string language, lower-cased, or "".
	Lang string `json:"lang,omitempty"`
	Code string `json:"code"`
}

// Options tunes Split. The zero value is not useful; start from DefaultOptions.
type Options struct {
	// MaxSectionTokens is the size above which a section is split into
	// chunks at block boundaries (never inside a code fence).
	MaxSectionTokens int
}

// DefaultOptions returns the options the build uses unless told otherwise.
func DefaultOptions() Options {
	return Options{MaxSectionTokens: 1200}
}
