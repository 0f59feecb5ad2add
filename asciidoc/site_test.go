package asciidoc

import (
	"os"
	"reflect"
	"testing"
	"testing/fstest"
)

func TestReadSiteGolden(t *testing.T) {
	site, err := ReadSite(os.DirFS("testdata"), "antora/antora.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Site{
		Pages: []string{
			"antora/modules/ROOT/pages/index.adoc",
			"antora/modules/ROOT/pages/features.adoc",
			"antora/modules/other/pages/api.adoc",
		},
		Modules: []Module{
			// Linked without text: the page's title, its attribute
			// reference resolved from antora.yml.
			{Name: "ROOT", Pages: "antora/modules/ROOT/pages", Title: "Welcome to Demo Tool"},
			// No nav file of its own: after the navigation's modules.
			{Name: "other", Pages: "antora/modules/other/pages"},
		},
	}
	if !reflect.DeepEqual(site, want) {
		t.Errorf("ReadSite:\n got %+v\nwant %+v", site, want)
	}
}

func TestReadSiteOrderAndTitles(t *testing.T) {
	repo := fstest.MapFS{
		"docs/antora.yml":                 {Data: []byte("name: c\nversion: ~\nnav:\n- modules/b/nav.adoc\n- modules/ROOT/nav.adoc\n- modules/missing/nav.adoc\n- modules/a/nav.adoc\n")},
		"docs/modules/b/nav.adoc":         {Data: []byte("* xref:index.adoc[]\n** xref:two.adoc[]\n* xref:three.adoc[Three]\n")},
		"docs/modules/b/pages/index.adoc": {Data: []byte("= Use the B Thing\n:navtitle: B\n\nText.\n")},
		"docs/modules/b/pages/two.adoc":   {Data: []byte("= Two\n")},
		"docs/modules/b/pages/three.adoc": {Data: []byte("= Three\n")},
		// A plain-text item names its module; pages listed twice count once.
		"docs/modules/ROOT/nav.adoc":         {Data: []byte("* Guides\n** xref:b:two.adoc[]\n** xref:start.adoc[]\n")},
		"docs/modules/ROOT/pages/start.adoc": {Data: []byte("= Start\n")},
		// navtitle only counts in the header: this page's title is used.
		"docs/modules/a/nav.adoc":         {Data: []byte("* xref:index.adoc[]\n")},
		"docs/modules/a/pages/index.adoc": {Data: []byte("= Alpha Things\n\n:navtitle: not a header attribute\n")},
		"docs/modules/z/pages/x.adoc":     {Data: []byte("= X\n")},
		"docs/modules/nopages/nav.txt":    {Data: []byte("")},
	}
	site, err := ReadSite(repo, "docs/antora.yml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Site{
		Pages: []string{
			"docs/modules/b/pages/index.adoc", "docs/modules/b/pages/two.adoc", "docs/modules/b/pages/three.adoc",
			"docs/modules/ROOT/pages/start.adoc", "docs/modules/a/pages/index.adoc",
		},
		Modules: []Module{
			{Name: "b", Pages: "docs/modules/b/pages", Title: "B"},
			{Name: "ROOT", Pages: "docs/modules/ROOT/pages", Title: "Guides"},
			{Name: "a", Pages: "docs/modules/a/pages", Title: "Alpha Things"},
			{Name: "z", Pages: "docs/modules/z/pages"},
		},
	}
	if !reflect.DeepEqual(site, want) {
		t.Errorf("ReadSite:\n got %+v\nwant %+v", site, want)
	}
}

func TestReadSiteErrors(t *testing.T) {
	if _, err := ReadSite(fstest.MapFS{}, "antora.yml"); err == nil {
		t.Error("missing descriptor: no error")
	}
	if _, err := ReadSite(fstest.MapFS{"antora.yml": {Data: []byte("nav: [unclosed\n")}}, "antora.yml"); err == nil {
		t.Error("unparsable descriptor: no error")
	}
}
