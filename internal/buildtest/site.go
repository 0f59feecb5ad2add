package buildtest

import (
	"fmt"
	"testing"

	"github.com/codex7/codex7/internal/gittest"
)

// Site is a library repository whose content changes between builds: its
// one document says which edition it is ("marker1", "marker2"…), so an
// answer tells which build it came from. Its config also builds
// /acme/other, an unrelated library that never changes.
type Site struct {
	t      *testing.T
	Repo   *gittest.Repo // /acme/site's repository
	Config string        // codex7.yaml
	Out    string        // the artifact directory built into
}

// NewSite commits edition 1 of /acme/site, to be built into out.
func NewSite(t *testing.T, out string) *Site {
	t.Helper()
	s := &Site{t: t, Repo: gittest.New(t, "main"), Out: out}
	s.Edition(1)
	other := gittest.New(t, "main")
	other.Write(map[string]string{"docs/other.md": "# Other\n\nAn unrelated page about gardening and tomatoes.\n"})
	other.Commit("other")
	s.Config = "libraries:\n  - id: /acme/site\n    repo: " + s.Repo.Dir + "\n  - id: /acme/other\n    repo: " + other.Dir + "\n"
	return s
}

// Edition commits edition n of the document, docs/guide.md, whose text
// holds "marker" followed by n.
func (s *Site) Edition(n int) {
	s.Repo.Write(map[string]string{"docs/guide.md": fmt.Sprintf("# Guide\n\n## Edition\n\nThis is edition marker%d of the guide about widgets and polling.\n", n)})
	s.Repo.Commit(fmt.Sprintf("edition %d", n))
}

// Build publishes the repository's current commit into Out.
func (s *Site) Build() {
	s.t.Helper()
	Build(s.t, s.Out, s.Config)
}
