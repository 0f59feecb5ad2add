package asciidoc

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/markdown"
)

// TestSectionIDs checks generated section ids against Asciidoctor
// 2.0.18's. Asciidoctor makes them from the converted title, where its
// replacements have turned " -- " (with its spaces), "--" between words,
// "...", "(C)", "->" and the like into entities its
// InvalidSectionIdCharsRx deletes: they leave nothing in the id, unless
// escaped or in a passthrough.
func TestSectionIDs(t *testing.T) {
	tests := []struct {
		attrs  string // attribute entries
		titles []string
		want   []string
	}{
		{"", []string{"Wiley & Sons, Inc."}, []string{"_wiley_sons_inc"}},
		{"", []string{"Set `:safe` option", "Set `:safe` option"}, []string{"_set_safe_option", "_set_safe_option_2"}},
		{"", []string{"apk (Alpine Linux)", "What's *new* -- now"}, []string{"_apk_alpine_linux", "_whats_newnow"}},
		{"", []string{"Ünïcode Wörds 2.0"}, []string{"_ünïcode_wörds_2_0"}},
		{":idprefix:\n:idseparator: -\n", []string{"Install the Gem", "install-the-gem"}, []string{"install-the-gem", "install-the-gem-2"}},
		{":idprefix: id_\n", []string{"A  B"}, []string{"id_a_b"}},
		{"", []string{"!"}, []string{"_"}},
		{"", []string{"Legacy anchor [[legacy]]", "Not an anchor [[1a]]"}, []string{"legacy", "_not_an_anchor_1a"}},
		{"", []string{"xref:other.adoc[Other page] and https://example.org[a link]"}, []string{"_other_page_and_a_link"}},
		{"", []string{"Foo -- bar", "A & B (C) ...", "x->y => z <= w", "Tom's...stuff", "Before--after", "a--b--c"},
			[]string{"_foobar", "_a_b", "_xy_z_w", "_tomsstuff", "_beforeafter", "_abc"}},
		{"", []string{"-- Leading dash", "Trailing dash --", "Trade(TM)mark and (R)", "Copyright (c) lower", "Über--Größe"},
			[]string{"_leading_dash", "_trailing_dash", "_trademark_and", "_copyright_c_lower", "_übergröße"}},
		{"", []string{`Escaped \-- dash`, `Word\--word`, `Escaped \(C) mark`, `\... dots`, `Arrow \-> kept`, `Left \<- arrow`},
			[]string{"_escaped_dash", "_word_word", "_escaped_c_mark", "_dots", "_arrow_kept", "_left_arrow"}},
		{"", []string{"Pass +--+ through", "Pass ++a -- b++ here", "Pass pass:[x -- y] macro", "Code `a -- b` span", "*strong*--word", "Use {cpp} -- here"},
			[]string{"_pass_through", "_pass_a_b_here", "_pass_x_y_macro", "_code_ab_span", "_strong_word", "_use_chere"}},
		{"", []string{"Entity &copy; here", "Entity &#8212; dec", "Entity &#x2014; hex", `Escaped \&copy; entity`, "Rock 'n' roll", "The `'90s"},
			[]string{"_entity_here", "_entity_dec", "_entity_hex", "_escaped_copy_entity", "_rock_n_roll", "_the_90s"}},
		{":idseparator: -\n", []string{"Foo -- bar", "Mixed... and more..."}, []string{"_foobar", "_mixed-and-more"}},
		// A raw passthrough's HTML tags and entities are gone from the
		// id (InvalidSectionIdCharsRx deletes them from the converted
		// title); one that escapes special characters (++x++, +x+,
		// pass:c[x]) leaves the tags' letters, as entities were deleted.
		{"", []string{"pass:[<b>Bold</b>] title", "+++<i>x</i>+++ y", "pass:[a &amp; b]", "pass:[<br>]Line", "pass:q[*s* <u>t</u>]", "pass:[a < b]"},
			[]string{"_bold_title", "_x_y", "_a_b", "_line", "_s_t", "_a_b_2"}},
		{"", []string{"++<b>x</b>++ y", "pass:c[<b>x</b>] y", "+<b>x</b>+ z", "Code `+++<b>c</b>+++`"},
			[]string{"_bxb_y", "_bxb_y_2", "_bxb_z", "_code_c"}},
	}
	for _, tt := range tests {
		var src strings.Builder
		src.WriteString("= Doc\n" + tt.attrs + "\n")
		for _, h := range tt.titles {
			src.WriteString("== " + h + "\n\ntext\n\n")
		}
		doc, err := Split("doc.adoc", []byte(src.String()), nil, markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range doc.Sections {
			if s.Level > 0 {
				got = append(got, s.Anchor)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("titles %q with %q: got ids %q, want %q", tt.titles, tt.attrs, got, tt.want)
		}
	}
}

func TestFilterTags(t *testing.T) {
	lines := []string{"a", "// tag::x[]", "b", "// tag::y[]", "c", "// end::y[]", "// end::x[]", "d"}
	tests := []struct{ spec, want string }{
		{"x", "b c"},
		{"y", "c"},
		{"x;!y", "b"},
		{"**", "a b c d"},
		{"*", "b c"},
	}
	for _, tt := range tests {
		if got := strings.Join(filterTags(lines, tt.spec), " "); got != tt.want {
			t.Errorf("filterTags(%q): got %q, want %q", tt.spec, got, tt.want)
		}
	}
	if got := strings.Join(filterLines([]string{"1", "2", "3", "4", "5"}, "1;3..4"), " "); got != "1 3 4" {
		t.Errorf("filterLines: got %q, want %q", got, "1 3 4")
	}
}

func TestIncludes(t *testing.T) {
	repo := fstest.MapFS{
		"docs/antora.yml":                       {Data: []byte("name: c\nversion: ~\n")},
		"docs/modules/ROOT/pages/dir/page.adoc": {Data: []byte("x")},
		"docs/modules/ROOT/pages/dir/near.adoc": {Data: []byte("near text")},
		"docs/modules/ROOT/partials/p.adoc":     {Data: []byte("partial text\ninclude::q.adoc[]")},
		"docs/modules/ROOT/partials/q.adoc":     {Data: []byte("nested relative text")},
		"docs/modules/other/examples/e.rb":      {Data: []byte("other module code")},
		"docs/modules/ROOT/partials/loop.adoc":  {Data: []byte("loop\ninclude::loop.adoc[]")},
	}
	src := strings.Join([]string{
		"include::near.adoc[]",
		"",
		"include::partial$p.adoc[]",
		"",
		"----",
		"include::other:example$e.rb[]",
		"----",
		"",
		"include::othercomp:ROOT:partial$p.adoc[]",
		"include::https://example.org/x.adoc[]",
		"include::partial$none.adoc[]",
		"include::partial$loop.adoc[]",
	}, "\n")
	doc, dropped, err := SplitReport("docs/modules/ROOT/pages/dir/page.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	text := doc.Sections[0].Text
	for _, want := range []string{"near text", "partial text", "nested relative text", "other module code"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var reasons []string
	for _, d := range dropped {
		reasons = append(reasons, d.Target+": "+d.Reason)
	}
	wantDropped := []string{"othercomp:ROOT:partial$p.adoc", "https://example.org/x.adoc", "partial$none.adoc", "loop.adoc"}
	if len(dropped) != len(wantDropped) {
		t.Fatalf("dropped %q, want targets %q", reasons, wantDropped)
	}
	for i, d := range dropped {
		if d.Target != wantDropped[i] || d.Line == 0 {
			t.Errorf("dropped[%d] = %+v, want target %q with a line", i, d, wantDropped[i])
		}
	}
}

// TestIncludedSectionSource checks that a section whose heading an
// include brought into the page names the file it is written in (the
// innermost, for nested includes, and on every chunk), and that the
// page's own sections, even those holding included text, name none.
func TestIncludedSectionSource(t *testing.T) {
	long := strings.Repeat("Included words go on and on. ", 400)
	t.Run("same id", func(t *testing.T) {
		// Asciidoctor only warns of an id given twice: the page's own
		// section's chunks are still the page's.
		repo := fstest.MapFS{
			"docs/antora.yml":                   {Data: []byte("name: c\nversion: ~\n")},
			"docs/modules/ROOT/partials/p.adoc": {Data: []byte("[#dup]\n== From the partial\n\nshort\n")},
		}
		src := "= Page\n\ninclude::partial$p.adoc[]\n\n[#dup]\n== Own\n\n" + long + "\n"
		doc, err := Split("docs/modules/ROOT/pages/page.adoc", []byte(src), repo, markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		parts := 0
		for _, s := range doc.Sections {
			if s.Title == "Own" {
				parts++
				if s.Source != "" {
					t.Errorf("Own part %d: source %q, want none", s.Part, s.Source)
				}
			}
		}
		if parts < 2 {
			t.Errorf("Own has %d chunks; the test needs several", parts)
		}
	})
	repo := fstest.MapFS{
		"docs/antora.yml":                     {Data: []byte("name: c\nversion: ~\n")},
		"docs/modules/ROOT/partials/p.adoc":   {Data: []byte("== From the partial\n\n" + long + "\n\ninclude::q.adoc[]\n")},
		"docs/modules/ROOT/partials/q.adoc":   {Data: []byte("=== Nested\n\nnested text\n")},
		"docs/modules/ROOT/partials/txt.adoc": {Data: []byte("only text\n")},
	}
	src := "= Page\n\n== Own\n\ninclude::partial$txt.adoc[]\n\ninclude::partial$p.adoc[]\n\n== Own again\n\ntext\n"
	doc, err := Split("docs/modules/ROOT/pages/page.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"Page": "", "Own": "", "Own again": "",
		"From the partial": "docs/modules/ROOT/partials/p.adoc",
		"Nested":           "docs/modules/ROOT/partials/q.adoc",
	}
	parts := 0
	for _, s := range doc.Sections {
		w, ok := want[s.Title]
		if !ok {
			t.Errorf("unexpected section %q", s.Title)
			continue
		}
		if s.Source != w {
			t.Errorf("section %q part %d: source %q, want %q", s.Title, s.Part, s.Source, w)
		}
		if s.Title == "From the partial" {
			parts++
		}
	}
	if parts < 2 {
		t.Errorf("the partial's section has %d chunks; the test needs several", parts)
	}
}

func TestInline(t *testing.T) {
	tests := []struct{ in, want string }{
		{"*bold* and _em_ and `code`", "**bold** and *em* and `code`"},
		{"**un**constrained", "**un**constrained"},
		{"a `+{x}+` b", "a `{x}` b"},
		{"pass:[<b>x</b>] and +*lit*+", "**x** and *lit*"},
		{"see <<sec-id,the section>> or <<other.adoc#x,there>>", "see [the section](#sec-id) or [there](/other.adoc#x)"},
		{"https://example.org[Example^] and link:file.txt[file]", "[Example](https://example.org) and [file](file.txt)"},
		{"kbd:[Ctrl+C] menu:File[Save]", "`Ctrl+C` **File > Save**"},
		{"x^2^ and H~2~O", "x^2 and H_2O"},
		{`\*not bold*`, `*not bold*`},
		{"a <tag> b &amp; c &#8217;", `a \<tag> b & c ’`},
		// References are read as Asciidoctor's entity pattern and the
		// browser read them: fuzzing found "&amp0A;", which the page
		// shows as written, read as "&0A;".
		{"&amp0A;, &ampxx;, &#1; and &nosuch; &frac12;", `\&amp0A;, \&xx;, \&#1; and \&nosuch; ½`},
		// An inline anchor's reftext may have spaces; the page shows
		// neither.
		{"a [[id, Some text]] b", "a  b"},
		{"[.role]#marked# text", "marked text"},
		{"line one +\nline two", "line one\nline two"},
		{"image:icon.png[Icon] x", "Icon x"},
		// pass:[] ends at the first "]" not escaped, and unescapes "\]"
		// (the corpus's migrate/pages/asciidoc-py.adoc); it may be empty.
		{`pass:[[x-\]+monospace text+] end`, "[x-]+monospace text+ end"},
		{`pass:[[role\]#text#] and pass:[a\\]b] c`, `[role]#text# and a\\]b c`},
		{"a pass:[] b pass:q,a[x]", "a  b x"},
		{`\pass:[x] and pass:a,[y]`, "pass:[x] and pass:a,[y]"},
		// An anchor's id starts with a letter, "_" or ":" (fuzzing found
		// "[[]000]]" read as one).
		{"0[[]000]] and [[9x]] and [[ok]]here", "0[[]000]] and [[9x]] and here"},
		// {blank} is an intrinsic attribute: nothing, as {empty}.
		{"Use{blank} {cpp} here.", "Use C++ here."},
	}
	for _, tt := range tests {
		c := &converter{ids: ids{used: map[string]bool{}}, titles: map[string]string{}, pageTitles: map[string]string{}}
		if got := c.inlineMD(tt.in, newAttributes()); got != tt.want {
			t.Errorf("inlineMD(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestXrefTitleWithBracket checks that a cross reference titled by a
// section or page whose title has a bracket of its own stays one link:
// an unbalanced "]" in a link's text ends it.
func TestXrefTitleWithBracket(t *testing.T) {
	repo := fstest.MapFS{"docs/b.adoc": {Data: []byte("= Arrays ] and [ maps\n\ntext\n")}}
	src := "= Page\n\n== Step 1] unpack\n\ntext\n\n== Use\n\nSee <<_step_1_unpack>> and xref:b.adoc[].\n"
	doc, err := Split("docs/page.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.Link{{Text: "Step 1] unpack", Target: "#_step_1_unpack"}, {Text: "Arrays ] and [ maps", Target: "/docs/b.adoc"}}
	if !slices.Equal(s.Links, want) {
		t.Errorf("links %q, want %q (text %q)", s.Links, want, s.Text)
	}
}

// TestNoLinkInLinkText checks that a cross reference or URL in a link's
// text is written as its text: markdown has no links in links, and the
// inner one would leave the outer one's "](target)" in the prose.
func TestNoLinkInLinkText(t *testing.T) {
	repo := fstest.MapFS{"docs/b.adoc": {Data: []byte("= Page B\n\ntext\n")}}
	src := "= Page\n\n== Install\n\ntext\n\n== Use\n\n" +
		"Read link:https://x.org/guide[the <<_install>> guide], xref:b.adoc[about <<_install>>] and <<_install,see https://x.org[x]>>.\n"
	doc, err := Split("docs/page.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.Link{{Text: "the Install guide", Target: "https://x.org/guide"}, {Text: "about Install", Target: "/docs/b.adoc"}, {Text: "see x", Target: "#_install"}}
	if !slices.Equal(s.Links, want) || strings.Contains(s.Prose, "](") {
		t.Errorf("links %q, want %q (text %q)", s.Links, want, s.Text)
	}
}

// TestLinkTextWithBracket checks that a link's own text with an unbalanced
// bracket stays the link's text.
func TestLinkTextWithBracket(t *testing.T) {
	src := "= Page\n\n== Install\n\ntext\n\n== Use\n\nSee <<_install,step 1] first>>, xref:b.adoc[the [optional\\] part] and link:https://x.org[a [ b].\n"
	doc, err := Split("docs/page.adoc", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.Link{{Text: "step 1] first", Target: "#_install"}, {Text: "the [optional] part", Target: "/docs/b.adoc"}, {Text: "a [ b", Target: "https://x.org"}}
	if !slices.Equal(s.Links, want) {
		t.Errorf("links %q, want %q (text %q)", s.Links, want, s.Text)
	}
}

// TestLinkAtLineStart checks that a cross reference or link starting a
// line of a paragraph or a list item stays a link: the escape that keeps
// "[label]: text" from reading as a link reference definition must not
// turn "[text](target)" into text.
func TestLinkAtLineStart(t *testing.T) {
	repo := fstest.MapFS{"docs/b.adoc": {Data: []byte("= Page B\n\ntext\n")}}
	src := "= Page\n\n== Use\n\nxref:b.adoc[Page B] explains it.\nhttps://x.org[X] too.\n\n* xref:b.adoc#x[B] in a list\n\n[label]: not a definition\n"
	doc, err := Split("docs/page.adoc", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	s := doc.Sections[len(doc.Sections)-1]
	want := []markdown.Link{{Text: "Page B", Target: "/docs/b.adoc"}, {Text: "X", Target: "https://x.org"}, {Text: "B", Target: "/docs/b.adoc#x"}}
	if !slices.Equal(s.Links, want) || !strings.Contains(s.Prose, "[label]: not a definition") {
		t.Errorf("links %q, want %q (text %q)", s.Links, want, s.Text)
	}
}
