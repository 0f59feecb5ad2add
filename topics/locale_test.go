package topics

import (
	"slices"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// TestTranslations checks which documents are translations: those in a
// locale other than the version's primary one, English when present.
func TestTranslations(t *testing.T) {
	cases := []struct {
		name  string
		paths []string
		want  []bool
	}{
		{
			name: "language folders beside a root README, and a folder that is no language",
			// fastapi: docs/em/ is its emoji "translation"; English is
			// primary though em/ sorts first and is no ISO code.
			paths: []string{"README.md", "docs/de/docs/index.md", "docs/em/docs/index.md", "docs/en/docs/index.md", "docs/en/docs/tutorial/cors.md",
				"docs/es/docs/index.md", "docs/fr/docs/index.md", "docs/ja/docs/index.md", "docs/ko/docs/index.md", "docs/pt/docs/index.md", "docs/ru/docs/index.md", "docs/zh/docs/index.md"},
			want: []bool{false, true, true, false, false, true, true, true, true, true, true, true},
		},
		{
			name:  "tldr's pages beside pages.fr: the unsuffixed folder is primary",
			paths: []string{"pages/common/tar.md", "pages.fr/common/tar.md", "pages.ko/common/tar.md"},
			want:  []bool{false, true, true},
		},
		{
			name:  "translations named by file",
			paths: []string{"content/install.md", "content/install.zh-cn.md", "content/usage.md"},
			want:  []bool{false, true, false},
		},
		{
			name:  "no English: the locale with the most documents",
			paths: []string{"docs/ja/a.md", "docs/zh/a.md", "docs/zh/b.md"},
			want:  []bool{true, false, false},
		},
		{
			name: "vitepress: English at the root, translations in language folders inside it",
			paths: []string{"docs/index.md", "docs/guide/start.md", "docs/guide/config.md", "docs/zh/index.md", "docs/zh/guide/start.md",
				"docs/ja/guide/start.md", "docs/ja/guide/only-in-japanese.md", "docs/en/guide/start.md"},
			want: []bool{false, false, false, true, true, true, false, false},
		},
		{
			name: "docusaurus i18n: under the plugin (and the docs' version)",
			paths: []string{"website/docs/intro.md", "website/docs/api/cli.md", "website/blog/2024-01-01-hello.md",
				"website/i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
				"website/i18n/fr/docusaurus-plugin-content-docs/current/api/cli.md",
				"website/i18n/ko/docusaurus-plugin-content-blog/2024-01-01-hello.md"},
			want: []bool{false, false, false, true, true, true},
		},
		{
			name:  "a folder named like a language that mirrors nothing",
			paths: []string{"docs/guide/a.md", "docs/id/identifiers.md", "docs/it/setup.md"},
			want:  []bool{false, false, false},
		},
		{
			// Every folder has an index page, and the root's README is not
			// what docs/id/README.md translates: an index mirrors only in a
			// folder that another page mirrors.
			name:  "a folder named like a language whose index pages are all that mirror",
			paths: []string{"README.md", "docs/guide/a.md", "docs/guide/index.md", "docs/id/README.md", "docs/id/identifiers.md", "docs/id/guide/_index.mdx"},
			want:  []bool{false, false, false, false, false, false},
		},
		{
			name:  "no translations",
			paths: []string{"docs/guide/a.md", "docs/api/b.md"},
			want:  []bool{false, false},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			docs := make([]*markdown.Document, len(c.paths))
			for i, p := range c.paths {
				docs[i] = &markdown.Document{Path: p}
			}
			if got := Translations(docs); !slices.Equal(got, c.want) {
				t.Errorf("Translations(%q) = %v, want %v", c.paths, got, c.want)
			}
		})
	}
}
