package web

import (
	"path/filepath"
	"sync"

	"github.com/codex7/codex7/artifacts"
)

// ManifestRepos returns an Options.Repo that reads a library version's
// repository URL from its manifest, in whichever of the artifact
// directories dirs holds it, as catalog names the version now. It keeps
// what it read per library, version and commit (a rebuilt version has a
// new commit), and is safe for concurrent use.
func ManifestRepos(dirs []string, catalog func() *artifacts.Catalog) func(library, version string) string {
	var mu sync.Mutex
	repos := map[string]string{}
	return func(library, version string) string {
		cat := catalog()
		if cat == nil {
			return ""
		}
		l := cat.Library(library)
		if l == nil {
			return ""
		}
		v := l.Version(version)
		if v == nil {
			return ""
		}
		key := l.ID + "@" + v.Version + "@" + v.Commit
		mu.Lock()
		defer mu.Unlock()
		if r, ok := repos[key]; ok {
			return r
		}
		repo := ""
		for _, dir := range dirs {
			if m, err := artifacts.ReadManifest(filepath.Join(dir, filepath.FromSlash(v.Path))); err == nil {
				repo = m.Repo
				break
			}
		}
		repos[key] = repo
		return repo
	}
}
