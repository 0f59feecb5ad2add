package rst

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/codex7/codex7/links"
	"github.com/codex7/codex7/markdown"
)

// TestGlossaryAndModuleAnchors checks that glossary terms' and modules'
// ids are the inner anchors of the sections holding them, as Sphinx 5.3
// gives them (checked against sphinx-build's HTML for these inputs):
// make_id with a prefix, case kept ("term-WSGI"), a term that makes no id
// numbered ("term-0"), in source order though :sorted: reorders the
// entries, comments left out; a module's id where the directive stands
// (one first in a section is the section's own on the site, one above a
// title stays in the section before it, one above the first title is at
// the top of the page), automodule's too, a taken id numbered
// ("module-0"), none with :noindex:.
func TestGlossaryAndModuleAnchors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      map[string][]string
	}{{
		name: "glossary terms",
		src: "Guide\n=====\n\nIntro.\n\nTerms\n-----\n\n.. glossary::\n   :sorted:\n\n" +
			"   WSGI\n   wsgi server\n      The interface.\n\n   .. a comment\n      still the comment\n\n" +
			"   alpha : key\n      First.\n\n   ``code`` term\n      Code.\n\n   ünï\n      Unicode.\n\n" +
			"   ---\n      Dashes.\n\n   -+-\n      Dashes again.\n\nAfter\n-----\n\nText.\n",
		want: map[string][]string{"terms/0": {"term-WSGI", "term-wsgi-server", "term-alpha", "term-code-term", "term-uni", "term-0", "term-1"}},
	}, {
		name: "modules",
		src: ".. module:: top\n\nAPI\n===\n\n.. module:: flask\n\nIntro.\n\nJSON\n----\n\nText.\n\n" +
			".. automodule:: json.tool\n\n.. module:: flask.json\n\n.. module:: flask.json\n\n" +
			".. py:module:: flask.hidden\n   :noindex:\n\n.. automodule:: json.decoder\n   :noindex:\n\n" +
			".. module:: flask.before\n\nNext\n----\n\nBody.\n",
		want: map[string][]string{
			"api/0":  {"module-top", "module-flask"},
			"json/0": {"module-json.tool", "module-flask.json", "module-0", "module-flask.before"},
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Split("docs/page.rst", []byte(c.src), nil, markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			checkWords(t, []byte(c.src), doc)
			got := innerAnchors(doc)
			if len(got) != len(c.want) {
				t.Errorf("inner anchors %q, want %q", got, c.want)
			}
			for k, w := range c.want {
				if !slices.Equal(got[k], w) {
					t.Errorf("%s: inner anchors %q, want %q", k, got[k], w)
				}
			}
		})
	}
}

// TestTermAndModuleReferences checks that :term: and :mod: references
// link to their targets' ids as Sphinx's do (sphinx-build's HTML for the
// same references): a term of the file's glossary to its id, whatever
// the reference's case; another file's term to the id its text makes; a
// module to "module-" and its name, shown as code; a reference starting
// with '!' (:ref:'s too) unlinked; a :mod: target with a leading '.',
// which Sphinx searches for, unlinked.
func TestTermAndModuleReferences(t *testing.T) {
	src := "Refs\n====\n\n" +
		":term:`WSGI`, :term:`wsgi`, :term:`my term <alpha>`, :term:`!alpha`, :term:`ünï`, :term:`---`,\n" +
		":term:`elsewhere term`, :mod:`flask.json`, :mod:`~flask.json`, :mod:`!flask`, :py:mod:`flask`,\n" +
		":mod:`JSON <flask.json>`, :mod:`.json` and :ref:`!refs-label`.\n\n" +
		".. glossary::\n\n   WSGI\n      The interface.\n\n   alpha : key\n      First.\n\n" +
		"   ünï\n      Unicode.\n\n   ---\n      Dashes.\n"
	got := toMarkdown(t, src)
	want := "[WSGI](#term-WSGI), [wsgi](#term-WSGI), [my term](#term-alpha), alpha, [ünï](#term-uni), [---](#term-0),\n" +
		"[elsewhere term](#term-elsewhere-term), [`flask.json`](#module-flask.json), [`json`](#module-flask.json), `flask`, [`flask`](#module-flask),\n" +
		"[`JSON`](#module-flask.json), `json` and refs-label."
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
}

// TestTermAndModuleLinksResolve checks that package links resolves :term:
// and :mod: references, and links to a page's term or module id, to the
// section holding the term or the module, in another document.
func TestTermAndModuleLinksResolve(t *testing.T) {
	files := map[string]string{
		"docs/glossary.rst": "Glossary\n========\n\nIntro.\n\nTerms\n-----\n\n.. glossary::\n\n   WSGI\n      The interface.\n\n   alpha\n      First.\n",
		"docs/api.rst":      "API\n===\n\n.. module:: flask\n\nIntro.\n\nJSON\n----\n\n.. module:: flask.json\n\nText.\n",
		"docs/page.rst": "Page\n====\n\nSee :term:`WSGI`, :mod:`flask.json`, :mod:`the package <flask>` and\n" +
			"`the alpha term <glossary.html#term-alpha>`_.\n",
	}
	var docs []*markdown.Document
	for _, p := range []string{"docs/glossary.rst", "docs/api.rst", "docs/page.rst"} {
		doc, err := Split(p, []byte(files[p]), nil, markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc)
	}
	got := map[string]string{}
	for i, texts := range links.Inbound(docs) {
		for k, text := range texts {
			if text != "" {
				got[docs[i].Path+"#"+docs[i].Sections[k].Anchor] = text
			}
		}
	}
	want := map[string]string{
		"docs/glossary.rst#terms": "WSGI\nthe alpha term",
		"docs/api.rst#api":        "the package",
		"docs/api.rst#json":       "flask.json",
	}
	if len(got) != len(want) {
		t.Errorf("inbound texts %q, want %q", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: inbound %q, want %q", k, got[k], w)
		}
	}
}

// TestRefToIncludedLabel checks :ref:s to labels of an included file,
// which Sphinx counts as the including document's (checked against
// sphinx-build): without a title, one naming a section shows the
// section's title, linked, and one naming a paragraph, which has no
// title, shows the label unlinked ("A title or caption not found"); a
// label above the include names what the included text starts with. A
// label of another document, which the reader cannot see, stays a link.
func TestRefToIncludedLabel(t *testing.T) {
	repo := fstest.MapFS{
		"docs/parts/inc.rst": {Data: []byte("Inc Title\n---------\n\n.. _inc-anon:\n\nIncluded paragraph.\n\n" +
			".. _inc-titled:\n\nSub Title\n~~~~~~~~~\n\nText.\n")},
	}
	src := "Page\n====\n\n" +
		"See :ref:`inc-anon`, :ref:`inc-titled`, :ref:`the paragraph <inc-anon>`, :ref:`before-include`\n" +
		"and :ref:`other-page-label`.\n\n.. _before-include:\n\n.. include:: parts/inc.rst\n"
	doc, err := Split("docs/page.rst", []byte(src), repo, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Sections[0].Text
	want := "See inc-anon, [Sub Title](#inc-titled), [the paragraph](#inc-anon), [Inc Title](#before-include)\n" +
		"and [other-page-label](#other-page-label)."
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
	var anchors []string
	for _, s := range doc.Sections {
		anchors = append(anchors, s.Anchor)
	}
	if w := []string{"page", "before-include", "inc-titled"}; !slices.Equal(anchors, w) {
		t.Errorf("anchors %q, want %q", anchors, w)
	}
}

// TestTermExactCase checks that a :term: reference links to the term
// written exactly as the reference writes it before one that differs only
// in case, as Sphinx's std domain looks the exact text up first
// (_resolve_obj_xref) and its lower case only then (_terms, where the
// last of the terms with that lower case is kept). Checked against
// sphinx-build 5.3's HTML for the same glossaries: "Node" and "node" are
// linked to #term-Node and #term-node, "NODE" and "nOde" to #term-node;
// with "node2" defined before "Node2", "NODE2" goes to #term-Node2.
func TestTermExactCase(t *testing.T) {
	src := "Case\n====\n\n.. glossary::\n\n   Node\n      Upper.\n\n   node\n      Lower.\n\n" +
		"   node2\n      Lower.\n\n   Node2\n      Upper.\n\n" +
		":term:`Node` and :term:`node` and :term:`NODE` and :term:`nOde`;\n" +
		":term:`Node2` and :term:`node2` and :term:`NODE2`.\n"
	got := toMarkdown(t, src)
	want := "[Node](#term-Node) and [node](#term-node) and [NODE](#term-node) and [nOde](#term-node);\n" +
		"[Node2](#term-Node2) and [node2](#term-node2) and [NODE2](#term-Node2)."
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
}

// TestGlossaryArgument checks that text on a glossary directive's own
// line is its first term, as docutils makes it the first line of the
// content of a directive that takes no argument, options apart (Sphinx
// warns when it is followed by an empty line and another term, which then
// joins its entry). Checked against sphinx-build 5.3's HTML:
// ".. glossary:: Arg Term" gives a term "Arg Term" with id
// term-Arg-Term, written with the terms of its entry, and :term:
// references to these terms link to their ids.
func TestGlossaryArgument(t *testing.T) {
	src := "Arg\n===\n\n" +
		".. glossary:: Arg Term\n\n   Other\n      Def.\n\n" +
		".. glossary:: First Arg\n   Second Line\n      Its definition.\n\n   Third\n      Third def.\n\n" +
		".. glossary:: Sorted Arg\n   :sorted:\n\n   Zed\n      Zed def.\n\n" +
		":term:`Arg Term`, :term:`other`, :term:`first arg`, :term:`second line`, :term:`sorted arg`.\n"
	doc, err := Split("docs/page.rst", []byte(src), nil, markdown.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	checkWords(t, []byte(src), doc)
	got := innerAnchors(doc)
	want := []string{"term-Arg-Term", "term-Other", "term-First-Arg", "term-Second-Line", "term-Third", "term-Sorted-Arg", "term-Zed"}
	if len(got) != 1 || !slices.Equal(got["arg/0"], want) {
		t.Errorf("inner anchors %q, want arg/0: %q", got, want)
	}
	text := toMarkdown(t, src)
	for _, w := range []string{"Arg Term\nOther\n\nDef.", "First Arg\nSecond Line\n\nIts definition.", "Sorted Arg\nZed\n\nZed def."} {
		if !strings.Contains(text, w) {
			t.Errorf("got\n%s\nwant it to hold the entry\n%s", text, w)
		}
	}
	wantText := "[Arg Term](#term-Arg-Term), [other](#term-Other), [first arg](#term-First-Arg), [second line](#term-Second-Line), [sorted arg](#term-Sorted-Arg)."
	if !strings.Contains(text, wantText) {
		t.Errorf("got\n%s\nwant it to hold\n%s", text, wantText)
	}
}
