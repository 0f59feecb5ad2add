package mdinclude

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// repo is a repository laid out as the generators' sites are: fastapi's
// docs/en/docs pages including docs_src/ files from a base folder above
// them, a VitePress site under site/ and an mdBook under book/.
func repo() fstest.MapFS {
	f := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	return fstest.MapFS{
		"docs_src/app.py":                   f("from fastapi import FastAPI\n\napp = FastAPI()\n"),
		"docs/en/docs/shared.md":            f("Shared **text**.\n\n{!../../../docs_src/app.py!}\n"),
		"docs/en/docs/self.md":              f("{!self.md!}\n"),
		"docs/en/docs/loop/a.md":            f("a {!b.md!}\n"),
		"docs/en/docs/loop/b.md":            f("b {!a.md!}\n"),
		"snippets/note.md":                  f("line one\nline two\nline three\n"),
		"snippets/empty.md":                 f(""),
		"snippets/sections.md":              f("top\n--8<-- [start:usage]\nuse it\n--8<-- [end:usage]\nbottom\n"),
		"site/.vitepress/config.ts":         f("export default {}\n"),
		"site/guide/deploy.yaml":            f("# header\n#region content\nname: Deploy\non: push\n#endregion content\n"),
		"site/guide/parts/basics.md":        f("one\ntwo\nthree\n"),
		"site/guide/parts/list.md":          f("- step\n\n  <!-- #region more -->\n      code, in the item\n  <!-- #endregion more -->\n"),
		"site/guide/parts/matter.md":        f("---\ntitle: Part\n---\n# Part\n\ntext\n"),
		"site/snippets/code.ts":             f("// #region snippet\n  const x = 1\n  const y = 2\n// #endregion snippet\nexport {}\n"),
		"site/snippets/fences.md":           f("```js\nx\n```\n"),
		"book/src/listing.rs":               f("// ANCHOR: main\nfn main() {}\n// ANCHOR_END: main\nfn other() {}\n"),
		"book/src/chapter_1.md":             f("# Chapter\n"),
		"web/docusaurus.config.ts":          f("export default {}\n"),
		"web/docs/_install.mdx":             f("---\ntitle: hidden\n---\nRun `npm i x`.\n\nimport Note from './_note.md';\n\n<Note />\n"),
		"web/docs/_note.md":                 f("A note."),
		"web/shared/_common.md":             f("Common text.\n"),
		"docs/en/docs/tutorial/placeholder": f(""),
	}
}

func TestExpand(t *testing.T) {
	cases := []struct {
		name, page, src, want string
		dropped               []string // "directive target: reason"
	}{
		{
			name: "mdx_include in a fence, from a base folder above the page",
			page: "docs/en/docs/tutorial/first.md",
			src:  "# First\n\n```Python\n{!> ../../../docs_src/app.py!}\n```\n",
			want: "# First\n\n```Python\nfrom fastapi import FastAPI\n\napp = FastAPI()\n```\n",
		},
		{
			name: "mdx_include of markdown is recursive",
			page: "docs/en/docs/index.md",
			src:  "{!shared.md!}\n",
			want: "Shared **text**.\n\nfrom fastapi import FastAPI\n\napp = FastAPI()\n",
		},
		{
			name: "mdx_include of some lines",
			page: "docs/en/docs/index.md",
			src:  "{!../../../docs_src/app.py [ln:3]!}\n{! ../../../docs_src/app.py [ln:1-1, 3-] !}\n{!../../../docs_src/app.py [ln:2-3]!}\n",
			want: "app = FastAPI()\nfrom fastapi import FastAPI\napp = FastAPI()\n\napp = FastAPI()\n",
		},
		{
			name: "mdx_include with - does not recurse",
			page: "docs/en/docs/index.md",
			src:  "{!- shared.md !}\n",
			want: "Shared **text**.\n\n{!../../../docs_src/app.py!}\n",
		},
		{
			name: "mdx_include escaped, missing, remote and cyclic",
			page: "docs/en/docs/loop/a.md",
			src:  "\\{!x.md!} {!gone.py!} {!https://example.com/x.md!}\n{!b.md!}\n",
			want: "{!x.md!} {!gone.py!} {!https://example.com/x.md!}\nb {!a.md!}\n",
			dropped: []string{
				"mdx_include gone.py: missing from the repository",
				"mdx_include https://example.com/x.md: a URL: remote files are not fetched",
				"mdx_include a.md: an include cycle",
			},
		},
		{
			name:    "a page including itself",
			page:    "docs/en/docs/self.md",
			src:     "{!self.md!}\n",
			want:    "{!self.md!}\n",
			dropped: []string{"mdx_include self.md: an include cycle"},
		},
		{
			name: "mdx_include within a list keeps the item's indentation",
			page: "docs/en/docs/index.md",
			src:  "* item\n\n    {!../../../docs_src/app.py!}\n",
			want: "* item\n\n    from fastapi import FastAPI\n\n    app = FastAPI()\n",
		},
		{
			name: "snippets: inline, indented, ranges and escapes",
			page: "docs/index.md",
			src: "--8<-- \"snippets/note.md\"\n" +
				"!!! note\n    --8<-- \"snippets/note.md:2:3\"\n" +
				"--8<-- 'snippets/note.md::1'\n" +
				"--8<-- \"snippets/note.md:3\"\n" +
				";--8<-- \"snippets/note.md\"\n",
			want: "line one\nline two\nline three\n" +
				"!!! note\n    line two\n    line three\n" +
				"line one\n" +
				"line three\n" +
				"--8<-- \"snippets/note.md\"\n",
		},
		{
			// pymdown-extensions 10.13: ranges after commas, in their
			// order, and numbers counted from the end, which count the
			// empty line after the file's final newline.
			name: "snippets: several ranges and lines from the end",
			page: "docs/index.md",
			src: "--8<-- \"snippets/note.md:3:3,1:1\"\n" +
				"--8<-- \"snippets/note.md:-2\"\n" +
				"--8<--\nsnippets/note.md::-3,:1\n--8<--\n" +
				"--8<-- \"snippets/note.md:-9:-5,-9:-4\"\n",
			want: "line three\nline one\n" +
				"line three\n" +
				"line one\nline two\nline one\n" +
				"line one\n",
		},
		{
			name: "snippets: a block of paths, a section, a commented path",
			page: "docs/index.md",
			src:  "--8<--\nsnippets/note.md:1:1\n\n;snippets/note.md\nsnippets/sections.md:usage\n--8<--\nafter\n",
			want: "line one\n\nuse it\nafter\n",
		},
		{
			name: "snippets: a whole file without its section markers",
			page: "docs/index.md",
			src:  "--8<-- \"snippets/sections.md\"\n",
			want: "top\nuse it\nbottom\n",
		},
		{
			name:    "snippets: an empty file, a missing section and lines past the end write no line",
			page:    "docs/index.md",
			src:     "a\n--8<-- \"snippets/empty.md\"\n--8<-- \"snippets/note.md:9:12\"\n--8<--\nsnippets/empty.md\nsnippets/sections.md:none\n--8<--\nb\n",
			want:    "a\nb\n",
			dropped: []string{"snippets snippets/sections.md:none: no such region in the file"},
		},
		{
			name: "snippets: a block never closed is text",
			page: "docs/index.md",
			src:  "--8<--\nsnippets/note.md\n",
			want: "--8<--\nsnippets/note.md\n",
		},
		{
			name:    "snippets: a missing file leaves its path",
			page:    "docs/index.md",
			src:     "  --8<-- \"snippets/gone.md\"\n",
			want:    "  (snippet: snippets/gone.md)\n",
			dropped: []string{"snippets snippets/gone.md: missing from the repository"},
		},
		{
			name: "VitePress code import: a region of a relative file in a list, with a title",
			page: "site/guide/static-deploy.md",
			src:  "3. Create it:\n\n   <<< ./deploy.yaml#content [.github/workflows/deploy.yml]\n",
			want: "3. Create it:\n\n   ```yaml [.github/workflows/deploy.yml]\n   name: Deploy\n   on: push\n   ```\n",
		},
		{
			name: "VitePress code import: @/ is the site root; region dedented; language and highlight",
			page: "site/guide/deep/page.md",
			src:  "<<< @/snippets/code.ts#snippet{1 js twoslash}\n<<< @/snippets/code.ts{2}\n<<< @/snippets/code.ts#snippet{ts:line-numbers}\n",
			want: "```js\nconst x = 1\nconst y = 2\n```\n" +
				"```typescript\n// #region snippet\n  const x = 1\n  const y = 2\n// #endregion snippet\nexport {}\n```\n" +
				"```ts\nconst x = 1\nconst y = 2\n```\n",
		},
		{
			name: "VitePress code import: a fence longer than the file's; none inside a fence",
			page: "site/index.md",
			src:  "<<< ./snippets/fences.md\n```\n<<< ./snippets/fences.md\n```\n",
			want: "````markdown\n```js\nx\n```\n````\n```\n<<< ./snippets/fences.md\n```\n",
		},
		{
			name:    "VitePress code import: missing file or region is left as written",
			page:    "site/index.md",
			src:     "<<< ./gone.ts\n<<< @/snippets/code.ts#nope\n",
			want:    "<<< ./gone.ts\n<<< @/snippets/code.ts#nope\n",
			dropped: []string{"vitepress ./gone.ts: missing from the repository", "vitepress @/snippets/code.ts: no such region in the file"},
		},
		{
			name: "VitePress markdown include with a line range",
			page: "site/guide/index.md",
			src:  "<!--@include: ./parts/basics.md{2,3}-->\n<!-- @include: ./parts/basics.md{,1} -->\n",
			want: "two\nthree\none\n",
		},
		{
			name: "VitePress markdown include without its front matter, unless lines are taken",
			page: "site/guide/index.md",
			src:  "<!--@include: ./parts/matter.md-->\n<!--@include: ./parts/matter.md{2,2}-->\n",
			want: "# Part\n\ntext\ntitle: Part\n",
		},
		{
			name: "VitePress markdown include of a region keeps its indentation",
			page: "site/guide/index.md",
			src:  "<!--@include: ./parts/list.md#more-->\n",
			want: "      code, in the item\n",
		},
		{
			name: "mdBook: whole file without anchors, lines, anchor, playground, escape",
			page: "book/src/chapter_2.md",
			src: "```rust\n{{#include listing.rs}}\n```\n" +
				"{{#include listing.rs:2}}\n{{#include listing.rs:2:2}}\n{{#include listing.rs::2}}\n" +
				"{{#rustdoc_include listing.rs:main}}\n" +
				"{{#playground listing.rs:main editable}}\n" +
				"\\{{#include listing.rs}}\n",
			want: "```rust\nfn main() {}\nfn other() {}\n```\n" +
				"fn main() {}\nfn main() {}\nfn main() {}\n" +
				"fn main() {}\n" +
				"```rust,editable\nfn main() {}\n```\n" +
				"{{#include listing.rs}}\n",
		},
		{
			name: "MDX partials: imported and used, nested, @site/, indented",
			page: "web/docs/guide/setup.mdx",
			src: "import Install from '../_install.mdx';\nimport Common from \"@site/shared/_common.md\"\n\n# Setup\n\n<Install />\n" +
				"<Tabs>\n  <Common prop=\"x\"/>\n</Tabs>\n",
			want: "import Install from '../_install.mdx';\nimport Common from \"@site/shared/_common.md\"\n\n# Setup\n\n" +
				"Run `npm i x`.\n\nimport Note from './_note.md';\n\nA note.\n" +
				"<Tabs>\n  Common text.\n</Tabs>\n",
		},
		{
			name:    "MDX partials: not imported, in a fence, or missing",
			page:    "web/docs/page.mdx",
			src:     "import Gone from './_gone.mdx';\n\n<Other />\n```\n<Gone />\n```\n<Gone />\n",
			want:    "import Gone from './_gone.mdx';\n\n<Other />\n```\n<Gone />\n```\n<Gone />\n",
			dropped: []string{"mdx ./_gone.mdx: missing from the repository"},
		},
		{
			name:    "mdBook: paths are the file's own folder's",
			page:    "book/src/chapter_2.md",
			src:     "{{#include ../../snippets/note.md}}\n{{#include ../../../x.md}}\n",
			want:    "line one\nline two\nline three\n{{#include ../../../x.md}}\n",
			dropped: []string{"mdbook ../../../x.md: outside the repository"},
		},
		{
			name: "mdBook: blanks between {{ and #",
			page: "book/src/chapter_2.md",
			src:  "{{ #include listing.rs:2 }}\n",
			want: "fn main() {}\n",
		},
		{
			name: "mdBook: a link of blanks only names no file and is text",
			page: "book/src/chapter_2.md",
			src:  "{{#include  }} {{#playground \t }}\n{{#include listing.rs:2}}\n",
			want: "{{#include  }} {{#playground \t }}\nfn main() {}\n",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Expand(c.page, []byte(c.src), repo())
			if got := string(r.Text); got != c.want {
				t.Errorf("text:\n%s\nwant:\n%s", got, c.want)
			}
			var dropped []string
			for _, d := range r.Dropped {
				dropped = append(dropped, d.Directive+" "+d.Target+": "+d.Reason)
			}
			if strings.Join(dropped, "\n") != strings.Join(c.dropped, "\n") {
				t.Errorf("dropped:\n%s\nwant:\n%s", strings.Join(dropped, "\n"), strings.Join(c.dropped, "\n"))
			}
			checkLines(t, c.src, r)
		})
	}
}

// checkLines checks the line map's shape: one page line for each line of
// the text, in order, each a line of the page.
func checkLines(t *testing.T, src string, r *Result) {
	t.Helper()
	if r.Lines == nil {
		if string(r.Text) != src {
			t.Errorf("text changed without a line map")
		}
		return
	}
	pageLines := strings.Count(strings.TrimSuffix(src, "\n"), "\n") + 1
	if n := strings.Count(strings.TrimSuffix(string(r.Text), "\n"), "\n") + 1; len(r.Lines) != n {
		t.Fatalf("%d mapped lines for %d lines of text", len(r.Lines), n)
	}
	for i, l := range r.Lines {
		if l < 1 || l > pageLines || (i > 0 && l < r.Lines[i-1]) {
			t.Fatalf("line map %v is not in order within the page's %d lines", r.Lines, pageLines)
		}
	}
}

func TestLinesMapToTheDirective(t *testing.T) {
	src := "# A\n{!../../../docs_src/app.py!}\n## B\n<<< ./gone.ts\n"
	r := Expand("docs/en/docs/a.md", []byte(src), repo())
	// app.py's three lines stand for the page's line 2.
	want := []int{1, 2, 2, 2, 3, 4}
	if len(r.Lines) != len(want) {
		t.Fatalf("lines %v, want %v", r.Lines, want)
	}
	for i := range want {
		if r.Lines[i] != want[i] {
			t.Fatalf("lines %v, want %v", r.Lines, want)
		}
	}
	if got := r.PageLine(5); got != 3 {
		t.Errorf("PageLine(5) = %d, want 3 (## B)", got)
	}
	if got := r.Dropped[0].Line; got != 4 {
		t.Errorf("dropped line %d, want 4", got)
	}
}

func TestPagesWithoutDirectivesAreUntouched(t *testing.T) {
	for _, src := range []string{"# Plain\n\ntext `{x}`\n", "a {!gone!} b\n", "\xff{!x!}\n"} {
		r := Expand("docs/a.md", []byte(src), repo())
		if string(r.Text) != src || r.Lines != nil {
			t.Errorf("%q became %q (lines %v)", src, r.Text, r.Lines)
		}
	}
	if r := Expand("docs/a.md", []byte("{!b.md!}"), nil); string(r.Text) != "{!b.md!}" || r.Dropped != nil {
		t.Errorf("without a repository: %q %v", r.Text, r.Dropped)
	}
}

func TestNoTrailingNewlineKept(t *testing.T) {
	r := Expand("docs/index.md", []byte("--8<-- \"snippets/note.md:1:1\""), repo())
	if got := string(r.Text); got != "line one" {
		t.Errorf("got %q", got)
	}
	checkLines(t, "--8<-- \"snippets/note.md:1:1\"", r)
}

func TestBounds(t *testing.T) {
	fsys := fstest.MapFS{}
	// A chain of includes deeper than maxDepth stops at it.
	for i := range maxDepth + 3 {
		fsys[name(i)] = &fstest.MapFile{Data: []byte("x" + name(i) + " {!" + name(i+1) + "!}\n")}
	}
	r := Expand("page.md", []byte("{!"+name(0)+"!}\n"), fsys)
	if len(r.Dropped) != 1 || r.Dropped[0].Reason != errTooDeep.Error() {
		t.Errorf("deep chain: dropped %v", r.Dropped)
	}
	if got := strings.Count(string(r.Text), "x"); got != maxDepth {
		t.Errorf("deep chain: %d files included, want %d", got, maxDepth)
	}

	// A page including one large file many times stops at maxBytes.
	big := strings.Repeat("y", 5<<20)
	fsys = fstest.MapFS{"big.txt": {Data: []byte(big)}, "bad.txt": {Data: []byte("\xff")}}
	r = Expand("page.md", []byte("{!bad.txt!}\n"+strings.Repeat("{!big.txt!}\n", 6)), fsys)
	reasons := map[string]int{}
	for _, d := range r.Dropped {
		reasons[d.Reason]++
	}
	if reasons[errTooMuch.Error()] != 3 || reasons[errNotUTF8.Error()] != 1 {
		t.Errorf("budget: dropped %v", r.Dropped)
	}
}

func name(i int) string { return "f" + strings.Repeat("i", i) + ".md" }

// TestBoundsOfWhatIsWritten checks that what a page's directives write,
// not only the files they read, stays within the budget: indentation put
// before every line of an included file, a slice naming the file again
// and again, and includes of empty files, each small on the page.
func TestBoundsOfWhatIsWritten(t *testing.T) {
	fsys := fstest.MapFS{
		"f.md": {Data: []byte(strings.Repeat("x\n", 2000))},
		"e.md": {Data: nil},
		"b.md": {Data: []byte(strings.Repeat("{!e.md!}", 200))},
	}
	for _, page := range []string{
		strings.Repeat(strings.Repeat(" ", 4000)+"{!f.md!}\n", 5),
		strings.Repeat(strings.Repeat(" ", 4000)+"--8<-- \"f.md\"\n", 5),
		strings.Repeat(strings.Repeat(" ", 4000)+"<<< ./f.md\n", 5),
		"{!f.md [ln:" + strings.Repeat("1-,", 6000) + "]!}\n",
		strings.Repeat("{!b.md!}", 1000),
	} {
		r := Expand("p.md", []byte(page), fsys)
		if len(r.Text) > maxBytes+len(page) {
			t.Errorf("a page of %d bytes became %d bytes", len(page), len(r.Text))
		}
		if len(r.Dropped) == 0 || r.Dropped[len(r.Dropped)-1].Reason != errTooMuch.Error() {
			t.Errorf("a page of %d bytes: dropped %v, want the last for too much text", len(page), len(r.Dropped))
		}
	}
}

// TestOverlappingDirectives checks a line of directives of one kind, each
// overlapping the next match of another kind that runs to the line's end:
// each is taken, and the other kind's match passed over.
// BenchmarkOverlappingDirectives measures that this takes time linear in
// the line (searching the other kind again after each directive took 12 s
// for this 64 kB line).
func TestOverlappingDirectives(t *testing.T) {
	page := overlappingDirectives(4000)
	r := Expand("p.md", []byte(page), repo())
	if string(r.Text) != page || len(r.Dropped) != 4000 {
		t.Errorf("got %d bytes, %d dropped", len(r.Text), len(r.Dropped))
	}
}

func BenchmarkOverlappingDirectives(b *testing.B) {
	for _, n := range []int{1000, 4000, 16000} {
		page := []byte(overlappingDirectives(n))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				Expand("p.md", page, repo())
			}
		})
	}
}

// overlappingDirectives is a line of n mdBook links of missing files, each
// holding the start of an mdx_include whose end is the line's.
func overlappingDirectives(n int) string {
	return strings.Repeat("{{#include {!a}}", n) + "!}\n"
}

// TestBoundsOfWhatIsLeft checks that directives that read nothing count
// against the budget: a file of 4,000 includes of a missing file, itself
// included 100 times by a 900-byte page, left 400,000 directives as written,
// each looked up, and 1,000 such lines took 34 s and 2 GB.
func TestBoundsOfWhatIsLeft(t *testing.T) {
	fsys := fstest.MapFS{"a.md": {Data: []byte(strings.Repeat("{!m!}", 4000))}}
	r := Expand("page.md", []byte(strings.Repeat("{!a.md!}\n", 100)), fsys)
	if limit := maxBytes/readCost + 4000 + 100; len(r.Dropped) > limit {
		t.Errorf("%d directives left as written, want at most %d", len(r.Dropped), limit)
	}
	if got := r.Dropped[len(r.Dropped)-1].Reason; got != errTooMuch.Error() {
		t.Errorf("the last left as written for %q, want %q", got, errTooMuch)
	}
}

// readCounter is a repository that counts the bytes its files are read.
type readCounter struct {
	fstest.MapFS
	read *int
}

func (r readCounter) ReadFile(name string) ([]byte, error) {
	b, err := r.MapFS.ReadFile(name)
	*r.read += len(b)
	return b, err
}

// TestBoundsOfWhatIsRead checks that a page whose budget is spent reads
// no more files: each of its further directives used to read its file
// whole only to drop it, so that a page of 2,000 includes of a 4 MiB file
// read 8 GiB.
func TestBoundsOfWhatIsRead(t *testing.T) {
	read := 0
	fsys := readCounter{fstest.MapFS{"big.txt": {Data: []byte(strings.Repeat("y", 4<<20))}}, &read}
	r := Expand("page.md", []byte(strings.Repeat("{!big.txt!}\n", 2000)), fsys)
	if read > maxBytes {
		t.Errorf("read %d bytes, want at most the budget, %d", read, maxBytes)
	}
	if len(r.Dropped) != 2000-3 || r.Dropped[0].Reason != errTooMuch.Error() {
		t.Errorf("dropped %d, the first %v; want the 1,997 past the budget for too much text", len(r.Dropped), r.Dropped[0])
	}
}
