package mdinclude

import (
	"regexp"
	"slices"
	"strings"
)

var (
	// mdxImport is an MDX import of a markdown file as a component, the
	// way Docusaurus pages use partials: import Name from './_name.mdx'.
	mdxImport = regexp.MustCompile(`^import\s+([A-Za-z_$][\w$]*)\s+from\s+['"]([^'"]+\.mdx?)['"]\s*;?\s*$`)
	// mdxImportMarker finds a page that may hold one.
	mdxImportMarker = regexp.MustCompile(`(?m)^import\s+[A-Za-z_$][\w$]*\s+from\s+['"][^'"]+\.mdx?['"]`)
	// mdxUse is a line that is one self-closing JSX element, <Name /> or
	// <Name prop="x" />.
	mdxUse = regexp.MustCompile(`^([ \t]*)<([A-Za-z_$][\w$]*)(?:\s[^<>]*?)?\s*/>\s*$`)
)

// docusaurusConfigs name the files that mark a Docusaurus site's root,
// which @site/ paths start from.
var docusaurusConfigs = []string{"docusaurus.config.js", "docusaurus.config.ts", "docusaurus.config.mjs", "docusaurus.config.cjs", "docusaurus.config.mts"}

// IsDocusaurusConfig reports whether a file name is a Docusaurus site's
// configuration, which marks the site's root (for @site/ paths here, and
// for discovery, which does not take the site's _ partials for pages).
func IsDocusaurusConfig(name string) bool {
	return slices.Contains(docusaurusConfigs, name)
}

// mdxImports returns the markdown files lines import as components, by
// the names they are imported as, from the lines outside code fences.
func mdxImports(lines []string) map[string]string {
	var imports map[string]string
	var f fence
	for _, l := range lines {
		if f.open(l) {
			continue
		}
		if m := mdxImport.FindStringSubmatch(l); m != nil {
			if imports == nil {
				imports = map[string]string{}
			}
			imports[m[1]] = m[2]
		}
	}
	return imports
}

// partial writes the markdown file a line using an imported component
// (<Name />) names, without its front matter and with its own directives
// expanded, each line indented as the element and written in the file it
// comes from; it reports false, writing nothing, when the line is no such
// use. A file that cannot be read leaves the line as written (the
// markdown reader drops the element).
func (e *expander) partial(out *writer, st *state, l string, depth int) bool {
	m := mdxUse.FindStringSubmatch(l)
	if m == nil {
		return false
	}
	target, ok := st.partials[m[2]]
	if !ok {
		return false
	}
	var candidates []string
	if rest, ok := strings.CutPrefix(target, "@site/"); ok {
		candidates = e.underRoot(st.file, rest, docusaurusConfigs...)
	} else {
		candidates = ownFolder(st.file, target)
	}
	p, text, err := e.read(st, candidates)
	if err != nil {
		e.drop("mdx", target, err.Error())
		return false
	}
	t := e.nested(st, p, strings.TrimSuffix(withoutFrontMatter(text), "\n"), depth)
	if !e.chargeIndent(t.text, m[1], true) {
		e.drop("mdx", target, errTooMuch.Error())
		return false
	}
	e.changed = true
	if t.text == "" {
		return true
	}
	out.piece(piece{text: indentLines(t.text, m[1], true), from: t.from}, st.file)
	return true
}
