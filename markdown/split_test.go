package markdown

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// mustSplit splits src with the default options and checks the invariants.
func mustSplit(t *testing.T, path, src string) *Document {
	t.Helper()
	return mustSplitOpts(t, path, src, DefaultOptions())
}

func mustSplitOpts(t *testing.T, path, src string, opts Options) *Document {
	t.Helper()
	doc, err := Split(path, []byte(src), opts)
	if err != nil {
		t.Fatalf("Split(%q): %v", path, err)
	}
	checkInvariants(t, path, []byte(src), opts)
	return doc
}

// texts returns the sections' texts.
func texts(doc *Document) []string {
	var out []string
	for _, s := range doc.Sections {
		out = append(out, s.Text)
	}
	return out
}

func TestSlug(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello World", "hello-world"},
		{"Use `CORSMiddleware`", "use-corsmiddleware"},
		{"Use CORSMiddleware", "use-corsmiddleware"},
		{"What's new in v2.0?", "whats-new-in-v20"},
		{"foo_bar-baz", "foo_bar-baz"},
		{"a  b", "a--b"},
		{"Déjà vu", "déjà-vu"},
		{"日本語のテキスト", "日本語のテキスト"},
		{"Привет, мир!", "привет-мир"},
		{"C++ & C#", "c--c"},
		{"emoji 🎉 party", "emoji--party"},
		{"(Optional) Step 1: Install", "optional-step-1-install"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := Slug(tt.in); got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestSluggerUnique(t *testing.T) {
	s := newSlugger()
	in := []string{"foo", "foo", "foo-1", "foo", "", "", "bar"}
	want := []string{"foo", "foo-1", "foo-1-1", "foo-2", "-1", "-2", "bar"}
	var got []string
	for _, a := range in {
		got = append(got, s.unique(a))
	}
	if !slices.Equal(got, want) {
		t.Errorf("unique(%q) = %q, want %q", in, got, want)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		wantTitle string
		wantDesc  string
		wantTags  []string
		wantOrder int
		wantLine  int // line of the first section
	}{
		{
			name:      "yaml",
			src:       "---\ntitle: Hello\ndescription: A page.\ntags: [a, b]\nsidebar_position: 4\n---\n\nBody.\n",
			wantTitle: "Hello", wantDesc: "A page.", wantTags: []string{"a", "b"}, wantOrder: 4, wantLine: 8,
		},
		{
			name:      "summary, keywords string, weight",
			src:       "---\ntitle: \"Quoted: title\"\nsummary: Short.\nkeywords: x, y ,z\nweight: 7\n---\nBody.\n",
			wantTitle: "Quoted: title", wantDesc: "Short.", wantTags: []string{"x", "y", "z"}, wantOrder: 7, wantLine: 7,
		},
		{
			name:      "nav_order and dots closer",
			src:       "---\nnav_order: 2\n...\n# Heading\n",
			wantTitle: "Heading", wantOrder: 2, wantLine: 4,
		},
		{
			name:      "order as string",
			src:       "---\norder: \"12\"\n---\n# T\n",
			wantTitle: "T", wantOrder: 12, wantLine: 4,
		},
		{
			name:      "toml",
			src:       "+++\ntitle = \"TOML page\"\ndescription = 'Lit'\nweight = 3\ntags = [\"go\", \"hugo\"]\n[params]\ntitle = \"ignored\"\n+++\nBody.\n",
			wantTitle: "TOML page", wantDesc: "Lit", wantTags: []string{"go", "hugo"}, wantOrder: 3, wantLine: 9,
		},
		{
			name:      "broken yaml is stripped",
			src:       "---\ntitle: [oops\n: :\n---\nBody.\n",
			wantTitle: "page", wantLine: 5,
		},
		{
			name:      "unclosed is not front matter",
			src:       "---\n\nBody.\n",
			wantTitle: "page", wantLine: 1,
		},
		{
			name:      "byte order mark",
			src:       "\ufeff---\ntitle: BOM\n---\nBody.\n",
			wantTitle: "BOM", wantLine: 4,
		},
		{
			name:      "crlf",
			src:       "---\r\ntitle: CRLF\r\n---\r\n\r\n## Sub\r\n",
			wantTitle: "CRLF", wantLine: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, "docs/page.md", tt.src)
			if doc.Title != tt.wantTitle {
				t.Errorf("got Title %q, want %q", doc.Title, tt.wantTitle)
			}
			if doc.Description != tt.wantDesc {
				t.Errorf("got Description %q, want %q", doc.Description, tt.wantDesc)
			}
			if !slices.Equal(doc.Tags, tt.wantTags) {
				t.Errorf("got Tags %q, want %q", doc.Tags, tt.wantTags)
			}
			if doc.Order != tt.wantOrder {
				t.Errorf("got Order %d, want %d", doc.Order, tt.wantOrder)
			}
			if len(doc.Sections) == 0 {
				t.Fatalf("got no sections")
			}
			if got := doc.Sections[0].Line; got != tt.wantLine {
				t.Errorf("got Line %d, want %d", got, tt.wantLine)
			}
			for _, s := range doc.Sections {
				if tt.name == "unclosed is not front matter" {
					break // the --- is a thematic break
				}
				if strings.Contains(s.Text, "---") || strings.Contains(s.Text, "+++") {
					t.Errorf("front matter leaked into section text %q", s.Text)
				}
			}
		})
	}
}

func TestTitle(t *testing.T) {
	tests := []struct{ path, src, want string }{
		{"docs/a.md", "---\ntitle: From FM\n---\n# From H1\n", "From FM"},
		{"docs/a.md", "Intro.\n\n## Sub\n\n# From `H1` *emph*\n\n# Second\n", "From H1 emph"},
		{"docs/getting-started.md", "No heading.\n", "getting-started"},
		{"docs/snake_case_name.mdx", "## Only H2\n", "snake_case_name"},
		{"lint/rules/prefer-const.md", "No heading.\n", "prefer-const"},
		{"docs/6.going-further/index.md", "Text.\n", "going-further"},
		{"docs/2.guide/1.intro.md", "Text.\n", "intro"},
		{"blog/2025-12-01-release.md", "Text.\n", "2025-12-01-release"},
		{"docs/1.0-notes.md", "Text.\n", "1.0-notes"},
		{"pages/common/less-than-more-than.md", "# <>\n\n> Redirect.\n", "<>"},
		{"pages/common/x.md", "# </>\n", "</>"},
		{"docs/guides/index.md", "Text.\n", "guides"},
		{"docs/deploy/README.md", "Text.\n", "deploy"},
		{"content/en/hosting/_index.md", "Text.\n", "hosting"},
		{"README.md", "Text.\n", "README"},
		{"docs/x.md", "# Title {/*title*/}\n", "Title"},
		{"docs/x.md", "# Title {#custom}\n", "Title"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.want, func(t *testing.T) {
			if got := mustSplit(t, tt.path, tt.src).Title; got != tt.want {
				t.Errorf("got Title %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHeadingFields(t *testing.T) {
	tests := []struct {
		name                               string
		src                                string
		wantHeading, wantTitle, wantAnchor string
		wantLevel                          int
	}{
		{"mdx anchor", "## Usage {/*usage*/}\n", "Usage {/*usage*/}", "Usage", "usage", 2},
		{"mdx anchor with code", "### `useState(initialState)` {/*usestate*/}\n", "`useState(initialState)` {/*usestate*/}", "useState(initialState)", "usestate", 3},
		{"attribute id", "## Foo {#bar}\n", "Foo {#bar}", "Foo", "bar", 2},
		{"code span", "## Use `CORSMiddleware`\n", "Use `CORSMiddleware`", "Use CORSMiddleware", "use-corsmiddleware", 2},
		{"closing hashes", "### Closed ###\n", "Closed", "Closed", "closed", 3},
		{"link and emphasis", "## See [the **docs**](https://x.dev)\n", "See [the **docs**](https://x.dev)", "See the docs", "see-the-docs", 2},
		{"escapes", "## 1\\. Install \\*now\\*\n", "1\\. Install \\*now\\*", "1. Install *now*", "1-install-now", 2},
		{"setext", "Setext two\n---\n", "Setext two", "Setext two", "setext-two", 2},
		{"indented in list", "- ## In a list\n", "In a list", "In a list", "in-a-list", 2},
		{"empty", "##\n", "", "", "-1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, "x.md", tt.src)
			if len(doc.Sections) != 1 {
				t.Fatalf("got %d sections, want 1: %+v", len(doc.Sections), doc.Sections)
			}
			s := doc.Sections[0]
			if s.Heading != tt.wantHeading {
				t.Errorf("got Heading %q, want %q", s.Heading, tt.wantHeading)
			}
			if s.Title != tt.wantTitle {
				t.Errorf("got Title %q, want %q", s.Title, tt.wantTitle)
			}
			if s.Anchor != tt.wantAnchor {
				t.Errorf("got Anchor %q, want %q", s.Anchor, tt.wantAnchor)
			}
			if s.Level != tt.wantLevel {
				t.Errorf("got Level %d, want %d", s.Level, tt.wantLevel)
			}
		})
	}
}

func TestDuplicateAnchors(t *testing.T) {
	src := "# Doc\n\n## Setup\n\n## Setup\n\n## Setup-1\n\n## Setup\n\n## Foo {#setup}\n"
	doc := mustSplit(t, "x.md", src)
	var got []string
	for _, s := range doc.Sections {
		got = append(got, s.Anchor)
	}
	want := []string{"doc", "setup", "setup-1", "setup-1-1", "setup-2", "setup-3"}
	if !slices.Equal(got, want) {
		t.Errorf("got anchors %q, want %q", got, want)
	}
}

func TestCleaning(t *testing.T) {
	tests := []struct {
		name string
		path string
		src  string
		want []string // section texts
	}{
		{
			name: "mdx imports and exports",
			path: "a.mdx",
			src:  "import A from './a';\nimport {\n  B,\n  C,\n} from \"b\";\nimport './side-effect.css'\n\nexport const meta = {\n  title: 'x',\n  nested: {a: {b: 1}},\n};\n\nexport default function Layout({children}) {\n  return <div>{children}</div>\n}\n\nText stays.\n",
			want: []string{"Text stays."},
		},
		{
			name: "esm in markdown only when clear",
			path: "a.md",
			src:  "import {useState} from 'react';\n\nimport is a word here.\n\nexport const x = 1;\n\nexports are fine too.\n",
			want: []string{"import is a word here.\n\nexports are fine too."},
		},
		{
			name: "import in a paragraph is text",
			path: "a.mdx",
			src:  "Some words\nimport this from 'that'\n",
			want: []string{"Some words\nimport this from 'that'"},
		},
		{
			name: "jsx tags dropped, children kept",
			path: "a.mdx",
			src:  "<Note>\n\nKeep **this**.\n\n</Note>\n\n<Foo bar=\"x\" baz={1} />\n\nA <CodeStep step={1}>current state</CodeStep> value.<br/>Next line.\n",
			want: []string{"Keep **this**.\n\nA current state value. Next line."},
		},
		{
			name: "multi-line tag with nested braces",
			path: "a.mdx",
			src:  "<Sandpack\n  options={{ editorHeight: 300, files: { '/a.js': `x}` } }}\n  title=\"a > b\"\n>\n\nInside.\n\n</Sandpack>\n",
			want: []string{"a > b\n\nInside."},
		},
		{
			name: "html tags",
			path: "a.md",
			src:  "<div class=\"x\">\n<img src=\"a.png\" alt=\"A\">\n<a href=\"https://x.dev\" target=\"_blank\">link text</a>\n</div>\n",
			want: []string{"A\nlink text"},
		},
		{
			name: "comments",
			path: "a.mdx",
			src:  "Before {/* inline */} after.\n\n{/*\n  multi\n  line\n*/}\n\n<!-- html\ncomment -->\n\nEnd.\n",
			want: []string{"Before  after.\n\nEnd."},
		},
		{
			name: "not tags",
			path: "a.md",
			src:  "If a < b and 3<4 or x <= y, see <https://example.com> and <me@example.com>. Code: `<Foo>` and ``<Bar baz=\"`\">``.\n",
			want: []string{"If a < b and 3<4 or x <= y, see <https://example.com> and <me@example.com>. Code: `<Foo>` and ``<Bar baz=\"`\">``."},
		},
		{
			name: "unclosed constructs are kept",
			path: "a.mdx",
			src:  "An <Unclosed tag\n\nand {/* no end\n\nand <!-- no end\n",
			want: []string{"An <Unclosed tag\n\nand {/* no end\n\nand <!-- no end"},
		},
		{
			name: "fences untouched, even indented in jsx (mdx dedents to three columns)",
			path: "a.mdx",
			src:  "<Tabs>\n  <Tab>\n    ```jsx\n    import X from 'x';\n    <Note>{/* kept */}</Note>\n    ```\n  </Tab>\n</Tabs>\n",
			want: []string{"   ```jsx\n   import X from 'x';\n   <Note>{/* kept */}</Note>\n   ```"},
		},
		{
			name: "fences untouched, even indented in markdown",
			path: "a.md",
			src:  "<Tabs>\n  <Tab>\n    ```jsx\n    import X from 'x';\n    <Note>{/* kept */}</Note>\n    ```\n  </Tab>\n</Tabs>\n",
			want: []string{"    ```jsx\n    import X from 'x';\n    <Note>{/* kept */}</Note>\n    ```"},
		},
		{
			name: "hugo shortcodes",
			path: "a.md",
			src:  "{{< new-in 0.140.0 />}}\n\n{{< details summary=\"See\" >}}\nThis is **bold**.\n{{< /details >}}\n\n{{% note %}}\nA note.\n{{% /note %}}\n\nInline {{< param x >}} gone.\n",
			want: []string{"This is **bold**.\n\nA note.\n\nInline  gone."},
		},
		{
			name: "fastapi admonitions",
			path: "a.md",
			src:  "/// tip | Optional title\n\nBody one.\n\n///\n\n/// warning\n\nBody two.\n\n///\n\n//// tab | Python 3.10+\n\nBody three.\n\n////\n\n/// note | \"Technical Details\"\n\nBody four.\n\n///\n",
			want: []string{"**Tip:** Optional title\n\nBody one.\n\n**Warning:**\n\nBody two.\n\n**Tab:** Python 3.10+\n\nBody three.\n\n**Note:** Technical Details\n\nBody four."},
		},
		{
			name: "docusaurus, vitepress and mdc admonitions",
			path: "a.md",
			src:  ":::tip Title\nBody one.\n:::\n\n::: warning\nBody two.\n:::\n\n:::caution[Deprecated]\nBody three.\n:::\n\n::::note{title=\"Nested\"}\nBody four.\n::::\n\n::read-more{to=\"/x\"}\nBody five.\n::\n",
			want: []string{"**Tip:** Title\nBody one.\n\n**Warning:**\nBody two.\n\n**Caution:** Deprecated\nBody three.\n\n**Note:** Nested\nBody four.\n\n**Read more:** (see /x)\nBody five."},
		},
		{
			name: "include directives",
			path: "a.md",
			src:  "{!../../../docs_src/x/tutorial001.py!}\n\n{* ../../docs_src/x/tutorial002.py hl[1:3] *}\n\n```Python\n{!../../../docs_src/x/tutorial003.py!}\n```\n",
			want: []string{"(example: docs_src/x/tutorial001.py)\n\n(example: docs_src/x/tutorial002.py)\n\n```Python\n{!../../../docs_src/x/tutorial003.py!}\n```"},
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

func TestCleanKeepsLines(t *testing.T) {
	src := "import {\n  a,\n} from 'x';\n\n<Foo\n  a=\"1\"\n/>\n<!--\n-->\n## Heading\n"
	out, _ := clean([]byte(src), true, true)
	if got, want := strings.Count(string(out), "\n"), strings.Count(src, "\n"); got != want {
		t.Errorf("got %d newlines, want %d", got, want)
	}
	doc := mustSplit(t, "a.mdx", src)
	if got := doc.Sections[0].Line; got != 10 {
		t.Errorf("got Line %d, want 10", got)
	}
}

func TestHeadingsInFencesAreNotSplit(t *testing.T) {
	src := "# Doc\n\n```bash\n# comment\n## not a heading\n```\n\n~~~\n# also not\n~~~\n\n    # indented code\n\nText.\n"
	doc := mustSplit(t, "x.md", src)
	if len(doc.Sections) != 1 {
		t.Fatalf("got %d sections, want 1", len(doc.Sections))
	}
	code := doc.Sections[0].Code
	if len(code) != 3 {
		t.Fatalf("got %d code blocks, want 3: %+v", len(code), code)
	}
	if got, want := code[0], (CodeBlock{Lang: "bash", Code: "# comment\n## not a heading"}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got, want := code[2].Code, "# indented code"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCodeLang(t *testing.T) {
	tests := []struct{ info, want string }{
		{"js {1,3}", "js"},
		{"ts title=\"x.ts\"", "ts"},
		{"Python hl_lines=\"2\"", "python"},
		{"{r}", ""},
		{"", ""},
		{"go{1}", "go"},
	}
	for _, tt := range tests {
		t.Run(tt.info, func(t *testing.T) {
			doc := mustSplit(t, "x.md", "```"+tt.info+"\ncode\n```\n")
			if got := doc.Sections[0].Code[0].Lang; got != tt.want {
				t.Errorf("got Lang %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTables(t *testing.T) {
	src := "## Options\n\n| Name | Meaning |\n|---|---|\n| `port` | the **port** to use |\n| host | [the host](https://x) |\n"
	doc := mustSplit(t, "x.md", src)
	s := doc.Sections[0]
	if want := "Options Name Meaning port the port to use host the host"; s.Prose != want {
		t.Errorf("got Prose %q, want %q", s.Prose, want)
	}
	if !slices.Equal(s.InlineCode, []string{"port"}) {
		t.Errorf("got InlineCode %q, want [port]", s.InlineCode)
	}
}

func TestHeadingPathAndParents(t *testing.T) {
	src := "Lead.\n\n# Doc\n\n## A\n\n### A1\n\n#### A1a\n\n## B\n\n#### B deep\n\n### B1\n\n# Other H1\n\n## C\n"
	doc := mustSplit(t, "x.md", src)
	type want struct {
		title  string
		parent int
		path   string
	}
	wants := []want{
		{"Doc", -1, "Doc"},
		{"Doc", -1, "Doc"},
		{"A", 1, "Doc/A"},
		{"A1", 2, "Doc/A/A1"},
		{"A1a", 3, "Doc/A/A1/A1a"},
		{"B", 1, "Doc/B"},
		{"B deep", 5, "Doc/B/B deep"},
		{"B1", 5, "Doc/B/B1"},
		{"Other H1", -1, "Doc/Other H1"},
		{"C", 8, "Doc/Other H1/C"},
	}
	if len(doc.Sections) != len(wants) {
		t.Fatalf("got %d sections, want %d", len(doc.Sections), len(wants))
	}
	for i, w := range wants {
		s := doc.Sections[i]
		if s.Title != w.title || s.Parent != w.parent || strings.Join(s.HeadingPath, "/") != w.path {
			t.Errorf("section %d: got (%q, %d, %q), want (%q, %d, %q)", i, s.Title, s.Parent, strings.Join(s.HeadingPath, "/"), w.title, w.parent, w.path)
		}
	}
}

func TestLines(t *testing.T) {
	src := "---\ntitle: T\ntags:\n  - a\n---\n\n<Intro>\n\nLead text.\n\n</Intro>\n\n## First\n\ntext\n\nSecond\n------\n"
	doc := mustSplit(t, "x.mdx", src)
	var got []int
	for _, s := range doc.Sections {
		got = append(got, s.Line)
	}
	if want := []int{9, 13, 17}; !slices.Equal(got, want) {
		t.Errorf("got lines %v, want %v", got, want)
	}
}

func TestChunking(t *testing.T) {
	para := strings.Repeat("word ", 40) // 40 tokens
	code := "```go\n" + strings.Repeat("x := 1\n", 40) + "```\n"
	src := "# Doc\n\n## Big\n\n" + para + "\n\n" + para + "\n\n" + code + "\n" + para + "\n\n### Child\n\nSmall.\n"
	doc := mustSplitOpts(t, "x.md", src, Options{MaxSectionTokens: 100})
	var big []Section
	for _, s := range doc.Sections {
		if s.Title == "Big" {
			big = append(big, s)
		}
	}
	if len(big) != 3 {
		t.Fatalf("got %d chunks of Big, want 3: %q", len(big), texts(doc))
	}
	for i, s := range big {
		if s.Part != i || s.Parts != 3 || s.Anchor != "big" || s.Parent != 0 || s.Level != 2 {
			t.Errorf("chunk %d: got Part %d Parts %d Anchor %q Parent %d Level %d", i, s.Part, s.Parts, s.Anchor, s.Parent, s.Level)
		}
		if !strings.HasPrefix(s.Text, "## Big\n\n") {
			t.Errorf("chunk %d does not start with its heading: %q", i, s.Text)
		}
	}
	if len(big[1].Code) != 1 || strings.Count(big[1].Code[0].Code, "x := 1") != 40 {
		t.Errorf("the code block was split or misplaced: %+v", big[1].Code)
	}
	if got, want := big[1].Line, 9; got != want {
		t.Errorf("got chunk 1 Line %d, want %d", got, want)
	}
	child := doc.Sections[len(doc.Sections)-1]
	if child.Title != "Child" || doc.Sections[child.Parent].Title != "Big" || doc.Sections[child.Parent].Part != 0 {
		t.Errorf("got child %q with parent %d, want the first chunk of Big", child.Title, child.Parent)
	}

	// Without a limit nothing is chunked.
	doc = mustSplitOpts(t, "x.md", src, Options{})
	if got := len(doc.Sections); got != 3 {
		t.Errorf("got %d sections without a limit, want 3", got)
	}
}

func TestEmptyAndEdgeInputs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int // sections
	}{
		{"empty", "", 0},
		{"whitespace", " \n\n\t\n", 0},
		{"front matter only", "---\ntitle: x\n---\n", 0},
		{"only dropped markup", "import A from 'a'\n\n<A />\n", 0},
		{"whitespace before heading", "\n\n   \n# H\n", 1},
		{"no trailing newline", "# H\ntext", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := mustSplit(t, "x.mdx", tt.src)
			if got := len(doc.Sections); got != tt.want {
				t.Errorf("got %d sections, want %d: %q", got, tt.want, texts(doc))
			}
			if doc.Sections == nil {
				t.Errorf("got nil Sections, want an empty slice")
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	_, err := Split("x.md", []byte("# Bad \xff\n"), DefaultOptions())
	if !errors.Is(err, ErrInvalidUTF8) {
		t.Errorf("got error %v, want ErrInvalidUTF8", err)
	}
}

func TestConcurrentSplit(t *testing.T) {
	src := []byte("# Doc\n\n## A {/*a*/}\n\n<Note>text</Note>\n\n```js\ncode\n```\n")
	want, err := Split("x.md", src, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		// Both goldmark instances: plain markdown and MDX syntax.
		path := []string{"x.md", "x.mdx"}[i%2]
		wg.Go(func() {
			for range 50 {
				got, err := Split(path, src, DefaultOptions())
				if err != nil || len(got.Sections) != len(want.Sections) || got.Sections[1].Text != want.Sections[1].Text {
					t.Errorf("concurrent Split differs: %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}
