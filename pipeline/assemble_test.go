package pipeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codex7/codex7/asciidoc"
	"github.com/codex7/codex7/links"
	"github.com/codex7/codex7/markdown"
	"github.com/codex7/codex7/rst"
	"github.com/codex7/codex7/tokens"
)

// TestAssembleGivesInboundLinks checks that each index entry carries the
// texts of the links other documents point at its section with.
func TestAssembleGivesInboundLinks(t *testing.T) {
	docs := []*markdown.Document{
		readDoc(t, "docs/config.md", "# Config\n\nAll options.\n\n## base\n\nThe public path.\n"),
		readDoc(t, "docs/guide.md", "# Guide\n\nServe it from [a nested public path](config.md#base) or [anywhere](./config).\n"),
	}
	got := inboundOf(t, docs)
	want := map[string]string{"docs/config.md#config": "anywhere", "docs/config.md#base": "a nested public path", "docs/guide.md#guide": ""}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: inbound %q, want %q", id, got[id], w)
		}
	}
}

// TestAssembleGivesAsciiDocInboundLinks checks that AsciiDoc links reach
// the sections Asciidoctor links them to: a reference naming a section
// after it by its title (<<Proxies,...>>, where the section's id is not
// the title's, which links' folded matching would find), and a link
// from another page to an anchor inside a section
// (markdown.Section.InnerAnchors).
func TestAssembleGivesAsciiDocInboundLinks(t *testing.T) {
	docs := []*markdown.Document{
		readDoc(t, "docs/config.adoc", "= Config\n\n== TLS\n\nCertificates go <<Proxies,in front of the app>>.\n\n"+
			"[#behind-a-proxy]\n== Proxies\n\nAny proxy will do.\n\n[#nginx]\n----\nproxy_pass http://app;\n----\n"),
		readDoc(t, "docs/guide.adoc", "= Guide\n\nServe it xref:config.adoc#nginx[behind nginx].\n"),
	}
	got := inboundOf(t, docs)
	if want := "in front of the app\nbehind nginx"; got["docs/config.adoc#behind-a-proxy"] != want {
		t.Errorf("docs/config.adoc#behind-a-proxy: inbound %q, want %q (all %q)", got["docs/config.adoc#behind-a-proxy"], want, got)
	}
	// documents.json's outline carries the inner id, for the web page's links.
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	if o := v.Documents[0].Outline; len(o) != 2 || o[1].Anchor != "behind-a-proxy" || !slices.Equal(o[1].Inner, []string{"nginx"}) || o[0].Inner != nil {
		t.Errorf("outline of docs/config.adoc = %+v, want the nginx id inside behind-a-proxy", o)
	}
}

// TestAssembleMarksTranslations checks that each index entry of a
// translated page carries the flag the translation prior ranks by, and
// the original's entries do not.
func TestAssembleMarksTranslations(t *testing.T) {
	var docs []*markdown.Document
	for _, p := range []string{"docs/guide/cors.md", "docs/zh/guide/cors.md", "docs/guide/intro.md"} {
		d, err := markdown.Split(p, []byte("# CORS\n\nAllow origins.\n\n## Use it\n\n```py\napp.add_middleware(CORSMiddleware)\n```\n"), markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range v.Entries {
		if want := e.Path == "docs/zh/guide/cors.md"; e.Translation != want {
			t.Errorf("%s#%s: translation %v, want %v", e.Path, e.Section.Anchor, e.Translation, want)
		}
	}
}

// TestAssembleGivesRSTInboundLinksToLabelsInsideSections checks that a
// Sphinx :ref: from one page to a label that names no section (here one
// above a code block) gives the section holding the label the link's
// text, as the published page links to a place inside that section
// (markdown.Section.InnerAnchors).
func TestAssembleGivesRSTInboundLinksToLabelsInsideSections(t *testing.T) {
	docs := []*markdown.Document{
		readDoc(t, "docs/deploying/workers.rst", "Worker Processes\n================\n\n"+
			"Each worker serves one request at a time.\n\n"+
			"Sizing the pool\n---------------\n\nStart with two workers a core.\n\n"+
			".. _pool-size-setting:\n\n.. code-block:: ini\n\n"+
			"    workers = 4\n"),
		readDoc(t, "docs/deploying/systemd.rst", "Systemd\n=======\n\n"+
			"Run it as a service and :ref:`choose how many workers <pool-size-setting>`.\n"),
	}
	got := inboundOf(t, docs)
	if want := "choose how many workers"; got["docs/deploying/workers.rst#sizing-the-pool"] != want {
		t.Errorf("docs/deploying/workers.rst#sizing-the-pool: inbound %q, want %q (all %q)", got["docs/deploying/workers.rst#sizing-the-pool"], want, got)
	}
}

// TestAssembleMendsShownText: a Sphinx :doc: and :ref: to other files
// show their targets' titles, a fence's info string its language and
// file name, and the tokens counted are the text's; the link texts taken
// for ranking stay as written.
func TestAssembleMendsShownText(t *testing.T) {
	docs := []*markdown.Document{
		readDoc(t, "docs/index.rst", "Home\n====\n\nRead :doc:`/quickstart` and :ref:`security-cookie`.\n\n"+
			".. code-block:: python\n\n    x = 1\n"),
		readDoc(t, "docs/quickstart.rst", "Quickstart\n==========\n\nFirst steps.\n"),
		readDoc(t, "docs/security.rst", "Security\n========\n\n.. _security-cookie:\n\nSet-Cookie options\n------------------\n\nCookies.\n"),
	}
	docs = append(docs, readDoc(t, "docs/app.md", "# App\n\n```js {expectedErrors: {'x': [9]}} src/App.js\nlet a = 1\n```\n"))
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, e := range v.Entries {
		text[e.Path] += e.Section.Text
		if n := tokens.Count(e.Section.Text); e.Section.Tokens != n {
			t.Errorf("%s#%s: tokens %d, its text counts %d", e.Path, e.Section.Anchor, e.Section.Tokens, n)
		}
		if e.Path == "docs/security.rst" && e.Section.Anchor == "security-cookie" && e.Inbound != "security-cookie" {
			t.Errorf("inbound %q, want the link's own text", e.Inbound)
		}
	}
	for path, want := range map[string]string{
		"docs/index.rst": "[Quickstart](/quickstart) and [Set-Cookie options](#security-cookie)",
		"docs/app.md":    "```js src/App.js\n",
	} {
		if !strings.Contains(text[path], want) {
			t.Errorf("%s: text %q lacks %q", path, text[path], want)
		}
	}
}

// inboundOf assembles docs and returns each section's anchor text, by
// path#anchor.
func inboundOf(t *testing.T, docs []*markdown.Document) map[string]string {
	t.Helper()
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range v.Entries {
		got[e.Path+"#"+e.Section.Anchor] = e.Inbound
	}
	return got
}

// readDoc reads a document as the pipeline's reader for its extension
// does (.rst, .adoc, else markdown), with no repository for includes.
func readDoc(t *testing.T, path, src string) *markdown.Document {
	t.Helper()
	var d *markdown.Document
	var err error
	switch {
	case strings.HasSuffix(path, ".rst"):
		d, err = rst.Split(path, []byte(src), nil, markdown.DefaultOptions())
	case strings.HasSuffix(path, ".adoc"):
		d, err = asciidoc.Split(path, []byte(src), nil, markdown.DefaultOptions())
	default:
		d, err = markdown.Split(path, []byte(src), markdown.DefaultOptions())
	}
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRetitleAsReplacingEachInTurn: retitle gives what a
// strings.Replace(text, Old, New, 1) per Retitle in turn gave, for
// repeated links, links nested in brackets, an Old the text does not
// hold, and links around one that is not retitled.
func TestRetitleAsReplacingEachInTurn(t *testing.T) {
	for _, c := range []struct {
		text string
		rs   []links.Retitle
	}{
		{"See [a](a) and [a](a), not [a](b).", []links.Retitle{{Old: "[a](a)", New: "[Alpha](a)"}, {Old: "[a](a)", New: "[Alpha](a)"}}},
		{"See [a](a) and [a](a).", []links.Retitle{{Old: "[a](a)", New: "[Alpha](a)"}}},
		{"[[x](x)](y) [/q](/q) [[[ ]( [#s](#s)", []links.Retitle{{Old: "[x](x)", New: "[X](x)"}, {Old: "[/q](/q)", New: "[Q](/q)"}, {Old: "[#s](#s)", New: "[S](#s)"}}},
		{"[a?1](a?1) [b](b)", []links.Retitle{{Old: "[a?0](a?0)", New: "[A](a?0)"}, {Old: "[b](b)", New: "[B](b)"}}},
		{"no links at all", []links.Retitle{{Old: "[a](a)", New: "[A](a)"}}},
		{"[a](a)", nil},
	} {
		want := c.text
		for _, r := range c.rs {
			want = strings.Replace(want, r.Old, r.New, 1)
		}
		if got := retitle(c.text, c.rs); got != want {
			t.Errorf("retitle(%q) = %q, want %q", c.text, got, want)
		}
	}
}

// TestAssembleManyRetitledLinksInOneParagraph: a page of 50,000 links
// whose text is their target, on one line that no chunking splits, and
// as many whose written text differs from the Old a Retitle looks for,
// is mended in a time that grows with its length: a Replace per link
// took minutes (16 s for 20,000 of each).
func TestAssembleManyRetitledLinksInOneParagraph(t *testing.T) {
	const n = 50_000
	var src strings.Builder
	src.WriteString("# Index\n\n")
	for i := range n {
		fmt.Fprintf(&src, "[a](a) [a?%d](<a?%d>) ", i, i)
	}
	docs := []*markdown.Document{readDoc(t, "index.md", src.String()), readDoc(t, "a.md", "# Alpha\n\ntext\n")}
	start := time.Now()
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Assemble took %v, want a time linear in the page (about a second)", d)
	}
	var text string
	for _, e := range v.Entries {
		if e.Path == "index.md" {
			text += e.Section.Text
		}
	}
	if got := strings.Count(text, "[Alpha](a)"); got != n {
		t.Errorf("%d links retitled, want %d", got, n)
	}
}
