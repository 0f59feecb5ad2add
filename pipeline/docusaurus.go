package pipeline

import (
	"path"
	"strings"

	"github.com/codex7/codex7/artifacts"
)

// dropPartials leaves out of paths the markdown partials of the Docusaurus
// sites whose configurations configs are: a file or folder under a site
// whose name starts with "_" is no page there (the docs plugin's default
// exclude), only text that pages import and show where they use it
// (package mdinclude reads it there). A site is the folder holding its
// configuration, or the whole repository when that folder is one of the
// root's (website/, whose docs are often ../docs, as Jest's and React
// Native's are). Elsewhere an underscore means nothing of the kind
// (Hugo's _index.md is a section's page).
func dropPartials(paths, configs []string) (kept []string, skipped []artifacts.Skipped) {
	if len(configs) == 0 {
		return paths, nil
	}
	roots := make([]string, len(configs))
	for i, c := range configs {
		roots[i] = path.Dir(c)
		if !strings.Contains(roots[i], "/") {
			roots[i] = "." // the root's, or one of its folders'
		}
	}
	for _, p := range paths {
		if partialUnder(p, roots) {
			skipped = append(skipped, artifacts.Skipped{Path: p, Reason: "a Docusaurus partial (no page of its own; read where a page imports it)"})
			continue
		}
		kept = append(kept, p)
	}
	return kept, skipped
}

// partialUnder reports whether p, a markdown file, lies in one of roots
// with a name below it starting with "_".
func partialUnder(p string, roots []string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".mdx":
	default:
		return false
	}
	for _, r := range roots {
		rel := p
		if r != "." {
			var ok bool
			if rel, ok = strings.CutPrefix(p, r+"/"); !ok {
				continue
			}
		}
		for _, part := range strings.Split(rel, "/") {
			if strings.HasPrefix(part, "_") {
				return true
			}
		}
	}
	return false
}
