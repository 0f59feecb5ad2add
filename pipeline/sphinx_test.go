package pipeline

import (
	"slices"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/formats"
)

func TestSphinxSuffixes(t *testing.T) {
	tests := map[string][]string{
		`source_suffix = ".txt"`: {".txt"},
		"extensions = []\nsource_suffix = ['.rst', '.TXT']  # both\n":                    {".rst", ".txt"},
		"source_suffix = {\n    '.rst': 'restructuredtext',\n    '.txt': 'markdown',\n}": {".rst", ".txt"},
		"# source_suffix = '.txt'\nproject = 'x'\n":                                      nil,
		"": nil,
	}
	for conf, want := range tests {
		if got := sphinxSuffixes([]byte(conf)); !slices.Equal(got, want) {
			t.Errorf("sphinxSuffixes(%q) = %q, want %q", conf, got, want)
		}
	}
}

// TestDiscoverSphinxText checks that the .txt files of a Sphinx project
// whose conf.py declares them (Django's layout) are discovered as
// reStructuredText, and no other .txt is.
func TestDiscoverSphinxText(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	fsys := fstest.MapFS{
		"docs/conf.py":          file("project = 'Django'\nsource_suffix = '.txt'\n"),
		"docs/intro.txt":        file("Intro\n=====\n\nText.\n"),
		"docs/ref/settings.txt": file("Settings\n========\n"),
		"requirements.txt":      file("django\n"),
		"other/conf.py":         file("project = 'x'\n"),
		"other/notes.txt":       file("plain notes\n"),
		"README.md":             file("# Readme"),
	}
	sources, _, err := Discover(fsys, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]formats.Format{}
	for _, s := range sources {
		got[s.Path] = s.Format
	}
	want := map[string]formats.Format{"README.md": formats.Markdown, "docs/intro.txt": formats.RST, "docs/ref/settings.txt": formats.RST}
	if len(got) != len(want) {
		t.Errorf("discovered %v, want %v", got, want)
	}
	for p, f := range want {
		if got[p] != f {
			t.Errorf("%s: format %q, want %q", p, got[p], f)
		}
	}
	only, _ := formats.Parse([]string{"markdown"})
	sources, _, err = Discover(fsys, Selection{Formats: only})
	if err != nil {
		t.Fatal(err)
	}
	if len(sources) != 1 {
		t.Errorf("formats: [markdown] discovered %d files, want README.md alone", len(sources))
	}
}
