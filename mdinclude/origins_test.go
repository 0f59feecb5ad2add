package mdinclude

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/markdown"
)

// originsRepo is a repository whose included files hold headings, one
// for each kind of directive, and files that include others.
func originsRepo() fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"docs/parts/intro.md":       f("## Intro\n\nIntro text.\n"),
		"docs/parts/outer.md":       f("## Outer\n\n{!inner.md!}\n\nOuter after.\n"),
		"docs/parts/inner.md":       f("### Inner\n\nInner text.\n"),
		"docs/parts/title.md":       f("Title words\n"),
		"docs/parts/two.md":         f("first\nsecond\n"),
		"docs/parts/blank.md":       f("text\n\n\n"),
		"docs/parts/empty.md":       f(""),
		"docs/parts/snip.md":        f("## Snip\nsnip text\n--8<-- [start:usage]\n## Usage\nuse it\n--8<-- [end:usage]\n"),
		"docs/parts/outer-snip.md":  f("## Via snippets\n--8<-- \"docs/parts/inner.md\"\n"),
		"docs/app.py":               f("# not a heading\nprint(1)\n"),
		"site/.vitepress/config.ts": f("export default {}\n"),
		"site/guide/parts/h.md":     f("---\ntitle: x\n---\n## Included\n\ntext\n<!-- #region r -->\n## Region\n<!-- #endregion r -->\n"),
		"site/guide/code.ts":        f("// # comment\nconst x = 1\n"),
		"book/src/h.md":             f("## Book part\n\nbook text\n"),
		"book/src/main.rs":          f("fn main() {}\n"),
		"web/docs/_part.mdx":        f("---\ntitle: hidden\n---\n## Partial\n\n{/* c */}\npartial text\n"),
	}
}

// origin renders each line of r.Text after the file it is written in
// ("." for the page's own), a line a row.
func origin(r *Result) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(string(r.Text), "\n"), "\n") {
		f := r.File(i + 1)
		if f == "" {
			f = "."
		}
		fmt.Fprintf(&b, "%s | %s\n", f, l)
	}
	return b.String()
}

func TestFiles(t *testing.T) {
	cases := []struct{ name, page, src, want string }{
		{
			name: "mdx_include, then a page line",
			page: "docs/page.md",
			src:  "# Page\n\n{!parts/intro.md!}\n## Own\n",
			want: ". | # Page\n. | \ndocs/parts/intro.md | ## Intro\ndocs/parts/intro.md | \ndocs/parts/intro.md | Intro text.\n. | ## Own\n",
		},
		{
			name: "nested includes: each line its innermost file",
			page: "docs/page.md",
			src:  "{!parts/outer.md!}\nafter\n",
			want: "docs/parts/outer.md | ## Outer\ndocs/parts/outer.md | \ndocs/parts/inner.md | ### Inner\ndocs/parts/inner.md | \ndocs/parts/inner.md | Inner text.\ndocs/parts/outer.md | \ndocs/parts/outer.md | Outer after.\n. | after\n",
		},
		{
			name: "indented, in a list, and a line of the page between",
			page: "docs/page.md",
			src:  "- item\n\n    {!parts/two.md!}\n  text\n    --8<-- \"docs/parts/two.md\"\n",
			want: ". | - item\n. | \ndocs/parts/two.md |     first\ndocs/parts/two.md |     second\n. |   text\ndocs/parts/two.md |     first\ndocs/parts/two.md |     second\n",
		},
		{
			name: "a directive alone on its line gives its blank lines to its file",
			page: "docs/page.md",
			src:  "  {!parts/blank.md!}\n{!parts/empty.md!}\n",
			want: "docs/parts/blank.md |   text\ndocs/parts/blank.md | \ndocs/parts/blank.md | \ndocs/parts/empty.md | \n",
		},
		{
			name: "a directive sharing its line with text of another file: the mixed lines are the page's",
			page: "docs/page.md",
			src:  "## {!parts/title.md!}\nSee {!parts/two.md!} here\n{!parts/title.md!}{!parts/two.md!}\n{!parts/title.md!} {!parts/title.md!}\n",
			want: ". | ## Title words\n. | See first\n. | second here\n. | Title wordsfirst\ndocs/parts/two.md | second\ndocs/parts/title.md | Title words Title words\n",
		},
		{
			name: "escaped, missing and cyclic directives are the page's",
			page: "docs/parts/outer.md",
			src:  "\\{!parts/intro.md!}\n{!gone.md!}\n{!outer.md!}\n{!intro.md!}\n",
			want: ". | {!parts/intro.md!}\n. | {!gone.md!}\n. | {!outer.md!}\ndocs/parts/intro.md | ## Intro\ndocs/parts/intro.md | \ndocs/parts/intro.md | Intro text.\n",
		},
		{
			name: "snippets: inline, a block, a section and lines, nested",
			page: "docs/page.md",
			src: "--8<-- \"docs/parts/snip.md:usage\"\n--8<--\ndocs/parts/intro.md:1:1\n\ndocs/parts/snip.md:4:5\n--8<--\n" +
				"--8<-- \"docs/parts/outer-snip.md\"\n--8<-- \"docs/gone.md\"\n",
			want: "docs/parts/snip.md | ## Usage\ndocs/parts/snip.md | use it\ndocs/parts/intro.md | ## Intro\n. | \ndocs/parts/snip.md | ## Usage\ndocs/parts/snip.md | use it\n" +
				"docs/parts/outer-snip.md | ## Via snippets\ndocs/parts/inner.md | ### Inner\ndocs/parts/inner.md | \ndocs/parts/inner.md | Inner text.\n. | (snippet: docs/gone.md)\n",
		},
		{
			name: "VitePress: a markdown include, a region, and a code import",
			page: "site/guide/page.md",
			src:  "<!--@include: ./parts/h.md{4,4}-->\n<!--@include: ./parts/h.md#r-->\n<<< ./code.ts\n# Own\n",
			want: "site/guide/parts/h.md | ## Included\nsite/guide/parts/h.md | ## Region\nsite/guide/code.ts | ```typescript\nsite/guide/code.ts | // # comment\nsite/guide/code.ts | const x = 1\nsite/guide/code.ts | ```\n. | # Own\n",
		},
		{
			name: "mdBook: an include and a playground",
			page: "book/src/chapter.md",
			src:  "{{#include h.md:1}}\n{{#playground main.rs}}\n# Own\n",
			want: "book/src/h.md | ## Book part\nbook/src/main.rs | ```rust\nbook/src/main.rs | fn main() {}\nbook/src/main.rs | ```\n. | # Own\n",
		},
		{
			name: "MDX partial, indented",
			page: "web/docs/page.mdx",
			src:  "import Part from './_part.mdx';\n\n  <Part />\n# Own\n",
			want: ". | import Part from './_part.mdx';\n. | \nweb/docs/_part.mdx |   ## Partial\nweb/docs/_part.mdx | \nweb/docs/_part.mdx |   {/* c */}\nweb/docs/_part.mdx |   partial text\n. | # Own\n",
		},
		{
			name: "code included into a fence",
			page: "docs/page.md",
			src:  "```python\n{!app.py!}\n```\n",
			want: ". | ```python\ndocs/app.py | # not a heading\ndocs/app.py | print(1)\n. | ```\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Expand(c.page, []byte(c.src), originsRepo())
			if r.Files == nil {
				t.Fatalf("no files for %q:\n%s", c.src, r.Text)
			}
			if len(r.Files) != len(r.Lines) {
				t.Fatalf("%d files for %d lines", len(r.Files), len(r.Lines))
			}
			if got := origin(r); got != c.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, c.want)
			}
		})
	}
}

// TestFilesNil checks that Files is nil unless a line comes from an
// included file: a page without directives, and one whose directives are
// all escaped or missing, allocate none.
func TestFilesNil(t *testing.T) {
	for _, src := range []string{"# Plain\n\ntext\n", "\\{!parts/intro.md!}\n{!gone.md!}\n", "a\n--8<-- \"docs/parts/empty.md\"\n"} {
		r := Expand("docs/page.md", []byte(src), originsRepo())
		if r.Files != nil {
			t.Errorf("%q: files %q, want nil", src, r.Files)
		}
	}
	repo, page := originsRepo(), []byte("# Plain\n\ntext {x}\n")
	if n := testing.AllocsPerRun(100, func() {
		r := Expand("docs/page.md", page, repo)
		if r.Files != nil {
			t.Fatal("files for a plain page")
		}
	}); n > 1 {
		t.Errorf("%v allocations for a page without directives, want the Result's 1", n)
	}
}

// TestMisalignedOriginsGiveNone checks the fallback: a piece whose
// origins do not cover its lines (a bug) marks the writer and the joiner
// misaligned, and a page whose origins do not cover its text reports no
// files rather than wrong ones.
func TestMisalignedOriginsGiveNone(t *testing.T) {
	var w writer
	w.piece(piece{text: "a\nb", from: origins{{file: "x.md", n: 1}}}, "page.md")
	if !w.misaligned || w.from.lines() != 2 {
		t.Errorf("writer: misaligned %v, %d lines", w.misaligned, w.from.lines())
	}
	j := newJoiner("page.md")
	j.write(piece{text: "a\nb\nc", from: origins{{file: "x.md", n: 2}}})
	if p := j.done(); !j.misaligned || p.from.lines() != 3 {
		t.Errorf("joiner: misaligned %v, %v", j.misaligned, p.from)
	}
	if f := pageFiles(origins{{file: "page.md", n: 2}}, "page.md", 2); f != nil {
		t.Errorf("the page's own lines: %q, want nil", f)
	}
	if f := pageFiles(origins{{file: "x.md", n: 1}}, "page.md", 2); len(f) != 2 || f[0] != "x.md" || f[1] != "" {
		t.Errorf("an empty page's text: %q", f)
	}
}

// TestFixLinesSetsSource checks the sections of a page split from its
// expanded text: a heading an include brought names its file, innermost
// first, on every chunk of its section; the page's own headings and the
// section before the first heading name none; lines are the page's.
func TestFixLinesSetsSource(t *testing.T) {
	repo := originsRepo()
	long := strings.Repeat("Many words to make the section long enough to split. ", 40)
	repo["docs/parts/long.md"] = &fstest.MapFile{Data: []byte("## Long\n\n" + long + "\n\n" + long + "\n\n" + long + "\n")}
	src := "Before.\n\n# Page\n\n{!parts/outer.md!}\n\n## Own\n\n--8<-- \"docs/parts/long.md\"\n\n## {!parts/title.md!}\n\nEnd.\n"
	r := Expand("docs/page.md", []byte(src), repo)
	doc, err := markdown.Split("docs/page.md", r.Text, markdown.Options{MaxSectionTokens: 200})
	if err != nil {
		t.Fatal(err)
	}
	r.FixLines(doc)
	var got []string
	for _, s := range doc.Sections {
		got = append(got, fmt.Sprintf("%s/%d line %d: %q", s.Title, s.Part, s.Line, s.Source))
	}
	longParts := 0
	for _, s := range doc.Sections {
		if s.Title == "Long" {
			longParts++
		}
	}
	if longParts < 2 {
		t.Fatalf("## Long was not split: %s", strings.Join(got, "\n"))
	}
	want := []string{
		`Page/0 line 1: ""`,
		`Page/0 line 3: ""`,
		`Outer/0 line 5: "docs/parts/outer.md"`,
		`Inner/0 line 5: "docs/parts/inner.md"`,
		`Own/0 line 7: ""`,
	}
	for i := range longParts {
		want = append(want, fmt.Sprintf(`Long/%d line 9: "docs/parts/long.md"`, i))
	}
	want = append(want, `Title words/0 line 11: ""`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
