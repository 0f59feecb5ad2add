package markdown

import (
	"slices"
	"strings"
	"testing"
)

// TestAttributeText checks that dropped tags keep the text of their
// meaningful attributes and nothing else.
func TestAttributeText(t *testing.T) {
	tests := []struct {
		name string
		path string
		src  string
		want []string // section texts
	}{
		{
			name: "command as inline code",
			path: "a.mdx",
			src:  "Install it:\n\n<PackageManagerCommand command=\"npm install express\" />\n\nDone.\n",
			want: []string{"Install it:\n\n`npm install express`\n\nDone."},
		},
		{
			name: "param name and type before its description",
			path: "a.mdx",
			src:  "<Param name=\"domain\" type=\"String\">\n  Domain name for the cookie.\n</Param>\n",
			want: []string{"`domain` (String):\n  Domain name for the cookie."},
		},
		{
			name: "tab labels in bold",
			path: "a.mdx",
			src:  "<Tabs>\n<TabItem label=\"Relative path\">\n\nText.\n\n</TabItem>\n</Tabs>\n",
			want: []string{"**Relative path**\n\nText."},
		},
		{
			name: "custom element label",
			path: "a.md",
			src:  "<deno-tab value=\"python\" label=\"Python\">\n\nText.\n\n</deno-tab>\n",
			want: []string{"**Python**\n\nText."},
		},
		{
			name: "person name and title",
			path: "a.mdx",
			src:  "<TeamMember name=\"Andrew Clark\" permalink=\"andrew-clark\" photo=\"/a.jpg\" title=\"Engineer at Vercel\">\n  Andrew got started.\n</TeamMember>\n",
			want: []string{"**Andrew Clark**: Engineer at Vercel\n  Andrew got started."},
		},
		{
			name: "alt text, not the name",
			path: "a.mdx",
			src:  "<Diagram name=\"preserving_state_tree\" height={248} width={395} alt=\"A tree of components.\">\n\nReact tree\n\n</Diagram>\n",
			want: []string{"A tree of components.\n\nReact tree"},
		},
		{
			name: "version",
			path: "a.mdx",
			src:  "**Default:** `{}`<br />\n<Since v=\"2.6.0\" />\n",
			want: []string{"**Default:** `{}`\nSince 2.6.0"},
		},
		{
			name: "inline tag gets spaces",
			path: "a.mdx",
			src:  "See<Badge text=\"New\" />here.\n",
			want: []string{"See New here."},
		},
		{
			name: "abbreviation expanded after it",
			path: "a.md",
			src:  "About <abbr title=\"Cross-Origin Resource Sharing\">CORS</abbr>, mostly.\n",
			want: []string{"About CORS (Cross-Origin Resource Sharing), mostly."},
		},
		{
			name: "expressions, ids, classes, links and html names are not text",
			path: "a.mdx",
			src:  "<Foo title={\"x\"} className=\"c\" id=\"i\" key=\"k\" href=\"/h\" src=\"s.png\" style=\"s\" width=\"1\" />\n<input name=\"q\" type=\"text\">\n<Alert type=\"warning\">\n\nBody.\n\n</Alert>\n",
			want: []string{"Body."},
		},
		{
			name: "multi-line values are one line",
			path: "a.mdx",
			src:  "<Card\n  title=\"Two\n  lines\"\n/>\nAfter.\n",
			want: []string{"Two lines\n\nAfter."},
		},
		{
			name: "no attribute text in headings",
			path: "a.md",
			src:  "## Data <abbr title=\"also known as\">conversion</abbr>\n",
			want: []string{"## Data conversion"},
		},
		{
			name: "a value that looks like markup at line start is escaped",
			path: "a.mdx",
			src:  "<Card title=\"# Not a heading\" />\n",
			want: []string{"\\# Not a heading"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, tt.path, tt.src)
			if got := texts(doc); !slices.Equal(got, tt.want) {
				t.Errorf("got texts %q, want %q", got, tt.want)
			}
		})
	}
}

// TestCleaningSiteSyntax checks the rewrites of site-specific syntax.
func TestCleaningSiteSyntax(t *testing.T) {
	tests := []struct {
		name string
		path string
		src  string
		want []string // section texts
	}{
		{
			name: "script setup and style blocks",
			path: "a.md",
			src:  "<script setup>\nimport { useSponsor } from './x'\n\nconst sponsors = useSponsor()\n</script>\n\n# Title\n\nText.\n\n<style>\n.a { display: flex; }\n</style>\n",
			want: []string{"# Title\n\nText."},
		},
		{
			name: "script in prose is not a block",
			path: "a.md",
			src:  "The <script> tag is added.\n\nMore text.\n</script>\n",
			want: []string{"The  tag is added.\n\nMore text."},
		},
		{
			name: "unclosed script keeps the text",
			path: "a.mdx",
			src:  "<script>\nx\n",
			want: []string{"x"},
		},
		{
			name: "comment around a fence",
			path: "a.md",
			src:  "Before.\n\n<!--\n## Hidden\n\n```ts\nconst x = 1;\n```\n\nStill hidden. -->\n\nAfter.\n",
			want: []string{"Before.\n\nAfter."},
		},
		{
			name: "comment inside a fence is code",
			path: "a.md",
			src:  "```html\n<!-- kept\n```\n\nText -->\n",
			want: []string{"```html\n<!-- kept\n```\n\nText -->"},
		},
		{
			name: "mkdocstrings identifiers and options",
			path: "a.md",
			src:  "# `FastAPI` class\n\n::: fastapi.FastAPI\n    options:\n        members:\n            - openapi_version\n\n::: fastapi.Request\n\nText.\n",
			want: []string{"# `FastAPI` class\n\n`fastapi.FastAPI`\n\n`fastapi.Request`\n\nText."},
		},
		{
			name: "webpack markers",
			path: "a.mdx",
			src:  "T> A tip.\n\nW> A warning.\n\n?> A note.\n\nT>not a marker\n",
			want: []string{"**Tip:** A tip.\n\n**Warning:** A warning.\n\n**Note:** A note.\n\nT>not a marker"},
		},
		{
			name: "github alerts",
			path: "a.md",
			src:  "> [!NOTE]\n> Body.\n\n> [!WARNING]\n> Careful.\n\n> [!OTHER]\n> Kept.\n",
			want: []string{"> **Note:**\n> Body.\n\n> **Warning:**\n> Careful.\n\n> [!OTHER]\n> Kept."},
		},
		{
			name: "mdc inline components",
			path: "a.md",
			src:  "Text.\n\n:read-more{to=\"/docs/guide/x\"}\n\n:video-accordion{title=\"Watch a video\" videoId=\"abc\"}\n\nSee :link-example{to=\"/docs/examples/y\"} too, not std::vector{1}.\n",
			want: []string{"Text.\n\n(see /docs/guide/x)\n\nWatch a video\n\nSee (see /docs/examples/y) too, not std::vector{1}."},
		},
		{
			name: "mdc block target",
			path: "a.md",
			src:  "::read-more{to=\"/docs/x\" title=\"More\"}\n::\n",
			want: []string{"**Read more:** More (see /docs/x)"},
		},
		{
			name: "mdc props are not setext headings",
			path: "a.md",
			src:  "::card-group\n  ::card\n  ---\n  icon: i-github\n  title: nuxt/nuxt\n  to: https://github.com/nuxt/nuxt/releases\n  ---\n  Nuxt framework releases.\n  ::\n::\n",
			want: []string{"  **Card:** nuxt/nuxt (see https://github.com/nuxt/nuxt/releases)\n\n  Nuxt framework releases."},
		},
		{
			name: "sup and sub",
			path: "a.md",
			src:  "Up to 2<sup>53</sup> and H<sub>2</sub>O.\n",
			want: []string{"Up to 2^53 and H_2O."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, tt.path, tt.src)
			if got := texts(doc); !slices.Equal(got, tt.want) {
				t.Errorf("got texts %q, want %q", got, tt.want)
			}
			for _, s := range doc.Sections {
				if s.Level != 0 && !strings.HasPrefix(s.Text, "#") {
					t.Errorf("got a setext heading %q", s.Heading)
				}
			}
		})
	}
}

// TestHugoCodeShortcodes checks that the bodies of Hugo's code shortcodes
// become fenced code.
func TestHugoCodeShortcodes(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantText string
		wantCode []CodeBlock
	}{
		{
			name:     "code-toggle is toml",
			src:      "Config:\n\n{{< code-toggle file=hugo >}}\n[taxonomies]\ngenre = 'genres'\n{{< /code-toggle >}}\n",
			wantText: "Config:\n\n```toml\n[taxonomies]\ngenre = 'genres'\n```",
			wantCode: []CodeBlock{{Lang: "toml", Code: "[taxonomies]\ngenre = 'genres'"}},
		},
		{
			name:     "lang argument",
			src:      "{{< code-toggle file=hugo lang=yaml >}}\na: 1\n{{< /code-toggle >}}\n",
			wantText: "```yaml\na: 1\n```",
			wantCode: []CodeBlock{{Lang: "yaml", Code: "a: 1"}},
		},
		{
			name:     "highlight language and a fence in the body",
			src:      "{{< highlight go \"linenos=inline\" >}}\n// # not a heading\n```\n{{< /highlight >}}\n",
			wantText: "````go\n// # not a heading\n```\n````",
			wantCode: []CodeBlock{{Lang: "go", Code: "// # not a heading\n```"}},
		},
		{
			name:     "code with percent delimiters",
			src:      "{{% code file=x.html lang=html %}}\n<div></div>\n{{% /code %}}\n",
			wantText: "```html\n<div></div>\n```",
			wantCode: []CodeBlock{{Lang: "html", Code: "<div></div>"}},
		},
		{
			name:     "closer with a space after the slash",
			src:      "{{< code-toggle file=hugo fm=true >}}\ntitle = 'x'\n{{</ code-toggle >}}\n",
			wantText: "```toml\ntitle = 'x'\n```",
			wantCode: []CodeBlock{{Lang: "toml", Code: "title = 'x'"}},
		},
		{
			name:     "an unclosed shortcode does not take the next one's closer",
			src:      "{{< code-toggle >}}\nText.\n{{< code-toggle >}}\na = 1\n{{< /code-toggle >}}\n",
			wantText: "Text.\n```toml\na = 1\n```",
			wantCode: []CodeBlock{{Lang: "toml", Code: "a = 1"}},
		},
		{
			name:     "self-closing and unclosed shortcodes are dropped",
			src:      "{{< code-toggle config=page />}}\n\n{{< highlight go >}}\nText.\n",
			wantText: "Text.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, "content/a.md", tt.src)
			if len(doc.Sections) != 1 {
				t.Fatalf("got %d sections, want 1: %q", len(doc.Sections), texts(doc))
			}
			s := doc.Sections[0]
			if s.Text != tt.wantText {
				t.Errorf("got Text %q, want %q", s.Text, tt.wantText)
			}
			if !slices.Equal(s.Code, tt.wantCode) {
				t.Errorf("got Code %+v, want %+v", s.Code, tt.wantCode)
			}
		})
	}
	// Lines still map to the file.
	doc := mustSplit(t, "content/a.md", "{{< code-toggle >}}\n# a\n{{< /code-toggle >}}\n\n## H\n")
	if got := doc.Sections[len(doc.Sections)-1]; got.Heading != "H" || got.Line != 5 {
		t.Errorf("got last section %q at line %d, want H at 5", got.Heading, got.Line)
	}
}

// TestMDXIndentation checks that indentation does not make code in MDX
// syntax, and that fences indented inside JSX agree with goldmark.
func TestMDXIndentation(t *testing.T) {
	t.Run("indented jsx children are prose", func(t *testing.T) {
		src := "## Team {/*team*/}\n\n<TeamMember name=\"A B\">\n    Andrew got started with web development.\n</TeamMember>\n"
		doc := mustSplit(t, "community/team.md", src)
		s := doc.Sections[0]
		if len(s.Code) != 0 {
			t.Errorf("got Code %+v, want none", s.Code)
		}
		if !strings.Contains(s.Prose, "Andrew got started") {
			t.Errorf("got Prose %q, want the member's text", s.Prose)
		}
	})
	t.Run("markdown keeps indented code", func(t *testing.T) {
		doc := mustSplit(t, "a.md", "Text.\n\n    code\n")
		if got := doc.Sections[0].Code; len(got) != 1 || got[0].Code != "code" {
			t.Errorf("got Code %+v, want the indented block", got)
		}
	})
	t.Run("fence indented four closed at two", func(t *testing.T) {
		src := "<Tabs>\n  <TabItem label=\"ts\">\n    ```ts title=\"a.ts\"\n    const a = 1;\n\n    export {a};\n  ```\n  </TabItem>\n</Tabs>\n\n### `locals`\n\nText.\n"
		doc := mustSplit(t, "reference/api-reference.mdx", src)
		s, ok := findSection(doc, "`locals`")
		if !ok || s.Level != 3 || s.Line != 11 {
			t.Fatalf("got sections %q, want a level-3 `locals` at line 11", texts(doc))
		}
		first := doc.Sections[0]
		if want := []CodeBlock{{Lang: "ts", Code: "const a = 1;\n\nexport {a};"}}; !slices.Equal(first.Code, want) {
			t.Errorf("got Code %+v, want %+v", first.Code, want)
		}
	})
	t.Run("fence in a list item closed less indented", func(t *testing.T) {
		src := "1. Step.\n\n     ```yaml\n     a: 1\n    ```\n\n## After\n"
		doc := mustSplit(t, "a.mdx", src)
		if _, ok := findSection(doc, "After"); !ok {
			t.Fatalf("got sections %q, want After", texts(doc))
		}
		if want := []CodeBlock{{Lang: "yaml", Code: "a: 1"}}; !slices.Equal(doc.Sections[0].Code, want) {
			t.Errorf("got Code %+v, want %+v", doc.Sections[0].Code, want)
		}
	})
	t.Run("fence in a list item with less indented code", func(t *testing.T) {
		src := "1. Step.\n\n     ```css\n    h1 {\n      color: red;\n    }\n    ```\n\n## After\n"
		doc := mustSplit(t, "a.mdx", src)
		if _, ok := findSection(doc, "After"); !ok {
			t.Fatalf("got sections %q, want After", texts(doc))
		}
		// MDX strips the opening fence's five columns from each line.
		if want := []CodeBlock{{Lang: "css", Code: "h1 {\n color: red;\n}"}}; !slices.Equal(doc.Sections[0].Code, want) {
			t.Errorf("got Code %+v, want %+v", doc.Sections[0].Code, want)
		}
	})
	t.Run("tab-indented fence", func(t *testing.T) {
		src := "<Tabs>\n  <TabItem label=\"a\">\n  \t```astro\n    <p>x</p>\n    ```\n  </TabItem>\n</Tabs>\n\n## After\n"
		doc := mustSplit(t, "a.mdx", src)
		if _, ok := findSection(doc, "After"); !ok {
			t.Fatalf("got sections %q, want After", texts(doc))
		}
		if want := []CodeBlock{{Lang: "astro", Code: "<p>x</p>"}}; !slices.Equal(doc.Sections[0].Code, want) {
			t.Errorf("got Code %+v, want %+v", doc.Sections[0].Code, want)
		}
	})
}

// TestHeadingTextWithoutMDXComments checks that a section's Text shows its
// heading line without {/*id*/} anchors, while Heading keeps them.
func TestHeadingTextWithoutMDXComments(t *testing.T) {
	src := "## Usage {/*usage*/}\n\nText.\n\n### Big {/*big*/}\n\n" + strings.Repeat("word ", 50) + "\n\n" + strings.Repeat("more ", 50) + "\n"
	doc := mustSplitOpts(t, "a.md", src, Options{MaxSectionTokens: 60})
	for _, s := range doc.Sections {
		if strings.Contains(s.Text, "{/*") {
			t.Errorf("section %q: Text %q keeps an MDX comment", s.Heading, s.Text)
		}
		if !strings.Contains(s.Heading, "{/*") {
			t.Errorf("got Heading %q, want it as written", s.Heading)
		}
	}
	if got, want := doc.Sections[0].Text, "## Usage\n\nText."; got != want {
		t.Errorf("got Text %q, want %q", got, want)
	}
	if last := doc.Sections[len(doc.Sections)-1]; last.Part == 0 || !strings.HasPrefix(last.Text, "### Big\n\n") {
		t.Errorf("got last chunk part %d Text %q, want a later chunk starting with ### Big", last.Part, last.Text)
	}
}
