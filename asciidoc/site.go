package asciidoc

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Site is what an Antora component's navigation says of its pages: the
// order in which the published site lists them, and the component's
// modules, named as its navigation names them.
type Site struct {
	// Pages are the repository paths of the pages the navigation links
	// to, in its order (the nav files in the order antora.yml lists them),
	// each once, where it is first listed.
	Pages []string
	// Modules are the component's modules that hold pages: first those
	// the navigation reaches, in its order, then the others by name.
	Modules []Module
}

// Module is one module of an Antora component.
type Module struct {
	// Name is the module's folder name; ROOT is the component's root
	// module, whose pages the site publishes at the component's top.
	Name string
	// Pages is the repository path of its pages folder.
	Pages string
	// Title is what the navigation calls the module: the text of the
	// first top-level item of its first nav file, or, for an item that
	// links a page without text, that page's navtitle or title. "" when no
	// nav file of the component belongs to the module.
	Title string
}

// ReadSite reads the Antora component whose descriptor (antora.yml) is at
// the repository path descriptor, and the nav files it lists. A nav file
// that is missing or not UTF-8 is left out, as Antora reports and skips
// it; the error is for a descriptor that cannot be read or parsed.
func ReadSite(repo fs.FS, descriptor string) (*Site, error) {
	b, err := fs.ReadFile(repo, descriptor)
	if err != nil {
		return nil, fmt.Errorf("read site: %w", err)
	}
	var d struct {
		Nav []string `yaml:"nav"`
	}
	if err := yaml.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("read site %s: %w", descriptor, err)
	}
	dir := path.Dir(descriptor)
	modulesDir := path.Join(dir, "modules")
	site := &Site{}
	listed := map[string]bool{}
	titled := map[string]string{} // module → title, set once
	var order []string            // modules as the navigation reaches them
	var attrs *attributes         // the component's, read once for titles
	for _, nav := range d.Nav {
		p := path.Join(dir, nav)
		src, err := fs.ReadFile(repo, p)
		if err != nil || !utf8.Valid(src) {
			continue
		}
		entries, err := Nav(p, src)
		if err != nil {
			continue
		}
		_, module := navModule(p)
		first := true
		for _, e := range entries {
			if e.Path != "" && !listed[e.Path] {
				listed[e.Path] = true
				site.Pages = append(site.Pages, e.Path)
			}
			if e.Level != 1 || !first || module == "" {
				continue
			}
			first = false
			if _, ok := titled[module]; ok {
				continue
			}
			title := e.Title
			if title == "" && e.Path != "" {
				if attrs == nil {
					attrs = newAttributes()
					if _, err := findComponent(repo, e.Path, attrs); err != nil {
						return nil, err
					}
				}
				title = navTitle(repo, e.Path, attrs)
			}
			titled[module] = title
			order = append(order, module)
		}
	}
	entries, err := fs.ReadDir(repo, modulesDir)
	if err != nil && len(order) == 0 {
		return site, nil // no modules: a descriptor alone
	}
	var rest []string
	for _, e := range entries {
		if !e.IsDir() || slices.Contains(order, e.Name()) {
			continue
		}
		if fi, err := fs.Stat(repo, path.Join(modulesDir, e.Name(), "pages")); err == nil && fi.IsDir() {
			rest = append(rest, e.Name())
		}
	}
	slices.Sort(rest)
	for _, m := range append(order, rest...) {
		site.Modules = append(site.Modules, Module{Name: m, Pages: path.Join(modulesDir, m, "pages"), Title: titled[m]})
	}
	return site, nil
}

// navTitle is the title the navigation shows for a page linked without
// text: its navtitle attribute, else its document title, else its file
// name.
func navTitle(repo fs.FS, p string, attrs *attributes) string {
	b, err := fs.ReadFile(repo, p)
	if err != nil || !utf8.Valid(b) {
		return stem(p)
	}
	src := string(b)
	if t := headerAttribute(src, "navtitle", attrs); t != "" {
		return t
	}
	if t := docTitle(src, attrs); t != "" {
		return t
	}
	return stem(p)
}

// headerAttribute returns the plain value of the attribute name as the
// document header of src sets it (the lines from the top to the first
// blank line after the document title), or "".
func headerAttribute(src, name string, attrs *attributes) string {
	attrs = attrs.clone()
	seenTitle := false
	for n, l := range strings.SplitN(src, "\n", 128) {
		if n >= 127 {
			break
		}
		l = strings.TrimSpace(l)
		switch {
		case l == "":
			if seenTitle {
				return ""
			}
			continue
		case strings.HasPrefix(l, "//"):
			continue
		}
		if k, v, unset, ok := attributeEntry(l); ok {
			if strings.EqualFold(k, name) && !unset {
				c := &converter{ids: ids{used: map[string]bool{}}, titles: map[string]string{}, pageTitles: map[string]string{}}
				return strings.TrimSpace(c.inlinePlain(v, attrs))
			}
			attrs.setEntry(k, v, unset)
			continue
		}
		if level, _, ok := sectionTitle(l); ok && level == 0 {
			seenTitle = true
		}
	}
	return ""
}
