package pipeline

import (
	"bytes"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/formats"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/topics"
)

// TestAntoraNavigation checks that an Antora component's navigation
// orders the documents listing and names and orders the topic
// categories, through Discover, splitAll and Assemble as a build runs them.
func TestAntoraNavigation(t *testing.T) {
	repo := fstest.MapFS{
		"README.md":                                   {Data: []byte("# Project\n\nText.\n")},
		"docs/antora.yml":                             {Data: []byte("name: p\nversion: ~\nnav:\n- modules/use/nav.adoc\n- modules/ROOT/nav.adoc\n")},
		"docs/modules/use/nav.adoc":                   {Data: []byte("* xref:index.adoc[]\n** xref:z-last-by-name.adoc[]\n** xref:a-first-by-name.adoc[]\n")},
		"docs/modules/use/pages/index.adoc":           {Data: []byte("= Use It Well\n:navtitle: Usage\n\nHow to use it.\n")},
		"docs/modules/use/pages/z-last-by-name.adoc":  {Data: []byte("= Zed\n\nZed text.\n")},
		"docs/modules/use/pages/a-first-by-name.adoc": {Data: []byte("= Ay\n\nAy text.\n")},
		"docs/modules/ROOT/nav.adoc":                  {Data: []byte("* xref:index.adoc[Home]\n")},
		"docs/modules/ROOT/pages/index.adoc":          {Data: []byte("= Welcome\n\nHello.\n")},
		"docs/modules/more/pages/extra.adoc":          {Data: []byte("= Extra\n\nNot in the navigation.\n")},
	}
	sources, _, err := Discover(repo, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	nav := readNavigation(repo, sources, slog.New(slog.NewTextHandler(&logs, nil)))
	wantFolders := []topics.Folder{
		{Path: "docs/modules/use/pages", Name: "Usage"},
		{Path: "docs/modules/ROOT/pages"},
		{Path: "docs/modules/more/pages", Name: "More"},
	}
	if !reflect.DeepEqual(nav.Folders, wantFolders) {
		t.Errorf("folders = %+v, want %+v", nav.Folders, wantFolders)
	}
	kept, skipped, _ := splitAll(sources, repo, markdown.DefaultOptions(), func(n int, f func(int)) {
		for i := range n {
			f(i)
		}
	})
	if len(kept) != 6 || len(skipped) != 2 { // the nav files are not pages
		t.Fatalf("kept %d documents, skipped %v", len(kept), skipped)
	}
	v, err := Assemble(docsOf(kept), nil, nav)
	if err != nil {
		t.Fatal(err)
	}
	places := map[string]int{}
	for _, d := range v.Documents {
		places[d.Path] = d.Nav
	}
	wantPlaces := map[string]int{
		"README.md":                                   0,
		"docs/modules/use/pages/index.adoc":           1,
		"docs/modules/use/pages/z-last-by-name.adoc":  2,
		"docs/modules/use/pages/a-first-by-name.adoc": 3,
		"docs/modules/ROOT/pages/index.adoc":          4,
		"docs/modules/more/pages/extra.adoc":          0,
	}
	if !reflect.DeepEqual(places, wantPlaces) {
		t.Errorf("navigation places = %v, want %v", places, wantPlaces)
	}
	var cats []string
	for _, c := range v.Topics.Categories {
		cats = append(cats, c.Name)
	}
	if want := []string{"Usage", "Overview", "More"}; !reflect.DeepEqual(cats, want) {
		t.Errorf("categories = %v, want %v", cats, want)
	}
	if logs.Len() > 0 {
		t.Errorf("unexpected logs: %s", logs.String())
	}
}

// TestAntoraNavigationBadDescriptor checks that a component whose
// antora.yml cannot be parsed is logged and left without navigation.
func TestAntoraNavigationBadDescriptor(t *testing.T) {
	repo := fstest.MapFS{
		"antora.yml":                {Data: []byte("nav: [unclosed\n")},
		"modules/ROOT/pages/a.adoc": {Data: []byte("= A\n\nText.\n")},
	}
	var logs bytes.Buffer
	nav := readNavigation(repo, []Source{{Path: "modules/ROOT/pages/a.adoc", Format: formats.AsciiDoc}}, slog.New(slog.NewTextHandler(&logs, nil)))
	if len(nav.Order) != 0 || len(nav.Folders) != 0 {
		t.Errorf("navigation %+v from an unreadable descriptor", nav)
	}
	if !strings.Contains(logs.String(), "antora navigation left out") || !strings.Contains(logs.String(), "antora.yml") {
		t.Errorf("logs %q, want the descriptor named", logs.String())
	}
}
