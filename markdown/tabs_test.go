package markdown

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// variant is a ten-line example; variant(k) differs from variant(0) in
// line k only (0 < k), so any two variants share 9 of 10 lines.
func variant(k int) string {
	var b strings.Builder
	for i := range 10 {
		if i == k && k > 0 {
			b.WriteString("changed = 3.8\n")
			continue
		}
		b.WriteString("line" + string(rune('a'+i)) + " = 1\n")
	}
	return b.String()
}

func TestCollapseTabs(t *testing.T) {
	other := "npm install x\n"
	for _, c := range []struct {
		name, src, want string
	}{
		{
			name: "fastapi block tabs: an older version's variant left out, another example kept",
			src: "Intro.\n\n//// tab | Python 3.10+\n\n```py\n" + variant(0) + "```\n\n////\n\n" +
				"//// tab | Python 3.8+\n\n```py\n" + variant(3) + "```\n\n////\n\n" +
				"//// tab | Shell\n\n```sh\n" + other + "```\n\n////\n\nAfter.\n",
			want: "Intro.\n\n//// tab | Python 3.10+\n\n```py\n" + variant(0) + "```\n\n////\n\n" +
				note("Python 3.8+", "Python 3.10+", 16) + "\n" +
				"//// tab | Shell\n\n```sh\n" + other + "```\n\n////\n\nAfter.\n",
		},
		{
			name: "each variant is compared with the tabs kept, by name",
			src: "/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.10+ non-Annotated\n" + variant(1) + "///\n" +
				"/// tab | Python 3.8+ non-Annotated\n" + variant(2) + "///\n",
			want: "/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.10+ non-Annotated\n" + variant(1) + "///\n" +
				note("Python 3.8+ non-Annotated", "Python 3.10+ non-Annotated", 12),
		},
		{
			name: "a block tab with new: true starts another group",
			src:  "/// tab | Python 3.10+\n" + variant(0) + "///\n\n/// tab | Python 3.9+\n    new: true\n" + variant(1) + "///\n",
		},
		{
			name: "a block tab's closing fence inside its code is not its end",
			src:  "/// tab | Go 1.22+\n```\n///\n```\n" + variant(0) + "///\n/// tab | Go 1.21+\n```\n///\n```\n" + variant(2) + "///\n",
			want: "/// tab | Go 1.22+\n```\n///\n```\n" + variant(0) + "///\n" + note("Go 1.21+", "Go 1.22+", 15),
		},
		{
			name: "an unclosed block tab is no tab",
			src:  "/// tab | Python 3.10+\n" + variant(0) + "\n/// tab | Python 3.9+\n" + variant(1),
		},
		{
			name: "mkdocs material tabbed: the body is what is indented under it",
			src:  "=== \"Python 3.10 and above\"\n\n    ```py\n" + indent(variant(0)) + "    ```\n\n=== \"Python 3.9 and above\"\n\n    ```py\n" + indent(variant(5)) + "    ```\n\nNot in a tab.\n",
			want: "=== \"Python 3.10 and above\"\n\n    ```py\n" + indent(variant(0)) + "    ```\n\n" + note("Python 3.9 and above", "Python 3.10 and above", 14) + "\nNot in a tab.\n",
		},
		{
			name: "tabbed: ===! starts another group",
			src:  "=== \"Python 3.10+\"\n" + indent(variant(0)) + "\n===! \"Python 3.9+\"\n" + indent(variant(1)),
		},
		{
			name: "vitepress code group: fences are the tabs, labelled in brackets",
			src:  "::: code-group\n\n```js [Node 22+]\n" + variant(0) + "```\n\n```js [Node 20+]\n" + variant(9) + "```\n\n```sh [npm]\n" + other + "```\n\n:::\n",
			want: "::: code-group\n\n```js [Node 22+]\n" + variant(0) + "```\n\n" + note("Node 20+", "Node 22+", 12) + "\n```sh [npm]\n" + other + "```\n\n:::\n",
		},
		{
			name: "an unclosed code group is left alone",
			src:  "::code-group\n```js [Node 22+]\n" + variant(0) + "```\n```js [Node 20+]\n" + variant(9) + "```\n",
		},
		{
			name: "docusaurus tab items, labelled by label= or value=",
			src:  "<Tabs>\n<TabItem value=\"Java 21+\">\n\n" + variant(0) + "\n</TabItem>\n<TabItem value=\"j17\" label=\"Java 17+\">\n\n" + variant(4) + "\n</TabItem>\n</Tabs>\n",
			want: "<Tabs>\n<TabItem value=\"Java 21+\">\n\n" + variant(0) + "\n</TabItem>\n" + note("Java 17+", "Java 21+", 14) + "</Tabs>\n",
		},
		{
			name: "tabs written inside a fence are an example, not tabs",
			src:  "````md\n/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.9+\n" + variant(1) + "///\n````\n",
		},
		{
			name: "tabs whose labels name no minimum version are all kept, however alike",
			src:  "/// tab | Before\n" + variant(0) + "///\n/// tab | After\n" + variant(1) + "///\n/// tab | Pydantic v1\n" + variant(2) + "///\n",
		},
		{
			name: "a newer version after an older one is kept",
			src:  "/// tab | Python 3.8+\n" + variant(0) + "///\n/// tab | Python 3.10+\n" + variant(1) + "///\n",
		},
		{
			name: "an older version's variant of another example is kept",
			src:  "/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.9+\nsomething = else\n///\n",
		},
		{
			name: "a block tab's options may start a new group in any form (pymdownx reads them as YAML)",
			src: "/// tab | Python 3.10+\n" + variant(0) + "///\n\n/// tab | Python 3.10+\n    select: true\n    new: true\n" + variant(1) + "///\n\n" +
				"/// tab | Python 3.10+\n    new: True\n" + variant(1) + "///\n\n/// TAB | Python 3.10+\n    new: yes\n" + variant(1) + "///\n",
		},
		{
			name: "the selected tab is kept",
			src:  "/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.9+\n    select: true\n" + variant(1) + "///\n=== \"Python 3.10+\"\n" + indent(variant(0)) + "===+ \"Python 3.9+\"\n" + indent(variant(1)),
		},
		{
			name: "block tabs at other indentations are other groups (a list item's, the margin's)",
			src:  "1. Install:\n\n    /// tab | Python 3.10+\n" + indent(variant(0)) + "    ///\n\n/// tab | Python 3.9+\n" + variant(1) + "///\n",
		},
		{
			name: "tabbed labels are in double quotes only",
			src:  "=== \"Python 3.10+\"\n" + indent(variant(0)) + "\n=== 'Python 3.9+'\n" + indent(variant(1)),
		},
		{
			name: "a tabbed body goes on past a quoted line",
			src:  "=== \"Python 3.10+\"\n" + indent(variant(0)) + "\n=== \"Python 3.9+\"\n" + indent(variant(1)) + "\n    > a quote\n\n    more = 2\n\nAfter.\n",
			want: "=== \"Python 3.10+\"\n" + indent(variant(0)) + "\n" + note("Python 3.9+", "Python 3.10+", 15) + "\nAfter.\n",
		},
		{
			name: "a number before the name is a count, not a version",
			src:  "=== \"3+ nodes\"\n" + indent(variant(0)) + "\n=== \"1+ nodes\"\n" + indent(variant(1)),
		},
		{
			name: "a TabItem closed on a line with more is kept, and what follows the group too",
			src: "<Tabs>\n<TabItem value=\"Java 21+\">\n\n" + variant(0) + "\n</TabItem>\n<TabItem value=\"Java 17+\">\n\n" + variant(4) + "\n</TabItem></Tabs>\n\n" +
				"## Configuration\n\nSet the heap size.\n\n<Tabs><TabItem value=\"gradle\">\nrun gradle\n</TabItem>\n</Tabs>\n",
		},
		{
			name: "the default TabItem is kept, and a note is never indented as code",
			src: "    <TabItem value=\"Java 21+\">\n" + variant(0) + "    </TabItem>\n    <TabItem value=\"Java 17+\" default>\n" + variant(4) + "    </TabItem>\n" +
				"    <TabItem value=\"Java 11+\">\n" + variant(5) + "    </TabItem>\n",
			want: "    <TabItem value=\"Java 21+\">\n" + variant(0) + "    </TabItem>\n    <TabItem value=\"Java 17+\" default>\n" + variant(4) + "    </TabItem>\n" +
				"   " + note("Java 11+", "Java 21+", 12),
		},
		{
			name: "line ends are kept",
			src:  "/// tab | Python 3.10+\r\nx = 1\r\n///\r\n/// tab | Python 3.9+\r\nx = 1\r\n///\r\n",
			want: "/// tab | Python 3.10+\r\nx = 1\r\n///\r\n*Tab \"Python 3.9+\": nearly the same as \"Python 3.10+\", not repeated.*\r\n\r\n\r\n",
		},
		{
			name: "fences do not make two examples alike",
			src:  "/// tab | Python 3.10+\n```py\n{!> a_py310.py!}\n```\n///\n/// tab | Python 3.9+\n```py\n{!> a_py39.py!}\n```\n///\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == "" {
				want = c.src
			}
			got := string(collapseTabs([]byte(c.src)))
			if got != want {
				t.Errorf("collapseTabs:\n%s\nwant:\n%s", got, want)
			}
			if n, m := strings.Count(got, "\n"), strings.Count(c.src, "\n"); n != m {
				t.Errorf("%d lines, want the source's %d", n, m)
			}
		})
	}
}

func TestLabelParts(t *testing.T) {
	for _, c := range []struct {
		label, name string
		version     []int
	}{
		{"Python 3.10+", "python", []int{3, 10}},
		{"Python 3.8+  non-Annotated", "python non-annotated", []int{3, 8}},
		{"Node v18 and above", "node", []int{18}},
		{"Go 1.21 or later", "go", []int{1, 21}},
		{"Pydantic v1", "", nil},
		{"3+ nodes", "", nil},
		{"3.10+", "", nil},
		{"Python 99999999999999999999+", "", nil},
		{"npm", "", nil},
	} {
		name, v := labelParts([]byte(c.label))
		if name != c.name || !slices.Equal(v, c.version) {
			t.Errorf("labelParts(%q) = %q, %v, want %q, %v", c.label, name, v, c.name, c.version)
		}
	}
}

// note is what collapseTabs writes for a tab of n lines labelled label
// that is a near copy of the tab labelled of.
func note(label, of string, n int) string {
	return "*Tab \"" + label + "\": nearly the same as \"" + of + "\", not repeated.*\n" + strings.Repeat("\n", n-1)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n    ") + "\n"
}

// TestCollapseTabsSource checks that src is not written to, and returned
// as it is when nothing is left out.
func TestCollapseTabsSource(t *testing.T) {
	src := []byte("  /// tab | Python 3.10+\n" + variant(0) + "  ///\n  /// tab | Python 3.9+\n" + variant(1) + "  ///\n")
	orig := bytes.Clone(src)
	if got := collapseTabs(src); bytes.Equal(got, src) {
		t.Fatal("nothing left out")
	}
	if !bytes.Equal(src, orig) {
		t.Errorf("source changed:\n%s", src)
	}
	plain := []byte("no tabs here, only the word tab\n")
	if got := collapseTabs(plain); &got[0] != &plain[0] {
		t.Error("a copy was made of a source without tabs")
	}
}

// TestSplitCollapsesTabs checks the whole path: a section of a page whose
// example comes in near-identical tabs has the first one as its code.
func TestSplitCollapsesTabs(t *testing.T) {
	src := "# Page\n\n## Use it\n\nDo this:\n\n//// tab | Python 3.10+\n\n```py\n" + variant(0) + "```\n\n////\n\n" +
		"//// tab | Python 3.9+\n\n```py\n" + variant(2) + "```\n\n////\n\n## Next\n\nMore.\n"
	doc, err := Split("docs/page.md", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sec *Section
	for i := range doc.Sections {
		if doc.Sections[i].Heading == "Use it" {
			sec = &doc.Sections[i]
		}
	}
	if sec == nil {
		t.Fatalf("no section Use it in %+v", doc.Sections)
	}
	if len(sec.Code) != 1 || !strings.Contains(sec.Text, `Tab "Python 3.9+": nearly the same as "Python 3.10+"`) {
		t.Errorf("section has %d code blocks and text\n%s\nwant 1 and a note", len(sec.Code), sec.Text)
	}
	if next := doc.Sections[len(doc.Sections)-1]; next.Heading != "Next" || next.Line != strings.Count(src[:strings.Index(src, "## Next")], "\n")+1 {
		t.Errorf("last section %q at line %d, want Next at its line in the file", next.Heading, next.Line)
	}
}

// FuzzCollapseTabs checks that collapseTabs never panics, keeps every
// line (each as it was, blank, or a note) and leaves nothing more out
// when run again.
func FuzzCollapseTabs(f *testing.F) {
	f.Add([]byte("/// tab | Python 3.10+\n" + variant(0) + "///\n/// tab | Python 3.9+\n" + variant(1) + "///\n"))
	f.Add([]byte("=== \"A 2+\"\n" + indent(variant(0)) + "=== \"A 1+\"\n" + indent(variant(1))))
	f.Add([]byte("::: code-group\n```js [a 2+]\n" + variant(0) + "```\n```js [a 1+]\n" + variant(1) + "```\n:::\n"))
	f.Add([]byte("<TabItem label=\"a 2+\">\n" + variant(0) + "</TabItem>\n<TabItem label='a 1+'>\n" + variant(1) + "</TabItem>\n"))
	f.Add([]byte("<TabItem value={'a 2+'}>x</TabItem>\n<TabItem value={`a 1+`}>x</TabItem>\n"))
	f.Add([]byte("<Tabs>\n<TabItem value=\"J 2+\">\nx\n</TabItem>\n<TabItem value=\"J 1+\">\nx\n</TabItem></Tabs>\n## H\n</TabItem>\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		got := collapseTabs(src)
		in, out := bytes.SplitAfter(src, []byte("\n")), bytes.SplitAfter(got, []byte("\n"))
		if len(in) != len(out) {
			t.Fatalf("%d lines, want %d", len(out), len(in))
		}
		for i := range in {
			o := bytes.TrimRight(out[i], "\r\n")
			if !bytes.Equal(in[i], out[i]) && len(o) > 0 && !bytes.Contains(o, []byte("*Tab ")) {
				t.Fatalf("line %d is %q, want %q, blank or a note", i+1, out[i], in[i])
			}
		}
		if again := collapseTabs(got); !bytes.Equal(again, got) {
			t.Fatalf("a second pass left more out:\n%q\nthen\n%q", got, again)
		}
		// Each tab left out is one whole tab: it starts at an opening line
		// and ends at its own closing line (or the end of its indented
		// body), so nothing after a tab goes with it.
		lines, drops := tabDrops(src)
		prev := 0
		for _, d := range drops {
			if d.t.start < prev || d.t.start >= d.t.end || d.t.end > len(lines) {
				t.Fatalf("tab left out at lines [%d, %d) after one ending at %d", d.t.start, d.t.end, prev)
			}
			prev = d.t.end
			first, last := trimEOL(lines[d.t.start]), bytes.TrimSpace(lines[d.t.end-1])
			var ok bool
			switch {
			case blockTabOpen.Match(first):
				ok = bytes.Equal(last, blockTabOpen.FindSubmatch(first)[1])
			case tabbedOpen.Match(first):
				lastW, _ := indentCols(lines[d.t.end-1])
				openW, _ := indentCols(first)
				ok = d.t.end-1 == d.t.start || lastW >= openW+4
			case tabItemOpen.Match(first):
				ok = bytes.Equal(last, []byte("</TabItem>")) || (d.t.end-1 == d.t.start && bytes.HasSuffix(last, []byte("</TabItem>")))
				for j := d.t.start + 1; j < d.t.end-1; j++ {
					l := trimEOL(lines[j])
					if ch, n, open := fenceOpen(l); open {
						j = skipFence(lines, j, ch, n) - 1
						continue
					}
					if bytes.Contains(l, []byte("TabItem>")) || bytes.Contains(l, []byte("<TabItem")) || bytes.Contains(l, []byte("</Tabs>")) {
						ok = false // the tab ran past its end
					}
				}
			default:
				ch, n, open := fenceOpen(first)
				ok = open && fenceClose(last, ch, n)
			}
			if !ok {
				t.Fatalf("tab left out from %q to %q", first, last)
			}
		}
	})
}
