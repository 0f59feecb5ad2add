package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/config"
	"github.com/codex7/codex7/fetch"
	"github.com/codex7/codex7/formats"
)

// linkFS is a MapFS that also reports symlinks, as fetch.Snapshot does.
type linkFS struct {
	fstest.MapFS
	links []string
}

func (l linkFS) Symlinks() []string { return l.links }

func TestDiscover(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := linkFS{MapFS: fstest.MapFS{
		"README.md":                        file("# Lib"),
		"CHANGELOG.md":                     file("# Changes"),
		"docs/a.md":                        file("# A"),
		"docs/b.MDX":                       file("# B"),
		"docs/c.markdown":                  file("# C"),
		"docs/notes.txt":                   file("not markdown"),
		"docs/sub/deep.md":                 file("# Deep"),
		"docs/big.md":                      file(strings.Repeat("x", 2000)),
		"docs/binary.md":                   file("# Bin\x00\x01"),
		"docs/latin1.md":                   file("caf\xe9"),
		"docs/.vitepress/theme.md":         file("# hidden folder"),
		"docs/.generated/errors.md":        file("# generated error catalog"),
		".github/CONTRIBUTING.md":          file("# the repository's own"),
		"docs/node_modules/x/README.md":    file("# vendored"),
		"website/versioned_docs/v1/old.md": file("# old"),
		"pages/common/..md":                file("# the . command"),
		"legacy/old.md":                    file("# legacy"),
		"legacy/keep/new.md":               file("# kept: exclude is legacy/*.md only"),
	}, links: []string{"docs/link.md", "docs/image.png"}}

	tests := []struct {
		name    string
		sel     Selection
		want    []string
		skipped map[string]string
	}{
		{
			name: "defaults",
			sel:  Selection{Exclude: append(config.DefaultExcludes(false), "legacy/*.md"), MaxFileBytes: 1000},
			want: []string{"README.md", "docs/a.md", "docs/b.MDX", "docs/c.markdown", "docs/sub/deep.md", "legacy/keep/new.md", "pages/common/..md"},
			skipped: map[string]string{
				"docs/big.md":    "larger than 1000 bytes",
				"docs/binary.md": "binary file",
				"docs/latin1.md": "invalid UTF-8",
				"docs/link.md":   "symbolic link",
			},
		},
		{
			name: "include globs",
			sel:  Selection{Include: []string{"docs/sub/**", "README.md"}, Exclude: config.DefaultExcludes(true)},
			want: []string{"README.md", "docs/sub/deep.md"},
		},
		{
			// Within chosen docs, nested hidden folders are read; the
			// repository's top-level ones are not, even when chosen.
			name: "hidden folders inside chosen docs",
			sel:  Selection{Include: []string{"docs/**", ".github/**"}, Exclude: config.DefaultExcludes(true), MaxFileBytes: 1000},
			want: []string{"docs/.generated/errors.md", "docs/.vitepress/theme.md", "docs/a.md", "docs/b.MDX", "docs/c.markdown", "docs/sub/deep.md"},
			skipped: map[string]string{
				"docs/big.md":    "larger than 1000 bytes",
				"docs/binary.md": "binary file",
				"docs/latin1.md": "invalid UTF-8",
				"docs/link.md":   "symbolic link",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sources, skipped, err := Discover(fsys, tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range sources {
				got = append(got, s.Path)
				if len(s.Data) == 0 {
					t.Errorf("%s read empty", s.Path)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("sources = %v\nwant      %v", got, tt.want)
			}
			if len(skipped) != len(tt.skipped) {
				t.Errorf("skipped = %v, want %v", skipped, tt.skipped)
			}
			for _, s := range skipped {
				if want, ok := tt.skipped[s.Path]; !ok || !strings.Contains(s.Reason, want) {
					t.Errorf("skipped %s (%s), want reason %q", s.Path, s.Reason, want)
				}
			}
		})
	}
}

// TestDiscoverPrunesExcludedFolders checks that excluded folders are not
// walked at all (node_modules can hold millions of files).
func TestDiscoverPrunesExcludedFolders(t *testing.T) {
	fsys := &countingFS{MapFS: fstest.MapFS{
		"docs/a.md":                    {Data: []byte("# A")},
		"node_modules/x/y/z/README.md": {Data: []byte("# no")},
		"docs/.git/objects/README.md":  {Data: []byte("# no")},
	}}
	if _, _, err := Discover(fsys, Selection{Exclude: config.DefaultExcludes(false)}); err != nil {
		t.Fatal(err)
	}
	for _, p := range fsys.read {
		if strings.HasPrefix(p, "node_modules/x") || strings.HasPrefix(p, "docs/.git/") {
			t.Errorf("walked into excluded folder: %s", p)
		}
	}
}

type countingFS struct {
	fstest.MapFS
	read []string
}

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	c.read = append(c.read, name)
	return c.MapFS.ReadDir(name)
}

// omitFS is a MapFS that also lists omitted entries, as fetch.Snapshot does.
type omitFS struct {
	fstest.MapFS
	omitted []fetch.Omitted
}

func (o omitFS) Omitted() []fetch.Omitted { return o.omitted }

// TestDiscoverOmitted lists among the skipped files the omitted entries
// that could have been selected documents, and only those.
func TestDiscoverOmitted(t *testing.T) {
	fsys := omitFS{MapFS: fstest.MapFS{"docs/a.md": {Data: []byte("# A")}}, omitted: []fetch.Omitted{
		{Path: "docs/link.md", Reason: "symbolic link (not followed)"},
		{Path: "bin/tool", Reason: "symbolic link (not followed)"},
		{Path: `docs/"\xff.md"`, Reason: "name is not valid UTF-8"},
		{Path: "docs/vendor/lib", Reason: "submodule (not followed)", Dir: true},
		{Path: "docs/api", Reason: "submodule (not followed)", Dir: true},
		{Path: "src/lib", Reason: "submodule (not followed)", Dir: true},
		{Path: "docs/.hidden", Reason: "directory deeper than 64 levels", Dir: true},
	}}
	tests := []struct {
		name string
		sel  Selection
		want string
	}{
		{"no include", Selection{Exclude: config.DefaultExcludes(false)}, `docs/"\xff.md",docs/api,docs/link.md,src/lib`},
		{"docs/**", Selection{Include: []string{"docs/**"}, Exclude: config.DefaultExcludes(false)}, `docs/"\xff.md",docs/api,docs/link.md`},
		{"docs/*.md: folders under docs/ are listed (an over-estimate)", Selection{Include: []string{"docs/*.md"}}, `docs/"\xff.md",docs/.hidden,docs/api,docs/link.md,docs/vendor/lib`},
		{"**/README.md reaches every folder", Selection{Include: []string{"**/README.md"}}, `docs/.hidden,docs/api,docs/vendor/lib,src/lib`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, skipped, err := Discover(fsys, tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range skipped {
				got = append(got, s.Path)
			}
			if strings.Join(got, ",") != tt.want {
				t.Errorf("skipped %s\nwant    %s", strings.Join(got, ","), tt.want)
			}
		})
	}
}

// TestDiscoverLimits refuses a selection over MaxFiles or MaxTotalBytes
// before reading any file.
func TestDiscoverLimits(t *testing.T) {
	fsys := &countingOpens{MapFS: fstest.MapFS{}}
	for i := range 10 {
		fsys.MapFS[fmt.Sprintf("p%d.md", i)] = &fstest.MapFile{Data: []byte(strings.Repeat("x", 1000))}
	}
	if _, _, err := Discover(fsys, Selection{MaxFiles: 9}); !errors.Is(err, ErrTooManyFiles) {
		t.Errorf("MaxFiles 9: %v, want ErrTooManyFiles", err)
	}
	if _, _, err := Discover(fsys, Selection{MaxTotalBytes: 9999}); !errors.Is(err, ErrTooManyBytes) {
		t.Errorf("MaxTotalBytes 9999: %v, want ErrTooManyBytes", err)
	}
	if fsys.reads > 0 {
		t.Errorf("%d files read before refusing", fsys.reads)
	}
	if sources, _, err := Discover(fsys, Selection{MaxFiles: 10, MaxTotalBytes: 10000}); err != nil || len(sources) != 10 {
		t.Errorf("at the limits: %d sources, %v", len(sources), err)
	}
}

type countingOpens struct {
	fstest.MapFS
	reads int
}

func (c *countingOpens) ReadFile(name string) ([]byte, error) {
	c.reads++
	return c.MapFS.ReadFile(name)
}

// TestDiscoverNotebooks checks that notebooks are documentation, that a
// notebook's jupytext twin is indexed once (as the notebook), and that a
// library reading markdown alone does not discover them.
func TestDiscoverNotebooks(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"guides/ipynb/train.ipynb": file("{}"),
		"guides/md/train.md":       file("# Train"),
		"guides/train.py":          file("print(1)"),
		"guides/other.ipynb":       file("{}"),
		"guides/other.md":          file("# Other"),
		"guides/alone.md":          file("# Alone"),
	}
	sources, skipped, err := Discover(fsys, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range sources {
		got = append(got, s.Path)
	}
	if want := []string{"guides/alone.md", "guides/ipynb/train.ipynb", "guides/other.ipynb"}; !slices.Equal(got, want) {
		t.Errorf("discovered %q, want %q", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Path] = s.Reason
	}
	if !strings.Contains(reasons["guides/md/train.md"], "jupytext twin of guides/ipynb/train.ipynb") || !strings.Contains(reasons["guides/other.md"], "twin of guides/other.ipynb") {
		t.Errorf("skipped %v, want both markdown twins named with their notebooks", reasons)
	}
	only, _ := formats.Parse([]string{"markdown"})
	sources, _, err = Discover(fsys, Selection{Formats: only})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 3 {
		t.Errorf("formats: [markdown] discovered %d files, want the 3 markdown pages", len(sources))
	}
}

// TestDiscoverDocusaurusPartials checks that a Docusaurus site's "_"
// markdown files and folders are not pages of their own (pages read them
// where they import them): under the folder holding its configuration,
// or anywhere in the repository when that folder is one of the root's
// (website/ with docs in ../docs). Elsewhere an underscore means nothing:
// Hugo's _index.md is a page.
func TestDiscoverDocusaurusPartials(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	cases := []struct {
		name           string
		fsys           fstest.MapFS
		pages, skipped []string
	}{
		{
			name: "site in website/, docs beside it",
			fsys: fstest.MapFS{
				"website/docusaurus.config.ts":   file("export default {}"),
				"website/docs/setup.mdx":         file("import Install from './_install.mdx';\n\n# Setup\n\n<Install />\n"),
				"website/docs/_install.mdx":      file("Run `npm i x`."),
				"website/docs/_shared/notes.md":  file("# Notes"),
				"website/blog/_draft/notes.md":   file("# Draft"),
				"docs/_partial.md":               file("# Partial"),
				"docs/guide.md":                  file("# Guide"),
				"other/docusaurus.config.js.bak": file(""),
			},
			pages:   []string{"docs/guide.md", "website/docs/setup.mdx"},
			skipped: []string{"docs/_partial.md", "website/blog/_draft/notes.md", "website/docs/_install.mdx", "website/docs/_shared/notes.md"},
		},
		{
			name: "site deeper: its folder only",
			fsys: fstest.MapFS{
				"deep/site/docusaurus.config.js": file(""),
				"deep/site/docs/_p.md":           file("# Partial"),
				"deep/site/docs/a.md":            file("# A"),
				"deep/_notes.md":                 file("# Not the site's"),
			},
			pages:   []string{"deep/_notes.md", "deep/site/docs/a.md"},
			skipped: []string{"deep/site/docs/_p.md"},
		},
		{
			name: "no Docusaurus site",
			fsys: fstest.MapFS{
				"content/_index.md":       file("# Home"),
				"content/docs/_index.md":  file("# Docs"),
				"content/docs/install.md": file("# Install"),
			},
			pages: []string{"content/_index.md", "content/docs/_index.md", "content/docs/install.md"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sources, skipped, err := Discover(c.fsys, Selection{})
			if err != nil {
				t.Fatal(err)
			}
			var pages, partials []string
			for _, s := range sources {
				pages = append(pages, s.Path)
			}
			for _, s := range skipped {
				if strings.Contains(s.Reason, "Docusaurus partial") {
					partials = append(partials, s.Path)
				}
			}
			if !slices.Equal(pages, c.pages) || !slices.Equal(partials, c.skipped) {
				t.Errorf("pages %q, partials %q; want %q, %q", pages, partials, c.pages, c.skipped)
			}
		})
	}
}
