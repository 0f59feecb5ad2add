package contextitems

import (
	"fmt"
	"strings"
)

// Markdown renders the items for an agent's context, as a hook prints
// them: a line naming the libraries found, then each item under its title
// with its provenance and excerpt. It is "" when there are no items, so
// that a hook adds nothing to the prompt.
func (r *Result) Markdown() string {
	if len(r.Items) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Documentation for this prompt\n\n")
	var libs []string
	for _, l := range r.Libraries {
		if l.Status == StatusOK {
			libs = append(libs, libraryLabel(l))
		}
	}
	fmt.Fprintf(&b, "Codex7 found %s in the prompt. The sections below are their current documentation, each with its source; prefer them to memory where they differ.\n", strings.Join(libs, ", "))
	for _, it := range r.Items {
		// One line, whatever the title holds (Context7's titles are its
		// own): a newline would end the heading and start the excerpt.
		fmt.Fprintf(&b, "\n## %s\n\n", strings.Join(strings.Fields(it.Title), " "))
		fmt.Fprintf(&b, "Source: %s\n\n", provenance(it))
		b.WriteString(strings.TrimSpace(withoutHeading(it.Excerpt)))
		b.WriteString("\n")
	}
	return b.String()
}

// libraryLabel names a library and where its documentation comes from:
// "Acme Widgets (/acme/widgets@main)", "React (/facebook/react, Context7)".
func libraryLabel(l Library) string {
	id := l.ID
	if l.Version != "" {
		id += "@" + l.Version
	}
	if l.Source == SourceRemote {
		id += ", Context7"
	}
	return fmt.Sprintf("%s (%s)", l.Name, id)
}

// provenance says where an item comes from, in one line.
func provenance(it Item) string {
	var parts []string
	if it.Source == SourceRemote {
		parts = append(parts, "Context7 `"+it.Library+"`")
	} else {
		parts = append(parts, "`"+it.Library+"@"+it.Version+"`")
		loc := it.Path
		if it.Anchor != "" {
			loc += "#" + it.Anchor
		}
		parts = append(parts, "`"+loc+"`")
		if it.Commit != "" {
			parts = append(parts, "commit "+it.Commit[:min(len(it.Commit), 12)])
		}
	}
	if it.URL != "" {
		parts = append(parts, "<"+it.URL+">")
	}
	return strings.Join(parts, " · ")
}

// withoutHeading drops an excerpt's heading when it starts with one (ATX
// "## Title" or setext "Title" over "-----"): the item's title says it.
// A fence's opening line over "---" (YAML front matter in a code block)
// is no setext heading: dropping it would leave the fence's closing line
// to open a fence that swallows the items after it.
func withoutHeading(md string) string {
	md = strings.TrimLeft(md, "\n")
	first, rest, _ := strings.Cut(md, "\n")
	if strings.HasPrefix(first, "#") {
		return rest
	}
	second, after, _ := strings.Cut(rest, "\n")
	if u := strings.TrimSpace(second); len(u) >= 2 && strings.TrimSpace(first) != "" && fenceOf(strings.TrimSpace(first)) == "" &&
		(strings.Trim(u, "-") == "" || strings.Trim(u, "=") == "") {
		return after
	}
	return md
}
