package pipeline

import (
	"testing"

	"github.com/codex7/codex7/markdown"
)

// TestAssembleGivesInboundLinks checks that each index entry carries the
// texts of the links other documents point at its section with.
func TestAssembleGivesInboundLinks(t *testing.T) {
	split := func(path, src string) *markdown.Document {
		d, err := markdown.Split(path, []byte(src), markdown.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	docs := []*markdown.Document{
		split("docs/config.md", "# Config\n\nAll options.\n\n## base\n\nThe public path.\n"),
		split("docs/guide.md", "# Guide\n\nServe it from [a nested public path](config.md#base) or [anywhere](./config).\n"),
	}
	v, err := Assemble(docs, nil, Navigation{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range v.Entries {
		got[e.Path+"#"+e.Section.Anchor] = e.Inbound
	}
	want := map[string]string{"docs/config.md#config": "anywhere", "docs/config.md#base": "a nested public path", "docs/guide.md#guide": ""}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: inbound %q, want %q", id, got[id], w)
		}
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
