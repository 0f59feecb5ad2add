package search

import (
	"path"
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
