package pipeline

import (
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strings"

	"github.com/codex7/codex7/asciidoc"
	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/topics"
)

// Navigation is what documentation sites' own navigation says of a
// version's documents: today the Antora components' nav files. The zero
// Navigation says nothing.
type Navigation struct {
	// Order is each listed document's place in the navigation, from 1.
	Order map[string]int
	// Folders are the components' modules as topic categories, in the
	// navigation's order.
	Folders []topics.Folder
}

// readNavigation reads the navigation of the Antora components the
// AsciiDoc sources belong to (a page is <component>/modules/<module>/
// pages/…, the component's antora.yml beside its modules folder), in
// the order of their folders. A descriptor that cannot be read is logged
// and its component left without navigation: the pages are still indexed.
func readNavigation(repo fs.FS, sources []Source, log *slog.Logger) Navigation {
	looked := map[string]bool{} // descriptor paths, each stat'ed once
	var descriptors []string
	for _, s := range sources {
		if s.Format != formats.AsciiDoc {
			continue
		}
		dir, _, ok := strings.Cut("/"+s.Path, "/modules/")
		if !ok {
			continue
		}
		d := path.Join(strings.TrimPrefix(dir, "/"), "antora.yml")
		if looked[d] {
			continue
		}
		looked[d] = true
		if _, err := fs.Stat(repo, d); err == nil {
			descriptors = append(descriptors, d)
		}
	}
	slices.Sort(descriptors)
	nav := Navigation{Order: map[string]int{}}
	for _, d := range descriptors {
		site, err := asciidoc.ReadSite(repo, d)
		if err != nil {
			log.Warn("antora navigation left out", "descriptor", d, "err", err)
			continue
		}
		for _, p := range site.Pages {
			if _, ok := nav.Order[p]; !ok {
				nav.Order[p] = len(nav.Order) + 1
			}
		}
		for _, m := range site.Modules {
			name := m.Title
			switch {
			case m.Name == "ROOT":
				name = "" // the component's own pages: the overview
			case name == "":
				name = topics.Humanize(m.Name)
			}
			nav.Folders = append(nav.Folders, topics.Folder{Path: m.Pages, Name: name})
		}
	}
	return nav
}
