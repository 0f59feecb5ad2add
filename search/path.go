package search

import (
	"cmp"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/codex7/codex7/artifacts"
)

// document returns the document at path in docs (sorted by path), or nil.
func document(docs []artifacts.DocumentInfo, path string) *artifacts.DocumentInfo {
	i := sort.Search(len(docs), func(i int) bool { return docs[i].Path >= path })
	if path != "." && i < len(docs) && docs[i].Path == path {
		return &docs[i]
	}
	return nil
}

// navOrder returns docs (sorted by path) in the order a folder lists
// them: the documents their site's navigation lists first, in its order,
// then the others by path. docs is not modified.
func navOrder(docs []artifacts.DocumentInfo) []artifacts.DocumentInfo {
	listed := false
	for i := range docs {
		if docs[i].Nav > 0 {
			listed = true
			break
		}
	}
	if !listed {
		return docs
	}
	out := slices.Clone(docs)
	slices.SortStableFunc(out, func(a, b artifacts.DocumentInfo) int {
		switch {
		case a.Nav > 0 && b.Nav > 0:
			return cmp.Compare(a.Nav, b.Nav)
		case a.Nav > 0:
			return -1
		case b.Nav > 0:
			return 1
		}
		return 0
	})
	return out
}

// closestPaths suggests up to three documents sharing the file name, or
// the path's last word.
func closestPaths(docs []artifacts.DocumentInfo, p string) []string {
	base := strings.ToLower(strings.TrimSuffix(path.Base(p), path.Ext(p)))
	var out []string
	for _, d := range docs {
		if strings.Contains(strings.ToLower(d.Path), base) {
			out = append(out, d.Path)
			if len(out) == 3 {
				break
			}
		}
	}
	return out
}
