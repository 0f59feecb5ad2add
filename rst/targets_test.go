package rst

import (
	"slices"
	"strings"
	"testing"

	"github.com/codex7/codex7/markdown"
)

// innerAnchors returns, for each section of doc with inner anchors, its
// anchor and part and those anchors.
func innerAnchors(doc *markdown.Document) map[string][]string {
	got := map[string][]string{}
	for _, s := range doc.Sections {
		if len(s.InnerAnchors) > 0 {
			got[s.Anchor+"/"+itoa(s.Part)] = s.InnerAnchors
		}
	}
	return got
}

// TestInnerAnchors checks that the ids Sphinx pages give places inside
// a section (labels not before a section title, :name: options, inline
// targets, a section's labels after the first) are the inner anchors of
// the section that holds them, on its first chunk, as the ids a :ref:
// to them links to.
func TestInnerAnchors(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      map[string][]string
		// anchors are the sections' anchors, when the case checks them.
		anchors []string
	}{{
		name: "labels before a paragraph, a code block, a note and a figure",
		src: "Deploying\n=========\n\nIntro.\n\nProxies\n-------\n\n.. _proxy_setup:\n\nAny proxy will do.\n\n" +
			".. _deploy-nginx:\n\n.. code-block:: nginx\n\n   proxy_pass http://app;\n\n" +
			".. _Proxy Warning:\n\n.. warning::\n\n   Trust the headers.\n\n" +
			".. _arch-figure:\n\n.. figure:: arch.png\n\n   How requests flow.\n\n" +
			"Servers\n-------\n\nText.\n",
		want: map[string][]string{"proxies/0": {"proxy-setup", "deploy-nginx", "proxy-warning", "arch-figure"}},
	}, {
		name: "a label before a code block followed by a title stays in its section",
		src: "Guide\n=====\n\n.. _hello-example:\n\n.. code-block:: python\n\n   print('hi')\n\n" +
			"Next\n----\n\nText.\n",
		want: map[string][]string{"guide/0": {"hello-example"}},
	}, {
		name: ":name: options and inline targets",
		src: "Config\n======\n\nSet the _`secret key` first.\n\n.. code-block:: python\n   :name: config-example\n   :caption: Loading\n\n" +
			"   app.config.from_object('settings')\n\n.. list-table:: Options\n   :name: options table\n\n   * - DEBUG\n     - off\n",
		want: map[string][]string{"config/0": {"secret-key", "config-example", "options-table"}},
	}, {
		name: "an inline target in a substitution's text",
		src:  "Config\n======\n\nUse |key|.\n\n.. |key| replace:: the _`signing key`\n",
		want: map[string][]string{"config/0": {"signing-key"}},
	}, {
		name: "a label before an object description is its section's",
		src: "API\n===\n\n.. module:: flask\n\n.. _app-object:\n\n.. class:: Flask(import_name)\n\n   The app.\n\n" +
			".. _route-decorator:\n\n.. method:: Flask.route(rule)\n   :noindex:\n\n   Registers a view.\n",
		// Sphinx moves the module's target, the first thing in the
		// section, onto the section (MoveModuleTargets).
		want: map[string][]string{"api/0": {"module-flask"}, "flask.Flask/0": {"app-object"}, "flask.Flask.route/0": {"route-decorator"}},
	}, {
		name: "a section's labels after the first",
		src:  "Guide\n=====\n\n.. _quickstart-routing:\n.. _routing-basics:\n\nRouting\n-------\n\nText.\n",
		want: map[string][]string{"quickstart-routing/0": {"routing-basics"}},
	}, {
		name:    "a label above a directive that shows nothing names the title after it",
		src:     "Guide\n=====\n\nText.\n\n.. _json-api:\n\n.. currentmodule:: flask.json\n\n.. index:: JSON\n\nJSON Support\n------------\n\nText.\n",
		want:    map[string][]string{},
		anchors: []string{"guide", "json-api"},
	}, {
		name:    "labels at the top and at the end of the file",
		src:     ".. _top:\n\n.. highlight:: python\n\nGuide\n=====\n\nText.\n\nEnd\n---\n\nLast words.\n\n.. _the-end:\n",
		want:    map[string][]string{"end/0": {"the-end"}},
		anchors: []string{"top", "end"},
	}, {
		name: "an id the page already has is not taken again",
		src:  "Usage\n=====\n\nText.\n\n.. _usage:\n\nMore text.\n\n.. _usage-notes:\n\nNotes.\n\nUsage Notes\n-----------\n\nText.\n",
		want: map[string][]string{"usage/0": {"usage-notes"}},
		// docutils gives the second "usage" an automatic id (id1), and
		// the title whose id the label holds the next one.
		anchors: []string{"usage", "id2"},
	}} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Split("docs/page.rst", []byte(c.src), nil, markdown.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if c.anchors != nil {
				var anchors []string
				for _, s := range doc.Sections {
					anchors = append(anchors, s.Anchor)
				}
				if !slices.Equal(anchors, c.anchors) {
					t.Errorf("anchors %q, want %q", anchors, c.anchors)
				}
			}
			got := innerAnchors(doc)
			if len(got) != len(c.want) {
				t.Errorf("inner anchors %q, want %q", got, c.want)
			}
			for k, w := range c.want {
				if !slices.Equal(got[k], w) {
					t.Errorf("%s: inner anchors %q, want %q (all %q)", k, got[k], w, got)
				}
			}
		})
	}
}

// TestInnerAnchorsFirstChunk checks that a label in a later chunk of an
// oversized section is its first chunk's inner anchor, the one links
// resolve to, and only that chunk's.
func TestInnerAnchorsFirstChunk(t *testing.T) {
	var b strings.Builder
	b.WriteString("Guide\n=====\n\nLong\n----\n\n")
	for i := range 40 {
		b.WriteString("Paragraph " + itoa(i) + " talks about the application factory and its configuration.\n\n")
	}
	b.WriteString(".. _late-label:\n\nThe paragraph a label names.\n\nAfter\n-----\n\nText.\n")
	doc, err := Split("docs/page.rst", []byte(b.String()), nil, markdown.Options{MaxSectionTokens: 100})
	if err != nil {
		t.Fatal(err)
	}
	var parts int
	for _, s := range doc.Sections {
		if s.Anchor != "long" {
			continue
		}
		parts = s.Parts
		want := []string(nil)
		if s.Part == 0 {
			want = []string{"late-label"}
		}
		if !slices.Equal(s.InnerAnchors, want) {
			t.Errorf("long, part %d: inner anchors %q, want %q", s.Part, s.InnerAnchors, want)
		}
	}
	if parts < 2 {
		t.Fatalf("section long has %d parts, want it split", parts)
	}
	if last := doc.Sections[len(doc.Sections)-2]; !strings.Contains(last.Text, "a label names") || last.Part == 0 {
		t.Fatalf("the labelled paragraph is not in a later chunk: %+v", last)
	}
}

// TestRefToLabelInsideSection checks what a :ref: to a label that names
// no section shows, as Sphinx does: with a title, that title, linked to
// the label's id; without one, the title of what the label names when it
// has one (a rubric, a figure's caption, a code block's, a table's, a
// definition list's first term), else the label as written, unlinked
// (Sphinx warns "A title or caption not found"). A label above a
// directive that adds nothing to the page (".. currentmodule::") names
// the section after it; one above an index entry names no section (its
// id stays just above it, where the reader makes it the section's
// anchor). A label of another file the reader cannot see stays a link,
// though the file shows one of that name in code.
func TestRefToLabelInsideSection(t *testing.T) {
	src := "Guide\n=====\n\n" +
		"See :ref:`the proxy notes <proxy-notes>`, :ref:`proxy-notes`, :ref:`Proxy-Notes`, :ref:`footnotes-label`,\n" +
		":ref:`arch`, :ref:`example`, :ref:`settings-table`, :ref:`terms`, :ref:`guide-label`, :ref:`named-block`\n" +
		":ref:`json-api`, :ref:`json-index` and :ref:`elsewhere`.\n\n" +
		".. _guide-label:\n\nNotes\n-----\n\n" +
		".. _proxy-notes:\n\nBehind a proxy, trust the headers.\n\n" +
		".. _footnotes-label:\n\n.. rubric:: Footnotes\n\n" +
		".. _arch:\n\n.. figure:: arch.png\n   :alt: boxes\n\n   The *request* flow.\n\n" +
		".. _example:\n\n.. code-block:: python\n   :caption: A minimal app\n\n   app = Flask(__name__)\n\n" +
		".. _settings-table:\n\n.. list-table:: Settings\n\n   * - DEBUG\n\n" +
		".. _terms:\n\nWSGI\n   The interface.\n\n" +
		".. code-block:: text\n   :name: named-block\n\n   plain\n\n" +
		".. _json-api:\n\n.. currentmodule:: flask.json\n\nJSON Support\n------------\n\nText.\n\n" +
		".. _json-index:\n\n.. index:: JSON\n\nJSON Index\n----------\n\nText.\n\n" +
		"A label is written so::\n\n   .. _elsewhere:\n\n.. code-block:: rst\n\n   .. _elsewhere:\n"
	got := toMarkdown(t, src)
	want := "See [the proxy notes](#proxy-notes), proxy-notes, Proxy-Notes, [Footnotes](#footnotes-label),\n" +
		"[The request flow.](#arch), [A minimal app](#example), [Settings](#settings-table), [WSGI](#terms), [Notes](#guide-label), named-block\n" +
		"[JSON Support](#json-api), json-index and [elsewhere](#elsewhere)."
	if !strings.Contains(got, want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", got, want)
	}
}
